/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FlowNetwork's IncrementalSolve: after ends alone, only the flows at or above
// the lowest ended rate are solved again. Checked against rates worked out by
// hand (a flow whose rate falls when another ends, flows held elsewhere that
// keep theirs) and, on random problems with one class and with two, against
// whole solves and against a fluid simulation of the test's own, which solves
// every flow afresh at each event and so shares no bookkeeping with FlowNetwork.
// Also FinishTolerance's rule, on hand-worked ends: each flow at its exact end
// at 0 (to the picosecond); by default, a flow due within 1e-4 of the time it
// has been sending ends with the flows that end, unless rates are about to be
// solved again at that instant.

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/flow-network.h"
#include "ns3/max-min-solver.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// How many of the clock's ticks a FlowNetwork end may lie from the reference's: each end
/// falls on a tick and shifts the rest by less than one (4.5 ns the most measured at 1 ns, seed 8).
const int REFERENCE_TICKS = 20;

/// A flow of a scenario: its links, bytes, class and start.
struct FlowCase
{
    std::vector<uint32_t> links;
    double bytes;
    uint8_t priority{0};
    double start{0};                  //!< s
    std::vector<double> weights{};    //!< by link: its weight (empty: 1 on each)
    double cap{MaxMinSolver::NO_CAP}; //!< B/s
    uint8_t vc{0};                    //!< virtual channel (1 goes first in a class)
    int after{-1}; //!< a flow whose end starts it (as a message's next chunk), or -1: start
};

/// What a run gives: each flow's end (s) and the network's solve counts.
struct Ends
{
    std::vector<double> at;
    uint64_t solves{0};
    uint64_t incremental{0};
    uint64_t replacements{0};
};

/// \return each flow's end, run on links of these capacities (B/s)
Ends
RunFlows(const std::vector<double>& capacities,
         const std::vector<FlowCase>& flows,
         bool incremental,
         bool sourceLockStep = false,
         double finishTolerance = 0) // (0: every end exact)
{
    Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
    network->SetAttribute("IncrementalSolve", BooleanValue(incremental));
    network->SetAttribute("SourceLockStep", BooleanValue(sourceLockStep));
    network->SetAttribute("FinishTolerance", DoubleValue(finishTolerance));
    std::vector<uint32_t> link;
    for (double c : capacities)
    {
        link.push_back(network->AddLink(c));
    }
    Ends ends;
    ends.at.assign(flows.size(), -1);
    std::vector<std::function<void()>> start(flows.size());
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        FlowNetwork::FlowSpec spec;
        for (std::size_t u = 0; u < flows[i].links.size(); ++u)
        {
            spec.uses.emplace_back(link.at(flows[i].links[u]),
                                   flows[i].weights.empty() ? 1.0 : flows[i].weights[u]);
        }
        spec.bytes = flows[i].bytes;
        spec.priority = flows[i].priority;
        spec.cap = flows[i].cap;
        spec.vc = flows[i].vc;
        start[i] = [network, spec, &ends, &flows, &start, i]()
        {
            network->StartFlow(spec,
                               Callback<void>(
                                   [&ends, &flows, &start, i]()
                                   {
                                       ends.at[i] = Simulator::Now().GetSeconds();
                                       for (std::size_t j = 0; j < flows.size(); ++j)
                                       {
                                           if (flows[j].after == static_cast<int>(i))
                                           {
                                               start[j]();
                                           }
                                       }
                                   }));
        };
        if (flows[i].after < 0)
        {
            Simulator::Schedule(Seconds(flows[i].start), start[i]);
        }
    }
    Simulator::Run();
    ends.solves = network->GetSolves();
    ends.incremental = network->GetIncrementalSolves();
    ends.replacements = network->GetReplacements();
    network->Dispose();
    Simulator::Destroy();
    return ends;
}

