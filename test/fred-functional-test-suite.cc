/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FRED's in-switch collectives (issue 5) carry real data: all-reduce,
// reduce-scatter and all-gather through one switch level (groups under one
// L1) and two (groups across L1s, reduced again at L2) on Fred-B and Fred-D,
// for groups of 2..20 NPUs and several groups at once. Every element is
// compared with the sum computed here. Also: flows the switches' middle
// stages cannot route at once are refused, and a group must be on the wafer.

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>

using namespace ns3;

namespace
{

/// Element i of NPU r's input: small integers, so every fp32 sum is exact.
float
Value(uint32_t rank, uint64_t i)
{
    return float(int64_t((rank * 37ULL + i * 11ULL + 5) % 15) - 7);
}

std::vector<uint8_t>
Input(uint32_t rank, uint64_t bytes)
{
    std::vector<uint8_t> b(bytes);
    for (uint64_t i = 0; i < bytes / 4; ++i)
    {
        SetElementValue(DataType::FP32, b.data(), i, Value(rank, i));
    }
    return b;
}

/// One group's collective and how to check it.
struct Job
{
    Communicator comm;
    CollectiveOp op;
    uint64_t bytes;
    FredRecord record;
    bool done{false};
};

/// The element range [first, last) of part p of n over `elements`, as the engine splits.
std::pair<uint64_t, uint64_t>
PartOf(uint64_t elements, uint32_t n, uint32_t p)
{
    uint64_t first = 0;
    for (uint32_t i = 0; i < p; ++i)
    {
        first += elements / n + (i < elements % n ? 1 : 0);
    }
    return {first, first + elements / n + (p < elements % n ? 1 : 0)};
}

/// \return the number of wrong elements in a job's outputs
uint64_t
Wrong(const Job& j)
{
    uint64_t elements = j.bytes / 4;
    uint32_t n = j.comm.GetSize();
    uint64_t wrong = 0;
    for (uint32_t m = 0; m < n; ++m)
    {
        const auto& out = j.record.outputs[m];
        auto [first, last] = j.op == CollectiveOp::REDUCE_SCATTER
                                 ? PartOf(elements, n, m)
                                 : std::make_pair(uint64_t(0), elements);
        for (uint64_t i = first; i < last; ++i)
        {
            double expected = 0;
            if (j.op == CollectiveOp::ALL_GATHER)
            {
                // element i comes from the member whose part holds it
                for (uint32_t p = 0; p < n; ++p)
                {
                    auto [a, b] = PartOf(elements, n, p);
                    if (i >= a && i < b)
                    {
                        expected = Value(j.comm.ranks[p], i);
                    }
                }
            }
            else
            {
                for (uint32_t r : j.comm.ranks)
                {
                    expected += Value(r, i);
                }
            }
            wrong += ElementValue(DataType::FP32, out.data(), i) != expected;
        }
    }
    return wrong;
}

/// Run jobs at once on a fresh wafer; returns them done (or throws).
std::vector<Job>
RunJobs(const std::string& variant,
        std::vector<Job> jobs,
        uint32_t middleStages = 3,
        bool serialise = false)
{
    SimulationScope scope(1, 1);
    WaferConfig wc;
    wc.variant = variant;
    wc.middleStages = middleStages;
    Wafer wafer = BuildWafer(wc);
    FredCollectives fred(wafer);
    fred.SetSerialise(serialise);
    for (auto& j : jobs)
    {
        std::vector<std::vector<uint8_t>> inputs;
        for (uint32_t r : j.comm.ranks)
        {
            inputs.push_back(Input(r, j.bytes));
        }
        Job* job = &j;
        fred.Start(j.comm,
                   j.op,
                   DataType::FP32,
                   j.bytes,
                   inputs,
                   FredEngine::DoneCallback(
                       [job](const FredRecord& r)
                       {
                           job->record = r;
                           job->done = true;
                       }));
    }
    Simulator::Run();
    return jobs;
}

Communicator
Group(const std::string& name, std::vector<uint32_t> ranks, uint8_t tc = 0)
{
    Communicator c;
    c.name = name;
    c.ranks = ranks;
    c.tc = tc;
    return c;
}

class GroupSizesTestCase : public TestCase
{
public:
    GroupSizesTestCase(std::string variant)
        : TestCase("in-switch collectives on " + variant
                   + ", groups of 2..20 NPUs, one and two "
                     "switch levels")
        , m_variant(variant)
    {
    }

private:
    void DoRun() override
    {
        std::mt19937 rng(7);
        std::vector<std::vector<uint32_t>> groups = {
            {0, 1},                             // one L1
            {0, 1, 2, 3},                       // a whole L1
            {2, 0, 3},                          // one L1, out of order
            {0, 4},                             // two L1s, same local index: one plane
            {1, 6, 11},                         // three L1s, different local indices
            {3, 7, 11, 15, 19},                 // a data-parallel group
            {0, 1, 4, 5, 8, 9, 12, 13, 16, 17}, // half of every L1
        };
        for (uint32_t n = 2; n <= 20; ++n)
        {
            std::vector<uint32_t> all(20);
            for (uint32_t i = 0; i < 20; ++i)
            {
                all[i] = i;
            }
            std::shuffle(all.begin(), all.end(), rng);
            groups.emplace_back(all.begin(), all.begin() + n);
        }
        uint32_t runs = 0;
        for (const auto& g : groups)
        {
            for (CollectiveOp op :
                 {CollectiveOp::ALL_REDUCE, CollectiveOp::REDUCE_SCATTER, CollectiveOp::ALL_GATHER})
            {
                // not a multiple of the packet payload, and parts of unequal length
                uint64_t bytes = 4 * (3 * 1021 + 7 * g.size() + 3);
                auto jobs = RunJobs(m_variant, {Job{Group("g", g), op, bytes}});
                NS_TEST_ASSERT_MSG_EQ(jobs[0].done, true, "the collective finished");
                NS_TEST_ASSERT_MSG_EQ(
                    Wrong(jobs[0]), 0, ToString(op) << " on " << g.size() << " NPUs is exact");
                ++runs;
            }
        }
        std::cout << "measured " << m_variant << ": " << runs
                  << " in-switch collectives (allreduce, reducescatter, allgather on "
                  << groups.size() << " groups of 2..20 NPUs), all exact" << std::endl;
    }

