/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// A provisioned heterogeneous plan run as a pipeline on a simulated
// CPU/GPU leaf-spine (SimulatePlan): one stage, two stages with their
// transfer, ring AllReduce and parameter-server synchronisation, an incast
// at a stage boundary, determinism; every figure against a closed form
// written here from the catalogue's NIC rates and the fabric's packets.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <cmath>
#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

const double CPU_NIC = 25e9;  //!< bit/s
const double GPU_NIC = 100e9; //!< bit/s
const double HEADER = 24;     //!< FabricHeader bytes
const double MTU = 4096;      //!< the default TopologyConfig's
const uint64_t BATCH = 256;

/// Bytes of a message of m payload bytes on the wire.
double
Wire(double m)
{
    return m + HEADER * std::ceil(m / (MTU - HEADER));
}

/// A catalogue of a 25 Gbit/s CPU server (type 0) and a 100 Gbit/s GPU (type 1).
ResourceCatalogue
Catalogue()
{
    ResourceCatalogue c;
    c.name = "test";
    ResourceType cpu;
    cpu.name = "cpu";
    cpu.kind = ResourceKind::CPU;
    cpu.pricePerHour = 1;
    cpu.available = 64;
    cpu.nicRate = CPU_NIC;
    // the rest only for the cost model's checks (the profile's times are given by hand)
    cpu.device = MakeDevice("cpu");
    cpu.memoryBytes = uint64_t(1) << 40; // every layer fits: no host-memory traffic
    cpu.hostBandwidth = 100e9;
    ResourceType gpu = cpu;
    gpu.device = MakeDevice("a100");
    gpu.name = "gpu";
    gpu.kind = ResourceKind::GPU;
    gpu.pricePerHour = 3;
    gpu.nicRate = GPU_NIC;
    c.types = {cpu, gpu};
    return c;
}

/// A layer of the given times on cpu and gpu.
ProfiledLayer
Layer(std::string kind, double cpu, double gpu, double a, uint64_t out, uint64_t sync)
{
    ProfiledLayer l;
    l.name = kind;
    l.kind = kind;
    l.seconds = {cpu, gpu};
    l.forwardFraction = 1.0 / 3;
    l.parallelFraction = a;
    l.outputBytes = out;
    l.syncBytes = sync;
    return l;
}

SchedulingProblem
Problem(std::vector<ProfiledLayer> layers, SyncMode sync = SyncMode::ALL_REDUCE)
{
    SchedulingProblem p;
    p.catalogue = Catalogue();
    p.profile.name = "hand";
    p.profile.typeNames = {"cpu", "gpu"};
    p.profile.batch = BATCH;
    p.profile.layers = std::move(layers);
    p.throughputLimit = 1;
    p.samples = 1e6;
    p.sync = sync;
    p.psType = 0;
    return p;
}

/// A stage with its times as written by hand in each test.
PlanStage
Stage(uint32_t first,
      uint32_t last,
      uint32_t type,
      uint32_t k,
      double compute,
      double sync,
      double transfer,
      uint32_t servers = 0)
{
    PlanStage s;
    s.first = first;
    s.last = last;
    s.type = type;
    s.instances = k;
    s.psServers = servers;
    s.computeSeconds = compute;
    s.syncSeconds = sync;
    s.transferSeconds = transfer;
    s.stageSeconds = compute + sync + transfer;
    s.throughput = BATCH / s.stageSeconds;
    return s;
}

PlanEvaluation
Plan(std::vector<PlanStage> stages)
{
    PlanEvaluation e;
    e.feasible = true;
    e.stages = stages;
    e.throughput = 1e300;
    for (uint32_t i = 0; i < stages.size(); ++i)
    {
        for (uint32_t l = stages[i].first; l <= stages[i].last; ++l)
        {
            e.plan.push_back(stages[i].type);
        }
        if (stages[i].throughput < e.throughput)
        {
            e.throughput = stages[i].throughput;
            e.bottleneck = i;
        }
    }
    return e;
}

PlanSimulationConfig
Config(uint32_t batches = 8, uint32_t warmup = 2)
{
    PlanSimulationConfig c;
    c.batches = batches;
    c.warmup = warmup;
    return c;
}