/**
 * Links A (2 GB/s), B (3 GB/s) and C (1 GB/s); f on A, g on A and B, h on B,
 * q on B and C, p on C. Max-min: C fills first (p = q = 0.5 GB/s), then A
 * (f = g = 1), then B (h = 3 - 1 - 0.5 = 1.5). f (1 MB) ends at 1 ms: g and h
 * (at or above 1) are solved again on what p and q leave of B, 2.5 GB/s:
 * g = h = 1.25 (h falls: max-min is not monotone); p and q keep 0.5. g
 * (2.25 MB) ends at 2 ms, h alone on B's 2.5 (4 MB) ends at 2.5 ms, p and q
 * (2 MB) at 4 ms.
 */
class HandWorkedTestCase : public TestCase
{
public:
    HandWorkedTestCase()
        : TestCase("IncrementalSolve: rates worked out by hand, one of them falling")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t A = 0;
        const uint32_t B = 1;
        const uint32_t C = 2;
        std::vector<FlowCase> flows{
            {{A}, 1e6}, {{A, B}, 2.25e6}, {{B}, 4e6}, {{B, C}, 2e6}, {{C}, 2e6}};
        const std::vector<double> expected{1e-3, 2e-3, 2.5e-3, 4e-3, 4e-3};
        for (bool incremental : {true, false})
        {
            Ends ends = RunFlows({2e9, 3e9, 1e9}, flows, incremental);
            for (std::size_t i = 0; i < flows.size(); ++i)
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(ends.at[i],
                                          expected[i],
                                          1e-12,
                                          "flow " << i << ", IncrementalSolve " << incremental);
            }
            // (the ends at 1 and 2 ms; at 2.5 ms only q, held by C, is left on B)
            const uint64_t expectedIncremental = incremental ? 2 : 0;
            NS_TEST_ASSERT_MSG_EQ(
                ends.incremental, expectedIncremental, "solves of the flows above the ended rate");
        }
    }
};

/**
 * A flow that lists a link more than once (the paths of a sprayed flow that
 * meet) leaves the link's list whole when the others around it end and when
 * it ends itself.
 *
 * Twice: one link of 1 GB/s; A, G (twice, 1/2 + 1/2) and B start at 0 at
 * 1/3 each; A (1/3 MB) ends at 1 ms, B (7/12 MB) at 1.5 ms, G runs alone; C
 * and D start at 2 ms, all three at 1/3; G (17/12 MB) ends at 3 ms; C
 * (5/6 MB) at 4 ms and D (4/3 MB) alone from there at 4.5 ms. (Before,
 * ending B moved G's second entry without telling it, and ending G then
 * dropped C from the link and left G on it.)
 *
 * Three times: A, B, C, D and F (three times, 1/3 each) start at 0 at
 * 0.2 GB/s each; D (0.2 MB) ends at 1 ms, A (0.45 MB) at 2 ms, C (47/60 MB)
 * at 3 ms, F (77/60 MB) at 4 ms, B (2 MB) alone from there at 4 + 43/60 ms.
 * (Before, ending F matched a slot of its own use already gone, wrote past
 * the list's end and dropped B.)
 */
