/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The flow-level network against packet level, both measured here: collectives
// that agree within 3% (1-4 MiB, 8-16 ranks), single messages (the latency
// terms), the FIFO per queue pair, two connections to one peer sharing (NCCL's
// channels), strict priority between classes across the network, the links
// loaded (ECMP route identity: flow level crosses exactly the links packet
// level loads, byte for byte), functional mode, determinism
// and the refusal of what the flow level does not model; and two packet-level
// effects it leaves out, measured (the send order's lock step, the
// head-of-line blocking of a NIC that sends into an incast).

#include "one-size-collective.h"

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>

using namespace ns3;

namespace
{

/// A collective of one size on a topology.
CollectiveConfig
Collective(const TopologyConfig& t, std::string op, std::string alg, uint64_t bytes)
{
    return OneSizeCollective(t, op, alg, bytes);
}

/// \return the collective's time at one network level
double
TimeAt(CollectiveConfig c, const std::string& network)
{
    c.topology.network = network;
    return RunCollective(c).rows.at(0).time;
}

TopologyConfig
LeafSpine(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines, std::string lb, double over = 1)
{
    TopologyConfig t;
    t.kind = "leaf-spine";
    t.leaves = leaves;
    t.hostsPerLeaf = hostsPerLeaf;
    t.spines = spines;
    t.loadBalancing = lb;
    t.oversubscription = over;
    return t;
}

TopologyConfig
Kind(std::string kind)
{
    TopologyConfig t;
    t.kind = kind;
    return t;
}

/// A star of this many hosts.
TopologyConfig
Star(uint32_t hosts)
{
    TopologyConfig t = Kind("star");
    t.hosts = hosts;
    return t;
}

/// One message sent at time 0 (or at `at`).
struct Send
{
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
    uint8_t tc;
    uint32_t connection{0}; //!< the sender's queue pair to dst (FabricEndpoint::Send)
    double at{0};           //!< s: when it is sent
};

/// \return the delivery time of each message (s), sent in order at their times
std::vector<double>
Deliveries(TopologyConfig t,
           const std::string& network,
           const std::vector<Send>& sends,
           const Ns3Attributes& attributes = {})
{
    t.network = network;
    SimulationScope scope(1, 1, attributes);
    Cluster cluster = BuildCluster(t);
    std::vector<double> at(sends.size(), -1);
    for (std::size_t i = 0; i < sends.size(); ++i)
    {
        const Send& s = sends[i];
        Ptr<FabricEndpoint> endpoint = cluster.endpoints.at(s.src);
        auto send = [endpoint, s, &at, i]()
        {
            endpoint->Send(s.dst,
                           s.bytes,
                           s.tc,
                           FabricEndpoint::MessageCallback(
                               [&at, i](const FabricMessage& m)
                               {
                                   at[i] = m.delivered.GetSeconds();
                               }),
                           nullptr,
                           0,
                           s.connection);
        };
        if (s.at > 0)
        {
            Simulator::Schedule(Seconds(s.at), send);
        }
        else
        {
            send();
        }
    }
    Simulator::Run();
    return at;
}

/// \return bytes of a message of m payload bytes on the wire (24-byte header per packet)
double
Wire(double m, double mtu)
{
    return m + 24 * std::ceil(m / (mtu - 24));
}

/// \return s: a message of m payload bytes on a 100 Gb/s link with MTU 4096 (the tests' fabrics)
double
WireTime(double m)
{
    return Wire(m, 4096) * 8 / 100e9;
}

/// s: the latency of a star's route at 100 Gb/s: two 500 ns wires and one 4096-byte packet's
/// store and forward
const double STAR_LATENCY = 2 * 500e-9 + 4096 * 8 / 100e9;

/**
 * A collective at flow level within a tolerance of packet level, both run
 * here.
 */
class AgreementTestCase : public TestCase
{
public:
    /// \param tolerance a margin over what the case measured, at most the 3 %
    AgreementTestCase(std::string name, CollectiveConfig c, double tolerance)
        : TestCase(name + ": flow level within " + dlnet::ShortestText(tolerance * 100)
                   + " % of packet level")
        , m_config(c)
        , m_tolerance(tolerance)
    {
    }

private:
    void DoRun() override
    {
        double packet = TimeAt(m_config, "packet");
        double flow = TimeAt(m_config, "flow");
        std::cout << GetName() << ": packet " << packet * 1e6 << " us, flow " << flow * 1e6
                  << " us, " << (flow / packet - 1) * 100 << " %" << std::endl;
        NS_TEST_ASSERT_MSG_GT(packet, 0, "packet level ran");
        NS_TEST_ASSERT_MSG_EQ_TOL(flow / packet, 1.0, m_tolerance, "flow against packet level");
    }

