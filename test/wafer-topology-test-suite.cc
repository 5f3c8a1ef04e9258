/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The wafer-scale presets (FRED paper): shape, link rates, routes and hop
// counts measured by simulation, destination-mod-k uplinks, and the time of
// one large message against link rate.

#include "ns3/dlnet-module.h"
#include "ns3/fabric-channel.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

using namespace ns3;

namespace
{

constexpr uint32_t NPUS = 20;
constexpr uint32_t IOS = 18;

/// 750 GB/s and friends in bit/s.
constexpr uint64_t
GBps(uint64_t gigabytes)
{
    return gigabytes * 8000000000ULL;
}

/// \return the node of a rank
Ptr<Node>
RankNode(const Wafer& w, uint32_t rank)
{
    return w.cluster.endpoints[rank]->GetDevice()->GetNode();
}

/// \return the node of port p of sw's link's far end
Ptr<Node>
PeerOf(Ptr<FabricSwitch> sw, uint32_t p)
{
    return sw->GetPort(p)->GetPeer()->GetNode();
}

/// Shape, link rates and delays, I/O placement and the port maps.
class WaferShapeTestCase : public TestCase
{
public:
    explicit WaferShapeTestCase(std::string variant)
        : TestCase("wafer " + variant + ": nodes, links, rates, io placement and port maps")
        , m_variant(variant)
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        WaferConfig config;
        config.variant = m_variant;
        Wafer w = BuildWafer(config);
        const Cluster& c = w.cluster;
        bool fred = w.IsFred();
        NS_TEST_ASSERT_MSG_EQ(fred, (m_variant != "mesh"), "IsFred");
        NS_TEST_ASSERT_MSG_EQ(w.InSwitch(), (m_variant == "fred-b" || m_variant == "fred-d"), "");
        NS_TEST_ASSERT_MSG_EQ(w.npus, NPUS, "NPUs");
        NS_TEST_ASSERT_MSG_EQ(c.GetNRanks(), NPUS + IOS, "endpoints: 20 NPUs + 18 I/O");
        NS_TEST_ASSERT_MSG_EQ(w.ioRanks.size(), IOS, "I/O ranks");
        for (uint32_t i = 0; i < IOS; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(w.ioRanks[i], NPUS + i, "I/O rank");
        }
        for (uint32_t r = 0; r < c.GetNRanks(); ++r)
        {
            NS_TEST_ASSERT_MSG_EQ(c.endpoints[r]->GetAddress(), r, "address = rank");
            NS_TEST_ASSERT_MSG_EQ(c.directory->Lookup(r), PeekPointer(c.endpoints[r]), "directory");
        }
        // nodes: mesh 20 NPU/router + 18 I/O; FRED 4 L2 + 5 L1 + 20 NPU + 18 I/O
        NS_TEST_ASSERT_MSG_EQ(c.nodes.GetN(), (fred ? 47u : 38u), "nodes");
        NS_TEST_ASSERT_MSG_EQ(c.switches.size(), (fred ? 9u : 20u), "switches");