class LinkListedTwiceTestCase : public TestCase
{
public:
    LinkListedTwiceTestCase()
        : TestCase(
            "IncrementalSolve: a flow listing a link two or three times leaves its list whole")
    {
    }

private:
    void DoRun() override
    {
        const double mb = 1e6;
        FlowCase a{{0}, mb / 3};
        FlowCase g{{0, 0}, 17 * mb / 12};
        g.weights = {0.5, 0.5};
        FlowCase b{{0}, 7 * mb / 12};
        FlowCase c{{0}, 5 * mb / 6, 0, 2e-3};
        FlowCase d{{0}, 4 * mb / 3, 0, 2e-3};
        const std::vector<double> twice{1e-3, 3e-3, 1.5e-3, 4e-3, 4.5e-3};
        FlowCase a3{{0}, 0.45 * mb};
        FlowCase b3{{0}, 2 * mb};
        FlowCase c3{{0}, 47 * mb / 60};
        FlowCase d3{{0}, 0.2 * mb};
        FlowCase f3{{0, 0, 0}, 77 * mb / 60};
        f3.weights = {1.0 / 3, 1.0 / 3, 1.0 / 3};
        const std::vector<double> thrice{2e-3, 4e-3 + 43e-3 / 60, 3e-3, 1e-3, 4e-3};
        // (43/60 ms: an end rounds to the clock's tick, 1 ns by default)
        const std::vector<std::tuple<std::string, std::vector<FlowCase>, std::vector<double>>>
            cases{{"twice", {a, g, b, c, d}, twice}, {"three times", {a3, b3, c3, d3, f3}, thrice}};
        for (bool incremental : {true, false})
        {
            for (const auto& [name, flows, expected] : cases)
            {
                Ends ends = RunFlows({1e9}, flows, incremental);
                for (std::size_t i = 0; i < expected.size(); ++i)
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(ends.at[i],
                                              expected[i],
                                              1e-9,
                                              name << ": flow " << i << ", IncrementalSolve "
                                                   << incremental);
                }
            }
        }
    }
};

/**
 * Each flow's end (s) by a fluid simulation of the test's own: at every start
 * and end, the max-min rates of all the flows then active, solved afresh over
 * every link by a MaxMinSolver (whose GoogleTests check it against rates worked
 * out by hand). It keeps no link lists, components or rates between events, so
 * it shares nothing with FlowNetwork's bookkeeping (Start, Remove, the search
 * for the flows a change reaches, the incremental solve).
 */
