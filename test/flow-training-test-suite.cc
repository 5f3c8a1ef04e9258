/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Training iterations at flow level against packet level, both measured here
// on the same configuration: the training layer's validation cases (pure DP
// with and without overlap, pipelines under GPipe and 1F1B, Megatron TP, an
// ASTRA-sim DATA file) with their communication on the network, a DP x TP x PP
// job on GPU servers, two jobs sharing a leaf-spine. Each iteration at flow
// level within 0.5 % of packet level (the issue asks 5 %), and so each part of
// its breakdown as a share of the iteration; two flow runs give identical results.

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cstdio>
#include <numeric>

using namespace ns3;

namespace
{

/// The agreement the issue asks of a training iteration is 5 %; the cases here agree within
/// 0.08 % (the two jobs on a 2:1 leaf-spine; most to the nanosecond), so a margin over that,
/// for the iteration and for each part of its breakdown (as a share of the iteration), keeps
/// a change of a fraction of the communication from passing unseen
const double TOLERANCE = 0.005;

/// The same config on the other network.
TrainingConfig
On(TrainingConfig c, const std::string& network)
{
    c.topology.network = network;
    c.trace = false;
    return c;
}

/// A case that runs one config at both levels.
class AgreementTestCase : public TestCase
{
public:
    AgreementTestCase(const std::string& name)
        : TestCase(name)
    {
    }

protected:
    /// Run at both levels, print them side by side, and check every job row, its iteration
    /// and the parts of its breakdown.
    void CheckAgreement(const TrainingConfig& c)
    {
        TrainingResult packet = RunTraining(On(c, "packet"));
        TrainingResult flow = RunTraining(On(c, "flow"));
        NS_TEST_ASSERT_MSG_EQ(packet.network, "packet", "the packet run says so");
        NS_TEST_ASSERT_MSG_EQ(flow.network, "flow", "the flow run says so");
        NS_TEST_ASSERT_MSG_EQ(packet.jobs.size(), flow.jobs.size(), "the same rows");
        for (std::size_t j = 0; j < packet.jobs.size(); ++j)
        {
            const TrainingJobRow& p = packet.jobs[j];
            const TrainingJobRow& f = flow.jobs[j];
            NS_TEST_ASSERT_MSG_EQ(f.job + " " + f.mode, p.job + " " + p.mode, "rows in one order");
            auto exposed = [](const TrainingJobRow& r)
            {
                const auto& e = r.breakdown.exposedSeconds;
                return std::accumulate(e.begin(), e.end(), 0.0);
            };
            std::printf("%s, %s %s: packet %.6e s, flow %.6e s (%+.3f%%); exposed %.3e / %.3e "
                        "s, bubble %.3e / %.3e s; events %llu / %llu\n",
                        GetName().c_str(),
                        p.job.c_str(),
                        p.mode.c_str(),
                        p.iterationSeconds,
                        f.iterationSeconds,
                        100 * (f.iterationSeconds / p.iterationSeconds - 1),
                        exposed(p),
                        exposed(f),
                        p.breakdown.bubbleSeconds,
                        f.breakdown.bubbleSeconds,
                        static_cast<unsigned long long>(packet.events),
                        static_cast<unsigned long long>(flow.events));
            NS_TEST_EXPECT_MSG_EQ_TOL(f.iterationSeconds,
                                      p.iterationSeconds,
                                      TOLERANCE * p.iterationSeconds,
                                      p.job + " " + p.mode + ": flow-level iteration");
            NS_TEST_EXPECT_MSG_EQ_TOL(f.warmupSeconds,
                                      p.warmupSeconds,
                                      TOLERANCE * p.warmupSeconds,
                                      p.job + " " + p.mode + ": flow-level first iteration");
            // where the time goes: a pipeline's sends made free, say, would leave the iteration
            // within a few per cent but not its exposed PP
            const double share = TOLERANCE * p.iterationSeconds;
            const auto& pb = p.breakdown;
            const auto& fb = f.breakdown;
            for (std::size_t d = 0; d < pb.exposedSeconds.size(); ++d)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(fb.exposedSeconds[d],
                                          pb.exposedSeconds[d],
                                          share,
                                          p.job + " " + p.mode + ": exposed communication of "
                                              + "dimension " + std::to_string(d));
                NS_TEST_EXPECT_MSG_EQ_TOL(fb.commSeconds[d],
                                          pb.commSeconds[d],
                                          share,
                                          p.job + " " + p.mode + ": communication of dimension "
                                              + std::to_string(d));
            }
            NS_TEST_EXPECT_MSG_EQ_TOL(fb.computeSeconds, pb.computeSeconds, share, "compute");
            NS_TEST_EXPECT_MSG_EQ_TOL(fb.bubbleSeconds, pb.bubbleSeconds, share, "bubble");
        }
        // Jobs run together and alone: what sharing the fabric costs each job (4 to 5 % here)
        // agrees between the levels within 0.2 points (measured: 0.07)
        std::size_t runsTogether = 0;
        std::size_t runsAlone = 0;
        std::size_t compared = 0;
        for (const TrainingJobRow& r : packet.jobs)
        {
            runsTogether += r.mode == "together";
            runsAlone += r.mode == "alone";
        }
        // several jobs: each is run alone as well; one job: only together
        NS_TEST_ASSERT_MSG_EQ(runsAlone,
                              (runsTogether > 1 ? runsTogether : 0),
                              "a run alone per job when there are several");
        for (std::size_t j = 0; j < packet.jobs.size(); ++j)
        {
            for (std::size_t k = 0; k < packet.jobs.size(); ++k)
            {
                const TrainingJobRow& together = packet.jobs[j];
                const TrainingJobRow& alone = packet.jobs[k];
                if (together.mode != "together" || alone.mode != "alone"
                    || together.job != alone.job)
                {
                    continue;
                }
                double p = together.iterationSeconds / alone.iterationSeconds;
                double f = flow.jobs[j].iterationSeconds / flow.jobs[k].iterationSeconds;
                std::printf("%s, %s: together / alone, packet %.4f, flow %.4f\n",
                            GetName().c_str(),
                            together.job.c_str(),
                            p,
                            f);
                NS_TEST_EXPECT_MSG_EQ_TOL(f, p, 0.002, together.job + ": slowdown from sharing");
                ++compared;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(
            compared, runsAlone, "each job's run alone compared with its run together");
    }
};

/// A transformer given by its shape (GPT-like, small enough for packet level).
TrainingConfig
Transformer(uint32_t layers, uint64_t hidden, uint64_t sequence)
{
    TrainingConfig c;
    c.model = "transformer";
    c.layers = layers;
    c.hidden = hidden;
    c.heads = 8;
    c.sequence = sequence;
    c.vocabulary = 1024;
    return c;
}

/// A config on a 4-host star (100 Gbit/s, 500 ns links).
TrainingConfig
OnStar(TrainingConfig c)
{
    c.topology.kind = "star";
    c.topology.hosts = 4;
    return c;
}

/// A transformer at TP 2 x PP 2 x DP 2 on two rail-optimised servers of 4 GPUs.
TrainingConfig
GpuServers()
{
    TrainingConfig c = Transformer(4, 1024, 256);
    c.topology.kind = "rail-optimised";
    c.topology.servers = 2;
    c.topology.gpusPerServer = 4;
    c.tp = 2;
    c.pp = 2;
    c.dp = 2;
    c.microbatches = 4;
    return c;
}

class DataParallelTestCase : public AgreementTestCase
{
public:
    DataParallelTestCase(bool overlap)
        : AgreementTestCase(
            std::string("ResNet-50 pure DP on a 4-host star, 8 MiB buckets, overlap ")
            + (overlap ? "on" : "off"))
        , m_overlap(overlap)
    {
    }

private:
    void DoRun() override
    {
        TrainingConfig c = OnStar(TrainingConfig());
        c.model = "resnet50";
        c.dp = 4;
        c.microbatchSize = 4;
        c.bucketBytes = 8 << 20;
        c.overlap = m_overlap;
        c.backends[uint32_t(TrainingDimension::DP)] = "ring";
        CheckAgreement(c);
    }