    CollectiveConfig m_config;
    double m_tolerance;
};

/**
 * A lone message: flow level's latency (propagation, switching, the store
 * and forward of its packets over links of unequal rates, a short last
 * packet) equals packet level's to the nanosecond; and so do a queue pair's
 * messages sent one after another, and back to back (each held behind the
 * one before it at every hop).
 */
class LoneMessageTestCase : public TestCase
{
public:
    /**
     * \param onePath every message from src to dst takes one path (no ECMP choice by message):
     * where ECMP sends two messages of a queue pair over different spines, a tiny last
     * packet held behind a full one at a faster uplink is overtaken at the shared downlink
     * by the next message (per-packet interleaving, which flow level does not model)
     */
    LoneMessageTestCase(
        std::string name, TopologyConfig t, uint32_t src, uint32_t dst, bool onePath = true)
        : TestCase("a lone message on " + name
                   + " arrives when it does at packet level, and so do series on one queue pair")
        , m_topology(t)
        , m_src(src)
        , m_dst(dst)
        , m_onePath(onePath)
    {
    }

private:
    void DoRun() override
    {
        // one packet, a few with a short last one, many
        for (uint64_t bytes : {1000ULL, 4072ULL, 10000ULL, 100000ULL, 1ULL << 20})
        {
            std::vector<Send> one = {{m_src, m_dst, bytes, 0}};
            double packet = Deliveries(m_topology, "packet", one)[0];
            double flow = Deliveries(m_topology, "flow", one)[0];
            NS_TEST_ASSERT_MSG_GT(packet, 0, bytes << " bytes delivered (-1 at both levels: not)");
            NS_TEST_ASSERT_MSG_EQ_TOL(flow,
                                      packet,
                                      1e-9,
                                      GetName() << ", " << bytes << " bytes: flow " << flow
                                                << " s, packet " << packet << " s");
        }
        // the same sizes one after another on one pair in one run, each sent a millisecond
        // after the one before (delivered by then): each arrives as alone (flow level keeps
        // a route's latency between messages, and a size of its own must not take another's;
        // the last two differ only in their count of full packets, 2 and 3)
        std::vector<Send> series;
        for (uint64_t bytes :
             {1ULL << 20, 1000ULL, 100000ULL, 4072ULL, 10000ULL, 2 * 4072ULL, 3 * 4072ULL})
        {
            series.push_back({m_src, m_dst, bytes, 0, 0, 1e-3 * series.size()});
        }
        std::vector<double> packet = Deliveries(m_topology, "packet", series);
        std::vector<double> flow = Deliveries(m_topology, "flow", series);
        for (std::size_t i = 0; i < series.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(packet[i], 0, "message " << i << " of the series delivered");
            NS_TEST_ASSERT_MSG_EQ_TOL(flow[i],
                                      packet[i],
                                      1e-9,
                                      GetName()
                                          << ", in a series, " << series[i].bytes << " bytes: flow "
                                          << flow[i] << " s, packet " << packet[i] << " s");
        }
        // the same sizes back to back on one queue pair, all posted at once: each waits for
        // the one before at every hop (a packet smaller than the one before it is held behind
        // it; the 1000 bytes after the 1 MiB arrived 246 ns early on the star without that)
        for (Send& s : series)
        {
            s.at = 0;
        }
        if (m_onePath)
        {
            // then sizes whose last packets are tiny (34 and 25 bytes on the wire), which a
            // full packet before them holds on a faster link after the slowest (the mesh's
            // last hop), each followed by smaller messages
            for (uint64_t bytes :
                 {257 * 4072ULL + 10, 1000ULL, 64ULL, 3 * 4072ULL + 1, 100ULL, 5000ULL})
            {
                series.push_back({m_src, m_dst, bytes, 0});
            }
        }
        packet = Deliveries(m_topology, "packet", series);
        flow = Deliveries(m_topology, "flow", series);
        for (std::size_t i = 0; i < series.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(packet[i], 0, "delivered at packet level");
            NS_TEST_ASSERT_MSG_EQ_TOL(flow[i],
                                      packet[i],
                                      1e-9,
                                      GetName() << ", back to back, " << series[i].bytes
                                                << " bytes: flow " << flow[i] << " s, packet "
                                                << packet[i] << " s");
        }
    }

    TopologyConfig m_topology;
    uint32_t m_src;
    uint32_t m_dst;
    bool m_onePath;
};

/**
 * FIFO per queue pair: host 0 sends A then B to host 1 and C to host 2 at
 * once on a star of 100 Gb/s links. A and C share host 0's link (50 Gb/s
 * each) and arrive at 2W/C; B waits for A and then has the link alone: 3W/C
 * (each plus the route's latency). Flow level against that closed form and
 * against packet level.
 */
class QueuePairFifoTestCase : public TestCase
{
public:
    QueuePairFifoTestCase()
        : TestCase("messages of one queue pair go one after another, queue pairs share")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = Star(3);
        const uint64_t bytes = 1 << 20;
        std::vector<Send> sends = {{0, 1, bytes, 0}, {0, 1, bytes, 0}, {0, 2, bytes, 0}};
        std::vector<double> packet = Deliveries(t, "packet", sends);
        std::vector<double> flow = Deliveries(t, "flow", sends);
        double w = WireTime(bytes); // one message at 100 Gb/s
        NS_TEST_ASSERT_MSG_EQ_TOL(flow[0], 2 * w + STAR_LATENCY, 1e-9, "A shares the link with C");
        NS_TEST_ASSERT_MSG_EQ_TOL(flow[2], 2 * w + STAR_LATENCY, 1e-9, "C shares the link with A");
        NS_TEST_ASSERT_MSG_EQ_TOL(flow[1], 3 * w + STAR_LATENCY, 1e-9, "B goes after A, alone");
        // Packet level: B exactly so; A and C alternate packet by packet, A a
        // few packets ahead (it was staged first), so they straddle 2W/C.
        NS_TEST_ASSERT_MSG_EQ_TOL(packet[1], flow[1], 1e-3 * flow[1], "B after A at packet level");
        NS_TEST_ASSERT_MSG_LT(packet[0], flow[0], "A a little earlier at packet level");
        NS_TEST_ASSERT_MSG_GT(packet[2], flow[2], "C a little later at packet level");
        NS_TEST_ASSERT_MSG_EQ_TOL((packet[0] + packet[2]) / 2,
                                  flow[0],
                                  0.002 * flow[0],
                                  "A and C together as at flow level");
    }
};

/**
 * Connections (NCCL's channels): host 0 sends A and B, 1 MiB each, to host 1
 * at once on a star of 100 Gb/s links. On one connection B waits for A: W/C
 * and 2W/C. On connections 0 and 1 (the two trees of a double binary tree)
 * they are two queue pairs and share the link: both at 2W/C (each plus the
 * route's latency). Flow level exactly, packet level within 0.5% (the two
 * queue pairs take turns packet by packet, A a few packets ahead).
 */
class ConnectionsTestCase : public TestCase
{
public:
    ConnectionsTestCase()
        : TestCase("messages to one peer on two connections share the link, on one they queue")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = Star(2);
        const uint64_t bytes = 1 << 20;
        double w = WireTime(bytes); // one message at 100 Gb/s
        std::vector<Send> one = {{0, 1, bytes, 0, 0}, {0, 1, bytes, 0, 0}};
        std::vector<Send> two = {{0, 1, bytes, 0, 0}, {0, 1, bytes, 0, 1}};
        for (std::string network : {"flow", "packet"})
        {
            std::vector<double> fifo = Deliveries(t, network, one);
            std::vector<double> shared = Deliveries(t, network, two);
            std::printf("%s: one connection %.3f, %.3f us; two connections %.3f, %.3f us\n",
                        network.c_str(),
                        fifo[0] * 1e6,
                        fifo[1] * 1e6,
                        shared[0] * 1e6,
                        shared[1] * 1e6);
            NS_TEST_ASSERT_MSG_EQ_TOL(fifo[0], w + STAR_LATENCY, 1e-9, network << ": A alone");
            NS_TEST_ASSERT_MSG_EQ_TOL(
                fifo[1], 2 * w + STAR_LATENCY, 1e-9, network << ": B after A");
            NS_TEST_ASSERT_MSG_EQ_TOL(
                shared[1], 2 * w + STAR_LATENCY, 1e-9, network << ": B shares the link with A");
            if (network == "flow")
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(
                    shared[0], 2 * w + STAR_LATENCY, 1e-9, "flow: A shares the link with B");
            }
            else
            {
                // the queue pairs take turns packet by packet, A a few
                // packets ahead (it was staged first; measured 168.940 us)
                NS_TEST_ASSERT_MSG_LT(shared[0], 2 * w + STAR_LATENCY, "packet: A a little ahead");
                NS_TEST_ASSERT_MSG_GT(
                    shared[0], 0.99 * (2 * w + STAR_LATENCY), "packet: A shares the link with B");
            }
        }
    }
};