std::vector<double>
ReferenceEnds(const std::vector<double>& capacities, const std::vector<FlowCase>& flows)
{
    std::vector<std::size_t> order(flows.size());
    for (std::size_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    order.erase(std::remove_if(order.begin(),
                               order.end(),
                               [&flows](std::size_t i)
                               {
                                   return flows[i].after >= 0; // (started by an end)
                               }),
                order.end());
    std::stable_sort(order.begin(),
                     order.end(),
                     [&flows](std::size_t a, std::size_t b)
                     {
                         return flows[a].start < flows[b].start;
                     });
    std::vector<double> remaining(flows.size());
    std::vector<double> ends(flows.size(), -1);
    std::vector<std::size_t> active;
    std::size_t started = 0;
    double now = 0;
    MaxMinSolver solver;
    while (started < order.size() || !active.empty())
    {
        if (active.empty())
        {
            now = std::max(now, flows[order[started]].start);
        }
        while (started < order.size() && flows[order[started]].start <= now)
        {
            remaining[order[started]] = flows[order[started]].bytes;
            active.push_back(order[started++]);
        }
        solver.Reset(capacities.size());
        for (uint32_t l = 0; l < capacities.size(); ++l)
        {
            solver.SetCapacity(l, capacities[l]);
        }
        for (std::size_t f : active)
        {
            // a class's VC 1 is served before its VC 0: a level above it
            const auto level = static_cast<uint8_t>(2 * flows[f].priority + (flows[f].vc ? 0 : 1));
            uint32_t s = solver.AddFlow(level, flows[f].cap);
            for (std::size_t u = 0; u < flows[f].links.size(); ++u)
            {
                solver.AddUse(
                    s, flows[f].links[u], flows[f].weights.empty() ? 1.0 : flows[f].weights[u]);
            }
        }
        solver.Solve();
        double step = started < order.size() ? flows[order[started]].start - now
                                             : std::numeric_limits<double>::infinity();
        for (uint32_t s = 0; s < active.size(); ++s)
        {
            if (solver.GetRate(s) > 0)
            {
                step = std::min(step, remaining[active[s]] / solver.GetRate(s));
            }
        }
        now += step;
        std::vector<std::size_t> still;
        for (uint32_t s = 0; s < active.size(); ++s)
        {
            const double rate = solver.GetRate(s);
            remaining[active[s]] -= rate * step;
            if (rate > 0 && remaining[active[s]] <= rate * 1e-12) // (within a picosecond)
            {
                ends[active[s]] = now;
                for (std::size_t j = 0; j < flows.size(); ++j)
                {
                    if (flows[j].after == static_cast<int>(active[s]))
                    {
                        remaining[j] = flows[j].bytes;
                        still.push_back(j);
                    }
                }
            }
            else
            {
                still.push_back(active[s]);
            }
        }
        active.swap(still);
    }
    return ends;
}

/**
 * Flows started by ends take the ended flows' places. Links X (1 GB/s), Y
 * (2 GB/s) and Z (1 GB/s); P on X and Y, Q (6 MB) on Y: X holds P to 1 GB/s,
 * Q takes the other 1 GB/s of Y.
 *
 * Chunks: P1, P2, P3 (1 MB each, the next starting when one ends) on X and Y
 * end at 1, 2 and 3 ms; at 1 and 2 ms the next takes its predecessor's place
 * and rate, nothing is solved (two replacements); from 3 ms Q is alone on Y at
 * 2 GB/s with 3 MB left: it ends at 4.5 ms.
 *
 * Each of the others changes the problem, which is solved:
 * - another route, P2 on X and Z: Q takes 2 GB/s from 1 to 2 ms (3 MB left),
 *   1 GB/s beside P3 to 3 ms, then 2 GB/s alone: it ends at 4 ms;
 * - another cap, P2 capped at 0.5 GB/s: Q takes 1.5 GB/s from 1 ms; P2 ends
 *   at 3 ms (Q has 2 MB left), P3 at 4 ms beside Q at 1 GB/s, Q at 4.5 ms;
 * - another class, P2 in class 1: Q, class 0, takes all of Y and ends at
 *   3.5 ms; P2 waits for it and ends at 4.5 ms, P3 at 5.5 ms;
 * - P2 on VC 1, or on Y then X: the same rates (X still holds P2 to 1 GB/s),
 *   but not the same flow, so solved: the same ends, no replacement;
 * - P2 with half its bytes on each of X and Y (weights 1/2, as sprayed): Y's
 *   2 GB/s is shared as Q + P2/2, Q = P2 = 4/3 GB/s; P2 ends at 1.75 ms, P3 at
 *   2.75 ms beside Q at 1 GB/s (3 MB left), Q alone at 4.25 ms.
 *
 * Under SourceLockStep (bundles per source, not flows) nothing is replaced;
 * the ends are the same. Every replacement is an instant not solved.
 *
 * Two at once: A1 (1 MB on X) and B1 (2 MB on Y) end together at 1 ms at
 * different rates; A2 and B2, the same again, take their places each with its
 * own predecessor's rate (one replacement) and end together at 2 ms. Two for
 * one: A2 and C2 (1 MB on X, started by B1's end) match A1 both, B1 neither;
 * they are solved, share X and end at 3 ms.
 */
class ReplacementTestCase : public TestCase
{
public:
    ReplacementTestCase()
        : TestCase("IncrementalSolve: chunks on the same route take their predecessors' rates")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t X = 0;
        const uint32_t Y = 1;
        const uint32_t Z = 2;
        const double mb = 1e6;
        FlowCase q{{Y}, 6 * mb};
        FlowCase p1{{X, Y}, mb};
        FlowCase p2{{X, Y}, mb};
        p2.after = 1;
        FlowCase p3{{X, Y}, mb};
        p3.after = 2;
        FlowCase route = p2;
        route.links = {X, Z};
        FlowCase capped = p2;
        capped.cap = 0.5e9;
        FlowCase lower = p2;
        lower.priority = 1;
        FlowCase channel = p2;
        channel.vc = 1;
        FlowCase reversed = p2;
        reversed.links = {Y, X};
        FlowCase halves = p2;
        halves.weights = {0.5, 0.5};
        FlowCase a1{{X}, mb};
        FlowCase b1{{Y}, 2 * mb};
        FlowCase a2 = a1;
        a2.after = 0;
        FlowCase b2 = b1;
        b2.after = 1;
        FlowCase c2 = a1;
        c2.after = 1;
        struct Case
        {
            std::string name;
            std::vector<FlowCase> flows;
            std::vector<double> expected; //!< by flow (ms)
            uint64_t replacements;
        };
        const std::vector<Case> cases{
            {"the same route", {q, p1, p2, p3}, {4.5, 1, 2, 3}, 2},
            {"another route", {q, p1, route, p3}, {4, 1, 2, 3}, 0},
            {"another cap", {q, p1, capped, p3}, {4.5, 1, 3, 4}, 0},
            {"another class", {q, p1, lower, p3}, {3.5, 1, 4.5, 5.5}, 0},
            {"another VC", {q, p1, channel, p3}, {4.5, 1, 2, 3}, 0},
            {"links in another order", {q, p1, reversed, p3}, {4.5, 1, 2, 3}, 0},
            {"other weights", {q, p1, halves, p3}, {4.25, 1, 1.75, 2.75}, 0},
            {"two at once", {a1, b1, a2, b2}, {1, 1, 2, 2}, 1},
            {"two for one", {a1, b1, a2, c2}, {1, 1, 3, 3}, 0}};
        for (const Case& c : cases)
        {
            Ends whole = RunFlows({1e9, 2e9, 1e9}, c.flows, false);
            Ends incremental = RunFlows({1e9, 2e9, 1e9}, c.flows, true);
            Ends lockStep = RunFlows({1e9, 2e9, 1e9}, c.flows, true, true);
            for (std::size_t i = 0; i < c.expected.size(); ++i)
            {
                for (const Ends* ends : {&whole, &incremental, &lockStep})
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(ends->at[i],
                                              c.expected[i] * 1e-3,
                                              1e-12,
                                              c.name << ": flow " << i << ", run "
                                                     << (ends == &whole         ? "whole"
                                                         : ends == &incremental ? "incremental"
                                                                                : "lock-step"));
                }
            }
            NS_TEST_ASSERT_MSG_EQ(incremental.replacements, c.replacements, c.name);
            NS_TEST_ASSERT_MSG_EQ(whole.replacements, 0, c.name << ": whole solves only");
            NS_TEST_ASSERT_MSG_EQ(
                lockStep.replacements, 0, c.name << ": none under SourceLockStep");
            // (each replacement is an instant not solved; incremental solves count as solves)
            NS_TEST_ASSERT_MSG_EQ(
                incremental.solves + incremental.replacements, whole.solves, c.name << ": solves");
        }
    }
};