void
Print(const std::string& what, const PlanSimulationResult& r)
{
    std::cout << "measured: " << what << ": simulated " << r.simulatedThroughput
              << " samples/s, predicted " << r.predictedThroughput << " (" << 100 * r.difference
              << "%), " << r.events << " events" << std::endl;
    for (const auto& s : r.stages)
    {
        std::cout << "  stage " << s.stage << " " << s.instances << " x " << s.type
                  << ": predicted " << s.predictedSeconds * 1e3 << " ms, cycle "
                  << s.simulatedSeconds * 1e3 << " ms, compute " << s.computeSeconds * 1e3
                  << " ms, sync " << s.syncSeconds * 1e3 << " ms, transfer "
                  << s.transferSeconds * 1e3 << " ms, wait " << s.waitSeconds * 1e3 << " ms"
                  << std::endl;
    }
    std::cout << "  " << r.explanation << std::endl;
}

/// (a) one stage, one replica: B / CT.
class OneStageTestCase : public TestCase
{
public:
    OneStageTestCase()
        : TestCase("one stage, k = 1: throughput = B over CT")
    {
    }

private:
    void DoRun() override
    {
        SchedulingProblem p = Problem({Layer("linear", 10e-3, 2e-3, 0.9, 1000, 1000)});
        // CT(1) = 10 ms; no sync with one replica, no transfer in the last stage
        PlanSimulationResult r = SimulatePlan(p, Plan({Stage(0, 0, 0, 1, 10e-3, 0, 0)}), Config());
        Print("one stage", r);
        NS_TEST_EXPECT_MSG_EQ_TOL(
            r.simulatedThroughput, BATCH / 10e-3, 0.01 * BATCH / 10e-3, "B / CT");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].computeSeconds, 10e-3, 1e-9, "compute per batch");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].waitSeconds, 0, 1e-9, "never waits");
        NS_TEST_EXPECT_MSG_EQ(r.ranks, 1, "one instance");
    }
};

/// The two-stage problem: an embedding on 1 CPU, the dense layer on 1 GPU, 8 MB between.
SchedulingProblem
TwoStages()
{
    return Problem({Layer("embedding", 20e-3, 40e-3, 0.9, 8000000, 0),
                    Layer("linear", 50e-3, 5e-3, 0.9, 1000, 0)});
}

/// ET0 = 20 ms + 2 A / 25 Gbit/s = 25.12 ms; ET1 = 5 ms.
PlanEvaluation
TwoStagePlan()
{
    double dt = 2 * 8e6 * 8 / CPU_NIC;
    return Plan({Stage(0, 0, 0, 1, 20e-3, 0, dt), Stage(1, 1, 1, 1, 5e-3, 0, 0)});
}

/// (b) CPU -> GPU, one replica each: the CPU stage's ET with its transfer limits.
class TwoStageTestCase : public TestCase
{
public:
    TwoStageTestCase()
        : TestCase("two stages CPU to GPU: bottleneck ET = CT + 2A over BW, simulated within 3%")
    {
    }

private:
    void DoRun() override
    {
        SchedulingProblem p = TwoStages();
        PlanEvaluation plan = TwoStagePlan();
        PlanSimulationResult r = SimulatePlan(p, plan, Config());
        Print("cpu -> gpu", r);
        double et0 = 20e-3 + 2 * 8e6 * 8 / CPU_NIC;
        // the cost model's own stage time is the closed form (the plan above is written
        // by hand, so r.predictedThroughput, copied from it, would check nothing)
        PlanStage modelled = CostModel(p).StageTime(0, 0, 0, 1, 1);
        NS_TEST_EXPECT_MSG_EQ_TOL(modelled.stageSeconds, et0, 1e-9 * et0, "model");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.predictedThroughput, BATCH / et0, 1e-9 * BATCH / et0, "plan");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.simulatedThroughput, BATCH / et0, 0.03 * BATCH / et0, "3%");
        // what differs: each of the two 8 MB messages carries headers (24 B per 4072) and
        // crosses host, uplink, downlink and host link; the CPU NIC serialises it
        double wire = 2 * Wire(8e6) * 8 / CPU_NIC;
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].transferSeconds, wire, 0.005 * wire, "headers");
        NS_TEST_EXPECT_MSG_EQ(
            (r.stages[0].transferSeconds > 2 * 8e6 * 8 / CPU_NIC), true, "slower than 2A/BW");
        // and the CPU stage never waits: its cycle is its compute plus its transfers
        double cycle = 20e-3 + r.stages[0].transferSeconds;
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].simulatedSeconds, cycle, 1e-3 * cycle, "cycle");
        NS_TEST_EXPECT_MSG_EQ_TOL(BATCH / r.simulatedThroughput, cycle, 1e-3 * cycle, "period");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].waitSeconds, 0, 1e-4 * cycle, "no wait");
        NS_TEST_EXPECT_MSG_EQ((r.explanation.find("stage 0 (1 x cpu)") != std::string::npos),
                              true,
                              "names the bottleneck");
        NS_TEST_EXPECT_MSG_EQ((r.explanation.find("transfers out of stage 0") != std::string::npos),
                              true,
                              "names the transfer");
    }
};

