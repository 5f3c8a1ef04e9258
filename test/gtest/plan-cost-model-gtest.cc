/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The HeterPS-style cost model, provisioning, the exact optimum and the
// baselines. Expected values are written out from the formulas of
// doc/heterps-cost-model.md, never taken from the library.

#include "expect-invalid.h"

#include "ns3/compute-model.h"
#include "ns3/plan-cost-model.h"
#include "ns3/plan-scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr double GBPS = 1e9;

ResourceType
Type(const std::string& name, ResourceKind kind, double price, uint32_t available, double nicGbps)
{
    ResourceType t;
    t.name = name;
    t.kind = kind;
    t.pricePerHour = price;
    t.available = available;
    t.device = MakeDevice(kind == ResourceKind::CPU ? "cpu" : "a100");
    t.nicRate = nicGbps * GBPS;
    t.memoryBytes = 1ULL << 34;
    t.hostBandwidth = 25e9;
    return t;
}

ProfiledLayer
Layer(const std::string& name,
      const std::string& kind,
      std::vector<double> seconds,
      double parallel = 1,
      uint64_t outputBytes = 0,
      uint64_t syncBytes = 0)
{
    ProfiledLayer l;
    l.name = name;
    l.kind = kind;
    l.seconds = std::move(seconds);
    l.parallelFraction = parallel;
    l.outputBytes = outputBytes;
    l.syncBytes = syncBytes;
    return l;
}

SchedulingProblem
Problem(std::vector<ResourceType> types,
        std::vector<ProfiledLayer> layers,
        uint64_t batch,
        double limit,
        double samples = 1e6)
{
    SchedulingProblem p;
    p.catalogue.name = "test";
    p.catalogue.types = std::move(types);
    p.profile.name = "test";
    p.profile.typeNames = p.catalogue.Names();
    p.profile.batch = batch;
    p.profile.layers = std::move(layers);
    p.throughputLimit = limit;
    p.samples = samples;
    return p;
}

/// A CPU (25 Gbit/s) and a GPU (100 Gbit/s) type.
std::vector<ResourceType>
CpuGpu(uint32_t cpus = 8, uint32_t gpus = 8, double cpuPrice = 1, double gpuPrice = 4)
{
    return {Type("cpu", ResourceKind::CPU, cpuPrice, cpus, 25),
            Type("gpu", ResourceKind::GPU, gpuPrice, gpus, 100)};
}

// ---- the formulas, written again independently of the library ----

/// ET of layers first..last on type with k replicas before `next` (-1: last stage)
double
HandStageSeconds(const SchedulingProblem& p,
                 uint32_t first,
                 uint32_t last,
                 uint32_t type,
                 int64_t next,
                 uint32_t k)
{
    const ResourceType& rt = p.catalogue.types[type];
    double ct = 0;
    double syncBytes = 0;
    double sparseBytes = 0; // embedding layers': a replica's share shrinks with k under PS
    bool embedding = false;
    for (uint32_t l = first; l <= last; ++l)
    {
        const ProfiledLayer& layer = p.profile.layers[l];
        ct += layer.seconds[type] * ((1 - layer.parallelFraction) + layer.parallelFraction / k);
        syncBytes += layer.syncBytes;
        if (layer.kind == "embedding")
        {
            embedding = true;
            sparseBytes += layer.syncBytes;
        }
    }
    double sync = 0;
    if (p.sync == SyncMode::PARAMETER_SERVER && embedding)
    {
        sync = 2 * (sparseBytes / k + (syncBytes - sparseBytes)) * 8 / rt.nicRate;
    }
    else
    {
        sync = 2.0 * (k - 1) / k * syncBytes * 8 / rt.nicRate;
    }
    double dt = 0;
    if (next >= 0)
    {
        auto it = p.catalogue.links.find(
            {std::min<uint32_t>(type, next), std::max<uint32_t>(type, next)});
        const double bw = it != p.catalogue.links.end()
                              ? it->second
                              : std::min(rt.nicRate, p.catalogue.types[next].nicRate);
        dt = 2.0 * p.profile.layers[last].outputBytes * 8 / (k * bw);
    }
    return ct + sync + dt;
}

/// Parameter servers a stage with k replicas of type uses under PS (0 otherwise)
uint32_t
HandServers(const SchedulingProblem& p, uint32_t first, uint32_t last, uint32_t type, uint32_t k)
{
    bool embedding = false;
    for (uint32_t l = first; l <= last; ++l)
    {
        embedding = embedding || p.profile.layers[l].kind == "embedding";
    }
    if (p.sync != SyncMode::PARAMETER_SERVER || !embedding)
    {
        return 0;
    }
    return static_cast<uint32_t>(
        std::ceil(k * p.catalogue.types[type].nicRate / p.catalogue.types[p.psType].nicRate));
}

/// Relative closeness for sums the library forms with prefix sums
void
ExpectClose(double expected, double actual, const std::string& what = "")
{
    EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::fabs(expected))) << what;
}

// ---- random problems ----

