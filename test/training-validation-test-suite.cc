/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The training layer against closed forms written here: pure data
// parallelism with free communication, with and without overlap; the
// pipeline bubble of GPipe and 1F1B; Megatron's tensor-parallel
// collectives counted from the records; ASTRA-sim workload files against
// their loop computed by hand.

#include "ns3/boolean.h"
#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <numeric>

using namespace ns3;

namespace
{

/// The runs of one job on a star of `hosts` (100 Gbps, 500 ns links).
std::vector<TrainingTaskRun>
RunOnStar(const TrainingGraph& graph,
          uint32_t hosts,
          bool free,
          const std::string& backend = "ring")
{
    TopologyConfig tc;
    tc.kind = "star";
    tc.hosts = hosts;
    Ptr<const Topology> topology = MakeTopology(tc);
    Cluster cluster = topology->Build();
    Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
    sim->SetAttribute("FreeCommunication", BooleanValue(free));
    TrainingJobSetup job;
    job.graph = graph;
    job.placement.resize(graph.ranks);
    std::iota(job.placement.begin(), job.placement.end(), 0);
    for (auto& d : job.dimensions)
    {
        d.backend = backend;
    }
    sim->Setup(cluster, topology, {job});
    sim->Start();
    Simulator::Run();
    NS_ABORT_MSG_UNLESS(sim->IsFinished(), "the training graph did not finish");
    std::vector<TrainingTaskRun> runs = sim->GetRuns(0);
    sim->Dispose();
    Simulator::Destroy();
    return runs;
}

/// Seconds of one ring AllReduce of `bytes` over `n` ranks of a star of n, run alone.
double
AllReduceAlone(uint64_t bytes, uint32_t n, DataType type)
{
    TopologyConfig tc;
    tc.kind = "star";
    tc.hosts = n;
    Ptr<const Topology> topology = MakeTopology(tc);
    Cluster cluster = topology->Build();
    Ptr<CollectiveBackend> ring = CollectiveRegistry::Create("ring");
    CollectiveRequest req;
    req.op = CollectiveOp::ALL_REDUCE;
    req.type = type;
    req.bytes = bytes;
    double seconds = -1;
    ring->Start(cluster,
                *topology,
                Communicator::World(n),
                req,
                CollectiveBackend::DoneCallback(
                    [&](const CollectiveRecord& r)
                    {
                        seconds = (r.end - r.start).GetSeconds();
                    }));
    Simulator::Run();
    ring->Dispose();
    Simulator::Destroy();
    return seconds;
}

/// Sum of the durations of rank r's compute tasks of iteration i.
Time
ComputeOf(const TrainingGraph& g, uint32_t r, uint32_t i)
{
    Time sum;
    for (const auto& t : g.tasks)
    {
        if (t.kind == TrainingTaskKind::COMPUTE && t.ranks[0] == r && t.iteration == i)
        {
            sum += t.duration;
        }
    }
    return sum;
}

Time
LastEnd(const std::vector<TrainingTaskRun>& runs)
{
    Time end;
    for (const auto& r : runs)
    {
        end = std::max(end, r.end);
    }
    return end;
}

/// A model of `n` identical layers (no embedding, no logits): balanced pipeline stages.
Model
UniformModel(uint32_t n)
{
    Model m;
    m.name = "uniform";
    m.dataType = DataType::FP16;
    for (uint32_t i = 0; i < n; ++i)
    {
        ModelLayer l;
        l.name = "fc" + std::to_string(i);
        l.kind = LayerKind::LINEAR;
        l.forwardFlops = 2e11; // per sample: compute-bound on any preset
        l.inputGradientFlops = 2e11;
        l.weightGradientFlops = 2e11;
        l.parameters = 1 << 20;
        l.activationElements = 1 << 16;
        m.layers.push_back(l);
    }
    return m;
}

/**
 * Seconds of one rank's iteration by hand: its compute tasks one after another on its compute
 * stream, in the graph's order, each when its inputs are done; its DP collectives one after
 * another on the DP stream, each taking `collective(task)` once its inputs are done (a
 * bucket waits for the last gradient it holds and for the bucket before it).
 */
double
StreamsByHand(const TrainingGraph& g,
              uint32_t rank,
              const std::function<double(const TrainingTask&)>& collective)
{
    std::vector<double> end(g.tasks.size(), 0);
    double computeFree = 0;
    double dpFree = 0;
    double last = 0;
    for (std::size_t i = 0; i < g.tasks.size(); ++i)
    {
        const TrainingTask& t = g.tasks[i];
        if (std::find(t.ranks.begin(), t.ranks.end(), rank) == t.ranks.end())
        {
            continue;
        }
        double ready = 0;
        for (uint32_t d : t.deps)
        {
            NS_ABORT_MSG_UNLESS(d < i, "a task after its inputs");
            ready = std::max(ready, end[d]);
        }
        if (t.kind == TrainingTaskKind::COMPUTE)
        {
            end[i] = std::max(ready, computeFree) + t.duration.GetSeconds();
            computeFree = end[i];
        }
        else
        {
            NS_ABORT_MSG_UNLESS(t.kind == TrainingTaskKind::COLLECTIVE
                                    && t.dimension == TrainingDimension::DP,
                                "pure DP: compute and DP collectives only");
            end[i] = std::max(ready, dpFree) + collective(t) + t.finishDelay.GetSeconds();
            dpFree = end[i];
        }
        last = std::max(last, end[i]);
    }
    return last;
}

class DataParallelFreeTestCase : public TestCase
{
public:
    DataParallelFreeTestCase()
        : TestCase("pure DP with free communication takes the sum of its compute exactly")
    {
    }

private:
    void DoRun() override
    {
        TrainingPlan plan;
        plan.dp = 4;
        plan.microbatchSize = 8;
        TrainingGraph g = MakeTrainingGraph(MakeModel("resnet50"), MakeDevice("a100"), plan);
        std::vector<TrainingTaskRun> runs = RunOnStar(g, 4, true);
        for (uint32_t r = 0; r < 4; ++r)
        {
            NS_TEST_ASSERT_MSG_EQ(ComputeOf(g, r, 0), ComputeOf(g, 0, 0), "ranks differ");
        }
        NS_TEST_ASSERT_MSG_EQ(LastEnd(runs), ComputeOf(g, 0, 0), "iteration != sum of compute");
    }
};

class DataParallelOverlapTestCase : public TestCase
{
public:
    DataParallelOverlapTestCase()
        : TestCase("pure DP: overlap off = compute + each bucket alone; on: each bucket after its "
                   "gradients and the bucket before it (by hand)")
    {
    }

private:
    void DoRun() override
    {
        TrainingPlan plan;
        plan.dp = 4;
        plan.microbatchSize = 4;
        plan.bucketBytes = 8 << 20;
        Model model = MakeModel("resnet50");
        plan.overlap = false;
        TrainingGraph off = MakeTrainingGraph(model, MakeDevice("a100"), plan);
        double compute = ComputeOf(off, 0, 0).GetSeconds();
        double buckets = 0;
        uint32_t count = 0;
        for (const auto& t : off.tasks)
        {
            if (t.kind == TrainingTaskKind::COLLECTIVE && t.dimension == TrainingDimension::DP)
            {
                NS_TEST_ASSERT_MSG_EQ(
                    ToString(t.op), ToString(CollectiveOp::ALL_REDUCE), "ZeRO 0: AllReduce");
                buckets += AllReduceAlone(t.bytes, 4, t.type);
                ++count;
            }
        }
        NS_TEST_ASSERT_MSG_GT(count, 2u, "ResNet-50 at 8 MiB buckets has several buckets");
        double seconds = LastEnd(RunOnStar(off, 4, false)).GetSeconds();
        std::cout << "DP overlap off: " << seconds * 1e3 << " ms; compute " << compute * 1e3
                  << " ms + " << count << " buckets alone " << buckets * 1e3
                  << " ms = " << (compute + buckets) * 1e3 << " ms" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(seconds,
                                  compute + buckets,
                                  1e-6 * (compute + buckets),
                                  "overlap off: compute + sum of buckets");
        auto alone = [](const TrainingTask& t)
        {
            return AllReduceAlone(t.bytes, 4, t.type);
        };

        plan.overlap = true;
        TrainingGraph on = MakeTrainingGraph(model, MakeDevice("a100"), plan);
        double overlapped = LastEnd(RunOnStar(on, 4, false)).GetSeconds();
        std::cout << "DP overlap on: " << overlapped * 1e3 << " ms (max of the two "
                  << std::max(compute, buckets) * 1e3 << " ms)" << std::endl;
        NS_TEST_ASSERT_MSG_GT_OR_EQ(overlapped * (1 + 1e-9),
                                    std::max(compute, buckets),
                                    "overlap on: never below max(compute, communication)");
        NS_TEST_ASSERT_MSG_LT(overlapped, seconds, "overlap hides some communication");
        // where, given the plan's dependencies (which bucket waits for which gradients:
        // TrainingPlan.DataParallelBuckets checks them): each bucket as soon as its inputs
        // are done and the bucket before it is reduced, one at a time on the DP stream, each
        // as long as alone (a bucket started regardless of the one before it, or later than its
        // inputs, gives another time)
        double byHand = StreamsByHand(on, 0, alone);
        std::cout << "DP overlap on by hand: " << byHand * 1e3 << " ms" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(overlapped, byHand, 1e-6 * byHand, "overlap on: by hand");
        NS_TEST_ASSERT_MSG_EQ_TOL(
            seconds, StreamsByHand(off, 0, alone), 1e-6 * seconds, "overlap off: by hand");
    }
};

class BubbleTestCase : public TestCase
{
public:
    BubbleTestCase(PipelineSchedule s, uint32_t p, uint32_t m)
        : TestCase(ToString(s) + " p=" + std::to_string(p) + " m=" + std::to_string(m)
                   + ": bubble (p-1) over (m+p-1) with free communication, within 1%")
        , m_schedule(s)
        , m_p(p)
        , m_m(m)
    {
    }

private:
    void DoRun() override
    {
        TrainingPlan plan;
        plan.pp = m_p;
        plan.microbatches = m_m;
        plan.schedule = m_schedule;
        TrainingGraph g = MakeTrainingGraph(UniformModel(8), MakeDevice("a100"), plan);
        std::vector<TrainingTaskRun> runs = RunOnStar(g, m_p, true);
        TrainingBreakdown b = MeanBreakdown(ComputeBreakdown(g, runs, true, 0));
        double expected = double(m_p - 1) / (m_m + m_p - 1);
        double fraction = b.bubbleSeconds / b.iterationSeconds;
        std::cout << ToString(m_schedule) << " p=" << m_p << " m=" << m_m << ": bubble " << fraction
                  << ", (p-1)/(m+p-1) = " << expected << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(fraction, expected, 0.01 * expected, "bubble fraction");
        double sum = b.computeSeconds + b.bubbleSeconds + b.idleSeconds
                     + std::accumulate(b.exposedSeconds.begin(), b.exposedSeconds.end(), 0.0);
        NS_TEST_ASSERT_MSG_EQ_TOL(sum, b.iterationSeconds, 1e-9 * sum, "parts sum to the whole");
    }