/**
 * \return how many instants (flows ending at the same time) have each ended flow followed by
 * exactly one flow, a copy of it but for its bytes, and nothing else starting: at each of these
 * the started flows take the ended flows' places (ReplaceEnded), whatever the rest of the problem
 */
uint64_t
ChunkInstants(const std::vector<FlowCase>& flows, const std::vector<double>& ends)
{
    std::map<double, std::vector<std::size_t>> endedAt;
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        endedAt[ends[i]].push_back(i);
    }
    std::set<double> rootStarts;
    for (const FlowCase& f : flows)
    {
        if (f.after < 0)
        {
            rootStarts.insert(Seconds(f.start).GetSeconds());
        }
    }
    auto copies = [](const FlowCase& a, const FlowCase& b)
    {
        return a.links == b.links && a.weights == b.weights && a.cap == b.cap
               && a.priority == b.priority && a.vc == b.vc;
    };
    uint64_t instants = 0;
    for (const auto& [at, ended] : endedAt)
    {
        bool chunks = rootStarts.count(at) == 0;
        for (std::size_t i : ended)
        {
            std::vector<std::size_t> next;
            for (std::size_t j = 0; j < flows.size(); ++j)
            {
                if (flows[j].after == static_cast<int>(i))
                {
                    next.push_back(j);
                }
            }
            chunks = chunks && next.size() == 1 && copies(flows[next[0]], flows[i]);
        }
        instants += chunks ? 1 : 0;
    }
    return instants;
}

