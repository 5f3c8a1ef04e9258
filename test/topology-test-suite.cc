/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Topologies: leaf-spine oversubscription and ECMP, mesh and torus
// dimension-order routing, torus deadlock freedom under back-pressure.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <cstdlib>
#include <iostream>
#include <map>

using namespace ns3;

namespace
{

TrafficConfig
LeafSpinePermutation(double oversubscription, const std::string& loadBalancing)
{
    TrafficConfig c;
    c.topology.kind = "leaf-spine";
    c.topology.leaves = 2;
    c.topology.hostsPerLeaf = 4;
    c.topology.spines = 2;
    c.topology.oversubscription = oversubscription;
    c.topology.loadBalancing = loadBalancing;
    c.pattern = "permutation";
    c.shift = 4; // every flow crosses the spine
    c.messageBytes = 2 << 20;
    c.messages = 4;
    return c;
}

class OversubscriptionTestCase : public TestCase
{
public:
    explicit OversubscriptionTestCase(std::string loadBalancing)
        : TestCase("leaf-spine 2:1 oversubscription halves cross-leaf permutation throughput ("
                   + loadBalancing + " load balancing)")
        , m_lb(loadBalancing)
    {
    }

private:
    void DoRun() override
    {
        TrafficResult full = RunTraffic(LeafSpinePermutation(1, m_lb));
        TrafficResult half = RunTraffic(LeafSpinePermutation(2, m_lb));
        NS_TEST_ASSERT_MSG_EQ(full.allDelivered && half.allDelivered, true, "all delivered");
        double ratio = half.aggregateGoodput / full.aggregateGoodput;
        std::cout << "measured: " << m_lb << " load balancing: goodput 1:1 "
                  << full.aggregateGoodput / 1e9 << " Gbit/s, 2:1 " << half.aggregateGoodput / 1e9
                  << " Gbit/s, ratio " << ratio << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(ratio, 0.5, 0.03 * 0.5, "throughput ratio 2:1 vs 1:1");
        if (m_lb == "packet")
        {
            // Spraying balances the uplinks perfectly: the non-blocking
            // fabric delivers every host's full payload rate.
            double ideal = 8 * 100e9 * (4096.0 - 24) / 4096;
            NS_TEST_ASSERT_MSG_EQ_TOL(full.aggregateGoodput, ideal, 0.03 * ideal, "1:1 goodput");
            NS_TEST_ASSERT_MSG_EQ_TOL(
                half.aggregateGoodput, ideal / 2, 0.03 * ideal / 2, "2:1 goodput");
        }
    }