    bool m_overlap;
};

class PipelineTestCase : public AgreementTestCase
{
public:
    PipelineTestCase(const std::string& schedule)
        : AgreementTestCase("transformer " + schedule + " p=4 m=8 on a 4-host star")
        , m_schedule(schedule)
    {
    }

private:
    void DoRun() override
    {
        TrainingConfig c = OnStar(Transformer(8, 1024, 512));
        c.pp = 4;
        c.microbatches = 8;
        c.schedule = m_schedule;
        CheckAgreement(c);
    }

    std::string m_schedule;
};

class TensorParallelTestCase : public AgreementTestCase
{
public:
    TensorParallelTestCase()
        : AgreementTestCase("Megatron TP 2 x DP 2 transformer on a 4-host star")
    {
    }

private:
    void DoRun() override
    {
        // the training-validation suite's TP case, larger activations
        TrainingConfig c = OnStar(Transformer(3, 1024, 256));
        c.tp = 2;
        c.dp = 2;
        c.microbatches = 2;
        c.microbatchSize = 3;
        CheckAgreement(c);
    }
};

class GpuServersTestCase : public AgreementTestCase
{
public:
    GpuServersTestCase(bool variants)
        : AgreementTestCase(variants ? "TP 2 x PP 2 x DP 2 on rail-optimised 2 x 4 GPUs: ZeRO-1, "
                                       "sequence parallel, recomputation, interleaved"
                                     : "TP 2 x PP 2 x DP 2 on rail-optimised 2 x 4 GPUs, 1F1B")
        , m_variants(variants)
    {
    }

private:
    void DoRun() override
    {
        TrainingConfig c = GpuServers();
        if (m_variants)
        {
            c.zero = 1;
            c.sequenceParallel = true;
            c.recompute = true;
            c.schedule = "interleaved";
            c.virtualStages = 2;
        }
        CheckAgreement(c);
    }