/// (c) four CPU replicas with a ring AllReduce of 4 MB.
class RingSyncTestCase : public TestCase
{
public:
    RingSyncTestCase()
        : TestCase("ring AllReduce, k = 4: SYNC = 2 (k-1) S over k nic")
    {
    }

private:
    void DoRun() override
    {
        const double S = 4e6;
        SchedulingProblem p = Problem({Layer("linear", 10e-3, 2e-3, 1, 1000, uint64_t(S))});
        double ct = 10e-3 / 4;
        double sync = 2.0 * 3 / 4 * S * 8 / CPU_NIC; // 1.92 ms
        PlanSimulationResult r = SimulatePlan(p, Plan({Stage(0, 0, 0, 4, ct, sync, 0)}), Config());
        Print("ring k=4", r);
        // 6 steps of S/4 on the wire, each with two links' delay and a packet's store and
        // forward in the leaf
        double step = Wire(S / 4) * 8 / CPU_NIC + 2 * 500e-9 + MTU * 8 / CPU_NIC;
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].syncSeconds, 6 * step, 0.01 * 6 * step, "ring");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            r.simulatedThroughput, BATCH / (ct + sync), 0.02 * BATCH / (ct + sync), "within 2%");
        NS_TEST_EXPECT_MSG_EQ_TOL(BATCH / r.simulatedThroughput,
                                  ct + 6 * step,
                                  0.002 * (ct + 6 * step),
                                  "period = CT + ring");
    }
};

/// (d) two CPU replicas of an embedding stage with two CPU parameter servers.
class PsSyncTestCase : public TestCase
{
public:
    PsSyncTestCase()
        : TestCase("parameter servers, k = 2, m = 2: SYNC = 2 (S over k) over nic")
    {
    }

private:
    void DoRun() override
    {
        const double S = 4e6;
        SchedulingProblem p = Problem({Layer("embedding", 10e-3, 20e-3, 1, 1000, uint64_t(S))},
                                      SyncMode::PARAMETER_SERVER);
        double ct = 10e-3 / 2;
        // a replica pushes and pulls the rows of its own half of the batch:
        // m = ceil(2 x 25 / 25) = 2 servers
        double sync = 2 * (S / 2) * 8 / CPU_NIC;
        PlanSimulationResult r
            = SimulatePlan(p, Plan({Stage(0, 0, 0, 2, ct, sync, 0, 2)}), Config());
        Print("ps k=2 m=2", r);
        NS_TEST_EXPECT_MSG_EQ(r.ranks, 4, "2 replicas and 2 servers");
        // per replica: 2 pushes and 2 pulls of (S/2)/2, replica r starting at server r: no
        // two messages share a NIC
        double message = Wire(S / 4) * 8 / CPU_NIC + 2 * 500e-9 + MTU * 8 / CPU_NIC;
        NS_TEST_EXPECT_MSG_EQ_TOL(
            r.stages[0].syncSeconds, 4 * message, 0.01 * 4 * message, "4 messages");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            r.simulatedThroughput, BATCH / (ct + sync), 0.02 * BATCH / (ct + sync), "within 2%");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.stages[0].psServers, 2, 0, "servers");
    }
};