double
Uniform(std::mt19937_64& rng, double lo, double hi)
{
    return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

uint32_t
Below(std::mt19937_64& rng, uint32_t n)
{
    return static_cast<uint32_t>(rng() % n);
}

SchedulingProblem
RandomProblem(std::mt19937_64& rng, uint32_t layers, uint32_t types)
{
    const double nics[] = {10, 25, 100};
    std::vector<ResourceType> ts;
    for (uint32_t t = 0; t < types; ++t)
    {
        // One draw per statement: argument evaluation order is unspecified.
        const double price = Uniform(rng, 0.2, 5);
        const uint32_t available = 1 + Below(rng, 6);
        const double nic = nics[Below(rng, 3)];
        ts.push_back(Type("t" + std::to_string(t),
                          t == 0 ? ResourceKind::CPU : ResourceKind::GPU,
                          price,
                          available,
                          nic));
    }
    std::vector<ProfiledLayer> ls;
    double meanSeconds = 0;
    for (uint32_t l = 0; l < layers; ++l)
    {
        std::vector<double> seconds;
        for (uint32_t t = 0; t < types; ++t)
        {
            seconds.push_back(Uniform(rng, 0.001, 0.05));
            meanSeconds += seconds.back() / types;
        }
        const double a = Below(rng, 4) == 0 ? 1.0 : Uniform(rng, 0, 1);
        const std::string kind = Below(rng, 3) == 0 ? "embedding" : "linear";
        const uint64_t output
            = Below(rng, 4) == 0 ? 0 : static_cast<uint64_t>(Uniform(rng, 1e3, 5e7));
        const uint64_t sync
            = Below(rng, 3) == 0 ? 0 : static_cast<uint64_t>(Uniform(rng, 1e3, 5e7));
        ls.push_back(Layer("l" + std::to_string(l), kind, seconds, a, output, sync));
    }
    const uint64_t batch = 16 + Below(rng, 241);
    const double limit = batch / meanSeconds * Uniform(rng, 0.3, 6);
    const double samples = Uniform(rng, 1e5, 1e8);
    SchedulingProblem p = Problem(ts, ls, batch, limit, samples);
    if (types > 1 && Below(rng, 3) == 0)
    {
        p.catalogue.links[{0, 1}] = Uniform(rng, 1, 50) * GBPS;
    }
    p.sync = Below(rng, 2) ? SyncMode::PARAMETER_SERVER : SyncMode::ALL_REDUCE;
    p.psType = Below(rng, types);
    return p;
}

/// Every plan of the problem, in lexicographic order
std::vector<SchedulingPlan>
AllPlans(uint32_t layers, uint32_t types)
{
    std::vector<SchedulingPlan> plans;
    SchedulingPlan plan(layers, 0);
    while (true)
    {
        plans.push_back(plan);
        int64_t l = layers - 1;
        while (l >= 0 && plan[l] + 1 == types)
        {
            plan[l--] = 0;
        }
        if (l < 0)
        {
            return plans;
        }
        ++plan[l];
    }
}

// ========================== the cost model ==========================

TEST(CostModel, OneStageOneInstance)
{
    // Two layers on the GPU: ET = 0.01 + 0.03 = 0.04 s, 64 / 0.04 = 1600 samples/s.
    SchedulingProblem p
        = Problem(CpuGpu(),
                  {Layer("a", "linear", {0.2, 0.01}), Layer("b", "linear", {0.2, 0.03})},
                  64,
                  1000,
                  2e6);
    CostModel model(p);
    PlanEvaluation e = model.Evaluate({1, 1});
    ASSERT_TRUE(e.feasible) << e.reason;
    ASSERT_EQ(e.stages.size(), 1u);
    EXPECT_EQ(e.stages[0].instances, 1u);
    EXPECT_EQ(e.stages[0].psServers, 0u);
    ExpectClose(0.04, e.stages[0].computeSeconds);
    EXPECT_EQ(e.stages[0].syncSeconds, 0);
    EXPECT_EQ(e.stages[0].transferSeconds, 0);
    ExpectClose(1600, e.throughput);
    EXPECT_DOUBLE_EQ(e.hourlyPrice, 4);
    ExpectClose(2e6 / 1600 / 3600, e.trainingHours);
    ExpectClose(2e6 / 1600 / 3600 * 4, e.cost);
    EXPECT_EQ(model.GetEvaluations(), 1u);
}

TEST(CostModel, AmdahlReplicas)
{
    // a = 0.8, s = 0.1: ET(k) = 0.1 (0.2 + 0.8 / k): 0.1, 0.06, 0.0467, 0.04 for k = 1..4;
    // batch 100 reaches 2400 samples/s first at k = 4 (2500).
    SchedulingProblem p
        = Problem(CpuGpu(8, 8, 1, 3), {Layer("a", "linear", {0.5, 0.1}, 0.8)}, 100, 2400);
    CostModel model(p);
    PlanEvaluation e = model.Evaluate({1});
    ASSERT_TRUE(e.feasible) << e.reason;
    EXPECT_EQ(e.stages[0].instances, 4u);
    ExpectClose(0.1 * (0.2 + 0.8 / 4), e.stages[0].computeSeconds);
    ExpectClose(100 / (0.1 * (0.2 + 0.8 / 4)), e.throughput);
    EXPECT_DOUBLE_EQ(e.hourlyPrice, 12);
    ExpectClose(1e6 / 2500.0 / 3600 * 12, e.cost);
    EXPECT_EQ(model.MinInstances(0, 0, 1, CostModel::NO_NEXT, 2142), 3u); // 100 / 0.04667 = 2142.9
    EXPECT_EQ(model.MinInstances(0, 0, 1, CostModel::NO_NEXT, 2501), 5u); // 100 / 0.036 = 2777.8
    EXPECT_EQ(model.MinInstances(0, 0, 1, CostModel::NO_NEXT, 3400), 0u); // k = 8 gives 3333.3
}

TEST(CostModel, TwoStagesWithTransfer)
{
    // emb on cpu then fc on gpu; 1 MB of activations cross at min(25, 100) Gbit/s:
    // DT = 2 x 1e6 x 8 / 25e9 = 0.00064 s, charged to the cpu stage.
    std::vector<ProfiledLayer> layers{Layer("emb", "embedding", {0.005, 0.05}, 1, 1000000),
                                      Layer("fc", "linear", {0.09, 0.004}, 1, 5000)};
    SchedulingProblem p = Problem(CpuGpu(), layers, 50, 100);
    {
        CostModel model(p);
        PlanEvaluation e = model.Evaluate({0, 1});
        ASSERT_TRUE(e.feasible) << e.reason;
        ASSERT_EQ(e.stages.size(), 2u);
        ExpectClose(2 * 1e6 * 8 / 25e9, e.stages[0].transferSeconds);
        EXPECT_EQ(e.stages[1].transferSeconds, 0);
        ExpectClose(0.005 + 0.00064, e.stages[0].stageSeconds);
        ExpectClose(50 / 0.00564, e.stages[0].throughput);
        ExpectClose(50 / 0.004, e.stages[1].throughput);
        ExpectClose(50 / 0.00564, e.throughput);
        EXPECT_EQ(e.bottleneck, 0u);
        EXPECT_DOUBLE_EQ(e.hourlyPrice, 1 + 4);
    }
    // A slower inter-cluster link overrides the NICs' minimum, and k = 2 halves each share.
    p.catalogue.links[{0, 1}] = 10 * GBPS;
    p.throughputLimit = 50 / 0.0035; // ET(2) = 0.0025 + 0.0016 / 2 = 0.0033 s
    CostModel model(p);
    PlanEvaluation e = model.Evaluate({0, 1});
    ASSERT_TRUE(e.feasible) << e.reason;
    EXPECT_EQ(e.stages[0].instances, 2u);
    ExpectClose(2 * 1e6 * 8 / (2 * 10e9), e.stages[0].transferSeconds);
    ExpectClose(0.0025 + 0.0008, e.stages[0].stageSeconds);
    EXPECT_DOUBLE_EQ(p.catalogue.Bandwidth(1, 0), 10 * GBPS);
    EXPECT_DOUBLE_EQ(CpuGpu()[0].nicRate, 25 * GBPS);
}

TEST(CostModel, AllReduceSync)
{
    // s = 0.3, a = 1, S = 1e8 bytes at 100 Gbit/s: Y = 0.008 s, SYNC(k) = 2 (k-1)/k Y;
    // ET(2) = 0.15 + 0.008 = 0.158 (202.5/s), ET(3) = 0.1 + 0.010667 (289.2/s): limit 250 -> k = 3.
    SchedulingProblem p
        = Problem(CpuGpu(), {Layer("fc", "linear", {1, 0.3}, 1, 0, 100000000)}, 32, 250);
    CostModel model(p);
    PlanEvaluation e = model.Evaluate({1});
    ASSERT_TRUE(e.feasible) << e.reason;
    EXPECT_EQ(e.stages[0].instances, 3u);
    ExpectClose(2.0 * 2 / 3 * 1e8 * 8 / 100e9, e.stages[0].syncSeconds);
    ExpectClose(32 / (0.1 + 2.0 * 2 / 3 * 0.008), e.throughput);
    EXPECT_EQ(model.StageTime(0, 0, 1, CostModel::NO_NEXT, 1).syncSeconds, 0);
}

TEST(CostModel, ParameterServerSync)
{
    // An embedding stage on the gpu (100 Gbit/s) with servers on the cpu (25 Gbit/s):
    // a replica pushes and pulls the rows of its own B / k samples, SYNC = 2 (S / k) 8 / 100e9
    // for S = 1e8: 0.016 s at k = 1, 0.008 s at k = 2; ET(1) = 0.216, ET(2) = 0.1 + 0.008 = 0.108;
    // limit 800 -> k = 2 and ceil(2 x 100 / 25) = 8 cpu servers: 2 x 4 + 8 x 1 = 16 USD/h.
    SchedulingProblem p
        = Problem(CpuGpu(10, 8), {Layer("emb", "embedding", {1, 0.2}, 1, 0, 100000000)}, 100, 800);
    p.sync = SyncMode::PARAMETER_SERVER;
    p.psType = 0;
    {
        CostModel model(p);
        PlanEvaluation e = model.Evaluate({1});
        ASSERT_TRUE(e.feasible) << e.reason;
        EXPECT_EQ(e.stages[0].instances, 2u);
        EXPECT_EQ(e.stages[0].psServers, 8u);
        ExpectClose(2 * 0.5e8 * 8 / 100e9, e.stages[0].syncSeconds);
        ExpectClose(100 / 0.108, e.throughput);
        EXPECT_DOUBLE_EQ(e.hourlyPrice, 16);
        ExpectClose(1e6 / (100 / 0.108) / 3600 * 16, e.cost);
        EXPECT_EQ(model.StageTime(0, 0, 1, CostModel::NO_NEXT, 1).psServers, 4u);
        ExpectClose(0.016, model.StageTime(0, 0, 1, CostModel::NO_NEXT, 1).syncSeconds);
    }
    {
        // A dense layer in the same stage synchronises its whole gradient whatever k:
        // S_dense = 5e7 adds 2 x 5e7 x 8 / 100e9 = 0.008 s at every k.
        SchedulingProblem q = p;
        q.profile.layers.push_back(Layer("fc", "linear", {1, 1e-9}, 1, 0, 50000000));
        CostModel model(q);
        ExpectClose(0.008 + 0.008, model.StageTime(0, 1, 1, CostModel::NO_NEXT, 2).syncSeconds);
        ExpectClose(0.016 + 0.008, model.StageTime(0, 1, 1, CostModel::NO_NEXT, 1).syncSeconds);
    }
    // 7 cpus cannot host 8 servers: the best is k = 1 with 4 servers, 100 / 0.216/s.
    p.catalogue.types[0].available = 7;
    CostModel model(p);
    PlanEvaluation e = model.Evaluate({1});
    EXPECT_FALSE(e.feasible);
    ExpectClose(100 / 0.216, e.throughput);
    EXPECT_EQ(e.stages[0].instances, 1u);
    EXPECT_EQ(e.stages[0].psServers, 4u);
    // The same layer under AllReduce, or a non-embedding stage under PS, uses no servers.
    p.profile.layers[0].kind = "linear";
    EXPECT_EQ(CostModel(p).StageTime(0, 0, 1, CostModel::NO_NEXT, 2).psServers, 0u);
}

TEST(CostModel, InfeasibleLimitNamesTheCappingStage)
{
    // Stage 0 (emb on cpu, 8 available): 0.08 / k s. Stage 1 (fc1, fc2 on gpu, 2 available):
    // 0.04 (0.5 + 0.5 / k), best 0.03 s at k = 2: 100 / 0.03 = 3333.33/s caps the plan, and
    // stage 0 needs k = 3 (0.0267 s) for it.
    std::vector<ProfiledLayer> layers{Layer("emb", "embedding", {0.08, 1}),
                                      Layer("fc1", "linear", {1, 0.02}, 0.5),
                                      Layer("fc2", "linear", {1, 0.02}, 0.5)};
    SchedulingProblem p = Problem(CpuGpu(8, 2), layers, 100, 5000);
    CostModel model(p);
    PlanEvaluation e = model.Evaluate({0, 1, 1});
    EXPECT_FALSE(e.feasible);
    ExpectClose(100 / 0.03, e.throughput);
    EXPECT_EQ(e.bottleneck, 1u);
    ASSERT_EQ(e.stages.size(), 2u);
    EXPECT_EQ(e.stages[0].instances, 3u);
    EXPECT_EQ(e.stages[1].instances, 2u);
    for (const std::string& needle : {"limit 5000",
                                      "at most 3333.33 samples/s",
                                      "stage 1",
                                      "fc1..fc2",
                                      "on gpu",
                                      "2 instances",
                                      "compute 0.03 s"})
    {
        EXPECT_NE(e.reason.find(needle), std::string::npos) << e.reason << " lacks " << needle;
    }
    EXPECT_EQ(model.GetEvaluations(), 1u);
    // One instance per stage does not even fit: three gpu stages, two gpus.
    PlanEvaluation none = CostModel(Problem(CpuGpu(8, 2),
                                            {Layer("a", "linear", {1, 1}),
                                             Layer("b", "linear", {1, 1}),
                                             Layer("c", "linear", {1, 1}),
                                             Layer("d", "linear", {1, 1}),
                                             Layer("e", "linear", {1, 1})},
                                            1,
                                            1))
                              .Evaluate({1, 0, 1, 0, 1});
    EXPECT_FALSE(none.feasible);
    EXPECT_EQ(none.throughput, 0);
    EXPECT_NE(none.reason.find("needs 3 gpu but 2 are available"), std::string::npos)
        << none.reason;
}

TEST(CostModel, MinInstancesIsTheSmallestReachingCount)
{
    // The header's definition, a scan of 1 .. available, on random stages.
    std::mt19937_64 rng(7);
    for (int n = 0; n < 200; ++n)
    {
        SchedulingProblem p = RandomProblem(rng, 1 + Below(rng, 4), 2);
        for (auto& t : p.catalogue.types)
        {
            t.available = 1 + Below(rng, 40);
        }
        CostModel model(p);
        const uint32_t L = model.Layers();
        const uint32_t first = Below(rng, L);
        const uint32_t last = first + Below(rng, L - first);
        const uint32_t type = Below(rng, 2);
        const int64_t next = last + 1 < L ? static_cast<int64_t>(1 - type) : -1;
        const double theta = p.throughputLimit * Uniform(rng, 0.2, 2);
        uint32_t scan = 0;
        for (uint32_t k = 1; k <= p.catalogue.types[type].available && scan == 0; ++k)
        {
            if (p.profile.batch / HandStageSeconds(p, first, last, type, next, k) >= theta)
            {
                scan = k;
            }
        }
        EXPECT_EQ(model.MinInstances(first,
                                     last,
                                     type,
                                     next < 0 ? CostModel::NO_NEXT : static_cast<uint32_t>(next),
                                     theta),
                  scan)
            << "problem " << n;
    }
}

TEST(CostModel, ProvisioningIsMinimalAndMonotone)
{
    std::mt19937_64 rng(11);
    uint32_t checked = 0;
    for (int n = 0; n < 60; ++n)
    {
        SchedulingProblem p = RandomProblem(rng, 1 + Below(rng, 5), 2 + Below(rng, 2));
        for (const SchedulingPlan& plan : AllPlans(p.profile.Size(), p.catalogue.types.size()))
        {
            std::vector<uint32_t> lastK;
            double lastPrice = 0;
            for (double scale : {0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0})
            {
                SchedulingProblem q = p;
                q.throughputLimit = p.throughputLimit * scale;
                PlanEvaluation e = CostModel(q).Evaluate(plan);
                if (!e.feasible)
                {
                    lastK.clear(); // a higher limit may not be feasible either; restart the chain
                    continue;
                }
                ++checked;
                EXPECT_GE(e.throughput, q.throughputLimit);
                std::vector<uint64_t> used(q.catalogue.types.size(), 0);
                for (size_t i = 0; i < e.stages.size(); ++i)
                {
                    const PlanStage& s = e.stages[i];
                    const int64_t next
                        = i + 1 < e.stages.size() ? static_cast<int64_t>(e.stages[i + 1].type) : -1;
                    const double et
                        = HandStageSeconds(q, s.first, s.last, s.type, next, s.instances);
                    ExpectClose(et, s.stageSeconds, "stage time");
                    EXPECT_GE(q.profile.batch / et, q.throughputLimit * (1 - 1e-12));
                    EXPECT_EQ(s.psServers, HandServers(q, s.first, s.last, s.type, s.instances));
                    if (s.instances > 1)
                    {
                        // One instance fewer breaks the limit.
                        EXPECT_LT(q.profile.batch
                                      / HandStageSeconds(
                                          q, s.first, s.last, s.type, next, s.instances - 1),
                                  q.throughputLimit * (1 + 1e-12));
                    }
                    used[s.type] += s.instances;
                    used[q.psType] += s.psServers;
                    if (!lastK.empty())
                    {
                        EXPECT_GE(s.instances, lastK[i]);
                    }
                }
                for (size_t t = 0; t < used.size(); ++t)
                {
                    EXPECT_LE(used[t], q.catalogue.types[t].available);
                }
                if (!lastK.empty())
                {
                    EXPECT_GE(e.hourlyPrice, lastPrice);
                }
                lastK.clear();
                for (const auto& s : e.stages)
                {
                    lastK.push_back(s.instances);
                }
                lastPrice = e.hourlyPrice;
            }
        }
    }
    EXPECT_GT(checked, 500u);
}

TEST(CostModel, BestThroughputIsTheMaximumOverProvisionings)
{
    // Against every provisioning vector k (1 .. available per stage) of small plans.
    std::mt19937_64 rng(13);
    uint32_t compared = 0;
    for (int n = 0; n < 150; ++n)
    {
        SchedulingProblem p = RandomProblem(rng, 1 + Below(rng, 4), 2);
        CostModel model(p);
        SchedulingPlan plan(model.Layers());
        for (auto& t : plan)
        {
            t = Below(rng, 2);
        }
        std::vector<PlanStage> stages = model.Stages(plan);
        double best = 0;
        std::vector<uint32_t> k(stages.size(), 1);
        while (true)
        {
            std::vector<uint64_t> used(2, 0);
            double thr = std::numeric_limits<double>::infinity();
            for (size_t i = 0; i < stages.size(); ++i)
            {
                const int64_t next
                    = i + 1 < stages.size() ? static_cast<int64_t>(stages[i + 1].type) : -1;
                thr = std::min(
                    thr,
                    p.profile.batch
                        / HandStageSeconds(
                            p, stages[i].first, stages[i].last, stages[i].type, next, k[i]));
                used[stages[i].type] += k[i];
                used[p.psType]
                    += HandServers(p, stages[i].first, stages[i].last, stages[i].type, k[i]);
            }
            if (used[0] <= p.catalogue.types[0].available
                && used[1] <= p.catalogue.types[1].available)
            {
                best = std::max(best, thr);
            }
            size_t i = 0;
            while (i < k.size() && k[i] == p.catalogue.types[stages[i].type].available)
            {
                k[i++] = 1;
            }
            if (i == k.size())
            {
                break;
            }
            ++k[i];
        }
        PlanEvaluation e = model.BestThroughput(plan);
        EXPECT_NEAR(e.throughput, best, 1e-9 * best) << "problem " << n;
        compared += best > 0;
    }
    EXPECT_GT(compared, 100u);
}

TEST(CostModel, BadInput)
{
    std::vector<ProfiledLayer> layers{Layer("a", "linear", {0.1, 0.01})};
    auto with = [&](auto change)
    {
        SchedulingProblem p = Problem(CpuGpu(), layers, 8, 10);
        change(p);
        return p;
    };
    auto expect = [&](auto change, std::initializer_list<std::string> needles)
    {
        ExpectInvalid(
            [&]
            {
                CostModel m(with(change));
            },
            needles);
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types[1].pricePerHour = 0;
        },
        {"catalogue.types[1].price_per_hour", "> 0"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types[0].pricePerHour = -2;
        },
        {"catalogue.types[0].price_per_hour"});
    expect(
        [&](SchedulingProblem& p)
        {
            p.catalogue.types[0].pricePerHour = nan;
        },
        {"catalogue.types[0].price_per_hour"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types[1].available = 0;
        },
        {"catalogue.types[1].available", "at least 1"});
    // a layer so fast that throughputs overflow (inf samples/s at cost 0); 2^30 samples
    // a second stays below the cap
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.layers[0].seconds[1] = 1e-307;
            p.profile.batch = uint64_t{1} << 30;
        },
        {"profile.layers[0].seconds[1]", "gpu", "1e+12 samples/s", "longer time"});
    EXPECT_NO_THROW(CostModel(with(
        [](SchedulingProblem& p)
        {
            p.profile.layers[0].seconds[1] = 1;
            p.profile.batch = uint64_t{1} << 30;
        })));
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types[1].nicRate = 0;
        },
        {"catalogue.types[1].nic_gbps"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types[1].device.peakFp32 = -1;
        },
        {"catalogue.types[1].device.peakFp32"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types[1].name = "cpu";
        },
        {"catalogue.types[1].name", "unique"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.types.clear();
        },
        {"catalogue.types"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.links[{0, 1}] = -1;
        },
        {"catalogue.links"});
    expect(
        [](SchedulingProblem& p)
        {
            p.catalogue.links[{0, 5}] = 1e9;
        },
        {"catalogue.links"});
    expect(
        [](SchedulingProblem& p)
        {
            p.throughputLimit = 0;
        },
        {"limit", "> 0"});
    expect(
        [](SchedulingProblem& p)
        {
            p.throughputLimit = -5;
        },
        {"limit"});
    expect(
        [&](SchedulingProblem& p)
        {
            p.throughputLimit = nan;
        },
        {"limit"});
    expect(
        [](SchedulingProblem& p)
        {
            p.throughputLimit = INFINITY;
        },
        {"limit"});
    expect(
        [](SchedulingProblem& p)
        {
            p.samples = 0;
        },
        {"samples"});
    expect(
        [](SchedulingProblem& p)
        {
            p.psType = 2;
        },
        {"psType", "cpu or gpu"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.batch = 0;
        },
        {"profile.batch"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.layers.clear();
        },
        {"profile.layers"});
    expect(
        [&](SchedulingProblem& p)
        {
            p.profile.layers[0].seconds[1] = nan;
        },
        {"profile.layers[0].seconds[1]", "gpu"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.layers[0].seconds[0] = 0;
        },
        {"profile.layers[0].seconds[0]"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.layers[0].seconds.pop_back();
        },
        {"profile.layers[0].seconds", "2 types"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.layers[0].parallelFraction = 1.5;
        },
        {"profile.layers[0].parallelFraction", "[0, 1]"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.layers[0].forwardFraction = 1;
        },
        {"profile.layers[0].forwardFraction"});
    expect(
        [](SchedulingProblem& p)
        {
            p.profile.typeNames = {"gpu", "cpu"};
        },
        {"profile.typeNames", "cpu or gpu"});

    CostModel model(with([](SchedulingProblem&) {}));
    ExpectInvalid(
        [&]
        {
            model.Evaluate({0, 1});
        },
        {"plan", "2 types for 1 layers"});
    ExpectInvalid(
        [&]
        {
            model.Evaluate({});
        },
        {"plan"});
    ExpectInvalid(
        [&]
        {
            model.Evaluate({2});
        },
        {"plan[0]", "type index 2", "cpu or gpu"});
    ExpectInvalid(
        [&]
        {
            model.BestThroughput({7});
        },
        {"plan[0]"});
    ExpectInvalid(
        [&]
        {
            model.StageTime(0, 0, 0, CostModel::NO_NEXT, 0);
        },
        {"stage"});
    ExpectInvalid(
        [&]
        {
            model.StageTime(0, 1, 0, CostModel::NO_NEXT, 1);
        },
        {"stage"});
    EXPECT_EQ(model.GetEvaluations(), 0u);
    ExpectInvalid(
        []
        {
            ParseSyncMode("sync", "ring");
        },
        {"sync", "allreduce", "ps"});
    EXPECT_EQ(ParseSyncMode("sync", "ps"), SyncMode::PARAMETER_SERVER);
    EXPECT_EQ(ToString(SyncMode::ALL_REDUCE), "allreduce");
    ExpectInvalid(
        [&]
        {
            model.GetProblem().catalogue.IndexOf("type", "tpu");
        },
        {"type", "tpu", "cpu or gpu"});
    EXPECT_EQ(model.GetProblem().catalogue.IndexOf("type", "gpu"), 1u);

    SchedulerOptions o;
    o.population = 10001;
    ExpectInvalid(
        [&]
        {
            o.Validate();
        },
        {"population", "10000"});
    o = SchedulerOptions();
    o.episodes = 100001;
    ExpectInvalid(
        [&]
        {
            o.Validate();
        },
        {"episodes"});
    o = SchedulerOptions();
    o.samplesPerEpisode = 4097; // named as the option the user typed, not the C++ member
    ExpectInvalid(
        [&]
        {
            o.Validate();
        },
        {"samples-per-episode", "4096"});
    o = SchedulerOptions();
    o.exhaustiveLimit = 0;
    ExpectInvalid(
        [&]
        {
            RunScheduler("exhaustive", model, o);
        },
        {"exhaustive-limit"});
    ExpectInvalid(
        [&]
        {
            RunScheduler("bogus", model, SchedulerOptions());
        },
        {"scheduler", "bogus", "exact", "all-gpu"});
}