/// What a random problem's flows have beyond their links, bytes and starts.
enum class Mix
{
    ONE_CLASS,   //!< one class, weight 1 on each link
    TWO_CLASSES, //!< classes 0 and 1
    SPRAYED,     //!< one class; some flows split over two paths (weights 1/2, a link listed
                 //!< twice where the paths meet), some capped, some on VC 1 (a level above)
    CHAINS,      //!< as SPRAYED, and three in four flows start when an earlier one ends, most
                 //!< on its links with its weights, cap and VC (a message's next chunk)
};

/**
 * Random problems: 400 flows over 1 to 4 of 16 links (1, 2 or 4 GB/s), 10 kB
 * to 10 MB, half starting at 0 and half within the first 5 ms, so that ends
 * alone and starts both come. Every end agrees with whole solves to 1e-9, the
 * whole solves' with ReferenceEnds to 20 of the clock's ticks, and
 * some solves after ends are incremental: most with one class; with two
 * classes (or VC 1 above VC 0) those after ends of the lower level beside the
 * higher, whose rates it keeps; an end beside a lower level solves the whole
 * component.
 */
class RandomProblemsTestCase : public TestCase
{
public:
    RandomProblemsTestCase(uint32_t seed, Mix mix)
        : TestCase("IncrementalSolve: random problems, seed " + std::to_string(seed)
                   + (mix == Mix::ONE_CLASS     ? ", one class"
                      : mix == Mix::TWO_CLASSES ? ", two classes"
                      : mix == Mix::SPRAYED     ? ", sprayed, capped and VC 1 flows"
                                                : ", chains of flows started by ends"))
        , m_seed(seed)
        , m_mix(mix)
    {
    }

private:
    void DoRun() override
    {
        std::mt19937 random(m_seed);
        const uint32_t links = 16;
        std::vector<double> capacities;
        for (uint32_t l = 0; l < links; ++l)
        {
            capacities.push_back(1e9 * (1u << std::uniform_int_distribution<int>(0, 2)(random)));
        }
        auto path = [&random, links]()
        {
            std::vector<uint32_t> all(links);
            for (uint32_t l = 0; l < links; ++l)
            {
                all[l] = l;
            }
            std::shuffle(all.begin(), all.end(), random);
            all.resize(std::uniform_int_distribution<int>(1, 4)(random));
            return all;
        };
        auto chance = [&random](double p)
        {
            return std::uniform_real_distribution<double>(0, 1)(random) < p;
        };
        std::vector<FlowCase> flows(400);
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            flows[i].links = path();
            flows[i].bytes = std::uniform_real_distribution<double>(1e4, 1e7)(random);
            flows[i].priority
                = m_mix == Mix::TWO_CLASSES ? std::uniform_int_distribution<int>(0, 1)(random) : 0;
            flows[i].start
                = i % 2 == 0 ? 0 : std::uniform_real_distribution<double>(0, 5e-3)(random);
            if (m_mix == Mix::CHAINS && i % 8 == 4) // (half the chains' roots start late)
            {
                flows[i].start = std::uniform_real_distribution<double>(0, 5e-3)(random);
            }
            if (m_mix != Mix::SPRAYED && m_mix != Mix::CHAINS)
            {
                continue;
            }
            if (chance(0.3))
            {
                std::vector<uint32_t> other = path();
                flows[i].weights.assign(flows[i].links.size() + other.size(), 0.5);
                flows[i].links.insert(flows[i].links.end(), other.begin(), other.end());
            }
            if (chance(0.2))
            {
                flows[i].cap = std::uniform_real_distribution<double>(5e7, 5e8)(random);
            }
            flows[i].vc = chance(0.2) ? 1 : 0;
            if (m_mix == Mix::CHAINS && i % 4 != 0)
            {
                const auto after = std::uniform_int_distribution<int>(0, i - 1)(random);
                if (chance(0.8))
                {
                    flows[i] = flows[after]; // (the same links, weights, cap, class and VC)
                    flows[i].bytes = std::uniform_real_distribution<double>(1e4, 1e7)(random);
                }
                flows[i].after = after;
            }
        }
        Ends whole = RunFlows(capacities, flows, false);
        Ends incremental = RunFlows(capacities, flows, true);
        const std::vector<double> reference = ReferenceEnds(capacities, flows);
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(whole.at[i], 0, "flow " << i << " ended");
            NS_TEST_ASSERT_MSG_EQ_TOL(incremental.at[i],
                                      whole.at[i],
                                      1e-9 * whole.at[i],
                                      "flow " << i << ": the end of whole solves");
            NS_TEST_ASSERT_MSG_EQ_TOL(whole.at[i],
                                      reference[i],
                                      REFERENCE_TICKS * TimeStep(1).GetSeconds(),
                                      "flow " << i << ": the end of a fluid simulation of "
                                              << "the test's own");
        }
        NS_TEST_ASSERT_MSG_EQ(whole.incremental + whole.replacements, 0, "whole solves only");
        if (m_mix == Mix::CHAINS)
        {
            NS_TEST_ASSERT_MSG_EQ(incremental.replacements,
                                  ChunkInstants(flows, incremental.at),
                                  "replacements, against the instants where each flow that "
                                  "ends is followed by one copy of itself alone");
        }
        // (each replacement an instant not solved; an end that leaves nothing to solve is none)
        NS_TEST_ASSERT_MSG_LT_OR_EQ(incremental.solves + incremental.replacements,
                                    whole.solves,
                                    "solves: " << incremental.solves << " and "
                                               << incremental.replacements
                                               << " replacements, whole " << whole.solves);
        NS_TEST_ASSERT_MSG_GT(incremental.incremental, 0, "some solves after ends alone");
        if (m_mix == Mix::ONE_CLASS)
        {
            NS_TEST_ASSERT_MSG_GT(
                incremental.incremental, incremental.solves / 2, "most solves after ends alone");
        }
    }

    uint32_t m_seed;
    Mix m_mix;
};