    PipelineSchedule m_schedule;
    uint32_t m_p;
    uint32_t m_m;
};

class TensorParallelCountTestCase : public TestCase
{
public:
    TensorParallelCountTestCase()
        : TestCase("TP: 4 AllReduces of 2 b s h bytes per layer per microbatch, from the records")
    {
    }

private:
    void DoRun() override
    {
        TrainingConfig c;
        c.topology.kind = "star";
        c.topology.hosts = 4;
        c.model = "transformer";
        c.layers = 3;
        c.hidden = 256;
        c.heads = 4;
        c.sequence = 64;
        c.vocabulary = 128;
        c.tp = 2;
        c.dp = 2;
        c.microbatches = 2;
        c.microbatchSize = 3;
        c.iterations = 1;
        c.trace = false;
        TrainingResult r = RunTraining(c);
        uint64_t count = 0;
        for (const auto& row : r.comms)
        {
            if (row.dimension == "tp")
            {
                NS_TEST_ASSERT_MSG_EQ(row.op, "allreduce", "TP without sequence parallelism");
                NS_TEST_ASSERT_MSG_EQ(row.bytes, 2u * 3 * 64 * 256, "2 b s h bytes at fp16");
                NS_TEST_ASSERT_MSG_EQ(row.members, 2u, "the TP group");
                NS_TEST_ASSERT_MSG_GT(row.end, row.start, "it took time");
                ++count;
            }
        }
        // per layer per microbatch 4, in each of the dp = 2 TP groups
        NS_TEST_ASSERT_MSG_EQ(count, 4u * 3 * 2 * 2, "TP AllReduces");
    }
};

/// Seconds of the whole run, finish delays included (the sum of its iterations).
double
TotalSeconds(const TrainingGraph& g, const std::vector<TrainingTaskRun>& runs)
{
    std::vector<double> its = IterationSeconds(g, runs);
    return std::accumulate(its.begin(), its.end(), 0.0);
}

TrainingGraph
Import(const std::string& text, uint32_t ranks, uint32_t iterations)
{
    WorkloadImportOptions o;
    o.ranks = ranks;
    o.iterations = iterations;
    return ImportAstraSimText(text, "test.txt", o);
}

/// A DATA workload: per layer fwd, ig, wg cycles, wg AllReduce bytes, update cycles.
struct DataLayer
{
    double fwd, ig, wg;
    uint64_t bytes;
    double update;
};

const std::vector<DataLayer> kDataLayers
    = {{100, 0, 300, 1 << 20, 10}, {200, 150, 250, 2 << 20, 0}, {300, 250, 200, 1 << 20, 0}};

std::string
DataFile()
{
    std::string text = "DATA\n" + std::to_string(kDataLayers.size()) + "\n";
    for (std::size_t i = 0; i < kDataLayers.size(); ++i)
    {
        const DataLayer& l = kDataLayers[i];
        text += "L" + std::to_string(i) + " -1 " + std::to_string(int(l.fwd)) + " NONE 0 "
                + std::to_string(int(l.ig)) + " NONE 0 " + std::to_string(int(l.wg)) + " ALLREDUCE "
                + std::to_string(l.bytes) + " " + std::to_string(int(l.update)) + "\n";
    }
    return text;
}

/**
 * ASTRA-sim's DATA loop by hand, in ns (1 cycle = 1 ns): forward 0..N-1, each
 * layer first waiting for its weight-gradient AllReduce of the previous
 * iteration (+ update time); backward N-1..0: wg compute, its AllReduce
 * issued without blocking (one at a time on the rank's DP stream), ig
 * compute. ar[i] = layer i's AllReduce alone, ns.
 */
double
DataLoopByHand(const std::vector<double>& ar, uint32_t iterations)
{
    std::size_t n = kDataLayers.size();
    std::vector<double> done(n, 0); // layer i's AllReduce finished (+ update)
    double compute = 0;             // the compute stream is free
    double network = 0;             // the DP stream is free
    double end = 0;
    for (uint32_t it = 0; it < iterations; ++it)
    {
        for (std::size_t i = 0; i < n; ++i)
        {
            compute = std::max(compute, done[i]) + kDataLayers[i].fwd;
        }
        for (std::size_t i = n; i-- > 0;)
        {
            compute += kDataLayers[i].wg;
            network = std::max(network, compute) + ar[i];
            done[i] = network + kDataLayers[i].update;
            end = std::max(end, done[i]);
            compute += i > 0 ? kDataLayers[i].ig : 0;
        }
    }
    return std::max(end, compute);
}

class AstraDataTestCase : public TestCase
{
public:
    AstraDataTestCase()
        : TestCase("ASTRA-sim DATA file: the hand-computed loop, free and on a star (1%)")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g = Import(DataFile(), 4, 2);
        std::vector<double> free(kDataLayers.size(), 0);
        double byHand = DataLoopByHand(free, 2); // 3520 ns
        NS_TEST_ASSERT_MSG_EQ_TOL(TotalSeconds(g, RunOnStar(g, 4, true)) * 1e9,
                                  byHand,
                                  1e-6 * byHand,
                                  "free communication");
        std::vector<double> ar;
        for (const auto& l : kDataLayers)
        {
            ar.push_back(AllReduceAlone(l.bytes, 4, DataType::FP16) * 1e9);
        }
        byHand = DataLoopByHand(ar, 2);
        std::cout << "ASTRA-sim DATA on a star: simulated "
                  << TotalSeconds(g, RunOnStar(g, 4, false)) * 1e9 << " ns, by hand " << byHand
                  << " ns" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(TotalSeconds(g, RunOnStar(g, 4, false)) * 1e9,
                                  byHand,
                                  0.01 * byHand,
                                  "ring AllReduces on a star");
    }
};