// ========================== exact against exhaustive ==========================

/// Exact must equal exhaustive; `seed` picks the problems
void
CompareExactExhaustive(uint64_t seed, int problems, uint32_t maxLayers3)
{
    std::mt19937_64 rng(seed);
    int infeasible = 0;
    for (int n = 0; n < problems; ++n)
    {
        const uint32_t types = 2 + Below(rng, 2);
        const uint32_t layers = 1 + Below(rng, types == 2 ? 10 : maxLayers3);
        SchedulingProblem p = RandomProblem(rng, layers, types);
        CostModel model(p);
        ScheduleResult exact = RunScheduler("exact", model, SchedulerOptions());
        ScheduleResult all = RunScheduler("exhaustive", model, SchedulerOptions());
        EXPECT_EQ(all.evaluations, static_cast<uint64_t>(std::pow(types, layers)));
        const std::string what = "seed " + std::to_string(seed) + " problem " + std::to_string(n);
        ASSERT_EQ(exact.best.feasible, all.best.feasible) << what;
        EXPECT_EQ(exact.best.throughput, all.best.throughput) << what;
        EXPECT_EQ(exact.best.plan, all.best.plan) << what;
        if (all.best.feasible)
        {
            EXPECT_EQ(exact.best.cost, all.best.cost) << what;
        }
        else
        {
            ++infeasible;
        }
    }
    // Both outcomes are exercised.
    EXPECT_GT(infeasible, problems / 20);
    EXPECT_LT(infeasible, problems - problems / 5);
}