/**
 * FinishTolerance on flows of two links of 10 GB/s (1e10 B/s), worked by hand.
 *
 * - Exact ends (tolerance 0) one tick apart: on links of one byte per tick of
 *   the clock, 1e6 B end at 1,000,000 ticks and 1e6 + 1 B one tick later, not
 *   together. (The resolution is the one the process has: picoseconds once
 *   a dlnet cluster was built, else ns-3's nanoseconds; it can be set only
 *   before any Time exists.)
 * - The time it has been sending, through a rate change: A (1e6 B, link 0)
 *   ends at 100 us. X (450,000 B) and Y (550,050 B) share link 1 at 5e9 B/s;
 *   X ends at 90 us, Y then has 100,050 B left alone at 1e10 B/s, due at
 *   100.005 us: 5 ns after A, within 1e-4 of the 100.005 us Y has been
 *   sending (10 ns), so Y ends with A at 100 us. (Counted from Y's last rate
 *   change, 10.005 us, the allowance would be 1 ns: Y at 100.005 us.)
 * - Not when rates change at that instant: A and Y (1e6 + 50 B, link 1) as
 *   above, and 4 flows of 1e6 B start on link 1 at 100 us, as A ends. Y, due
 *   5 ns after A at the old rate, now shares link 1 five ways (2e9 B/s): its
 *   last 50 B take 25 ns, so it ends between 100.025 us less its allowance
 *   (1e-4 of 100.025 us, 10 ns) and 100.025 us, not with A at 100 us. (The
 *   starts are scheduled before the run, so at 100 us they come before A's
 *   end, which FlowNetwork schedules once running: its end then sees the
 *   re-solve pending, the case the rule is for.)
 */
