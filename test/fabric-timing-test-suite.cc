/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Message time over a chain of k store-and-forward links against the
// analytical figure T = S_wire/B + (k-1) s_max/B + k d + (k-1) L.

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// Worst relative error seen, by number of links (1 or more), for the report.
double g_worstOneLink = 0;
double g_worstMultiHop = 0;
uint32_t g_cases = 0;

/// host0 - switch - ... - switch - host1: k links, k-1 switches.
struct Chain
{
    Ptr<FabricEndpoint> src;
    Ptr<FabricEndpoint> dst;
};

Chain
BuildChain(uint32_t k, DataRate rate, Time delay, uint32_t mtu, Time latency)
{
    FabricHelper helper;
    helper.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    helper.SetSwitchAttribute("Latency", TimeValue(latency));
    Ptr<FabricEndpointDirectory> directory = Create<FabricEndpointDirectory>();
    std::vector<Ptr<Node>> nodes;
    for (uint32_t i = 0; i <= k; ++i)
    {
        nodes.push_back(CreateObject<Node>());
    }
    std::vector<std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>>> links;
    for (uint32_t i = 0; i < k; ++i)
    {
        links.push_back(helper.Connect(nodes[i], nodes[i + 1], rate, delay));
    }
    for (uint32_t i = 1; i < k; ++i)
    {
        Ptr<FabricSwitch> sw = helper.InstallSwitch(nodes[i]);
        uint32_t left = sw->AddPort(links[i - 1].second);
        uint32_t right = sw->AddPort(links[i].first);
        sw->SetRoute(0, {left});
        sw->SetRoute(1, {right});
    }
    for (auto& l : links)
    {
        l.first->Setup();
        l.second->Setup();
    }
    Chain chain;
    chain.src = helper.InstallEndpoint(nodes[0], links.front().first, 0, directory);
    chain.dst = helper.InstallEndpoint(nodes[k], links.back().second, 1, directory);
    return chain;
}

class ChainTimingTestCase : public TestCase
{
public:
    ChainTimingTestCase(uint32_t k, uint64_t bytes, std::string rate, uint32_t mtu, Time latency)
        : TestCase(Describe(k, bytes, rate, mtu, latency))
        , m_k(k)
        , m_bytes(bytes)
        , m_rate(rate)
        , m_mtu(mtu)
        , m_latency(latency)
    {
    }

private:
    static std::string Describe(uint32_t k, uint64_t bytes, std::string rate, uint32_t mtu, Time l)
    {
        std::ostringstream os;
        os << bytes << " B over " << k << " link(s) at " << rate << ", mtu " << mtu
           << ", switch latency " << l.As(Time::NS);
        return os.str();
    }

    void DoRun() override
    {
        SimulationScope scope(1, 1);
        DataRate rate(m_rate);
        Time delay = NanoSeconds(700);
        Chain chain = BuildChain(m_k, rate, delay, m_mtu, m_latency);
        Time done;
        uint32_t hops = 0;
        Simulator::Schedule(MicroSeconds(3),
                            [&]()
                            {
                                chain.src->Send(1,
                                                m_bytes,
                                                0,
                                                FabricEndpoint::MessageCallback(
                                                    [&](const FabricMessage& m)
                                                    {
                                                        done = m.delivered - m.sent;
                                                        hops = m.hops;
                                                    }));
                            });
        Simulator::Run();

        uint64_t payload = m_mtu - FabricHeader::SERIALIZED_SIZE;
        uint64_t packets = (m_bytes + payload - 1) / payload;
        uint64_t wire = m_bytes + packets * FabricHeader::SERIALIZED_SIZE;
        uint64_t largest = std::min<uint64_t>(m_bytes, payload) + FabricHeader::SERIALIZED_SIZE;
        double bps = rate.GetBitRate();
        double expected = wire * 8.0 / bps + (m_k - 1) * largest * 8.0 / bps
                          + m_k * delay.GetSeconds() + (m_k - 1) * m_latency.GetSeconds();
        NS_TEST_ASSERT_MSG_EQ(hops, m_k - 1, "switches on the path");
        double err = std::abs(done.GetSeconds() - expected) / expected;
        double& worst = m_k == 1 ? g_worstOneLink : g_worstMultiHop;
        worst = std::max(worst, err);
        ++g_cases;
        NS_TEST_ASSERT_MSG_EQ_TOL(done.GetSeconds(),
                                  expected,
                                  0.005 * expected,
                                  "message time vs S_wire/B + (k-1)s_max/B + kd + (k-1)L");
    }