        uint64_t fabricRate = m_variant == "mesh"                                ? GBps(750)
                              : (m_variant == "fred-a" || m_variant == "fred-b") ? GBps(375)
                                                                                 : GBps(3000);
        std::map<std::string, uint64_t> expectedRate = {
            {"fabric", fabricRate}, {"local", GBps(3000)}, {"host", GBps(3000)}, {"io", GBps(128)}};
        std::map<std::string, uint32_t> count;
        for (const auto& l : c.links)
        {
            ++count[l.tier];
            NS_TEST_ASSERT_MSG_EQ(expectedRate.count(l.tier), 1, "tier " << l.tier);
            NS_TEST_ASSERT_MSG_EQ(l.a->GetDataRate().GetBitRate(),
                                  expectedRate[l.tier],
                                  l.tier << " link " << l.from << " - " << l.to);
            NS_TEST_ASSERT_MSG_EQ(l.b->GetDataRate().GetBitRate(),
                                  expectedRate[l.tier],
                                  l.tier << " link " << l.from << " - " << l.to);
            Time delay = l.a->GetFabricChannel()->GetDelay();
            NS_TEST_ASSERT_MSG_EQ(delay, (l.tier == "local" ? Time(0) : NanoSeconds(20)), "delay");
            NS_TEST_ASSERT_MSG_EQ(l.a->GetMaxPacketSize(), 4096u + 24, "mtu");
            NS_TEST_ASSERT_MSG_EQ(l.b->GetFlowControl(), FabricNetDevice::LOSSLESS, "lossless");
            NS_TEST_ASSERT_MSG_EQ(+l.b->GetTrafficClasses(), 4, "traffic classes");
        }
        NS_TEST_ASSERT_MSG_EQ(count["io"], IOS, "I/O links");
        if (fred)
        {
            NS_TEST_ASSERT_MSG_EQ(c.links.size(), 58u, "links");
            NS_TEST_ASSERT_MSG_EQ(count["host"], 20u, "NPU links");
            NS_TEST_ASSERT_MSG_EQ(count["fabric"], 20u, "L1-L2 links");
            CheckFred(w);
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(c.links.size(), 69u, "links");
            NS_TEST_ASSERT_MSG_EQ(count["local"], 20u, "local links");
            NS_TEST_ASSERT_MSG_EQ(count["fabric"], 31u, "mesh links: 5 x 3 + 4 x 4");
            CheckMesh(w);
        }
    }

    void CheckMesh(const Wafer& w)
    {
        NS_TEST_ASSERT_MSG_EQ(w.rows, 5u, "rows");
        NS_TEST_ASSERT_MSG_EQ(w.cols, 4u, "cols");
        NS_TEST_ASSERT_MSG_EQ(w.ioNpu.size(), IOS, "ioNpu");
        NS_TEST_ASSERT_MSG_EQ(w.ioSide.size(), IOS, "ioSide");
        std::set<std::pair<uint32_t, char>> seen;
        std::map<uint32_t, uint32_t> perNpu;
        for (uint32_t i = 0; i < IOS; ++i)
        {
            uint32_t n = w.ioNpu[i];
            uint32_t x = n % w.cols;
            uint32_t y = n / w.cols;
            char s = w.ioSide[i];
            bool outer = (s == 'N' && y == 0) || (s == 'S' && y == w.rows - 1)
                         || (s == 'W' && x == 0) || (s == 'E' && x == w.cols - 1);
            NS_TEST_ASSERT_MSG_EQ(outer, true, "I/O " << i << " on an outer side");
            NS_TEST_ASSERT_MSG_EQ(seen.insert({n, s}).second, true, "one I/O per side");
            ++perNpu[n];
            // its link ends on the node of its NPU (router and NPU share it)
            Ptr<FabricNetDevice> dev = w.cluster.endpoints[w.ioRanks[i]]->GetDevice();
            NS_TEST_ASSERT_MSG_EQ(dev->GetPeer()->GetNode(), RankNode(w, n), "I/O on its NPU");
        }
        for (uint32_t n = 0; n < NPUS; ++n)
        {
            uint32_t x = n % w.cols;
            uint32_t y = n / w.cols;
            uint32_t sides = (y == 0) + (y == w.rows - 1) + (x == 0) + (x == w.cols - 1);
            NS_TEST_ASSERT_MSG_EQ(perNpu[n], sides, "I/O controllers on NPU " << n);
        }
    }