/**
 * Strict priority across the network: on a leaf-spine of 2 leaves x 2 hosts
 * and one spine at 2:1 (a 100 Gb/s uplink), host 0 sends to host 2 in class 1
 * and host 1 to host 3 in class 0, both 1 MiB. They meet only on the leaf's
 * uplink: class 0 takes it (W/C), class 1 gets it afterwards (2W/C), each
 * plus the route's latency.
 */
class PriorityAcrossNetworkTestCase : public TestCase
{
public:
    PriorityAcrossNetworkTestCase()
        : TestCase("class 0 goes first on a shared uplink, class 1 after it")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = LeafSpine(2, 2, 1, "flow", 2);
        const uint64_t bytes = 1 << 20;
        std::vector<Send> sends = {{0, 2, bytes, 1}, {1, 3, bytes, 0}};
        std::vector<double> packet = Deliveries(t, "packet", sends);
        std::vector<double> flow = Deliveries(t, "flow", sends);
        double w = WireTime(bytes);
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(flow[i], packet[i], 0.01 * packet[i], "message " << i);
        }
        // four wires, three switches' store and forward of a full packet
        double latency = 4 * 500e-9 + 3 * 4096 * 8 / 100e9;
        NS_TEST_ASSERT_MSG_EQ_TOL(flow[1], w + latency, 1e-9, "class 0 alone on the uplink");
        NS_TEST_ASSERT_MSG_EQ_TOL(flow[0], 2 * w + latency, 1e-9, "class 1 after class 0");
        NS_TEST_ASSERT_MSG_LT(packet[1], 0.6 * packet[0], "packet level serves class 0 first");
    }
};

/**
 * The dateline's virtual channel, hop by hop: on the first row of a 4x4
 * torus (ring 0-1-2-3, its wrap link 3-0 the dateline) host 2 sends 1 MiB
 * to host 0 the + way round (2->3 on VC 0, 3->0 crosses the dateline: VC 1,
 * kept into host 0's link) and host 1 sends 1 MiB to host 0 (1->0: VC 0),
 * both in class 0 from VC 0. They meet only on router 0's link to host 0,
 * where 2->0 is on VC 1 and goes first (W/C), 1->0 after it (2W/C). With
 * the sender's channel on every link, as before, both shared it: 2W/C each.
 */
class DatelineChannelTestCase : public TestCase
{
public:
    DatelineChannelTestCase()
        : TestCase("a torus flow past the dateline goes first on VC 1 (channel per hop)")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = Kind("torus");
        t.localLinkRate = "100Gbps"; // (by default ports x the link rate: no sharing there)
        const uint64_t bytes = 1 << 20;
        std::vector<Send> sends = {{2, 0, bytes, 0}, {1, 0, bytes, 0}};
        std::vector<double> packet = Deliveries(t, "packet", sends);
        std::vector<double> flow = Deliveries(t, "flow", sends);
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(flow[i], packet[i], 0.01 * packet[i], "message " << i);
        }
        double w = WireTime(bytes);
        NS_TEST_ASSERT_MSG_LT(flow[0], 1.05 * w, "2->0 alone on VC 1 into host 0");
        NS_TEST_ASSERT_MSG_GT(flow[1], 2 * w, "1->0 after it");
        NS_TEST_ASSERT_MSG_LT(packet[0], 0.6 * packet[1], "packet level serves VC 1 first");
    }
};

/// \return the last delivery of an all-to-all of one message per ordered pair, all sent at 0
double
AllToAllMakespan(const TopologyConfig& t, const std::string& network, bool rotated)
{
    uint32_t n = t.GetNRanks();
    std::vector<Send> sends;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t k = 1; k < n; ++k)
        {
            // same order: every rank to 0, 1, 2, ...; rotated: rank i to i+1, i+2, ...
            uint32_t j = rotated ? (i + k) % n : (k <= i ? k - 1 : k);
            sends.push_back({i, j, 128 << 10, 0});
        }
    }
    std::vector<double> at = Deliveries(t, network, sends);
    return *std::max_element(at.begin(), at.end());
}

/**
 * Why direct differs at small sizes: on a star of 8, an all-to-all of
 * 128 KiB messages posted by every rank in the same order (0, 1, 2, ...)
 * puts the NICs' round robins in lock step (a rolling incast) and is slower
 * at packet level; rotated (rank i starts with i+1) it takes exactly flow
 * level's time, which is the same in both orders.
 */
class SendOrderTestCase : public TestCase
{
public:
    SendOrderTestCase()
        : TestCase("an all-to-all in the same send order on every rank is slower at packet "
                   "level; rotated, it takes flow level's time")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = Star(8);
        double flowSame = AllToAllMakespan(t, "flow", false);
        double flowRotated = AllToAllMakespan(t, "flow", true);
        double packetSame = AllToAllMakespan(t, "packet", false);
        double packetRotated = AllToAllMakespan(t, "packet", true);
        NS_TEST_ASSERT_MSG_EQ_TOL(flowSame, flowRotated, 1e-12, "order is nothing to max-min");
        NS_TEST_ASSERT_MSG_EQ_TOL(packetRotated, flowRotated, 1e-9, "rotated: as at flow level");
        NS_TEST_ASSERT_MSG_GT(packetSame, 1.03 * packetRotated, "same order: lock step");
    }
};

/**
 * Why halving-doubling and the tree differ on the mesh and torus at default
 * credits: head-of-line blocking through a shared ingress credit. A
 * leaf-spine of 3 leaves x 3 hosts, one spine, 3:1 (100 Gb/s uplinks): host
 * 0 sends to host 6 (leaf 0, spine, leaf 2) and host 1 to host 3 (leaf 0,
 * spine, leaf 1), where hosts 4 and 5 also send to host 3; 4 MiB each (W at
 * 100 Gb/s). Host 3's link gives each of its three flows C/3, the makespan is
 * 3W everywhere. Max-min gives 0 -> 6 the rest of leaf 0's uplink, 2C/3: 1.5W.
 * At packet level the spine's ingress buffer from leaf 0 (one credit per link
 * and class, shared by both flows) fills with 1 -> 3's packets, held behind
 * host 3's link; leaf 0's uplink stalls on credit and 0 -> 6 moves in lock
 * step with 1 -> 3: 3W. With credits that never run out the uplink's FIFO
 * serves both flows as they arrive (both at 100 Gb/s): 2W. Each within 1%.
 */