    std::string m_variant;
};

class ConcurrentGroupsTestCase : public TestCase
{
public:
    ConcurrentGroupsTestCase()
        : TestCase(
            "concurrent in-switch collectives of the MP, PP and DP groups of MP(2)-DP(5)-PP(2)")
    {
    }

private:
    void DoRun() override
    {
        std::vector<uint32_t> npus(20);
        for (uint32_t i = 0; i < 20; ++i)
        {
            npus[i] = i;
        }
        ParallelGroups pg = MakeParallelGroups(2, 5, 2, npus);
        for (std::string variant : {"fred-b", "fred-d"})
        {
            // every MP group (class 0) and every DP group (class 2) at once,
            // then every PP group (class 1) with every DP group
            for (const auto* first : {&pg.mpGroups, &pg.ppGroups})
            {
                std::vector<Job> jobs;
                for (const auto& g : *first)
                {
                    jobs.push_back(Job{g, CollectiveOp::ALL_REDUCE, 4 * 5000});
                }
                for (const auto& g : pg.dpGroups)
                {
                    jobs.push_back(Job{g, CollectiveOp::REDUCE_SCATTER, 4 * 7001});
                }
                jobs = RunJobs(variant, jobs);
                for (const auto& j : jobs)
                {
                    NS_TEST_ASSERT_MSG_EQ(j.done, true, j.comm.name << " finished");
                    NS_TEST_ASSERT_MSG_EQ(Wrong(j), 0, j.comm.name << " exact");
                }
                std::cout << "measured " << variant << ": " << jobs.size() << " concurrent groups ("
                          << first->size() << " " << (first == &pg.mpGroups ? "MP" : "PP")
                          << " all-reduces, " << pg.dpGroups.size()
                          << " DP reduce-scatters), all exact" << std::endl;
            }
        }
    }
};

class ConflictTestCase : public TestCase
{
public:
    ConflictTestCase()
        : TestCase(
            "flows the middle stages cannot route at once are refused; groups stay on the wafer")
    {
    }

private:
    void DoRun() override
    {
        auto throwsWith = [](std::function<void()> f, const std::string& text)
        {
            try
            {
                f();
            }
            catch (const std::invalid_argument& e)
            {
                std::cout << "measured refusal: " << e.what() << std::endl;
                return std::string(e.what()).find(text) != std::string::npos;
            }
            return false;
        };
        // PP groups {0,2} and {1,3} share both micro-switches of NPUs 0..3 on L1 0:
        // one middle stage cannot carry both, three can.
        std::vector<Job> pp = {Job{Group("pp0", {0, 2}, 1), CollectiveOp::ALL_REDUCE, 4096},
                               Job{Group("pp1", {1, 3}, 1), CollectiveOp::ALL_REDUCE, 4096}};
        NS_TEST_ASSERT_MSG_EQ(throwsWith(
                                  [&]()
                                  {
                                      RunJobs("fred-d", pp, 1);
                                  },
                                  "m = 1"),
                              true,
                              "two crossing flows refused with m = 1");
        for (uint32_t m : {2, 3})
        {
            auto ok = RunJobs("fred-d", pp, m);
            NS_TEST_ASSERT_MSG_EQ(ok[0].done && ok[1].done, true, "and routed with m = " << m);
        }
        // with one middle stage even port-disjoint flows ({0,1}, {2,3}) meet a
        // level down, where their micro-switch indices 2 and 3 pair up
        std::vector<Job> mp = {Job{Group("mp0", {0, 1}), CollectiveOp::ALL_REDUCE, 4096},
                               Job{Group("mp1", {2, 3}), CollectiveOp::ALL_REDUCE, 4096}};
        NS_TEST_ASSERT_MSG_EQ(throwsWith(
                                  [&]()
                                  {
                                      RunJobs("fred-d", mp, 1);
                                  },
                                  "1 level down"),
                              true,
                              "m = 1 blocks below the first level");
        auto two = RunJobs("fred-d", mp, 2);
        NS_TEST_ASSERT_MSG_EQ(two[0].done && two[1].done, true, "m = 2 routes them");
        // serialised instead of refused: the second waits for the first, both exact
        auto serial = RunJobs("fred-d", pp, 1, true);
        NS_TEST_ASSERT_MSG_EQ(serial[0].done && serial[1].done, true, "both ran");
        NS_TEST_ASSERT_MSG_EQ(Wrong(serial[0]) + Wrong(serial[1]), 0, "both exact");
        NS_TEST_ASSERT_MSG_EQ((serial[1].record.start >= serial[0].record.end),
                              true,
                              "the second started when the first had finished");
        std::cout << "measured serialised: pp0 " << serial[0].record.start.GetNanoSeconds() << "-"
                  << serial[0].record.end.GetNanoSeconds() << " ns, pp1 "
                  << serial[1].record.start.GetNanoSeconds() << "-"
                  << serial[1].record.end.GetNanoSeconds() << " ns" << std::endl;
        // on different traffic classes the same two PP flows share through virtual channels
        auto vc = RunJobs("fred-d",
                          {Job{Group("pp0", {0, 2}, 1), CollectiveOp::ALL_REDUCE, 4096},
                           Job{Group("dp", {1, 3}, 2), CollectiveOp::ALL_REDUCE, 4096}},
                          1);
        NS_TEST_ASSERT_MSG_EQ(vc[0].done && vc[1].done, true, "classes are routed apart");
        NS_TEST_ASSERT_MSG_EQ(
            throwsWith(
                [&]()
                {
                    RunJobs("fred-b", {Job{Group("g", {0, 20}), CollectiveOp::ALL_REDUCE, 64}});
                },
                "20"),
            true,
            "rank 20 is not an NPU");
        NS_TEST_ASSERT_MSG_EQ(
            throwsWith(
                [&]()
                {
                    RunJobs("fred-b", {Job{Group("g", {5, 5}), CollectiveOp::ALL_REDUCE, 64}});
                },
                "twice"),
            true,
            "a rank twice");
        NS_TEST_ASSERT_MSG_EQ(throwsWith(
                                  [&]()
                                  {
                                      SimulationScope scope(1, 1);
                                      WaferConfig wc;
                                      wc.variant = "fred-a";
                                      Wafer w = BuildWafer(wc);
                                      FredCollectives f(w);
                                  },
                                  "fred-b, fred-d"),
                              true,
                              "fred-a has no in-switch collectives");
    }
};

class EndpointAlgorithmsTestCase : public TestCase
{
public:
    EndpointAlgorithmsTestCase()
        : TestCase("the wafer-wide endpoint all-reduces are exact: mesh 2D with two orders, "
                   "Fred-A staggered chunks with level 2 on its own channel, Fred-C")
    {
    }

private:
    void DoRun() override
    {
        WaferExperimentConfig c;
        c.variants = {"mesh", "fred-a", "fred-c"};
        c.scenarios = {"allreduce"};
        c.bytes = 4 * 40003; // uneven chunks and parts
        c.functional = true;
        std::vector<WaferRow> rows = RunWafer(c).rows;
        NS_TEST_ASSERT_MSG_EQ(rows.size(), c.variants.size(), "a row per variant");
        for (const auto& row : rows)
        {
            std::cout << "measured " << row.variant << " " << row.algorithm << ": exact "
                      << row.checked << std::endl;
            NS_TEST_EXPECT_MSG_EQ(row.checked, true, row.variant << " exact");
        }
    }
};

class FredFunctionalTestSuite : public TestSuite
{
public:
    FredFunctionalTestSuite()
        : TestSuite("dlnet-fred-functional", UNIT)
    {
        AddTestCase(new GroupSizesTestCase("fred-b"), TestCase::QUICK);
        AddTestCase(new GroupSizesTestCase("fred-d"), TestCase::QUICK);
        AddTestCase(new ConcurrentGroupsTestCase, TestCase::QUICK);
        AddTestCase(new ConflictTestCase, TestCase::QUICK);
        AddTestCase(new EndpointAlgorithmsTestCase, TestCase::QUICK);
    }
};

FredFunctionalTestSuite g_fredFunctionalTestSuite;

} // namespace