    void CheckFred(const Wafer& w)
    {
        NS_TEST_ASSERT_MSG_EQ(w.l1.size(), 5u, "L1 switches");
        NS_TEST_ASSERT_MSG_EQ(w.l2.size(), 4u, "L2 switches");
        NS_TEST_ASSERT_MSG_EQ(w.npusPerL1, 4u, "NPUs per L1");
        std::ostringstream ports;
        for (uint32_t k = 0; k < 5; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(w.l1[k]->GetNPorts(), (k < 3 ? 12u : 11u), "L1 ports");
            ports << " L1 " << k << ": npu";
            for (uint32_t i = 0; i < 4; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(w.L1Of(4 * k + i), k, "L1Of");
                NS_TEST_ASSERT_MSG_EQ(
                    PeerOf(w.l1[k], w.l1Npu[k][i]), RankNode(w, 4 * k + i), "l1Npu");
                ports << " " << w.l1Npu[k][i];
            }
            ports << " up";
            for (uint32_t j = 0; j < 4; ++j)
            {
                NS_TEST_ASSERT_MSG_EQ(
                    PeerOf(w.l1[k], w.l1Up[k][j]), w.l2[j]->GetObject<Node>(), "l1Up");
                NS_TEST_ASSERT_MSG_EQ(
                    PeerOf(w.l2[j], w.l2Down[j][k]), w.l1[k]->GetObject<Node>(), "l2Down");
                ports << " " << w.l1Up[k][j];
            }
        }
        std::vector<uint32_t> perL1(5, 0);
        ports << "; I/O (L1, port):";
        for (uint32_t i = 0; i < IOS; ++i)
        {
            uint32_t k = w.ioL1[i];
            ++perL1[k];
            NS_TEST_ASSERT_MSG_EQ(PeerOf(w.l1[k], w.ioL1Port[i]), RankNode(w, w.ioRanks[i]), "io");
            ports << " (" << k << "," << w.ioL1Port[i] << ")";
        }
        NS_TEST_ASSERT_MSG_EQ((perL1 == std::vector<uint32_t>({4, 4, 4, 3, 3})), true, "4,4,4,3,3");
        std::cout << "measured: " << m_variant << " ports:" << ports.str() << std::endl;
    }

    std::string m_variant;
};

/**
 * Every rank (NPU and I/O) sends one small message to every other at once:
 * all arrive, with the expected switch count, no switch lacks a route, and
 * on FRED the packets to NPU 4k'+i (I/O j of an L1) from another L1 cross
 * L2 i (L2 j) only.
 */