class FinishToleranceRuleTestCase : public TestCase
{
public:
    FinishToleranceRuleTestCase()
        : TestCase("FinishTolerance: exact ends a tick apart; the allowance counts the time a flow "
                   "has been sending; no ends taken together before a re-solve at that instant")
    {
    }

private:
    void DoRun() override
    {
        const double tick = TimeStep(1).GetSeconds();
        Ends exact = RunFlows({1 / tick, 1 / tick}, {{{0}, 1e6}, {{1}, 1e6 + 1}}, true, false, 0);
        NS_TEST_ASSERT_MSG_EQ_TOL(exact.at[0], 1e6 * tick, tick / 10, "1e6 B, a byte a tick");
        NS_TEST_ASSERT_MSG_EQ_TOL(
            exact.at[1], (1e6 + 1) * tick, tick / 10, "one byte more, one tick later");

        for (bool incremental : {true, false})
        {
            Ends sending = RunFlows(
                {1e10, 1e10}, {{{0}, 1e6}, {{1}, 450000}, {{1}, 550050}}, incremental, false, 1e-4);
            NS_TEST_ASSERT_MSG_EQ_TOL(sending.at[0], 100e-6, 1e-13, "A");
            NS_TEST_ASSERT_MSG_EQ_TOL(sending.at[1], 90e-6, 1e-13, "X");
            NS_TEST_ASSERT_MSG_EQ_TOL(sending.at[2],
                                      100e-6,
                                      1e-13,
                                      "Y ends with A (IncrementalSolve " << incremental << ")");

            std::vector<FlowCase> starting{{{0}, 1e6}, {{1}, 1e6 + 50}};
            for (int i = 0; i < 4; ++i)
            {
                starting.push_back({{1}, 1e6, 0, 100e-6});
            }
            Ends restart = RunFlows({1e10, 1e10}, starting, incremental, false, 1e-4);
            NS_TEST_ASSERT_MSG_EQ_TOL(restart.at[0], 100e-6, 1e-13, "A");
            const double due = 100.025e-6;
            NS_TEST_ASSERT_MSG_GT_OR_EQ(restart.at[1],
                                        due - 1e-4 * due - 1e-13,
                                        "Y not taken with A before the re-solve (IncrementalSolve "
                                            << incremental << ")");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(restart.at[1], due + 1e-13, "Y by its end at 2e9 B/s");
        }
    }
};

class FlowIncrementalTestSuite : public TestSuite
{
public:
    FlowIncrementalTestSuite()
        : TestSuite("dlnet-flow-incremental", UNIT)
    {
        AddTestCase(new HandWorkedTestCase, TestCase::QUICK);
        AddTestCase(new LinkListedTwiceTestCase, TestCase::QUICK);
        AddTestCase(new ReplacementTestCase, TestCase::QUICK);
        AddTestCase(new FinishToleranceRuleTestCase, TestCase::QUICK);
        for (uint32_t seed : {1, 2, 3})
        {
            AddTestCase(new RandomProblemsTestCase(seed, Mix::ONE_CLASS), TestCase::QUICK);
        }
        AddTestCase(new RandomProblemsTestCase(4, Mix::TWO_CLASSES), TestCase::QUICK);
        for (uint32_t seed : {5, 6})
        {
            AddTestCase(new RandomProblemsTestCase(seed, Mix::SPRAYED), TestCase::QUICK);
        }
        for (uint32_t seed : {7, 8})
        {
            AddTestCase(new RandomProblemsTestCase(seed, Mix::CHAINS), TestCase::QUICK);
        }
    }
};

FlowIncrementalTestSuite g_flowIncrementalTestSuite;

} // namespace