TEST(ExactScheduler, EqualsExhaustiveA)
{
    CompareExactExhaustive(101, 100, 7);
}

TEST(ExactScheduler, EqualsExhaustiveB)
{
    CompareExactExhaustive(202, 100, 7);
}

TEST(ExactScheduler, EqualsExhaustiveC)
{
    CompareExactExhaustive(303, 100, 10);
}

TEST(ExactScheduler, FastestPlanEqualsExhaustiveWhenNoneMeetsTheLimit)
{
    // Every problem unreachable: the bisection for the highest throughput and
    // the smallest plan reaching it, against enumeration (plans with up to
    // 5 types, so that the completions the smallest-plan pass keeps have
    // several usages to compare).
    std::mt19937_64 rng(404);
    int positive = 0;
    for (int n = 0; n < 150; ++n)
    {
        const uint32_t types = 2 + Below(rng, 4);
        const uint32_t layers = 1 + Below(rng, types == 2 ? 12 : (types == 3 ? 8 : 6));
        SchedulingProblem p = RandomProblem(rng, layers, types);
        p.throughputLimit *= 1e9;
        CostModel model(p);
        const ScheduleResult exact = RunScheduler("exact", model, SchedulerOptions());
        const ScheduleResult all = RunScheduler("exhaustive", model, SchedulerOptions());
        const std::string what = "problem " + std::to_string(n);
        ASSERT_FALSE(all.best.feasible) << what;
        EXPECT_FALSE(exact.best.feasible) << what;
        EXPECT_EQ(exact.best.throughput, all.best.throughput) << what;
        EXPECT_EQ(exact.best.plan, all.best.plan) << what;
        positive += all.best.throughput > 0;
    }
    // Most problems can be provisioned at some throughput.
    EXPECT_GT(positive, 100);
}

