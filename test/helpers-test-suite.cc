/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The ns-3-style helpers: FabricHelper::Install connects a pair of nodes as
// PointToPointHelper::Install does (factory attributes taking effect on the
// wire), and CollectiveHelper starts a backend by name with an attribute
// set through SetBackendAttribute taking effect (SwitchML's PoolSlots).

#include "ns3/dlnet-module.h"
#include "ns3/node-container.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// \return true if f throws std::invalid_argument whose message starts with prefix
template <typename F>
bool
Refuses(F f, const std::string& prefix)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return std::string(e.what()).rfind(prefix, 0) == 0;
    }
    return false;
}

/// A message over a link made by FabricHelper::Install arrives at the link's
/// rate and delay, which come from the helper's factories.
class FabricHelperInstallTestCase : public TestCase
{
public:
    FabricHelperInstallTestCase()
        : TestCase("FabricHelper::Install connects a pair with the factories' rate and delay")
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        NodeContainer nodes(2);
        FabricHelper fabric;
        fabric.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
        fabric.SetChannelAttribute("Delay", TimeValue(MicroSeconds(2)));
        NetDeviceContainer devices = fabric.Install(nodes);
        NS_TEST_ASSERT_MSG_EQ(devices.GetN(), 2, "one device per node");
        NS_TEST_EXPECT_MSG_EQ(devices.Get(0)->GetNode(), nodes.Get(0), "first on the first");
        NS_TEST_EXPECT_MSG_EQ(devices.Get(1)->GetNode(), nodes.Get(1), "second on the second");
        NS_TEST_EXPECT_MSG_EQ(
            devices.Get(0)->GetChannel(), devices.Get(1)->GetChannel(), "one link");

        Ptr<FabricEndpointDirectory> directory = Create<FabricEndpointDirectory>();
        Ptr<FabricEndpoint> a = fabric.InstallEndpoint(
            nodes.Get(0), DynamicCast<FabricNetDevice>(devices.Get(0)), 0, directory);
        Ptr<FabricEndpoint> b = fabric.InstallEndpoint(
            nodes.Get(1), DynamicCast<FabricNetDevice>(devices.Get(1)), 1, directory);
        Time delivered;
        b->SetReceiveCallback(FabricEndpoint::MessageCallback(
            [&](const FabricMessage& m)
            {
                delivered = m.delivered;
            }));
        uint64_t bytes = 100000;
        a->Send(1, bytes, 0);
        Simulator::Run();
        // payload and a 24-byte FabricHeader per packet of at most Mtu (4096 by default)
        double wire = bytes + 24 * std::ceil(bytes / (4096.0 - 24));
        double expected = wire * 8 / 10e9 + 2e-6;
        std::cout << "measured: " << delivered.GetSeconds() * 1e6 << " us, expected "
                  << expected * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(
            delivered.GetSeconds(), expected, 1e-9, "10 Gb/s and 2 us from the helper's factories");

        NS_TEST_EXPECT_MSG_EQ(Refuses(
                                  [&]()
                                  {
                                      fabric.Install(NodeContainer(3));
                                  },
                                  "nodes: got 3"),
                              true,
                              "three nodes refused naming nodes");
        NS_TEST_EXPECT_MSG_EQ(Refuses(
                                  [&]()
                                  {
                                      fabric.Install(nodes.Get(0), nodes.Get(0));
                                  },
                                  "nodes:"),
                              true,
                              "a node to itself refused");
    }
};

/// CollectiveHelper: the backend by name, an attribute through the helper.
class CollectiveHelperTestCase : public TestCase
{
public:
    CollectiveHelperTestCase()
        : TestCase("CollectiveHelper starts switchml with PoolSlots set by SetBackendAttribute")
    {
    }

private:
    /// \return the time of a 256 KiB all-reduce on a star of 4 with the helper's backend
    double Run(const CollectiveHelper& helper, uint64_t& poolSlots)
    {
        SimulationScope scope(1, 1);
        TopologyConfig config;
        config.kind = "star";
        config.hosts = 4;
        Ptr<const Topology> topology = MakeTopology(config);
        Cluster cluster = topology->Build();
        CollectiveRequest request;
        request.op = CollectiveOp::ALL_REDUCE;
        request.bytes = 256 << 10;
        double seconds = -1;
        Ptr<CollectiveBackend> backend = helper.Start(
            cluster,
            *topology,
            Communicator::World(4),
            request,
            CollectiveBackend::DoneCallback(std::function<void(const CollectiveRecord&)>(
                [&](const CollectiveRecord& r)
                {
                    seconds = (r.end - r.start).GetSeconds();
                })));
        UintegerValue slots;
        backend->GetAttribute("PoolSlots", slots);
        poolSlots = slots.Get();
        Simulator::Run();
        backend->Dispose();
        return seconds;
    }

    void DoRun() override
    {
        CollectiveHelper helper;
        NS_TEST_EXPECT_MSG_EQ(helper.GetBackend(), "ring", "ring by default");
        helper.SetBackend("switchml");
        uint64_t slots = 0;
        double wide = Run(helper, slots);
        NS_TEST_EXPECT_MSG_EQ(slots, 256, "the default pool");
        helper.SetBackendAttribute("PoolSlots", UintegerValue(1));
        double narrow = Run(helper, slots);
        NS_TEST_EXPECT_MSG_EQ(slots, 1, "the attribute reached the backend");
        std::cout << "measured: 256 KiB switchml all-reduce on a star of 4: " << wide * 1e6
                  << " us with 256 slots, " << narrow * 1e6 << " us with 1" << std::endl;
        NS_TEST_ASSERT_MSG_GT(wide, 0, "finished");
        // one packet per round trip instead of a full pool: many times slower
        NS_TEST_EXPECT_MSG_GT(narrow, 5 * wide, "one slot: a round trip per packet");

        NS_TEST_EXPECT_MSG_EQ(Refuses(
                                  [&]()
                                  {
                                      helper.SetBackend("spiral");
                                  },
                                  "backend:"),
                              true,
                              "an unknown backend refused naming backend");
        NS_TEST_EXPECT_MSG_EQ(Refuses(
                                  [&]()
                                  {
                                      helper.SetBackendAttribute("Colour", UintegerValue(1));
                                  },
                                  "Colour:"),
                              true,
                              "an unknown attribute refused naming it");
        NS_TEST_EXPECT_MSG_EQ(Refuses(
                                  [&]()
                                  {
                                      helper.SetBackend("ring");
                                  },
                                  "PoolSlots:"),
                              true,
                              "ring has no PoolSlots: refused naming it");
    }
};

class HelpersTestSuite : public TestSuite
{
public:
    HelpersTestSuite()
        : TestSuite("dlnet-helpers", UNIT)
    {
        AddTestCase(new FabricHelperInstallTestCase(), TestCase::QUICK);
        AddTestCase(new CollectiveHelperTestCase(), TestCase::QUICK);
    }
};

HelpersTestSuite g_helpersTestSuite;

} // namespace