class AstraModelHybridTestCase : public TestCase
{
public:
    AstraModelHybridTestCase()
        : TestCase("ASTRA-sim MODEL and HYBRID_TRANSFORMER files: hand-computed totals")
    {
    }

private:
    void DoRun() override
    {
        // MODEL: forward A 100 + AllGather (blocking, update 5), B 200 + AllGather (7);
        // backward B: ig 120, its ReduceScatter (not blocking), wg 90; A: ig 80 (layer 0
        // issues no ig collective), wg 60 = 100+5+200+7+120+90+80+60 = 662 ns
        std::string model = "MODEL\n2\n"
                            "A -1 100 ALLGATHER 4096 80 REDUCESCATTER 4096 60 NONE 0 5\n"
                            "B -1 200 ALLGATHER 4096 120 REDUCESCATTER 4096 90 NONE 0 7\n";
        TrainingGraph g = Import(model, 4, 1);
        NS_TEST_ASSERT_MSG_EQ_TOL(
            TotalSeconds(g, RunOnStar(g, 4, true)) * 1e9, 662, 1e-6 * 662, "MODEL");
        // HYBRID_TRANSFORMER, groups of 2: as MODEL, and layer 0 issues its ig AllReduce and
        // every layer its wg AllReduce (DP group): the last, A's wg at 662, ends 5 later
        std::string hybrid = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n2\n"
                             "A -1 100 ALLREDUCE 4096 80 ALLREDUCE 4096 60 ALLREDUCE 8192 5\n"
                             "B -1 200 ALLREDUCE 4096 120 ALLREDUCE 4096 90 ALLREDUCE 8192 7\n";
        g = Import(hybrid, 4, 1);
        uint32_t tp = 0;
        uint32_t dp = 0;
        for (const auto& t : g.tasks)
        {
            tp += t.kind == TrainingTaskKind::COLLECTIVE && t.dimension == TrainingDimension::TP;
            dp += t.kind == TrainingTaskKind::COLLECTIVE && t.dimension == TrainingDimension::DP;
        }
        // 2 groups of 2: fwd 2 + ig 2 per group = 8 TP; wg 2 per DP group (2 groups) = 4
        NS_TEST_ASSERT_MSG_EQ(tp, 8u, "TP collectives");
        NS_TEST_ASSERT_MSG_EQ(dp, 4u, "DP collectives");
        NS_TEST_ASSERT_MSG_EQ_TOL(
            TotalSeconds(g, RunOnStar(g, 4, true)) * 1e9, 667, 1e-6 * 667, "HYBRID_TRANSFORMER");
    }
};

class TrainingValidationTestSuite : public TestSuite
{
public:
    TrainingValidationTestSuite()
        : TestSuite("dlnet-training-validation", UNIT)
    {
        AddTestCase(new DataParallelFreeTestCase, TestCase::QUICK);
        AddTestCase(new DataParallelOverlapTestCase, TestCase::QUICK);
        for (auto s : {PipelineSchedule::GPIPE, PipelineSchedule::ONE_F_ONE_B})
        {
            for (auto [p, m] : {std::make_pair(2u, 4u),
                                std::make_pair(4u, 4u),
                                std::make_pair(4u, 8u),
                                std::make_pair(8u, 16u)})
            {
                AddTestCase(new BubbleTestCase(s, p, m), TestCase::QUICK);
            }
        }
        AddTestCase(new TensorParallelCountTestCase, TestCase::QUICK);
        AddTestCase(new AstraDataTestCase, TestCase::QUICK);
        AddTestCase(new AstraModelHybridTestCase, TestCase::QUICK);
    }
};

TrainingValidationTestSuite g_trainingValidationTestSuite;

} // namespace