    bool m_variants;
};

class TwoJobsTestCase : public AgreementTestCase
{
public:
    TwoJobsTestCase()
        : AgreementTestCase("two DP x PP jobs sharing a 2:1 leaf-spine, together and alone")
    {
    }

private:
    void DoRun() override
    {
        TrainingConfig c = Transformer(4, 1024, 512);
        c.topology.kind = "leaf-spine";
        c.topology.leaves = 2;
        c.topology.hostsPerLeaf = 4;
        c.topology.oversubscription = 2;
        c.dp = 2;
        c.pp = 2;
        c.microbatches = 4;
        c.jobs = 2;
        c.placement = "0,4,1,5;2,6,3,7"; // every job crosses the spines
        CheckAgreement(c);
    }
};

/// Seconds of all iterations of one job run alone on a topology.
double
GraphSeconds(const TrainingGraph& g, TopologyConfig tc)
{
    SimulationScope scope(1, 1, {});
    Ptr<const Topology> topology = MakeTopology(tc);
    Cluster cluster = topology->Build();
    Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
    TrainingJobSetup job;
    job.graph = g;
    job.placement.resize(g.ranks);
    std::iota(job.placement.begin(), job.placement.end(), 0);
    for (auto& d : job.dimensions)
    {
        d.backend = "ring";
    }
    sim->Setup(cluster, topology, {job});
    sim->Start();
    Simulator::Run();
    NS_ABORT_MSG_UNLESS(sim->IsFinished(), "the training graph did not finish");
    std::vector<double> its = IterationSeconds(g, sim->GetRuns(0));
    sim->Dispose();
    return std::accumulate(its.begin(), its.end(), 0.0);
}

class AstraDataTestCase : public TestCase
{
public:
    AstraDataTestCase()
        : TestCase("ASTRA-sim DATA file, two iterations on a 4-host star")
    {
    }

private:
    void DoRun() override
    {
        // the training-validation suite's file: per layer fwd, ig, wg cycles, the
        // weight-gradient AllReduce bytes and the update time
        std::string text = "DATA\n3\n"
                           "L0 -1 100 NONE 0 0 NONE 0 300 ALLREDUCE 1048576 10\n"
                           "L1 -1 200 NONE 0 150 NONE 0 250 ALLREDUCE 2097152 0\n"
                           "L2 -1 300 NONE 0 250 NONE 0 200 ALLREDUCE 1048576 0\n";
        WorkloadImportOptions o;
        o.ranks = 4;
        o.iterations = 2;
        TrainingGraph g = ImportAstraSimText(text, "data.txt", o);
        TopologyConfig tc;
        tc.kind = "star";
        tc.hosts = 4;
        double packet = GraphSeconds(g, tc);
        tc.network = "flow";
        double flow = GraphSeconds(g, tc);
        std::printf("%-44s packet %.6e s, flow %.6e s (%+.3f%%)\n",
                    GetName().c_str(),
                    packet,
                    flow,
                    100 * (flow / packet - 1));
        NS_TEST_ASSERT_MSG_EQ_TOL(flow, packet, TOLERANCE * packet, "flow-level total");
    }
};

class DeterminismTestCase : public TestCase
{
public:
    DeterminismTestCase()
        : TestCase("determinism: two flow-level runs give identical results and comms")
    {
    }

private:
    void DoRun() override
    {
        TrainingConfig c = On(GpuServers(), "flow");
        c.trace = true;
        std::string text[2];
        for (auto& t : text)
        {
            TrainingResult r = RunTraining(c);
            nlohmann::json j = ToJson(c, r);
            j["comms"] = RowsJson(TrainingCommFields(), r.comms);
            t = j.dump();
        }
        bool same = text[0] == text[1];
        NS_TEST_ASSERT_MSG_EQ(same, true, "the same JSON byte for byte");
        NS_TEST_ASSERT_MSG_NE(text[0].find("\"network\":\"flow\""), std::string::npos, "flow");
    }
};

class FlowTrainingTestSuite : public TestSuite
{
public:
    FlowTrainingTestSuite()
        : TestSuite("dlnet-flow-training", UNIT)
    {
        AddTestCase(new DataParallelTestCase(false), TestCase::QUICK);
        AddTestCase(new DataParallelTestCase(true), TestCase::QUICK);
        AddTestCase(new PipelineTestCase("gpipe"), TestCase::QUICK);
        AddTestCase(new PipelineTestCase("1f1b"), TestCase::QUICK);
        AddTestCase(new TensorParallelTestCase, TestCase::QUICK);
        AddTestCase(new GpuServersTestCase(false), TestCase::QUICK);
        AddTestCase(new GpuServersTestCase(true), TestCase::QUICK);
        AddTestCase(new TwoJobsTestCase, TestCase::QUICK);
        AddTestCase(new AstraDataTestCase, TestCase::QUICK);
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
    }
};

FlowTrainingTestSuite g_flowTrainingTestSuite;

} // namespace