/// (e) 16 CPU replicas into 1 GPU replica: the GPU's NIC limits the boundary.
class IncastTestCase : public TestCase
{
public:
    IncastTestCase()
        : TestCase("incast: 16 x 25G CPU replicas into one 100G GPU, bound by its NIC")
    {
    }

private:
    void DoRun() override
    {
        const double A = 4e6;
        const double S = 160000;
        // the CPU stage's AllReduce is a barrier: its replicas start each batch's sends
        // together, so that they all meet at the GPU's NIC
        SchedulingProblem p
            = Problem({Layer("embedding", 16e-3, 40e-3, 1, uint64_t(A), uint64_t(S)),
                       Layer("linear", 50e-3, 0.5e-3, 1, 1000, 0)});
        // the model: DT0 = 2 A / (16 x 25G) = 0.16 ms, SYNC0 = 2 x 15/16 x S / 25G;
        // ET0 = 1 ms + both, ET1 = 0.5 ms
        double dt = 2 * A * 8 / (16 * CPU_NIC);
        double sync = 2.0 * 15 / 16 * S * 8 / CPU_NIC;
        PlanEvaluation plan
            = Plan({Stage(0, 0, 0, 16, 1e-3, sync, dt), Stage(1, 1, 1, 1, 0.5e-3, 0, 0)});
        PlanSimulationResult r = SimulatePlan(p, plan, Config());
        Print("incast 16 -> 1", r);
        // the explained quantity: a batch's A bytes of activations all go into the GPU's
        // NIC, Wire(A) x 8 / 100G, against the model's A / 16 x 8 / 25G per replica
        double bound = Wire(A) * 8 / GPU_NIC;
        NS_TEST_EXPECT_MSG_EQ_TOL(
            r.stages[0].boundarySeconds, bound, 0.05 * bound, "the receiver's NIC");
        NS_TEST_EXPECT_MSG_EQ((r.stages[0].transferSeconds > 1.5 * dt),
                              true,
                              "each replica's transfers slower than 2A / (k BW)");
        NS_TEST_EXPECT_MSG_EQ(
            (r.simulatedThroughput < 0.9 * r.predictedThroughput), true, "slower than the model");
        NS_TEST_EXPECT_MSG_EQ(
            (r.explanation.find("incast") != std::string::npos), true, "explained as incast");
        NS_TEST_EXPECT_MSG_EQ((r.explanation.find("16 replicas at 25 Gbit/s send into 1 gpu "
                                                  "replica whose 100 Gbit/s NICs receive "
                                                  "100 Gbit/s")
                               != std::string::npos),
                              true,
                              "the rates");
    }
};

/// (f) the same run twice: the same figures, bit for bit.
class DeterminismTestCase : public TestCase
{
public:
    DeterminismTestCase()
        : TestCase("two runs of a plan give identical figures")
    {
    }

private:
    void DoRun() override
    {
        SchedulingProblem p = TwoStages();
        PlanSimulationResult a = SimulatePlan(p, TwoStagePlan(), Config(5, 1));
        PlanSimulationResult b = SimulatePlan(p, TwoStagePlan(), Config(5, 1));
        NS_TEST_EXPECT_MSG_EQ(a.simulatedThroughput, b.simulatedThroughput, "throughput");
        NS_TEST_EXPECT_MSG_EQ(a.events, b.events, "events");
        NS_TEST_EXPECT_MSG_EQ(a.simulatedSeconds, b.simulatedSeconds, "time");
        NS_TEST_EXPECT_MSG_EQ(a.explanation, b.explanation, "explanation");
        for (uint32_t i = 0; i < a.stages.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(a.stages[i].transferSeconds, b.stages[i].transferSeconds, "");
            NS_TEST_EXPECT_MSG_EQ(a.stages[i].waitSeconds, b.stages[i].waitSeconds, "");
        }
    }
};

/// By hand: a stage's ET with its boundary at the narrower side's rate, 2 A / min(k nic,
/// k' nic') (the receivers' NICs take every sender's bytes), CT and ring or PS sync as
/// doc/heterps-simulation.md writes them from the profile and catalogue.
double
BoundaryBoundEt(const SchedulingProblem& p, const PlanEvaluation& e, uint32_t i)
{
    const PlanStage& s = e.stages[i];
    double k = s.instances;
    double ct = 0;
    double sync = 0;
    double sparse = 0; // under PS a replica pushes its own samples' rows: sparse / k
    for (uint32_t l = s.first; l <= s.last; ++l)
    {
        const ProfiledLayer& layer = p.profile.layers[l];
        ct += layer.seconds[s.type] * ((1 - layer.parallelFraction) + layer.parallelFraction / k);
        sync += layer.syncBytes;
        sparse += layer.kind == "embedding" ? layer.syncBytes : 0;
    }
    double nic = p.catalogue.types[s.type].nicRate;
    double syncSeconds = s.psServers > 0    ? 2 * (sparse / k + sync - sparse) * 8 / nic
                         : s.instances >= 2 ? 2 * (k - 1) / k * sync * 8 / nic
                                            : 0;
    double dt = 0;
    if (i + 1 < e.stages.size())
    {
        const PlanStage& next = e.stages[i + 1];
        double narrower = std::min(k * nic, next.instances * p.catalogue.types[next.type].nicRate);
        dt = 2 * double(p.profile.layers[s.last].outputBytes) * 8 / narrower;
    }
    return ct + syncSeconds + dt;
}

