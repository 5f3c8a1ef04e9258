/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Megatron-LM's weak-scaling table (SC'21, Table 1) against the simulation:
// its two smallest rows (1.7B on 32 GPUs, 3.6B on 64) at flow level, with the
// rates the A100's kernels and NCCL achieve (the defaults, from sources
// independent of the table) and with the peak-side settings (the maximum
// achievable matmul, the data sheets' HBM and NVLink).
// doc/megatron-validation.md explains the figures.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <array>
#include <cmath>
#include <iostream>

using namespace ns3;

namespace
{

/// The two smallest rows: FLOP count, throughput against the published, and the row-to-row
/// difference.
class MegatronSmallRowsTestCase : public TestCase
{
public:
    MegatronSmallRowsTestCase()
        : TestCase("1.7B on 32 GPUs and 3.6B on 64 at flow level: the paper's FLOP count, "
                   "the published ratio of the rows, and TFLOPS per GPU at the documented "
                   "deviation from the published 137 and 138 (a regression check: the "
                   "issue's 10% is not met)")
    {
    }

private:
    void DoRun() override
    {
        std::vector<MegatronRow> rows = ParseMegatronRows("rows", "1.7B,3.6B");
        MegatronSettings peak;
        peak.efficiency = A100_MAMF_EFFICIENCY;
        peak.memoryGBps = 2000;
        peak.nvlinkRate = "300GBps";
        // doc/megatron-validation.md: with the achieved rates (the defaults) the two rows are
        // 12.7% and 12.4% above the published throughput, with the peak-side settings 28.4%
        // and 29.3% (the acceptance target of 10% is not met; the doc says why). This checks
        // those documented figures, 0.3 points either side (a change of 0.3 % of the
        // iteration shows).
        struct Setting
        {
            const char* name;
            MegatronSettings settings;
            std::array<double, 2> documented; //!< the rows' deviations in the doc
        };
        const double points = 0.003;
        for (const auto& [name, settings, documented] :
             std::vector<Setting>{{"achieved rates", MegatronSettings(), {0.127, 0.124}},
                                  {"peak-side", peak, {0.284, 0.293}}})
        {
            std::vector<MegatronRowResult> results;
            for (const auto& row : rows)
            {
                const double expected = documented[results.size()];
                MegatronRowResult r = RunMegatronRow(row, settings);
                // the paper's count (section 5.1), written out here: 96·B·s·l·h²(1 + s/6h +
                // V/16lh)
                const double b = row.batch;
                const double s = 2048;
                const double l = row.layers;
                const double h = row.hidden;
                const double v = 51200;
                const double flops = 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
                NS_TEST_EXPECT_MSG_EQ_TOL(r.simulatorFlops / flops,
                                          1.0,
                                          1e-9,
                                          row.name
                                              << ": the training graph counts the paper's FLOPs");
                NS_TEST_EXPECT_MSG_EQ_TOL(r.tflopsPerGpu,
                                          flops / (r.iterationSeconds * row.gpus) / 1e12,
                                          1e-9,
                                          row.name << ": TFLOP/s per GPU from the formula");
                std::cout << name << ", " << row.name << ": " << r.tflopsPerGpu
                          << " TFLOP/s per GPU simulated, " << row.published << " published ("
                          << 100 * r.deviation << "%), iteration " << r.iterationSeconds << " s"
                          << std::endl;
                NS_TEST_EXPECT_MSG_EQ_TOL(
                    r.deviation, expected, points, name << ", " << row.name << ": as documented");
                results.push_back(r);
            }
            // the difference between the rows (the network, TP 2 and its collectives) as
            // published: 138 / 137 per GPU, within 2%
            const double simulated = results[1].tflopsPerGpu / results[0].tflopsPerGpu;
            const double published = rows[1].published / rows[0].published;
            NS_TEST_EXPECT_MSG_EQ_TOL(
                simulated / published, 1.0, 0.02, name << ": 3.6B / 1.7B throughput as published");
        }
    }
};

/// TP lock step (one compute task per TP group) times a pipelined iteration as one task
/// per shard does.
class MegatronLockstepTestCase : public TestCase
{
public:
    MegatronLockstepTestCase()
        : TestCase("tp-lockstep: the same iteration as a compute task per shard (TP 8, PP 2, "
                   "DP 2, interleaved, recomputation, flow level)")
    {
    }

private:
    void DoRun() override
    {
        MegatronRow row{"small", 0, 16, 1024, 8, 8, 2, 32, 16, 0, 2, 2, true};
        TrainingConfig c = MegatronTrainingConfig(row, MegatronSettings());
        c.sequence = 512;
        double seconds[2];
        for (bool lockstep : {false, true})
        {
            c.tpLockstep = lockstep;
            TrainingResult r = RunTraining(c);
            seconds[lockstep] = r.jobs.at(0).iterationSeconds;
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(
            seconds[1] / seconds[0], 1.0, 1e-9, "iteration with and without lock step");
    }
};

/// The hardware settings reach the simulated device and servers.
class MegatronSettingsTestCase : public TestCase
{
public:
    MegatronSettingsTestCase()
        : TestCase("settings: HBM bandwidth and NVLink rate reach the device and the servers; "
                   "bad settings name their option")
    {
    }

private:
    void DoRun() override
    {
        const MegatronRow& row = MegatronTable().front();
        MegatronSettings settings;
        settings.memoryGBps = 2000;
        settings.nvlinkRate = "300GBps";
        TrainingConfig c = MegatronTrainingConfig(row, settings);
        const TrainingConfig defaults = MegatronTrainingConfig(row, MegatronSettings());
        NS_TEST_EXPECT_MSG_EQ_TOL(c.MakeDevice().memoryBandwidth, 2.0e12, 1, "HBM bandwidth");
        NS_TEST_EXPECT_MSG_EQ(c.topology.nvlinkRate, "300GBps", "NVLink rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(defaults.MakeDevice().memoryBandwidth,
                                  1.8e12,
                                  1,
                                  "default: the 1.8 TB/s a read kernel reaches");
        NS_TEST_EXPECT_MSG_EQ(
            defaults.topology.nvlinkRate, "230GBps", "default: NCCL's effective NVLink bandwidth");
        // pipeline messages as Megatron-LM sent them, unless turned off (on a row with
        // TP, PP and the interleaved schedule: 76B)
        const MegatronRow& big = MegatronTable()[5];
        const TrainingConfig bigDefaults = MegatronTrainingConfig(big, MegatronSettings());
        NS_TEST_EXPECT_MSG_EQ(
            bigDefaults.pipelineScatterGather, true, "default: scatter-gather pipeline messages");
        NS_TEST_EXPECT_MSG_EQ(
            bigDefaults.blockingPipelineSends, true, "default: synchronous pipeline messages");
        const TrainingPlan defaultPlan = defaults.MakePlan();
        const TrainingPlan bigPlan = bigDefaults.MakePlan();
        NS_TEST_EXPECT_MSG_EQ(
            bigPlan.interleavedSendWithBackward,
            true,
            "default: the interleaved steady state's messages after the backward step");
        NS_TEST_EXPECT_MSG_EQ(
            bigDefaults.sendRendezvous, true, "default: a send waits for its receive");
        NS_TEST_EXPECT_MSG_EQ(bigPlan.vocabParallelAllReduces,
                              true,
                              "default: the embedding's and the logits' TP all-reduces");
        NS_TEST_EXPECT_MSG_EQ(bigPlan.tiedEmbeddingCopy,
                              true,
                              "default: the last stage's copy of the tied embedding");
        // 1.7B has neither TP nor PP: none of their flags, no TP backend (a run refuses them)
        NS_TEST_EXPECT_MSG_EQ(defaultPlan.pipelineScatterGather || defaultPlan.pipelineSendsBlock
                                  || defaultPlan.interleavedSendWithBackward
                                  || defaultPlan.vocabParallelAllReduces
                                  || defaultPlan.tiedEmbeddingCopy || defaultPlan.tpLockstep
                                  || defaults.sendRendezvous,
                              false,
                              "1.7B: no TP or PP flags");
        NS_TEST_EXPECT_MSG_EQ(
            defaults.backends[uint32_t(TrainingDimension::TP)], "auto", "1.7B: no TP backend");
        NS_TEST_EXPECT_MSG_EQ(
            defaultPlan.ddpBucketCopies, true, "default: PyTorch DDP's bucket copies (1.7B)");
        const TrainingPlan localDdpPlan
            = MegatronTrainingConfig(MegatronTable()[4], MegatronSettings()).MakePlan();
        NS_TEST_EXPECT_MSG_EQ(
            localDdpPlan.localDdpCopies, true, "default: local DDP's gradient copies (39B)");
        NS_TEST_EXPECT_MSG_EQ(localDdpPlan.ddpBucketCopies,
                              false,
                              "no PyTorch DDP bucket copies with local DDP (39B)");
        {
            MegatronSettings noCopies;
            noCopies.ddpBucketCopies = false;
            NS_TEST_EXPECT_MSG_EQ(MegatronTrainingConfig(row, noCopies).MakePlan().ddpBucketCopies,
                                  false,
                                  "ddp-bucket-copies off");
        }
        {
            NS_TEST_EXPECT_MSG_EQ(bigDefaults.backends[uint32_t(TrainingDimension::TP)],
                                  "ring",
                                  "default: NCCL's ring for TP");
            Ns3Attributes latencies{{"ns3::CollectiveEngine::LaunchLatency", "8.4us"},
                                    {"ns3::CollectiveEngine::StepLatency", "3.4us"},
                                    {"ns3::CollectiveEngine::NetworkStepLatency", "9.6us"}};
            NS_TEST_EXPECT_MSG_EQ((defaults.ns3Attributes == latencies),
                                  true,
                                  "default: NCCL 2.8's ring latencies reach the engine");
            MegatronSettings none;
            none.ncclLatency = false;
            const TrainingConfig plain = MegatronTrainingConfig(big, none);
            NS_TEST_EXPECT_MSG_EQ(plain.ns3Attributes.empty(), true, "no latencies when off");
            NS_TEST_EXPECT_MSG_EQ(plain.backends[uint32_t(TrainingDimension::TP)],
                                  "halving-doubling",
                                  "off: halving-doubling for TP");
        }
        MegatronSettings old;
        old.scatterGather = false;
        old.blockingSends = false;
        old.sendWithBackward = false;
        const TrainingPlan plan = MegatronTrainingConfig(big, old).MakePlan();
        NS_TEST_EXPECT_MSG_EQ(plan.pipelineScatterGather, false, "scatter-gather off");
        NS_TEST_EXPECT_MSG_EQ(plan.pipelineSendsBlock, false, "blocking off");
        NS_TEST_EXPECT_MSG_EQ(plan.interleavedSendWithBackward, false, "send with backward off");
        NS_TEST_EXPECT_MSG_EQ(bigPlan.pipelineSendsBlock, true, "reaches the plan");
        for (auto [field, bad] :
             std::vector<std::pair<std::string, MegatronSettings>>{{"memory-bandwidth",
                                                                    []
                                                                    {
                                                                        MegatronSettings s;
                                                                        s.memoryGBps = 0;
                                                                        return s;
                                                                    }()},
                                                                   {"nvlink-rate",
                                                                    []
                                                                    {
                                                                        MegatronSettings s;
                                                                        s.nvlinkRate = "fast";
                                                                        return s;
                                                                    }()},
                                                                   {"efficiency",
                                                                    []
                                                                    {
                                                                        MegatronSettings s;
                                                                        s.efficiency = 1.5;
                                                                        return s;
                                                                    }()}})
        {
            std::string message;
            try
            {
                bad.Validate();
            }
            catch (const std::invalid_argument& e)
            {
                message = e.what();
            }
            NS_TEST_EXPECT_MSG_EQ(
                message.rfind(field + ":", 0), 0, "names " << field << ": " << message);
        }
    }
};

/// The suite.
class MegatronTestSuite : public TestSuite
{
public:
    MegatronTestSuite()
        : TestSuite("dlnet-megatron", UNIT)
    {
        AddTestCase(new MegatronSmallRowsTestCase, TestCase::QUICK);
        AddTestCase(new MegatronSettingsTestCase, TestCase::QUICK);
        AddTestCase(new MegatronLockstepTestCase, TestCase::QUICK);
    }
};

MegatronTestSuite g_megatronTestSuite;

} // namespace