TEST(ExactScheduler, ExhaustiveRefusesTooManyPlans)
{
    std::vector<ProfiledLayer> layers(12, Layer("a", "linear", {0.1, 0.01}));
    CostModel model(Problem(CpuGpu(), layers, 8, 10));
    SchedulerOptions o;
    o.exhaustiveLimit = 4000; // 2^12 = 4096
    ExpectInvalid(
        [&]
        {
            RunScheduler("exhaustive", model, o);
        },
        {"exhaustive", "2^12", "4096", "exhaustive-limit (4000)"});
    EXPECT_EQ(model.GetEvaluations(), 0u);
    o.exhaustiveLimit = 4096;
    EXPECT_EQ(RunScheduler("exhaustive", model, o).evaluations, 4096u);
}

// ========================== baselines ==========================

TEST(Baselines, AllTypeIsOneStage)
{
    std::vector<ProfiledLayer> layers{Layer("a", "embedding", {0.01, 0.03}),
                                      Layer("b", "linear", {0.05, 0.01})};
    CostModel model(Problem(CpuGpu(), layers, 10, 50));
    ScheduleResult r = RunScheduler("all-gpu", model, SchedulerOptions());
    EXPECT_EQ(r.scheduler, "all-gpu");
    EXPECT_EQ(r.evaluations, 1u);
    EXPECT_EQ(r.best.plan, (SchedulingPlan{1, 1}));
    ASSERT_EQ(r.best.stages.size(), 1u);
    ExpectClose(10 / 0.04, r.best.throughput);
    const auto names = SchedulerNames(model.GetProblem().catalogue);
    EXPECT_EQ(names.back(), "all-gpu");
    EXPECT_NE(std::find(names.begin(), names.end(), "exact"), names.end());
}