class WaferRoutesTestCase : public TestCase
{
public:
    explicit WaferRoutesTestCase(std::string variant)
        : TestCase("wafer " + variant + ": every rank to every rank arrives with the expected "
                   + "hop count and path (mesh X-Y, FRED destination-mod-k uplinks)")
        , m_variant(variant)
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        WaferConfig config;
        config.variant = m_variant;
        Wafer w = BuildWafer(config);
        const Cluster& c = w.cluster;
        uint32_t n = c.GetNRanks();
        std::vector<FabricMessage> delivered;
        for (uint32_t r = 0; r < n; ++r)
        {
            c.endpoints[r]->SetReceiveCallback(FabricEndpoint::MessageCallback(
                [&delivered](const FabricMessage& m)
                {
                    delivered.push_back(m);
                }));
        }
        // (src, dst) -> L2 switches that forwarded its packets
        std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> crossed;
        for (uint32_t j = 0; j < w.l2.size(); ++j)
        {
            w.l2[j]->TraceConnectWithoutContext(
                "Forward",
                Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
                    [&crossed, j](Ptr<const Packet> p, uint32_t, uint32_t)
                    {
                        FabricHeader h;
                        p->PeekHeader(h);
                        crossed[{h.m_src, h.m_dst}].insert(j);
                    }));
        }
        // mesh: (src, dst) -> routers its (single) packet went through, in order
        std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> path;
        for (uint32_t r = 0; r < c.switches.size() && !w.IsFred(); ++r)
        {
            c.switches[r]->TraceConnectWithoutContext(
                "Forward",
                Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
                    [&path, r](Ptr<const Packet> p, uint32_t, uint32_t)
                    {
                        FabricHeader h;
                        p->PeekHeader(h);
                        path[{h.m_src, h.m_dst}].push_back(r);
                    }));
        }
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t d = 0; d < n; ++d)
            {
                if (s != d)
                {
                    c.endpoints[s]->Send(d, 3000, 0); // one packet and a bit
                }
            }
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(delivered.size(), n * (n - 1), "every message arrives");
        for (const auto& sw : c.switches)
        {
            NS_TEST_ASSERT_MSG_EQ(sw->GetNoRouteDrops(), 0, "no switch lacks a route");
        }
        // where a rank attaches: mesh NPU / FRED L1
        auto at = [&w](uint32_t rank)
        {
            if (rank < w.npus)
            {
                return w.IsFred() ? w.L1Of(rank) : rank;
            }
            uint32_t io = rank - w.npus;
            return w.IsFred() ? w.ioL1[io] : w.ioNpu[io];
        };
        std::map<uint32_t, uint32_t> histogram;
        std::set<std::pair<uint32_t, uint32_t>> pairs;
        for (const auto& m : delivered)
        {
            pairs.insert({m.src, m.dst});
            ++histogram[m.hops];
            uint32_t a = at(m.src);
            uint32_t b = at(m.dst);
            uint32_t expected;
            if (w.IsFred())
            {
                expected = a == b ? 1 : 3;
                // the L2 the destination-mod-k route names
                uint32_t l2 = m.dst < w.npus ? m.dst % w.npusPerL1 : IoIndexWithinL1(w, m.dst) % 4;
                std::set<uint32_t> want;
                if (a != b)
                {
                    want.insert(l2);
                }
                NS_TEST_ASSERT_MSG_EQ((crossed[{m.src, m.dst}] == want),
                                      true,
                                      "L2 crossed from " << m.src << " to " << m.dst);
            }
            else
            {
                auto diff = [](uint32_t u, uint32_t v)
                {
                    return u > v ? u - v : v - u;
                };
                // a router on every node of the path: Manhattan distance + 1
                expected = diff(a % w.cols, b % w.cols) + diff(a / w.cols, b / w.cols) + 1;
                // X first, then Y
                std::vector<uint32_t> want{a};
                uint32_t x = a % w.cols;
                uint32_t y = a / w.cols;
                while (x != b % w.cols)
                {
                    x = x < b % w.cols ? x + 1 : x - 1;
                    want.push_back(y * w.cols + x);
                }
                while (y != b / w.cols)
                {
                    y = y < b / w.cols ? y + 1 : y - 1;
                    want.push_back(y * w.cols + x);
                }
                NS_TEST_ASSERT_MSG_EQ((path[{m.src, m.dst}] == want),
                                      true,
                                      "X-Y path from " << m.src << " to " << m.dst);
            }
            NS_TEST_ASSERT_MSG_EQ(m.hops, expected, "hops from " << m.src << " to " << m.dst);
        }
        NS_TEST_ASSERT_MSG_EQ(pairs.size(), n * (n - 1), "each pair once");
        std::cout << "measured: " << m_variant << ": " << delivered.size()
                  << " messages delivered; switch hops:";
        for (const auto& [hops, k] : histogram)
        {
            std::cout << " " << k << "x" << hops;
        }
        std::cout << std::endl;
    }

    static uint32_t IoIndexWithinL1(const Wafer& w, uint32_t rank)
    {
        uint32_t io = rank - w.npus;
        uint32_t j = 0;
        for (uint32_t i = 0; i < io; ++i)
        {
            j += w.ioL1[i] == w.ioL1[io];
        }
        return j;
    }

    std::string m_variant;
};

/// One link of a path: rate in GB/s and delay in ns.
struct Hop
{
    uint64_t gigabytes;
    int64_t delayNs;
};

/**
 * One 64 MiB message between two ranks against the store-and-forward figure
 * T = S_wire / B_min + sum over the other links of s / B + sum of the delays
 * (s = one 4120-byte packet; switch latency 0).
 */