class HeadOfLineTestCase : public TestCase
{
public:
    HeadOfLineTestCase()
        : TestCase("a flow that leaves at the spine moves in lock step with one held behind "
                   "it downstream at packet level (shared ingress credit); max-min at flow level")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = LeafSpine(3, 3, 1, "flow", 3);
        const uint64_t bytes = 4 << 20;
        std::vector<Send> sends = {{0, 6, bytes, 0}, {1, 3, bytes, 0}, {4, 3, bytes, 0}};
        sends.push_back({5, 3, bytes, 0});
        std::vector<double> flow = Deliveries(t, "flow", sends);
        std::vector<double> packet = Deliveries(t, "packet", sends);
        t.rxBufferBytes = 256 << 20;
        std::vector<double> deep = Deliveries(t, "packet", sends);
        double w = WireTime(bytes);
        for (const auto* at : {&flow, &packet, &deep})
        {
            double last = *std::max_element(at->begin(), at->end());
            NS_TEST_ASSERT_MSG_EQ_TOL(last, 3 * w, 0.03 * w, "host 3's link: three messages");
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(flow[0], 1.5 * w, 0.015 * w, "flow level: max-min, 2C/3");
        NS_TEST_ASSERT_MSG_EQ_TOL(packet[0], 3 * w, 0.03 * w, "default credits: lock step, C/3");
        NS_TEST_ASSERT_MSG_EQ_TOL(deep[0], 2 * w, 0.02 * w, "deep buffers: FIFO by arrival, C/2");
    }
};

/**
 * The double binary tree's pattern, reduced to three messages on a star of 8
 * (4 MiB each, all sent at 0): ranks 1 and 2 send to 5 (its link is shared),
 * rank 2 also sends to 0 (a free link). Max-min gives each 50 Gb/s. At packet
 * level rank 2's NIC takes turns packet by packet, but its credits to the
 * switch are shared by both destinations and its packets to 5 sit in 5's
 * FIFO output queue holding them: 2->0 is held back (head-of-line blocking),
 * and 5's FIFO serves 1 and 2 in proportion to the packets they have queued
 * (1 has more), not half each.
 */
class SharedNicTestCase : public TestCase
{
public:
    SharedNicTestCase()
        : TestCase("a NIC sending to a shared and a free receiver: head-of-line blocking at "
                   "packet level")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = Star(8);
        const uint64_t m = 4 << 20;
        std::vector<Send> sends{{1, 5, m, 0}, {2, 5, m, 0}, {2, 0, m, 0}};
        std::vector<double> flow = Deliveries(t, "flow", sends);
        std::vector<double> packet = Deliveries(t, "packet", sends);
        TopologyConfig deep = t;
        deep.rxBufferBytes = 256 << 20;
        std::vector<double> packetDeep = Deliveries(deep, "packet", sends);
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            std::printf("%u->%u: flow %.3f us, packet %.3f us, packet with deep credits %.3f us\n",
                        sends[i].src,
                        sends[i].dst,
                        flow[i] * 1e6,
                        packet[i] * 1e6,
                        packetDeep[i] * 1e6);
        }
        const double half = 2 * WireTime(m) + STAR_LATENCY; // each message at 50 Gb/s
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(flow[i], half, 1e-9, "max-min: every message at half rate");
        }
        // Credits that never run out: rank 2's NIC sends at line rate, its
        // backlog for 5 waits in the switch, and both its messages end when
        // they do at flow level; 5's FIFO serves 1 and 2 in proportion to
        // their arrival rates (100 and 50 Gb/s), so 1->5 gets two thirds.
        NS_TEST_ASSERT_MSG_EQ_TOL(packetDeep[1], half, 1e-9, "deep credits: 2->5 as at flow level");
        NS_TEST_ASSERT_MSG_EQ_TOL(packetDeep[2], half, 1e-9, "deep credits: 2->0 as at flow level");
        NS_TEST_ASSERT_MSG_EQ_TOL(packetDeep[0],
                                  1.5 * WireTime(m) + STAR_LATENCY,
                                  0.005 * packetDeep[0],
                                  "deep credits: 1->5 gets two thirds of 5's link");
        // Default credits (4 packets plus the bandwidth-delay product):
        // 2->0 is held back by the credits its packets for 5 hold (measured
        // +14.2%), and 1->5 takes more than half of 5's link (-14.3%).
        NS_TEST_ASSERT_MSG_GT(packet[2], 1.10 * half, "head-of-line blocking holds 2->0 back");
        NS_TEST_ASSERT_MSG_LT(packet[0], 0.90 * half, "5's FIFO favours 1");
    }
};

/**
 * The NIC's lock step, which FlowNetwork's SourceLockStep models: on a star of 8,
 * hosts 1, 3 and 4 send to host 5 (each C/3 of 5's link) and host 1 also sends
 * to host 0 (a free link); 4 MiB each, W at 100 Gb/s. Max-min gives 1 -> 0 the
 * rest of 1's link, 2C/3: 1.5 W. At packet level 1's NIC serves its two queue
 * pairs round robin and its credit to the switch fills with packets for 5, so
 * 1 -> 0 moves at 1 -> 5's pace until the incast ends: about 3 W. With
 * SourceLockStep the two messages of host 1 are one bundle at the slower's rate,
 * C/3, and both end with the incast at 3 W (packet level: 6.5% later still).
 */