TEST(Baselines, GreedyPicksPerLayer)
{
    // prices cpu 1, gpu 4: seconds x price per layer
    // a: 0.01 vs 0.012 -> cpu; b: 0.05 vs 0.04 -> gpu; c: 0.02 vs 0.02 (tie) -> cpu.
    std::vector<ProfiledLayer> layers{Layer("a", "embedding", {0.01, 0.003}),
                                      Layer("b", "linear", {0.05, 0.01}),
                                      Layer("c", "linear", {0.02, 0.005})};
    CostModel model(Problem(CpuGpu(), layers, 10, 1));
    ScheduleResult r = RunScheduler("greedy", model, SchedulerOptions());
    EXPECT_EQ(r.best.plan, (SchedulingPlan{0, 1, 0}));
    EXPECT_EQ(r.evaluations, 1u);
}

TEST(Baselines, EmbeddingOnCpu)
{
    std::vector<ResourceType> types{Type("big-cpu", ResourceKind::CPU, 3, 4, 25),
                                    Type("a100", ResourceKind::GPU, 4, 4, 100),
                                    Type("cpu", ResourceKind::CPU, 1, 4, 25),
                                    Type("h100", ResourceKind::GPU, 8, 4, 200)};
    std::vector<ProfiledLayer> layers{Layer("e1", "embedding", {0.01, 0.05, 0.01, 0.04}),
                                      Layer("fc", "linear", {0.1, 0.01, 0.1, 0.005}),
                                      Layer("e2", "embedding", {0.01, 0.05, 0.01, 0.04}),
                                      Layer("out", "linear", {0.1, 0.01, 0.1, 0.005})};
    CostModel model(Problem(types, layers, 10, 100));
    ScheduleResult r = RunScheduler("embedding-on-cpu", model, SchedulerOptions());
    EXPECT_EQ(r.evaluations, 2u); // one plan per gpu type
    ASSERT_EQ(r.best.plan.size(), 4u);
    EXPECT_EQ(r.best.plan[0], 2u);
    EXPECT_EQ(r.best.plan[2], 2u);
    EXPECT_EQ(r.best.plan[1], r.best.plan[3]);
    EXPECT_TRUE(r.best.plan[1] == 1 || r.best.plan[1] == 3);
    // Without a gpu type there is no such plan.
    CostModel cpus(Problem({types[0], types[2]}, {Layer("e", "embedding", {0.1, 0.1})}, 10, 1));
    ExpectInvalid(
        [&]
        {
            RunScheduler("embedding-on-cpu", cpus, SchedulerOptions());
        },
        {"scheduler", "embedding-on-cpu", "gpu"});
}

