/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: the HeterPS-style headline (cost at a limit, throughput at equal cost) and the
// texts of the experiment layer, on a problem small enough to solve by hand.

#include "expect-invalid.h"

#include "ns3/heterps-experiment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * One layer, two types, batch 1, nothing to synchronise or transfer, fully parallel
 * (a = 1): with k replicas of type t the throughput is k / s_t, the fewest replicas for a
 * limit L is ceil(L s_t), and the cost, samples / throughput / 3600 x p_t k, is
 * samples / 3600 x p_t s_t whatever k is. samples = 3600: the cost is p_t s_t USD.
 * cpu: p 1, s 1 s, 10 available (at most 10 samples/s), cost 1.
 * gpu: p 4, s 0.5 s, 8 available (at most 16 samples/s), cost 2.
 */
SchedulingProblem
HandProblem(double limit)
{
    SchedulingProblem p;
    ResourceType cpu;
    cpu.name = "cpu";
    cpu.kind = ResourceKind::CPU;
    cpu.pricePerHour = 1;
    cpu.available = 10;
    cpu.device = MakeDevice("cpu");
    cpu.nicRate = 25e9;
    cpu.memoryBytes = 1ull << 36;
    cpu.hostBandwidth = 1e11;
    ResourceType gpu = cpu;
    gpu.name = "gpu";
    gpu.kind = ResourceKind::GPU;
    gpu.pricePerHour = 4;
    gpu.available = 8;
    gpu.device = MakeDevice("a100");
    gpu.nicRate = 100e9;
    p.catalogue.name = "hand";
    p.catalogue.types = {cpu, gpu};
    p.profile.name = "one-layer";
    p.profile.typeNames = {"cpu", "gpu"};
    p.profile.batch = 1;
    ProfiledLayer l;
    l.name = "l0";
    l.kind = "linear";
    l.seconds = {1.0, 0.5};
    l.parallelFraction = 1;
    l.outputBytes = 8;
    p.profile.layers = {l};
    p.throughputLimit = limit;
    p.samples = 3600;
    return p;
}

std::vector<ScheduleResult>
RunAt(double limit, const std::vector<std::string>& names)
{
    CostModel model(HandProblem(limit));
    std::vector<ScheduleResult> out;
    for (const auto& n : names)
    {
        out.push_back(RunScheduler(n, model, SchedulerOptions()));
    }
    return out;
}

} // namespace

TEST(HeterpsHeadline, CostAndEqualCostThroughputByHand)
{
    // L = 5: exact takes 5 cpus (5 samples/s, cost 1); all-gpu ceil(2.5) = 3 gpus (6 samples/s,
    // cost 12 USD/h x 1/6 h = 2). The optimum costs 1 up to 10 samples/s and 2 beyond (gpus),
    // so at the baseline's cost of 2 it reaches 16 samples/s: 16 / 6.
    // L = 9: exact 9 cpus (cost 1); all-gpu ceil(4.5) = 5 gpus (10 samples/s, cost 2): 16 / 10.
    std::vector<double> limits = {5, 9};
    std::vector<std::vector<ScheduleResult>> at;
    for (double l : limits)
    {
        at.push_back(RunAt(l, {"exact", "all-gpu", "all-cpu"}));
    }
    HeterpsHeadline h = ComputeHeadline(HandProblem(5), limits, at, 16, SchedulerOptions());
    // all-cpu is the optimum's plan itself: ratio 1 both ways at each limit
    ASSERT_EQ(h.rows.size(), 4u);
    const HeterpsHeadlineRow& g5 = h.rows[0];
    EXPECT_EQ(g5.baseline, "all-gpu");
    EXPECT_DOUBLE_EQ(g5.limit, 5);
    EXPECT_NEAR(g5.baselineCost, 2, 1e-12);
    EXPECT_NEAR(g5.bestCost, 1, 1e-12);
    EXPECT_NEAR(g5.costRatio, 2, 1e-12);
    EXPECT_NEAR(g5.lowerCostPercent, 100, 1e-9);
    EXPECT_NEAR(g5.baselineThroughput, 6, 1e-12);
    EXPECT_NEAR(g5.equalCostLimit, 16, 1e-12);
    EXPECT_NEAR(g5.equalCostThroughput, 16, 1e-12);
    EXPECT_NEAR(g5.throughputRatio, 16.0 / 6, 1e-12);
    EXPECT_EQ(g5.driver, "stage 0 (gpux3): compute of l0 (linear) on gpu");
    const HeterpsHeadlineRow& c5 = h.rows[1];
    EXPECT_EQ(c5.baseline, "all-cpu");
    EXPECT_NEAR(c5.costRatio, 1, 1e-12);
    // all-cpu's 5 samples/s cost 1; the optimum keeps that cost up to the cpus' 10 samples/s
    EXPECT_NEAR(c5.equalCostThroughput / c5.baselineThroughput, 2, 1e-6);
    const HeterpsHeadlineRow& g9 = h.rows[2];
    EXPECT_NEAR(g9.baselineThroughput, 10, 1e-12);
    EXPECT_NEAR(g9.throughputRatio, 1.6, 1e-12);

    ASSERT_EQ(h.summary.size(), 2u);
    EXPECT_EQ(h.summary[0].baseline, "all-gpu");
    EXPECT_EQ(h.summary[0].limits, 2u);
    EXPECT_NEAR(h.summary[0].maxCostRatio, 2, 1e-12);
    EXPECT_NEAR(h.summary[0].maxThroughputRatio, 16.0 / 6, 1e-12);
    EXPECT_DOUBLE_EQ(h.summary[0].throughputLimit, 5);
}

TEST(HeterpsHeadline, InfeasibleBaselinesAndLimitsGiveNoRow)
{
    // at 12 samples/s the cpus (10 at most) cannot: all-cpu has no row; at 20 nothing can
    std::vector<double> limits = {12, 20};
    std::vector<std::vector<ScheduleResult>> at;
    for (double l : limits)
    {
        at.push_back(RunAt(l, {"exact", "all-cpu", "all-gpu"}));
    }
    HeterpsHeadline h = ComputeHeadline(HandProblem(12), limits, at, 16, SchedulerOptions());
    ASSERT_EQ(h.rows.size(), 1u);
    EXPECT_EQ(h.rows[0].baseline, "all-gpu"); // the optimum itself at 12: ratio 1
    EXPECT_NEAR(h.rows[0].costRatio, 1, 1e-12);
}

TEST(HeterpsExperiment, StagesText)
{
    CostModel model(HandProblem(5));
    EXPECT_EQ(StagesText(model, model.Evaluate({0})), "l0:cpux5");
    EXPECT_EQ(StagesText(model, model.Evaluate({1})), "l0:gpux3");
}

TEST(HeterpsExperiment, OptionsRefuseBadValuesNamingThem)
{
    HeterpsConfig c;
    ExpectInvalid(
        [&]()
        {
            SetOption(HeterpsOptions(), c, "limit", "0");
        },
        {"limit: got '0'", "above 0"});
    ExpectInvalid(
        [&]()
        {
            SetOption(HeterpsOptions(), c, "limit", "-1e3");
        },
        {"limit"});
    ExpectInvalid(
        [&]()
        {
            SetOption(HeterpsOptions(), c, "samples", "nan");
        },
        {"samples"});
    ExpectInvalid(
        [&]()
        {
            SetOption(HeterpsOptions(), c, "sweep", "10,0");
        },
        {"sweep: limit '0'"});
    ExpectInvalid(
        [&]()
        {
            SetOption(HeterpsOptions(), c, "sync", "gossip");
        },
        {"sync"});
}