/// (h) every built-in CTR model's exact plan on the aws-2026 catalogue.
class CtrModelsTestCase : public TestCase
{
public:
    /**
     * \param sync the problem's sync \param batch its batch \param limit its limit, or 0:
     * 1.2 x the fastest one-type plan (heterogeneous plans needed) when the exact plan
     * meets it, else 0.9 x (a one-type plan)
     */
    CtrModelsTestCase(SyncMode sync, uint64_t batch, double limit)
        : TestCase("CTR models' exact plans (" + ToString(sync) + ", batch " + std::to_string(batch)
                   + "): within 10% or the incast explained and bounded")
        , m_sync(sync)
        , m_batch(batch)
        , m_limit(limit)
    {
    }

private:
    SyncMode m_sync;
    uint64_t m_batch;
    double m_limit;

    void DoRun() override
    {
        const ResourceCatalogue cat = MakeCataloguePreset("aws-2026");
        for (const auto& name : CtrModelNames())
        {
            SchedulingProblem p;
            p.catalogue = cat;
            p.profile = ProfileModel(MakeCtrModel(name), cat, m_batch);
            p.samples = 1e9;
            p.throughputLimit = 1;
            p.sync = m_sync;
            double single = 0;
            {
                CostModel m(p);
                for (uint32_t t = 0; t < cat.types.size(); ++t)
                {
                    SchedulingPlan all(p.profile.Size(), t);
                    single = std::max(single, m.BestThroughput(all).throughput);
                }
            }
            ScheduleResult exact;
            for (double f : {1.2, 0.9})
            {
                p.throughputLimit = m_limit > 0 ? m_limit : f * single;
                exact = RunScheduler("exact", CostModel(p), SchedulerOptions());
                if (exact.best.feasible)
                {
                    break;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(exact.best.feasible, true, name << ": a feasible limit");
            PlanSimulationResult r = SimulatePlan(CostModel(p), exact.best, Config());
            Print(name + " exact plan", r);
            if (std::abs(r.difference) <= 0.10)
            {
                continue;
            }
            // the explained quantity: the boundary into the stage after the model's bottleneck
            // is bound by the receivers' NICs; a batch's activations take at least
            // A x 8 / (k' nic') to cross, at most that for what the receivers take in per
            // batch (these activations and the next boundary's gradients)
            uint32_t b = exact.best.bottleneck;
            NS_TEST_ASSERT_MSG_EQ(
                (b + 1 < exact.best.stages.size()), true, name << ": the gap is at a boundary");
            NS_TEST_EXPECT_MSG_EQ((r.explanation.find("incast") != std::string::npos),
                                  true,
                                  name << ": explained as incast");
            const PlanStage& next = exact.best.stages[b + 1];
            double in = next.instances * cat.types[next.type].nicRate;
            double a = p.profile.layers[exact.best.stages[b].last].outputBytes;
            double aNext
                = b + 2 < exact.best.stages.size() ? p.profile.layers[next.last].outputBytes : 0;
            double boundary = r.stages[b].boundarySeconds;
            NS_TEST_EXPECT_MSG_GT_OR_EQ(boundary, 0.99 * a * 8 / in, name << ": at least A / rate");
            if (m_sync
                == SyncMode::ALL_REDUCE) // under PS the replicas drift apart: the span is longer
            {
                NS_TEST_EXPECT_MSG_LT_OR_EQ(boundary,
                                            1.05 * (Wire(a) + Wire(aNext)) * 8 / in,
                                            name << ": at most what the receivers take in");
            }
            // and the pipeline runs within 10% of the model with that boundary bound
            double bound = 1e300;
            for (uint32_t i = 0; i < exact.best.stages.size(); ++i)
            {
                bound = std::min(bound, p.profile.batch / BoundaryBoundEt(p, exact.best, i));
            }
            std::cout << "  " << name << ": with the boundaries at their narrower side " << bound
                      << " samples/s" << std::endl;
            if (m_sync == SyncMode::ALL_REDUCE)
            {
                // one boundary, no servers: the narrower side is the whole story
                NS_TEST_EXPECT_MSG_EQ_TOL(r.simulatedThroughput,
                                          bound,
                                          0.10 * bound,
                                          name << ": the boundary-bound model");
                continue;
            }
            // with parameter servers the replicas drift apart, so the senders do not all
            // meet at the receivers' NICs: the simulation lies between the cost model's
            // per-sender boundary (an upper bound) and every boundary at its narrower side
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.simulatedThroughput,
                                        1.01 * r.predictedThroughput,
                                        name << ": no faster than the model");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(
                r.simulatedThroughput, 0.90 * bound, name << ": the boundary-bound model");
        }
    }
};

/// (g) bad configs and plans: std::invalid_argument naming the field.
class BadInputTestCase : public TestCase
{
public:
    BadInputTestCase()
        : TestCase("bad configs and plans are refused naming the field")
    {
    }

private:
    void DoRun() override
    {
        SchedulingProblem p = TwoStages();
        auto refused = [&](PlanEvaluation plan, PlanSimulationConfig c, const std::string& field)
        {
            try
            {
                SimulatePlan(p, plan, c);
            }
            catch (const std::invalid_argument& e)
            {
                return std::string(e.what()).find(field) == 0;
            }
            return false;
        };
        NS_TEST_EXPECT_MSG_EQ(refused(TwoStagePlan(), Config(3, 2), "batches"), true, "");
        NS_TEST_EXPECT_MSG_EQ(refused(TwoStagePlan(), Config(8, 0), "warmup"), true, "");
        PlanSimulationConfig seed = Config();
        seed.seed = 0;
        NS_TEST_EXPECT_MSG_EQ(refused(TwoStagePlan(), seed, "seed"), true, "");
        PlanSimulationConfig mtu = Config();
        mtu.topology.mtu = 3;
        NS_TEST_EXPECT_MSG_EQ(refused(TwoStagePlan(), mtu, "mtu"), true, "");
        PlanSimulationConfig leaves = Config();
        leaves.topology.given = {"leaves"};
        NS_TEST_EXPECT_MSG_EQ(refused(TwoStagePlan(), leaves, "leaves"), true, "");
        PlanEvaluation infeasible = TwoStagePlan();
        infeasible.feasible = false;
        NS_TEST_EXPECT_MSG_EQ(refused(infeasible, Config(), "plan"), true, "");
        PlanEvaluation zero = TwoStagePlan();
        zero.stages[1].instances = 0;
        NS_TEST_EXPECT_MSG_EQ(refused(zero, Config(), "plan"), true, "");
        PlanEvaluation gap = TwoStagePlan();
        gap.stages[1].first = 0;
        NS_TEST_EXPECT_MSG_EQ(refused(gap, Config(), "plan"), true, "");
        PlanEvaluation type = TwoStagePlan();
        type.stages[1].type = 7;
        NS_TEST_EXPECT_MSG_EQ(refused(type, Config(), "plan"), true, "");
    }
};

class PlanSimulationTestSuite : public TestSuite
{
public:
    PlanSimulationTestSuite()
        : TestSuite("dlnet-plan-simulation", UNIT)
    {
        AddTestCase(new OneStageTestCase, TestCase::QUICK);
        AddTestCase(new TwoStageTestCase, TestCase::QUICK);
        AddTestCase(new RingSyncTestCase, TestCase::QUICK);
        AddTestCase(new PsSyncTestCase, TestCase::QUICK);
        AddTestCase(new IncastTestCase, TestCase::QUICK);
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
        AddTestCase(new BadInputTestCase, TestCase::QUICK);
        AddTestCase(new CtrModelsTestCase(SyncMode::ALL_REDUCE, 1024, 0), TestCase::QUICK);
        // heterps's defaults: parameter servers, batch 4096, 3e6 samples/s
        AddTestCase(new CtrModelsTestCase(SyncMode::PARAMETER_SERVER, 4096, 3e6), TestCase::QUICK);
    }
};

static PlanSimulationTestSuite g_planSimulationTestSuite;

} // namespace