class SourceLockStepTestCase : public TestCase
{
public:
    SourceLockStepTestCase()
        : TestCase("SourceLockStep: a NIC's messages at its slowest's pace, as its round robin "
                   "and shared credit give at packet level")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = Star(8);
        const uint64_t m = 4 << 20;
        std::vector<Send> sends{{1, 5, m, 0}, {3, 5, m, 0}, {4, 5, m, 0}, {1, 0, m, 0}};
        std::vector<double> maxMin = Deliveries(t, "flow", sends);
        std::vector<double> packet = Deliveries(t, "packet", sends);
        std::vector<double> lockStep
            = Deliveries(t, "flow", sends, {{"ns3::FlowNetwork::SourceLockStep", "true"}});
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            std::printf("%u->%u: max-min %.3f us, lock step %.3f us, packet %.3f us\n",
                        sends[i].src,
                        sends[i].dst,
                        maxMin[i] * 1e6,
                        lockStep[i] * 1e6,
                        packet[i] * 1e6);
        }
        const double w = WireTime(m);
        NS_TEST_ASSERT_MSG_EQ_TOL(maxMin[3], 1.5 * w + STAR_LATENCY, 1e-9, "max-min: 2C/3");
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(
                lockStep[i], 3 * w + STAR_LATENCY, 1e-9, "lock step: every message at C/3, " << i);
        }
        // packet level: 1->0 at 1->5's pace, 6.5% beyond the lock step (measured: 5's FIFO
        // serves the ingresses by the packets they have queued, and 1's credit is split
        // between its two destinations, so 1->5 gets less than a third; that is not modelled)
        NS_TEST_ASSERT_MSG_EQ_TOL(packet[3], lockStep[3], 0.1 * packet[3], "packet level: 1->0");
        NS_TEST_ASSERT_MSG_EQ_TOL(packet[3], packet[0], 0.01 * packet[3], "1->0 with 1->5");
        NS_TEST_ASSERT_MSG_LT(maxMin[3], 0.5 * packet[3], "max-min misses the lock step");

        // A NIC locks the messages of one class only: the same sends with 1->0 in class 0
        // and the incast in class 1. 1->0 takes host 1's link (W), 1->5 waits; 3->5 and
        // 4->5 share 5's link (C/2 each, m/2 by W); from W the three share it, C/3 each:
        // 3->5 and 4->5 end at 2.5 W, 1->5 (m/2 sent by then) alone at 3 W.
        std::vector<Send> classes{{1, 5, m, 1}, {3, 5, m, 1}, {4, 5, m, 1}, {1, 0, m, 0}};
        std::vector<double> split
            = Deliveries(t, "flow", classes, {{"ns3::FlowNetwork::SourceLockStep", "true"}});
        const std::vector<double> expected{3 * w, 2.5 * w, 2.5 * w, w};
        for (std::size_t i = 0; i < classes.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(split[i],
                                      expected[i] + STAR_LATENCY,
                                      1e-9,
                                      "lock step per class: " << classes[i].src << "->"
                                                              << classes[i].dst);
        }
    }
};

/**
 * FinishTolerance: on a star, 1 -> 0, 2 -> 3 and 4 -> 5 share no link; 2 -> 3
 * carries 200 bytes more than 1 -> 0 and ends 16 ns after it, within 1e-4 of
 * the 337 us it has been sending, so by default it ends with 1 -> 0; 4 -> 5 carries 1024 bytes more
 * (82 ns, beyond 34 ns) and ends at its own time. With FinishTolerance 0 each
 * ends at its own time.
 */
