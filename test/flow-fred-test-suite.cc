/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FRED at flow level against packet level (issue 12): each case runs the
// same wafer experiment or training iteration with network=packet and
// network=flow in the same test and compares them: the FRED paper's
// wafer-wide all-reduce (Fig. 9) and the MP, PP and DP group collectives on
// the mesh and on every FRED variant, weight streaming, and one iteration of
// the FRED end-to-end training table at reduced size, each within 5 % of
// packet level; the bytes the flows put on the links equal the bytes the
// packets put there.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <cmath>
#include <iostream>

using namespace ns3;

namespace
{

/// The acceptance figure of issue 12 for the wafer table and training.
const double TOLERANCE = 0.05;
const double BREAKDOWN_TOLERANCE = 0.25; //!< of a breakdown value

/// The wafer experiment of one scenario, at one network level.
std::vector<WaferRow>
Wafer(const std::string& scenario, uint64_t bytes, uint32_t chunks, const std::string& network)
{
    WaferExperimentConfig c = WaferExperimentConfig().ForScenario(scenario);
    c.BytesOf(scenario) = bytes;
    if (WaferExperimentConfig::ScenarioUses(scenario, "chunks"))
    {
        c.chunks = chunks;
    }
    c.wafer.network = network;
    return RunWafer(c).rows;
}

/// Packet against flow level, row by row: time and effective bandwidth
/// within TOLERANCE, bytes on the NPU, upper and I/O links within 0.5 %.
class WaferTwinCase : public TestCase
{
public:
    /// \param chunks of the hierarchical all-reduce (mesh, fred-a): the experiment's 64
    /// cut a few MiB into messages smaller than a packet, where the flow model is not
    /// meant to be within 5 % (latency-bound sizes)
    WaferTwinCase(const std::string& scenario, uint64_t bytes, uint32_t chunks = 64)
        : TestCase("flow against packet level: wafer scenario " + scenario + ", "
                   + std::to_string(bytes >> 10) + " KiB"
                   + (chunks == 64 ? "" : ", " + std::to_string(chunks) + " chunks"))
        , m_scenario(scenario)
        , m_bytes(bytes)
        , m_chunks(chunks)
    {
    }

private:
    void DoRun() override
    {
        auto packet = Wafer(m_scenario, m_bytes, m_chunks, "packet");
        auto flow = Wafer(m_scenario, m_bytes, m_chunks, "flow");
        NS_TEST_ASSERT_MSG_EQ(flow.size(), packet.size(), "the same rows at both levels");
        NS_TEST_ASSERT_MSG_GT(packet.size(), 0u, "rows");
        for (std::size_t i = 0; i < packet.size(); ++i)
        {
            const WaferRow& p = packet[i];
            const WaferRow& f = flow[i];
            NS_TEST_ASSERT_MSG_EQ(f.variant + f.group, p.variant + p.group, "row order");
            NS_TEST_EXPECT_MSG_EQ(f.algorithm, p.algorithm, "the same algorithm");
            double dt = f.time / p.time - 1;
            std::cout << m_scenario << " " << p.variant << " " << p.group << ": packet " << p.timeUs
                      << " us, flow " << f.timeUs << " us (" << 100 * dt << " %)" << std::endl;
            NS_TEST_EXPECT_MSG_LT(std::abs(dt),
                                  TOLERANCE,
                                  p.variant << " " << p.group << ": flow " << f.timeUs
                                            << " us against packet " << p.timeUs << " us");
            // Effective bandwidth is averaged over the groups, each over its own time.
            // The mesh's PP pairs {0,2} and {1,3} of a row share the link from x = 1 to
            // x = 2: packet level splits it unevenly (about 0.6 : 0.4, the pair that
            // comes through the mesh link holds more of the router's buffer), flow
            // level evenly (max-min), so the pairs' mean differs while the slowest
            // pair's time, checked above, agrees. There the flow level's mean is at
            // most packet level's, and at least the slowest pair's.
            if (p.variant == "mesh" && p.group.rfind("PP", 0) == 0)
            {
                double slowest = f.injectedPerNpu / p.time / 1e9;
                NS_TEST_EXPECT_MSG_LT(f.effectiveGBps, p.effectiveGBps * 1.001, "mesh PP: mean");
                NS_TEST_EXPECT_MSG_GT(f.effectiveGBps, slowest * 0.999, "mesh PP: mean");
            }
            else
            {
                NS_TEST_EXPECT_MSG_LT(std::abs(f.effectiveGBps / p.effectiveGBps - 1),
                                      TOLERANCE,
                                      p.variant << " " << p.group << ": effective bandwidth");
            }
            NS_TEST_EXPECT_MSG_EQ(f.injectedPerNpu, p.injectedPerNpu, "the same payload sent");
            for (auto [fb, pb, tier] :
                 {std::make_tuple(f.npuLinkBytes, p.npuLinkBytes, "NPU"),
                  std::make_tuple(f.upperLinkBytes, p.upperLinkBytes, "upper"),
                  std::make_tuple(f.ioLinkBytes, p.ioLinkBytes, "I/O")})
            {
                NS_TEST_EXPECT_MSG_LT(std::abs(double(fb) - double(pb)),
                                      0.005 * double(pb) + 1,
                                      p.variant << " " << p.group << ": bytes on the " << tier
                                                << " links, flow " << fb << " packet " << pb);
            }
        }
    }