    uint32_t m_k;
    uint64_t m_bytes;
    std::string m_rate;
    uint32_t m_mtu;
    Time m_latency;
};

/// The same through the experiment API: a 2-host star is a 2-link chain.
class StarPointToPointTestCase : public TestCase
{
public:
    StarPointToPointTestCase()
        : TestCase("point-to-point on a star through RunTraffic matches the formula")
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c;
        c.topology.kind = "star";
        c.topology.hosts = 2;
        c.topology.hostLinkRate = "25Gbps";
        c.topology.hostLinkDelay = "1us";
        c.topology.switchLatency = "300ns";
        c.topology.mtu = 9000;
        c.pattern = "point-to-point";
        c.messageBytes = 3000000;
        TrafficResult r = RunTraffic(c);
        NS_TEST_ASSERT_MSG_EQ(r.messages.size(), 1, "one message");
        uint64_t payload = 9000 - 24;
        uint64_t packets = (c.messageBytes + payload - 1) / payload;
        double expected
            = (c.messageBytes + packets * 24.0) * 8 / 25e9 + 9000 * 8 / 25e9 + 2e-6 + 300e-9;
        NS_TEST_ASSERT_MSG_EQ_TOL(r.messages[0].fct, expected, 0.005 * expected, "star p2p time");
        NS_TEST_ASSERT_MSG_EQ(r.messages[0].packets, packets, "packet count");
    }
};

/// Prints the worst deviations of the cases before it (ctest -V shows them).
class TimingReportTestCase : public TestCase
{
public:
    TimingReportTestCase()
        : TestCase("report of the worst deviation")
    {
    }

private:
    void DoRun() override
    {
        std::cout << "measured: " << g_cases << " chain cases; worst relative error 1 link "
                  << g_worstOneLink << ", 2-4 links " << g_worstMultiHop << std::endl;
        NS_TEST_ASSERT_MSG_GT(g_cases, 100, "the cases ran");
    }
};

} // namespace

/// Single-link and multi-hop message timing.
class FabricTimingTestSuite : public TestSuite
{
public:
    FabricTimingTestSuite()
        : TestSuite("dlnet-fabric-timing", UNIT)
    {
        const std::vector<uint64_t> sizes = {1, 1000, 4072, 65536, 1 << 20, 10 << 20};
        const std::vector<std::string> rates = {"10Gbps", "100Gbps", "400Gbps", "6000Gbps"};
        const std::vector<uint32_t> mtus = {256, 1500, 4096, 65536};
        for (uint32_t k : {1u, 2u, 4u})
        {
            for (uint64_t bytes : sizes)
            {
                for (const auto& rate : rates)
                {
                    for (uint32_t mtu : mtus)
                    {
                        if (bytes / (mtu - 24) > 20000)
                        {
                            continue; // keep the suite quick: 10 MiB in 256-byte packets is long
                        }
                        Time latency = (k > 1 && mtu == 4096) ? NanoSeconds(250) : Seconds(0);
                        AddTestCase(new ChainTimingTestCase(k, bytes, rate, mtu, latency),
                                    TestCase::QUICK);
                    }
                }
            }
        }
        AddTestCase(new StarPointToPointTestCase, TestCase::QUICK);
        AddTestCase(new TimingReportTestCase, TestCase::QUICK);
    }
};

static FabricTimingTestSuite g_fabricTimingTestSuite;