class FinishToleranceTestCase : public TestCase
{
public:
    FinishToleranceTestCase()
        : TestCase("FinishTolerance: flows due within 1e-4 of their sending time end together")
    {
    }

private:
    void DoRun() override
    {
        const uint64_t m = 4 << 20;
        std::vector<Send> sends{{1, 0, m, 0}, {2, 3, m + 200, 0}, {4, 5, m + 1024, 0}};
        std::vector<double> together = Deliveries(Star(8), "flow", sends);
        std::vector<double> exact
            = Deliveries(Star(8), "flow", sends, {{"ns3::FlowNetwork::FinishTolerance", "0"}});
        for (std::size_t i = 0; i < sends.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(exact[i],
                                      WireTime(sends[i].bytes) + STAR_LATENCY,
                                      1e-12,
                                      "tolerance 0: message " << i << " at its own end");
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(together[0], exact[0], 1e-12, "the first end is exact");
        NS_TEST_ASSERT_MSG_EQ_TOL(together[1], exact[0], 1e-12, "2 -> 3 ends with 1 -> 0");
        NS_TEST_ASSERT_MSG_LT(together[1], exact[1], "and so before its own end");
        NS_TEST_ASSERT_MSG_EQ_TOL(together[2], exact[2], 1e-12, "4 -> 5: beyond the tolerance");

        // The tolerance scales with the time a flow has been sending, not since it started:
        // 2 -> 0 in class 1 waits starved behind 1 -> 0 in class 0 (W1), then sends its 64 KiB
        // alone (W2, 5.3 us); 3 -> 4 ends 27.5 ns before it, within 1e-4 of W1 + W2 (34 ns)
        // but not of W2 (0.5 ns): 2 -> 0 keeps its own end.
        const uint64_t small = 64 << 10;
        const uint64_t beside = 4259520; // on the wire 344 bytes less than m and small together
        std::vector<Send> starved{{1, 0, m, 0}, {2, 0, small, 1}, {3, 4, beside, 0}};
        std::vector<double> late = Deliveries(Star(8), "flow", starved);
        std::vector<double> lateExact
            = Deliveries(Star(8), "flow", starved, {{"ns3::FlowNetwork::FinishTolerance", "0"}});
        NS_TEST_ASSERT_MSG_EQ_TOL(lateExact[1],
                                  WireTime(m) + WireTime(small) + STAR_LATENCY,
                                  1e-12,
                                  "2 -> 0 sends once 1 -> 0 has ended");
        NS_TEST_ASSERT_MSG_EQ_TOL(
            lateExact[1] - lateExact[2], 344 * 8 / 100e9, 1e-12, "3 -> 4 ends 27.5 ns before it");
        NS_TEST_ASSERT_MSG_EQ_TOL(late[1], lateExact[1], 1e-12, "2 -> 0 at its own end");
    }
};

/**
 * IncrementalSolve beside per-hop levels: on a torus a flow past the dateline
 * moves to VC 1 there, so its level differs by hop, and an end beside such a
 * flow solves the whole component (re-solving only the flows at or above the
 * ended rate would leave the per-hop levels below it as they were). 12 draws
 * of 48 random messages (64 KiB to 4 MiB) on the 4x4 torus: every delivery as
 * with whole solves. (Without that exclusion, `mark.perUse` in UpdateAfterEnds,
 * draws 4, 6 and 10 moved 5, 4 and 9 deliveries, by up to 4.0%, 15.0% and 3.3%;
 * the other nine none.)
 */
class IncrementalPerHopTestCase : public TestCase
{
public:
    IncrementalPerHopTestCase()
        : TestCase("IncrementalSolve on the torus (per-hop VCs): deliveries as with whole solves")
    {
    }

private:
    void DoRun() override
    {
        // (mt19937's own output: the distributions' differ between standard libraries)
        for (uint32_t seed = 1; seed <= 12; ++seed)
        {
            std::mt19937 random(seed);
            std::vector<Send> sends;
            while (sends.size() < 48)
            {
                const uint32_t src = random() % 16;
                const uint32_t dst = random() % 16;
                const uint64_t bytes = (64 << 10) + random() % ((4 << 20) - (64 << 10));
                if (src != dst)
                {
                    sends.push_back({src, dst, bytes, 0});
                }
            }
            const TopologyConfig torus = Kind("torus");
            std::vector<double> incremental = Deliveries(torus, "flow", sends);
            std::vector<double> whole = Deliveries(
                torus, "flow", sends, {{"ns3::FlowNetwork::IncrementalSolve", "false"}});
            for (std::size_t i = 0; i < sends.size(); ++i)
            {
                NS_TEST_ASSERT_MSG_GT(whole[i], 0, "seed " << seed << ", message " << i);
                // (10 ticks of the 1 ps clock: an end may fall on the next tick; draw 10
                // measured 1 ps)
                NS_TEST_ASSERT_MSG_EQ_TOL(incremental[i],
                                          whole[i],
                                          1e-11,
                                          "seed " << seed << ", message " << i
                                                  << " as with whole solves");
            }
        }
    }
};

/**
 * A run cut by its stop-time: a link counts what the flows still on it have
 * sent so far. 1 MiB from host 0 to host 1 of a star at 100 Gbit/s, cut at
 * 10 us: host 0's link has carried 10 us x 100 Gbit/s = 125,000 bytes (it
 * counted a flow's bytes only when the flow ended: 0), as packet level's has
 * within a packet; its utilisation over the 10 us is 1, and it has been busy
 * the 10 us (within a packet's 0.33 us at packet level).
 */
class CutRunCarriedBytesTestCase : public TestCase
{
public:
    CutRunCarriedBytesTestCase()
        : TestCase("a run cut by its stop-time counts the bytes its flows have sent so far")
    {
    }

private:
    void DoRun() override
    {
        for (const std::string network : {"flow", "packet"})
        {
            TrafficConfig c;
            c.topology = Star(8);
            c.topology.network = network;
            c.pattern = "point-to-point";
            c.messageBytes = 1 << 20;
            c.stopTime = "10us";
            TrafficResult r = RunTraffic(c);
            NS_TEST_ASSERT_MSG_EQ(r.cutByStopTime, true, network << ": cut");
            double carried = -1;
            double utilisation = -1;
            double busy = -1;
            for (const auto& l : r.links)
            {
                if (l.from == "host0" && l.to == "switch")
                {
                    carried = l.txBytes;
                    utilisation = l.utilisation;
                    busy = l.busy;
                }
            }
            // (the flow still on the link counts: its busy time ran to the stop-time)
            const double busyTolerance = network == "flow" ? 1e-12 : 0.34e-6;
            NS_TEST_ASSERT_MSG_EQ_TOL(busy, 10e-6, busyTolerance, network << ": busy");
            // busy all along the 10 us (over the makespan, 0 with nothing delivered)
            NS_TEST_ASSERT_MSG_EQ_TOL(utilisation, 1, 0.01, network << ": utilisation");
            const double tolerance = network == "flow" ? 1 : 4096; // (a packet)
            NS_TEST_ASSERT_MSG_EQ_TOL(carried, 125000, tolerance, network);
        }
    }
};

/**
 * Routes changed between messages: on a leaf-spine of 2 leaves x 2 hosts and
 * 2 spines, host 0's leaf sends host 2's traffic up one uplink, then (routes
 * set again) up the other. Flow level follows the switch's routes as they
 * are when a message starts: 1 MiB crosses the first uplink, then 1 MiB the
 * second (with its route cache kept across the change, both went up the
 * first: a mutation this test was written against).
 */
class RouteChangeTestCase : public TestCase
{
public:
    RouteChangeTestCase()
        : TestCase("routes set again between two messages: flow level takes the new ones")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = LeafSpine(2, 2, 2, "flow");
        t.network = "flow";
        SimulationScope scope(1, 1);
        Cluster cluster = BuildCluster(t);
        Ptr<FabricSwitch> leaf;
        for (Ptr<FabricSwitch> sw : cluster.switches)
        {
            if (sw->GetRoute(2).size() == 2) // (host 0's leaf: both uplinks lead to host 2)
            {
                leaf = sw;
            }
        }
        NS_TEST_ASSERT_MSG_NE(leaf, nullptr, "host 0's leaf");
        const std::vector<uint32_t> uplinks = leaf->GetRoute(2);
        const double bytes = Wire(1 << 20, 4096);
        for (uint32_t i = 0; i < 2; ++i)
        {
            leaf->SetRoute(2, {uplinks[i]});
            cluster.endpoints.at(0)->Send(2, 1 << 20, 0, FabricEndpoint::MessageCallback());
            Simulator::Run();
            for (uint32_t j = 0; j < 2; ++j)
            {
                const double expected = j <= i ? bytes : 0;
                NS_TEST_ASSERT_MSG_EQ_TOL(cluster.flow->GetCarriedBytes(leaf->GetPort(uplinks[j])),
                                          expected,
                                          1,
                                          "after message " << i << ": uplink " << j);
            }
        }
    }
};

/// Bytes each link direction carried in one run of a collective, in build order.
std::vector<double>
LinkBytes(TopologyConfig t, const std::string& network, std::string alg, uint64_t bytes)
{
    t.network = network;
    SimulationScope scope(1, 1);
    Ptr<const Topology> topology = MakeTopology(t);
    Cluster cluster = topology->Build();
    Communicator comm = Communicator::World(cluster.GetNRanks());
    Ptr<CollectiveBackend> backend = CollectiveRegistry::Get(alg).create();
    CollectiveRequest req;
    req.op = CollectiveOp::ALL_TO_ALL;
    req.type = DataType::FP32;
    req.bytes = bytes;
    bool done = false;
    backend->Start(cluster,
                   *topology,
                   comm,
                   req,
                   CollectiveBackend::DoneCallback(
                       [&done](const CollectiveRecord&)
                       {
                           done = true;
                       }));
    Simulator::Run();
    backend->Dispose();
    NS_ABORT_MSG_UNLESS(done, "the collective finished");
    std::vector<double> carried;
    for (const auto& link : cluster.links)
    {
        for (Ptr<FabricNetDevice> d : {link.a, link.b})
        {
            carried.push_back(cluster.flow ? cluster.flow->GetCarriedBytes(d)
                                           : double(d->GetTxBytes()));
        }
    }
    return carried;
}

/**
 * Route identity: an all-to-all (every pair, so every ECMP choice) at flow
 * level loads each link direction with exactly the bytes packet level sends
 * on it (headers included; a lossless fabric sends nothing else). With
 * spraying the split is even at flow level and round robin per destination
 * at packet level: equal within one packet per destination.
 */