    std::string m_lb;
};

class EcmpSpreadTestCase : public TestCase
{
public:
    EcmpSpreadTestCase()
        : TestCase("ECMP spreads flows over every spine, one path per message")
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c = LeafSpinePermutation(1, "flow");
        c.topology.leaves = 4;
        c.topology.spines = 4;
        c.pattern = "all-to-all";
        c.shift = 0; // the permutation's (an all-to-all takes no shift)
        c.messageBytes = 64 << 10;
        c.messages = 1;
        TrafficResult r = RunTraffic(c);
        NS_TEST_ASSERT_MSG_EQ(r.allDelivered, true, "all delivered");
        std::map<std::string, uint64_t> upBytes; // leaf -> spine traffic per spine
        uint64_t total = 0;
        for (const auto& l : r.links)
        {
            if (l.tier == "fabric" && l.from.rfind("leaf", 0) == 0)
            {
                upBytes[l.to] += l.txBytes;
                total += l.txBytes;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(upBytes.size(), 4, "four spines");
        std::cout << "measured: leaf-to-spine bytes per spine:";
        for (const auto& [spine, bytes] : upBytes)
        {
            std::cout << " " << spine << " " << 100.0 * bytes / total << "%";
        }
        std::cout << std::endl;
        for (const auto& [spine, bytes] : upBytes)
        {
            // 192 cross-leaf messages hashed over 4 spines: each carries a share.
            NS_TEST_ASSERT_MSG_GT(bytes, total / 8, spine + " carries a fair part");
        }
        // Per-flow ECMP keeps a message on one path: it never arrives
        // reordered, and 3 switches lie on every cross-leaf path.
        for (const auto& m : r.messages)
        {
            bool sameLeaf = m.src / 4 == m.dst / 4;
            NS_TEST_ASSERT_MSG_EQ(m.hops, sameLeaf ? 1u : 3u, "switches on the path");
        }
    }
};

class GridHopsTestCase : public TestCase
{
public:
    GridHopsTestCase(std::string kind, uint32_t cols, uint32_t rows)
        : TestCase(kind + " " + std::to_string(cols) + "x" + std::to_string(rows)
                   + ": X-Y routing hop counts equal the (wrap-around) Manhattan distance")
        , m_kind(kind)
        , m_cols(cols)
        , m_rows(rows)
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c;
        c.topology.kind = m_kind;
        c.topology.cols = m_cols;
        c.topology.rows = m_rows;
        c.pattern = "all-to-all";
        c.messageBytes = 100;
        TrafficResult r = RunTraffic(c);
        uint32_t n = m_cols * m_rows;
        NS_TEST_ASSERT_MSG_EQ(r.messages.size(), n * (n - 1), "every pair");
        bool torus = m_kind == "torus";
        auto dist = [torus](uint32_t a, uint32_t b, uint32_t size)
        {
            uint32_t d = a > b ? a - b : b - a;
            return torus ? std::min(d, size - d) : d;
        };
        uint32_t maxHops = 0;
        for (const auto& m : r.messages)
        {
            maxHops = std::max(maxHops, m.hops - 1);
            uint32_t expected = dist(m.src % m_cols, m.dst % m_cols, m_cols)
                                + dist(m.src / m_cols, m.dst / m_cols, m_rows);
            // A packet crosses the router of every node on its path: distance + 1.
            NS_TEST_ASSERT_MSG_EQ(m.hops - 1, expected, "hops from " << m.src << " to " << m.dst);
        }
        NS_TEST_ASSERT_MSG_EQ(r.allDelivered, true, "all delivered");
        std::cout << "measured: " << m_kind << " " << m_cols << "x" << m_rows << ": "
                  << r.messages.size() << " pairs checked, longest path " << maxHops << " hops"
                  << std::endl;
    }

    std::string m_kind;
    uint32_t m_cols;
    uint32_t m_rows;
};

/// Every rank sends large messages to every other on a torus with credits
/// of two packets: without dateline virtual channels the wrap-around rings
/// would deadlock; the run must deliver everything.
class TorusDeadlockTestCase : public TestCase
{
public:
    TorusDeadlockTestCase()
        : TestCase("torus 4x4 all-to-all under tight credits completes (dateline VCs)")
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c;
        c.topology.kind = "torus";
        c.topology.cols = 4;
        c.topology.rows = 4;
        c.topology.rxBufferBytes = 2 * 4096;
        c.pattern = "all-to-all";
        c.messageBytes = 256 << 10;
        TrafficResult r = RunTraffic(c);
        NS_TEST_ASSERT_MSG_EQ(r.deliveredMessages, r.expectedMessages, "all delivered");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "lossless");
    }
};

} // namespace

class TopologyTestSuite : public TestSuite
{
public:
    TopologyTestSuite()
        : TestSuite("dlnet-topology", UNIT)
    {
        AddTestCase(new OversubscriptionTestCase("flow"), TestCase::QUICK);
        AddTestCase(new OversubscriptionTestCase("packet"), TestCase::QUICK);
        AddTestCase(new EcmpSpreadTestCase, TestCase::QUICK);
        AddTestCase(new GridHopsTestCase("mesh", 5, 4), TestCase::QUICK);
        AddTestCase(new GridHopsTestCase("torus", 4, 4), TestCase::QUICK);
        AddTestCase(new GridHopsTestCase("torus", 5, 3), TestCase::QUICK);
        AddTestCase(new TorusDeadlockTestCase, TestCase::QUICK);
    }
};

static TopologyTestSuite g_topologyTestSuite;