TEST(Baselines, SearchesAreDeterministicAndNeverBeatExact)
{
    std::mt19937_64 rng(17);
    SchedulerOptions o;
    o.population = 16;
    o.generations = 20;
    o.evaluations = 300;
    for (int n = 0; n < 20; ++n)
    {
        SchedulingProblem p = RandomProblem(rng, 2 + Below(rng, 12), 2 + Below(rng, 3));
        CostModel model(p);
        ScheduleResult exact = RunScheduler("exact", model, o);
        for (const std::string name : {"genetic", "random", "greedy", "embedding-on-cpu"})
        {
            o.seed = 5;
            ScheduleResult a = RunScheduler(name, model, o);
            ScheduleResult b = RunScheduler(name, model, o);
            EXPECT_EQ(a.best.plan, b.best.plan) << name;
            EXPECT_EQ(a.curve, b.curve) << name;
            EXPECT_EQ(a.evaluations, b.evaluations) << name;
            EXPECT_FALSE(IsBetter(a.best, exact.best))
                << name << " problem " << n << ": " << a.best.feasible << " " << a.best.cost << " "
                << a.best.throughput << " vs exact " << exact.best.feasible << " "
                << exact.best.cost << " " << exact.best.throughput << " L " << model.Layers()
                << " T " << model.Types();
            if (a.best.feasible)
            {
                EXPECT_TRUE(exact.best.feasible);
                EXPECT_GE(a.best.cost, exact.best.cost);
            }
        }
        o.seed = 5;
        ScheduleResult g = RunScheduler("genetic", model, o);
        EXPECT_EQ(g.evaluations, 16u + 20u * 15u);
        ASSERT_EQ(g.curve.size(), 21u);
        for (size_t i = 1; i < g.curve.size(); ++i)
        {
            // Elitism: the best never worsens. The curve holds -throughput while
            // infeasible (<= 0), then the cost (> 0) once a plan is feasible.
            if ((g.curve[i - 1] > 0) == (g.curve[i] > 0))
            {
                EXPECT_LE(g.curve[i], g.curve[i - 1]);
            }
            else
            {
                EXPECT_LE(g.curve[i - 1], 0); // only infeasible -> feasible
            }
        }
        EXPECT_EQ(RunScheduler("random", model, o).evaluations, 300u);
        o.seed = 6;
        EXPECT_EQ(RunScheduler("random", model, o).evaluations, 300u);
    }
}