class RouteIdentityTestCase : public TestCase
{
public:
    RouteIdentityTestCase(std::string lb)
        : TestCase("all-to-all on a leaf-spine (" + lb
                   + " balancing): flow level loads the links packet level loads")
        , m_lb(lb)
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = LeafSpine(4, 4, 2, m_lb);
        const uint64_t bytes = 1 << 20;
        std::vector<double> packet = LinkBytes(t, "packet", "direct", bytes);
        std::vector<double> flow = LinkBytes(t, "flow", "direct", bytes);
        NS_TEST_ASSERT_MSG_EQ(packet.size(), flow.size(), "same links");
        double total = 0;
        for (std::size_t i = 0; i < packet.size(); ++i)
        {
            total += packet[i];
            // spraying: round robin per destination leaves at most one packet
            // per destination off the even split
            double slack = m_lb == "flow" ? 0.5 : 16 * 4096.0;
            NS_TEST_ASSERT_MSG_EQ_TOL(flow[i], packet[i], slack, "link direction " << i);
        }
        NS_TEST_ASSERT_MSG_GT(total, 16 * 15 * Wire(bytes / 16, 4096) * 0.99, "traffic ran");
        if (m_lb == "flow")
        {
            // hash collisions leave some uplinks busier than others: the
            // test sees the ECMP choices, not an even spread
            double most = 0;
            double least = 1e300;
            for (std::size_t i = 0; i < packet.size(); ++i)
            {
                most = std::max(most, packet[i]);
                least = std::min(least, packet[i]);
            }
            NS_TEST_ASSERT_MSG_GT(most, least, "links differ in load");
        }
    }

    std::string m_lb;
};

/// Functional mode at flow level: the real bytes arrive and reduce correctly.
class FunctionalTestCase : public TestCase
{
public:
    FunctionalTestCase(std::string alg)
        : TestCase("functional " + alg + " all-reduce at flow level gives the exact sum")
        , m_alg(alg)
    {
    }

private:
    void DoRun() override
    {
        CollectiveConfig c = Collective(LeafSpine(2, 4, 2, "flow"), "allreduce", m_alg, 64 << 10);
        c.topology.network = "flow";
        c.functional = true;
        c.type = "int32";
        CollectiveRow row = RunCollective(c).rows.at(0);
        NS_TEST_ASSERT_MSG_EQ(row.checked, true, "checked");
        NS_TEST_ASSERT_MSG_EQ(row.correct, true, "every rank holds the sum");
        NS_TEST_ASSERT_MSG_EQ(row.maxError, 0, "exact for int32");

        TrafficConfig tc;
        tc.topology = LeafSpine(2, 4, 2, "flow");
        tc.topology.network = "flow";
        tc.pattern = "all-to-all";
        tc.messageBytes = 10000;
        tc.functional = true;
        TrafficResult r = RunTraffic(tc);
        NS_TEST_ASSERT_MSG_EQ(r.allDelivered, true, "every message delivered");
        NS_TEST_ASSERT_MSG_EQ(r.allIntact, true, "every message's bytes intact");
    }

    std::string m_alg;
};

/// \return the bytes of a file
std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Two runs at flow level give byte-identical result files.
class DeterminismTestCase : public TestCase
{
public:
    DeterminismTestCase()
        : TestCase("two flow-level runs write byte-identical results")
    {
    }

private:
    void DoRun() override
    {
        CollectiveConfig c
            = Collective(LeafSpine(4, 4, 2, "flow"), "allreduce", "halving-doubling", 1 << 20);
        c.topology.network = "flow";
        std::vector<std::string> files;
        for (int i = 0; i < 2; ++i)
        {
            std::string dir = CreateTempDirFilename("flow-determinism-" + std::to_string(i));
            WriteCollectiveResults(c, {RunCollective(c)}, dir);
            files.push_back(Slurp(dir + "/collective.csv") + Slurp(dir + "/result.json"));
        }
        NS_TEST_ASSERT_MSG_GT(files[0].size(), 100u, "results written");
        NS_TEST_ASSERT_MSG_EQ((files[0] == files[1]), true, "identical files");
    }
};

/// Lossy links and packet capture are refused at flow level, naming the field.
class RefusalTestCase : public TestCase
{
public:
    RefusalTestCase()
        : TestCase("network=flow refuses lossy links and pcap")
    {
    }

private:
    void DoRun() override
    {
        for (int which = 0; which < 2; ++which)
        {
            CollectiveConfig c = Collective(Kind("star"), "allreduce", "ring", 1 << 20);
            c.topology.network = "flow";
            std::string needle = which == 0 ? "network: flow models lossless fabrics only"
                                            : "pcap: network=flow sends no packets";
            if (which == 0)
            {
                c.topology.flowControl = "lossy";
            }
            else
            {
                c.topology.pcapPrefix = CreateTempDirFilename("flow-pcap");
            }
            std::string message;
            try
            {
                RunCollective(c);
            }
            catch (const std::invalid_argument& e)
            {
                message = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(message.find(needle),
                                  std::string::npos,
                                  "refused naming " << needle << ": '" << message << "'");
        }
    }
};

/**
 * A flow on no link, bounded by its cap alone, whose end the simulator's clock
 * cannot hold (its bytes at its cap take all the clock holds, at whatever
 * resolution) is refused naming the rates, as a flow on links is: before, its
 * end wrapped round the clock (1 GB at 8 bit/s ended at 3.9e6 s). A cap that
 * is not a positive rate is refused (a flow at 0 would never end).
 */
class CapBeyondClockTestCase : public TestCase
{
public:
    CapBeyondClockTestCase()
        : TestCase("a flow's cap beyond the clock or not positive, and bytes not a size, refused")
    {
    }

private:
    void DoRun() override
    {
        Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
        auto refusal = [&network](double bytes, double cap)
        {
            FlowNetwork::FlowSpec spec;
            spec.bytes = bytes;
            spec.cap = cap;
            try
            {
                network->StartFlow(spec, Callback<void>());
            }
            catch (const std::invalid_argument& e)
            {
                return std::string(e.what());
            }
            return std::string();
        };
        std::string beyond = refusal(1e9, 1e9 / Time::Max().GetSeconds());
        NS_TEST_ASSERT_MSG_NE(beyond.find("rates: a flow of 1e+09 bytes capped at"),
                              std::string::npos,
                              "refused: '" << beyond << "'");
        NS_TEST_ASSERT_MSG_NE(beyond.find("beyond the simulator's clock"),
                              std::string::npos,
                              "naming the clock: '" << beyond << "'");
        for (double cap : {0.0, -1.0, std::nan("")})
        {
            std::string message = refusal(1e6, cap);
            NS_TEST_ASSERT_MSG_NE(message.find("a flow's cap must be a positive rate"),
                                  std::string::npos,
                                  "cap " << cap << " refused: '" << message << "'");
        }
        for (double bytes : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()})
        {
            for (double cap : {1e9, MaxMinSolver::NO_CAP})
            {
                std::string message = refusal(bytes, cap);
                NS_TEST_ASSERT_MSG_NE(message.find("a flow's bytes must be a finite number >= 0"),
                                      std::string::npos,
                                      "bytes " << bytes << " refused: '" << message << "'");
            }
        }
        FlowNetwork::FlowSpec spec;
        spec.bytes = 1e9;
        spec.cap = 1e9; // (1 s: taken)
        bool sent = false;
        network->StartFlow(spec,
                           Callback<void>(
                               [&sent]()
                               {
                                   sent = true;
                               }));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sent, true, "a capped flow the clock holds ends");
        NS_TEST_ASSERT_MSG_EQ(Simulator::Now(), Seconds(1), "at bytes / cap");
        NS_TEST_ASSERT_MSG_EQ(network->GetMaxActiveFlows(), 1, "the refused flows never started");
        network->Dispose();
        Simulator::Destroy();
    }
};