    std::string m_scenario;
    uint64_t m_bytes;
    uint32_t m_chunks;
};

/// One iteration of a workload of the FRED end-to-end table at reduced size
/// (2 transformer layers, the table's 1 MiB packets) on some of its wafers.
class TrainingTwinCase : public TestCase
{
public:
    TrainingTwinCase(const std::string& workload, const std::vector<std::string>& variants)
        : TestCase("flow against packet level: one " + workload
                   + " iteration of the FRED "
                     "training table")
        , m_workload(workload)
        , m_variants(variants)
    {
    }

private:
    void DoRun() override
    {
        FredTrainingConfig c;
        c.workloads = {m_workload};
        c.variants = m_variants;
        c.layers = 2;
        c.iterations = 1;
        c.network = "packet";
        std::vector<FredTrainingRow> packet = RunFredTraining(c);
        c.network = "flow";
        std::vector<FredTrainingRow> flow = RunFredTraining(c);
        NS_TEST_ASSERT_MSG_EQ(flow.size(), packet.size(), "rows");
        for (std::size_t i = 0; i < packet.size(); ++i)
        {
            const TrainingJobRow& p = packet[i].job;
            const TrainingJobRow& f = flow[i].job;
            const TrainingBreakdown& pb = p.breakdown;
            const TrainingBreakdown& fb = f.breakdown;
            double dt = f.iterationSeconds / p.iterationSeconds - 1;
            std::cout << m_workload << " on " << packet[i].variant << ": packet "
                      << p.iterationSeconds << " s, flow " << f.iterationSeconds << " s ("
                      << 100 * dt << " %)" << std::endl;
            NS_TEST_EXPECT_MSG_LT(std::abs(dt), TOLERANCE, packet[i].variant << ": iteration");
            if (packet[i].speedup > 0)
            {
                NS_TEST_EXPECT_MSG_LT(std::abs(flow[i].speedup / packet[i].speedup - 1),
                                      TOLERANCE,
                                      packet[i].variant << ": speedup over the mesh");
            }
            NS_TEST_EXPECT_MSG_EQ(fb.computeSeconds, pb.computeSeconds, "the same compute");
            NS_TEST_EXPECT_MSG_EQ(f.collectives, p.collectives, "the same collectives");
            // The breakdown: each dimension's exposed and busy communication and the
            // bubble within 25 % of its packet-level value, give or take 0.2 % of the
            // iteration (each is a few per cent of the iteration, so 5 % of the
            // iteration would pass a flow level that reported none of them; where
            // streams and collectives meet, their split of a link differs in detail:
            // see doc/flow-fred.md).
            auto near = [&](double fv, double pv, const std::string& what)
            {
                std::cout << "  " << what << ": packet " << pv << " s, flow " << fv << " s"
                          << std::endl;
                NS_TEST_EXPECT_MSG_LT(std::abs(fv - pv),
                                      BREAKDOWN_TOLERANCE * pv + 0.002 * p.iterationSeconds,
                                      packet[i].variant << ": " << what << " flow " << fv
                                                        << " s, packet " << pv << " s");
            };
            for (std::size_t d = 0; d < pb.commSeconds.size(); ++d)
            {
                near(fb.exposedSeconds[d], pb.exposedSeconds[d], "exposed " + std::to_string(d));
                near(fb.commSeconds[d], pb.commSeconds[d], "busy " + std::to_string(d));
            }
            near(fb.bubbleSeconds, pb.bubbleSeconds, "bubble");
        }
    }