class WaferTimingTestCase : public TestCase
{
public:
    WaferTimingTestCase(std::string variant, uint32_t src, uint32_t dst, std::vector<Hop> path)
        : TestCase("wafer " + variant + ": 64 MiB from rank " + std::to_string(src) + " to "
                   + std::to_string(dst) + " runs at the bottleneck rate")
        , m_variant(variant)
        , m_src(src)
        , m_dst(dst)
        , m_path(path)
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        WaferConfig config;
        config.variant = m_variant;
        Wafer w = BuildWafer(config);
        const uint64_t bytes = 64ULL << 20;
        Time done;
        w.cluster.endpoints[m_src]->Send(m_dst,
                                         bytes,
                                         0,
                                         FabricEndpoint::MessageCallback(
                                             [&done](const FabricMessage& m)
                                             {
                                                 done = m.delivered;
                                             }));
        Simulator::Run();
        double packet = 8.0 * (config.payloadBytes + FabricHeader::SERIALIZED_SIZE);
        double wire = packet * (double(bytes) / config.payloadBytes);
        uint64_t bottleneck = UINT64_MAX;
        double pipeline = 0;
        for (const auto& hop : m_path)
        {
            bottleneck = std::min(bottleneck, GBps(hop.gigabytes));
            pipeline += packet / GBps(hop.gigabytes) + hop.delayNs * 1e-9;
        }
        double expected = wire / bottleneck + pipeline - packet / bottleneck;
        double t = done.GetSeconds();
        std::cout << "measured: " << m_variant << " rank " << m_src << " -> " << m_dst
                  << ": 64 MiB in " << t * 1e6 << " us; 64 MiB / " << bottleneck / 8e9
                  << " GB/s = " << 8.0 * bytes / bottleneck * 1e6 << " us; store-and-forward "
                  << "figure with headers " << expected * 1e6 << " us (error "
                  << 100 * (t - expected) / expected << "%); goodput " << bytes / t / 1e9 << " GB/s"
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(t, expected, 0.0005 * expected, "time of 64 MiB");
    }

    std::string m_variant;
    uint32_t m_src;
    uint32_t m_dst;
    std::vector<Hop> m_path;
};

} // namespace

class WaferTopologyTestSuite : public TestSuite
{
public:
    WaferTopologyTestSuite()
        : TestSuite("dlnet-wafer-topology", UNIT)
    {
        for (const auto& v : WaferVariants())
        {
            AddTestCase(new WaferShapeTestCase(v), TestCase::QUICK);
            AddTestCase(new WaferRoutesTestCase(v), TestCase::QUICK);
        }
        // mesh neighbours: local 3 TB/s (0 ns), mesh link 750 GB/s, local
        AddTestCase(new WaferTimingTestCase("mesh", 0, 1, {{3000, 0}, {750, 20}, {3000, 0}}),
                    TestCase::QUICK);
        AddTestCase(new WaferTimingTestCase("mesh", 5, 9, {{3000, 0}, {750, 20}, {3000, 0}}),
                    TestCase::QUICK);
        // I/O 0 (north of NPU 0) to NPU 0: 128 GB/s I/O link, local link
        AddTestCase(new WaferTimingTestCase("mesh", 20, 0, {{128, 20}, {3000, 0}}),
                    TestCase::QUICK);
        // FRED across L1s: NPU link, uplink, downlink, NPU link
        AddTestCase(
            new WaferTimingTestCase("fred-a", 0, 4, {{3000, 20}, {375, 20}, {375, 20}, {3000, 20}}),
            TestCase::QUICK);
        AddTestCase(new WaferTimingTestCase(
                        "fred-c", 0, 4, {{3000, 20}, {3000, 20}, {3000, 20}, {3000, 20}}),
                    TestCase::QUICK);
        AddTestCase(new WaferTimingTestCase("fred-c", 0, 1, {{3000, 20}, {3000, 20}}),
                    TestCase::QUICK);
        // I/O 0 (L1 0) to NPU 4 (L1 1) on fred-a: the 128 GB/s I/O link limits
        AddTestCase(
            new WaferTimingTestCase("fred-a", 20, 4, {{128, 20}, {375, 20}, {375, 20}, {3000, 20}}),
            TestCase::QUICK);
    }
};

static WaferTopologyTestSuite g_waferTopologyTestSuite;
