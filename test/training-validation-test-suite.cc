/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The training layer against closed forms written here: pure data
// parallelism with free communication, with and without overlap; the
// pipeline bubble of GPipe and 1F1B; Megatron's tensor-parallel
// collectives counted from the records.

#include "ns3/boolean.h"
#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
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
        : TestCase("pure DP: overlap off = compute + each bucket alone (1%); on >= max of the two")
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
        NS_TEST_ASSERT_MSG_EQ_TOL(seconds,
                                  compute + buckets,
                                  0.01 * (compute + buckets),
                                  "overlap off: compute + sum of buckets");

        plan.overlap = true;
        TrainingGraph on = MakeTrainingGraph(model, MakeDevice("a100"), plan);
        double overlapped = LastEnd(RunOnStar(on, 4, false)).GetSeconds();
        NS_TEST_ASSERT_MSG_GT_OR_EQ(overlapped * (1 + 1e-9),
                                    std::max(compute, buckets),
                                    "overlap on: never below max(compute, communication)");
        NS_TEST_ASSERT_MSG_LT(overlapped, seconds, "overlap hides some communication");
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
    }
};

TrainingValidationTestSuite g_trainingValidationTestSuite;

} // namespace
