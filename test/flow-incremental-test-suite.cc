/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FlowNetwork's IncrementalSolve: after ends alone, only the flows at or above
// the lowest ended rate are solved again. Checked against rates worked out by
// hand (a flow whose rate falls when another ends, flows held elsewhere that
// keep theirs) and against whole solves of random problems, with one class and
// with two.

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/flow-network.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A flow of a scenario: its links, bytes, class and start.
struct FlowCase
{
    std::vector<uint32_t> links;
    double bytes;
    uint8_t priority{0};
    double start{0}; //!< s
};

/// What a run gives: each flow's end (s) and the network's solve counts.
struct Ends
{
    std::vector<double> at;
    uint64_t solves{0};
    uint64_t incremental{0};
};

/// \return each flow's end, run on links of these capacities (B/s)
Ends
RunFlows(const std::vector<double>& capacities,
         const std::vector<FlowCase>& flows,
         bool incremental)
{
    Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
    network->SetAttribute("IncrementalSolve", BooleanValue(incremental));
    network->SetAttribute("FinishTolerance", DoubleValue(0)); // (every end exact)
    std::vector<uint32_t> link;
    for (double c : capacities)
    {
        link.push_back(network->AddLink(c));
    }
    Ends ends;
    ends.at.assign(flows.size(), -1);
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        FlowNetwork::FlowSpec spec;
        for (uint32_t l : flows[i].links)
        {
            spec.uses.emplace_back(link.at(l), 1.0);
        }
        spec.bytes = flows[i].bytes;
        spec.priority = flows[i].priority;
        auto start = [network, spec, &ends, i]()
        {
            network->StartFlow(spec,
                               Callback<void>(
                                   [&ends, i]()
                                   {
                                       ends.at[i] = Simulator::Now().GetSeconds();
                                   }));
        };
        Simulator::Schedule(Seconds(flows[i].start), start);
    }
    Simulator::Run();
    ends.solves = network->GetSolves();
    ends.incremental = network->GetIncrementalSolves();
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
            NS_TEST_ASSERT_MSG_EQ(ends.incremental,
                                  expectedIncremental,
                                  "solves of the flows above the ended rate");
        }
    }
};

/**
 * Random problems: 400 flows over 1 to 4 of 16 links (1, 2 or 4 GB/s), 10 kB
 * to 10 MB, half starting at 0 and half within the first 5 ms, so that ends
 * alone and starts both come. Every end agrees with whole solves to 1e-9; with
 * one class most solves after ends are incremental. With two classes a
 * solve that meets the other class solves the whole component.
 */
class RandomProblemsTestCase : public TestCase
{
public:
    RandomProblemsTestCase(uint32_t seed, bool twoClasses)
        : TestCase("IncrementalSolve: random problems, seed " + std::to_string(seed)
                   + (twoClasses ? ", two classes" : ", one class"))
        , m_seed(seed)
        , m_twoClasses(twoClasses)
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
        std::vector<FlowCase> flows(400);
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            std::vector<uint32_t> all(links);
            for (uint32_t l = 0; l < links; ++l)
            {
                all[l] = l;
            }
            std::shuffle(all.begin(), all.end(), random);
            all.resize(std::uniform_int_distribution<int>(1, 4)(random));
            flows[i].links = all;
            flows[i].bytes = std::uniform_real_distribution<double>(1e4, 1e7)(random);
            flows[i].priority = m_twoClasses ? std::uniform_int_distribution<int>(0, 1)(random) : 0;
            flows[i].start
                = i % 2 == 0 ? 0 : std::uniform_real_distribution<double>(0, 5e-3)(random);
        }
        Ends whole = RunFlows(capacities, flows, false);
        Ends incremental = RunFlows(capacities, flows, true);
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(whole.at[i], 0, "flow " << i << " ended");
            NS_TEST_ASSERT_MSG_EQ_TOL(incremental.at[i],
                                      whole.at[i],
                                      1e-9 * whole.at[i],
                                      "flow " << i << ": the end of whole solves");
        }
        NS_TEST_ASSERT_MSG_EQ(whole.incremental, 0, "whole solves only");
        if (!m_twoClasses)
        {
            NS_TEST_ASSERT_MSG_GT(
                incremental.incremental, incremental.solves / 2, "most solves after ends alone");
        }
    }

    uint32_t m_seed;
    bool m_twoClasses;
};

class FlowIncrementalTestSuite : public TestSuite
{
public:
    FlowIncrementalTestSuite()
        : TestSuite("dlnet-flow-incremental", UNIT)
    {
        AddTestCase(new HandWorkedTestCase, TestCase::QUICK);
        for (uint32_t seed : {1, 2, 3})
        {
            AddTestCase(new RandomProblemsTestCase(seed, false), TestCase::QUICK);
        }
        AddTestCase(new RandomProblemsTestCase(4, true), TestCase::QUICK);
    }
};

FlowIncrementalTestSuite g_flowIncrementalTestSuite;

} // namespace