TEST(Baselines, DefaultsAndIsBetter)
{
    std::vector<ProfiledLayer> layers{Layer("a", "linear", {0.01, 0.03})};
    CostModel model(Problem(CpuGpu(), layers, 10, 50));
    EXPECT_EQ(RunScheduler("random", model, SchedulerOptions()).evaluations,
              uint64_t{RL_DEFAULT_EPISODES} * RL_DEFAULT_SAMPLES);
    EXPECT_EQ(RunScheduler("genetic", model, SchedulerOptions()).evaluations, 64u + 100u * 63u);

    PlanEvaluation a;
    PlanEvaluation b;
    a.feasible = true;
    a.cost = 5;
    b.feasible = false;
    b.throughput = 1e9;
    EXPECT_TRUE(IsBetter(a, b));
    EXPECT_FALSE(IsBetter(b, a));
    b.feasible = true;
    b.cost = 5;
    b.throughput = 2;
    a.throughput = 1;
    EXPECT_TRUE(IsBetter(b, a)); // equal cost: the faster
    a.throughput = 2;
    a.plan = {0, 1};
    b.plan = {1, 0};
    EXPECT_TRUE(IsBetter(a, b)); // then the smaller plan
    EXPECT_FALSE(IsBetter(a, a));
    a.feasible = b.feasible = false;
    a.cost = 100; // ignored when infeasible
    b.throughput = 3;
    EXPECT_TRUE(IsBetter(b, a));
}

} // namespace