class FlowValidationTestSuite : public TestSuite
{
public:
    FlowValidationTestSuite()
        : TestSuite("dlnet-flow-validation", UNIT)
    {
        TopologyConfig star = Star(8);
        TopologyConfig mesh = Kind("mesh");
        TopologyConfig torus = Kind("torus");
        TopologyConfig fat = Kind("fat-tree");
        TopologyConfig fly = Kind("dragonfly");
        fly.routersPerGroup = 2;
        fly.hostsPerRouter = 2;
        fly.globalLinksPerRouter = 2;
        fly.groups = 4;
        TopologyConfig rail = Kind("rail-optimised");
        rail.servers = 2;
        TopologyConfig gls = Kind("gpu-leaf-spine");
        gls.servers = 4;
        gls.gpusPerServer = 4;
        TopologyConfig ecmp = LeafSpine(4, 4, 2, "flow");
        TopologyConfig spray21 = LeafSpine(4, 4, 2, "packet", 2);
        const uint64_t mib = 1 << 20;
        struct Row
        {
            std::string name;
            CollectiveConfig config;
            double tolerance; //!< a margin over the measured deviation (in the comment)
        };
        // the cases of doc/flow-network.md's table that agree within 3%; those that agree to
        // the nanosecond are held to 1e-5, so that one packet's store and forward per message
        // (2.8 % of the star's ring) cannot pass unseen
        const double exact = 1e-5;
        std::vector<Row> rows = {
            {"star 8, ring, 1 MiB", Collective(star, "allreduce", "ring", mib), exact},
            {"star 8, halving-doubling, 1 MiB",
             Collective(star, "allreduce", "halving-doubling", mib),
             exact},
            {"leaf-spine 1:1 ecmp, ring, 2 MiB",
             Collective(ecmp, "allreduce", "ring", 2 * mib),
             exact},
            {"leaf-spine 1:1 ecmp, hierarchical, 2 MiB", // +0.91 %
             Collective(ecmp, "allreduce", "hierarchical", 2 * mib),
             0.015},
            {"leaf-spine 2:1 spray, halving-doubling, 2 MiB", // +0.21 %
             Collective(spray21, "allreduce", "halving-doubling", 2 * mib),
             0.005},
            {"mesh 4x4, ring, 1 MiB", Collective(mesh, "allreduce", "ring", mib), exact},
            {"mesh 4x4, hierarchical, 1 MiB",
             Collective(mesh, "allreduce", "hierarchical", mib),
             exact},
            {"torus 4x4, ring reduce-scatter, 1 MiB",
             Collective(torus, "reducescatter", "ring", mib),
             exact},
            {"fat-tree k=4, hierarchical, 4 MiB", // +1.39 %
             Collective(fat, "allreduce", "hierarchical", 4 * mib),
             0.02},
            {"dragonfly 16, ring, 1 MiB", // +0.52 %
             Collective(fly, "allreduce", "ring", mib),
             0.01},
            {"rail-optimised 2x8, halving-doubling, 1 MiB", // +0.0002 %
             Collective(rail, "allreduce", "halving-doubling", mib),
             exact},
            {"rail-optimised 2x8, ring all-gather, 1 MiB", // -0.31 %
             Collective(rail, "allgather", "ring", mib),
             0.005},
            {"gpu-leaf-spine 4x4, ring, 1 MiB", Collective(gls, "allreduce", "ring", mib), exact},
        };
        for (const auto& r : rows)
        {
            NS_ABORT_MSG_UNLESS(r.tolerance <= 0.03, "no case looser than the issue's 3 %");
            AddTestCase(new AgreementTestCase(r.name, r.config, r.tolerance), TestCase::QUICK);
        }
        AddTestCase(new LoneMessageTestCase("a star", Kind("star"), 0, 5), TestCase::QUICK);
        AddTestCase(new LoneMessageTestCase("a leaf-spine", ecmp, 0, 13, false), TestCase::QUICK);
        AddTestCase(
            new LoneMessageTestCase("a mesh (local links faster than the mesh)", mesh, 0, 15),
            TestCase::QUICK);
        AddTestCase(new LoneMessageTestCase("GPU servers (NVLink)", rail, 0, 3), TestCase::QUICK);
        AddTestCase(new LoneMessageTestCase("GPU servers (NIC, rail)", rail, 0, 8),
                    TestCase::QUICK);
        AddTestCase(new QueuePairFifoTestCase, TestCase::QUICK);
        AddTestCase(new ConnectionsTestCase, TestCase::QUICK);
        AddTestCase(new PriorityAcrossNetworkTestCase, TestCase::QUICK);
        AddTestCase(new DatelineChannelTestCase, TestCase::QUICK);
        AddTestCase(new SendOrderTestCase, TestCase::QUICK);
        AddTestCase(new HeadOfLineTestCase, TestCase::QUICK);
        AddTestCase(new SharedNicTestCase, TestCase::QUICK);
        AddTestCase(new FinishToleranceTestCase, TestCase::QUICK);
        AddTestCase(new IncrementalPerHopTestCase, TestCase::QUICK);
        AddTestCase(new CutRunCarriedBytesTestCase, TestCase::QUICK);
        AddTestCase(new RouteChangeTestCase, TestCase::QUICK);
        AddTestCase(new RouteIdentityTestCase("flow"), TestCase::QUICK);
        AddTestCase(new RouteIdentityTestCase("packet"), TestCase::QUICK);
        AddTestCase(new FunctionalTestCase("ring"), TestCase::QUICK);
        AddTestCase(new FunctionalTestCase("halving-doubling"), TestCase::QUICK);
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
        AddTestCase(new SourceLockStepTestCase, TestCase::QUICK);
        AddTestCase(new RefusalTestCase, TestCase::QUICK);
        AddTestCase(new CapBeyondClockTestCase, TestCase::QUICK);
    }
};

FlowValidationTestSuite g_flowValidationTestSuite;

} // namespace