    std::string m_workload;
    std::vector<std::string> m_variants;
};

/// The flow twin of an in-switch all-reduce against its closed form: the
/// group's wire bytes once through the bottleneck of its tree plus the
/// latency of its longest path.
class InSwitchClosedFormCase : public TestCase
{
public:
    InSwitchClosedFormCase()
        : TestCase("flow level: in-switch all-reduce against the closed form")
    {
    }

private:
    void DoRun() override
    {
        // fred-b, wafer-wide: packet s goes up and down through the L2 of plane s mod 4,
        // so the busiest plane's 375 GB/s links bound the job: ceil(packets / 4) packets;
        // fred-d, one L1: the NPU's own 3 TB/s link carries all of them
        const double payload = 4084; // 4120 - 24 - 12
        const uint64_t bytes = 4 << 20;
        const double packets = std::ceil(bytes / payload); // the last one short
        const double wire = bytes + packets * 36;
        const double full = 4120;
        // latency: 20 ns per link, and the store and forward of a stream of 4120-byte
        // packets beyond its bytes at the slowest link's rate: s (sum 1/c - 1/min c)
        // (FlowNetwork::StoreAndForward); NPU 3 TB/s, uplink and downlink 375 GB/s
        const double twoLevel = (std::ceil(packets / 4) * full) / 375e9 + 4 * 20e-9
                                + full * (2 / 3000e9 + 2 / 375e9 - 1 / 375e9);
        const double oneLevel = wire / 3000e9 + 2 * 20e-9 + full * (2 / 3000e9 - 1 / 3000e9);
        for (auto [variant, ranks, expected] : {std::make_tuple("fred-b", "0-19", twoLevel),
                                                std::make_tuple("fred-d", "0-3", oneLevel)})
        {
            WaferExperimentConfig c;
            c.scenarios = {"group"};
            c.variants = {variant};
            c.ranks = ranks;
            c.bytes = bytes;
            c.wafer.network = "flow";
            WaferRow row = RunWafer(c).rows.at(0);
            NS_TEST_EXPECT_MSG_LT(std::abs(row.time / expected - 1),
                                  1e-6,
                                  variant << ": " << row.time << " s against " << expected);
        }
    }
};

} // namespace

/// The FRED flow-level twins against packet level.
class FlowFredTestSuite : public TestSuite
{
public:
    FlowFredTestSuite()
        : TestSuite("dlnet-flow-fred", UNIT)
    {
        AddTestCase(new InSwitchClosedFormCase, TestCase::QUICK);
        AddTestCase(new WaferTwinCase("allreduce", 4 << 20, 16), TestCase::QUICK);
        AddTestCase(new WaferTwinCase("groups", 4 << 20), TestCase::QUICK);
        AddTestCase(new WaferTwinCase("io", 1 << 20), TestCase::QUICK);
        AddTestCase(new TrainingTwinCase("transformer-17b", {"fred-d"}), TestCase::QUICK);
        AddTestCase(new TrainingTwinCase("gpt3-175b", {"mesh", "fred-d"}), TestCase::QUICK);
    }
};

static FlowFredTestSuite g_flowFredTestSuite;
