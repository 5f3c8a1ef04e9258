/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Determinism, strict priority between traffic classes, functional payloads,
// bad input through the experiment API, PCAP output.

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

class DeterminismTestCase : public TestCase
{
public:
    DeterminismTestCase()
        : TestCase("same config and seed give byte-identical result files")
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c;
        c.topology.kind = "leaf-spine";
        c.topology.oversubscription = 2;
        c.pattern = "permutation"; // random derangement: depends on the seed
        c.messageBytes = 300000;
        c.messages = 3;
        c.seed = 7;
        std::string base = std::filesystem::temp_directory_path() / "dlnet-determinism";
        std::filesystem::remove_all(base);
        WriteTrafficResults(c, RunTraffic(c), base + "/a");
        WriteTrafficResults(c, RunTraffic(c), base + "/b");
        c.seed = 8;
        WriteTrafficResults(c, RunTraffic(c), base + "/c");
        for (const char* f : {"messages.csv", "links.csv", "result.json"})
        {
            std::string a = Slurp(base + "/a/" + f);
            NS_TEST_ASSERT_MSG_EQ(a.empty(), false, f << " written");
            NS_TEST_ASSERT_MSG_EQ((a == Slurp(base + "/b/" + f)), true, f << " identical");
        }
        NS_TEST_ASSERT_MSG_EQ((Slurp(base + "/a/messages.csv") == Slurp(base + "/c/messages.csv")),
                              false,
                              "another seed draws another permutation");
        std::filesystem::remove_all(base);
    }
};

/// Class 0 traffic crosses a port that class 1 traffic saturates: it must
/// finish as if alone, while class 1 yields.
class StrictPriorityTestCase : public TestCase
{
public:
    StrictPriorityTestCase()
        : TestCase("strict priority: class 0 finishes as if alone over a saturated port")
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        TopologyConfig t;
        t.kind = "star";
        t.hosts = 3;
        Cluster cluster = BuildCluster(t);
        Time highDone;
        Time lowDone;
        const uint64_t bytes = 1 << 20;
        Simulator::Schedule(Seconds(0),
                            [&]()
                            {
                                cluster.endpoints[1]->Send(0,
                                                           4 * bytes,
                                                           1,
                                                           FabricEndpoint::MessageCallback(
                                                               [&](const FabricMessage& m)
                                                               {
                                                                   lowDone = m.delivered;
                                                               }));
                            });
        Simulator::Schedule(MicroSeconds(5),
                            [&]()
                            {
                                cluster.endpoints[2]->Send(0,
                                                           bytes,
                                                           0,
                                                           FabricEndpoint::MessageCallback(
                                                               [&](const FabricMessage& m)
                                                               {
                                                                   highDone = m.delivered - m.sent;
                                                               }));
                            });
        Simulator::Run();
        uint64_t packets = (bytes + 4071) / 4072;
        double alone = (bytes + 24.0 * packets) * 8 / 100e9 + 4096 * 8 / 100e9 + 1e-6;
        NS_TEST_ASSERT_MSG_EQ_TOL(highDone.GetSeconds(), alone, 0.05 * alone, "class 0 time");
        double both = (5 * bytes + 24.0 * 5 * packets) * 8 / 100e9;
        NS_TEST_ASSERT_MSG_GT(lowDone.GetSeconds(), both, "class 1 waited for class 0");
    }
};

class FunctionalLosslessTestCase : public TestCase
{
public:
    FunctionalLosslessTestCase()
        : TestCase("functional mode carries the bytes intact on every topology")
    {
    }

private:
    void DoRun() override
    {
        for (const char* kind : {"star", "leaf-spine", "mesh", "torus"})
        {
            TrafficConfig c;
            c.topology.kind = kind;
            if (std::string(kind) == "leaf-spine")
            {
                // reordering across spines, reassembled by index (the others have one path)
                c.topology.loadBalancing = "packet";
            }
            c.pattern = "all-to-all";
            c.messageBytes = 10000;
            c.functional = true;
            TrafficResult r = RunTraffic(c);
            NS_TEST_ASSERT_MSG_EQ(r.allDelivered, true, kind << ": all delivered");
            NS_TEST_ASSERT_MSG_EQ(r.allIntact, true, kind << ": all intact");
        }
    }
};

class BadInputTestCase : public TestCase
{
public:
    BadInputTestCase()
        : TestCase("bad input raises std::invalid_argument naming the field")
    {
    }

private:
    void Expect(TrafficConfig c, const std::string& field)
    {
        bool thrown = false;
        try
        {
            RunTraffic(c);
        }
        catch (const std::invalid_argument& e)
        {
            thrown = true;
            NS_TEST_EXPECT_MSG_NE(std::string(e.what()).find(field),
                                  std::string::npos,
                                  "message '" << e.what() << "' names " << field);
        }
        NS_TEST_EXPECT_MSG_EQ(thrown, true, "bad " << field << " rejected");
    }

    void DoRun() override
    {
        TrafficConfig c;
        TrafficConfig bad = c;
        bad.topology.hostLinkRate = "0Gbps";
        Expect(bad, "link-rate");
        bad = c;
        bad.topology.hostLinkRate = "-10Gbps";
        Expect(bad, "link-rate");
        bad = c;
        bad.topology.mtu = 24;
        Expect(bad, "mtu");
        bad = c;
        bad.topology.kind = "ring";
        Expect(bad, "topology");
        bad = c;
        bad.pattern = "gossip";
        Expect(bad, "pattern");
        bad = c;
        bad.pattern = "point-to-point";
        bad.dst = 8;
        Expect(bad, "dst");
        bad = c;
        bad.topology.kind = "mesh";
        bad.topology.rows = 0;
        Expect(bad, "rows");
        bad = c;
        bad.topology.lossRate = 0.01; // lossless
        Expect(bad, "loss-rate");
        bad = c;
        bad.messageBytes = 0;
        Expect(bad, "message-bytes");
    }
};

class PcapTestCase : public TestCase
{
public:
    PcapTestCase()
        : TestCase("pcap option writes one capture per device with every packet")
    {
    }

private:
    void DoRun() override
    {
        std::string dir = std::filesystem::temp_directory_path() / "dlnet-pcap";
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        TrafficConfig c;
        c.topology.hosts = 2;
        c.topology.pcapPrefix = dir + "/star";
        c.pattern = "point-to-point";
        c.messageBytes = 10000; // 3 packets
        RunTraffic(c);
        uint32_t files = 0;
        for (const auto& e : std::filesystem::directory_iterator(dir))
        {
            ++files;
            // 24-byte file header + per packet a 16-byte record header and the
            // packet (promiscuous: sent or received on this device).
            NS_TEST_EXPECT_MSG_EQ(
                std::filesystem::file_size(e.path()), 24 + 3 * 16 + 10000 + 3 * 24, e.path());
        }
        NS_TEST_ASSERT_MSG_EQ(files, 4, "two links, four devices");
        std::filesystem::remove_all(dir);
    }
};

} // namespace

class FabricBehaviourTestSuite : public TestSuite
{
public:
    FabricBehaviourTestSuite()
        : TestSuite("dlnet-fabric-behaviour", UNIT)
    {
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
        AddTestCase(new StrictPriorityTestCase, TestCase::QUICK);
        AddTestCase(new FunctionalLosslessTestCase, TestCase::QUICK);
        AddTestCase(new BadInputTestCase, TestCase::QUICK);
        AddTestCase(new PcapTestCase, TestCase::QUICK);
    }
};

static FabricBehaviourTestSuite g_fabricBehaviourTestSuite;
