/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The test-only backend "gather-broadcast" (collective-test-backend.cc),
// run by name through RunCollective as any registered backend is: its time
// on a star against the closed form written here, and its exact result in
// functional mode. The suite never sees the backend's class.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <cmath>
#include <iostream>

using namespace ns3;

namespace
{

const double B = 100e9;   //!< host link rate, bit/s (TopologyConfig's default)
const double D = 500e-9;  //!< propagation delay per link
const double HEADER = 24; //!< FabricHeader bytes
const double MTU = 4096;  //!< TopologyConfig's default

/// Bytes of a message of m payload bytes on the wire.
double
Wire(double m)
{
    return m + HEADER * std::ceil(m / (MTU - HEADER));
}

CollectiveConfig
GatherBroadcast(std::string kind, uint32_t n, uint64_t bytes)
{
    CollectiveConfig c;
    c.topology.kind = kind;
    c.topology.nodes = n;
    c.algorithm = "gather-broadcast";
    c.minBytes = c.maxBytes = bytes;
    return c;
}

/// Timing mode on a star: the root's link carries n-1 buffers each way.
class GatherBroadcastTimingTestCase : public TestCase
{
public:
    GatherBroadcastTimingTestCase(uint32_t n, uint64_t bytes)
        : TestCase("gather-broadcast all-reduce on a star of " + std::to_string(n) + ", "
                   + std::to_string(bytes) + " B, against its closed form")
        , m_n(n)
        , m_bytes(bytes)
    {
    }

private:
    void DoRun() override
    {
        CollectiveResult r = RunCollective(GatherBroadcast("star", m_n, m_bytes));
        NS_TEST_ASSERT_MSG_EQ(r.rows.size(), 1, "one size");
        const CollectiveRow& row = r.rows[0];
        NS_TEST_EXPECT_MSG_EQ(row.algorithm, "gather-broadcast", "the backend that ran");
        // Each phase: n-1 buffers serialised on the root's link, after one
        // packet's store and forward at the switch and two propagation delays.
        double s = double(m_bytes);
        double packet = std::min(s, MTU - HEADER) + HEADER;
        double phase = (m_n - 1) * Wire(s) * 8 / B + packet * 8 / B + 2 * D;
        double expected = 2 * phase;
        std::cout << "measured: " << GetName() << ": " << row.time * 1e6 << " us, formula "
                  << expected * 1e6 << " us, bound " << row.bound * 1e6 << " us, estimate "
                  << row.estimate * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(row.time, expected, 0.02 * expected, "time against the formula");
        // on a star only the root's link is shared, and the bound counts it
        NS_TEST_EXPECT_MSG_EQ_TOL(row.bound, expected, 0.02 * expected, "the bound");
        NS_TEST_EXPECT_MSG_EQ_TOL(row.estimate, expected, 0.02 * expected, "shared-link estimate");
        NS_TEST_EXPECT_MSG_EQ(row.packets, 2 * (m_n - 1), "messages: n-1 in, n-1 out");
    }

    uint32_t m_n;
    uint64_t m_bytes;
};

/// Functional mode: every member ends with the exact sum.
class GatherBroadcastFunctionalTestCase : public TestCase
{
public:
    GatherBroadcastFunctionalTestCase(std::string kind, uint32_t n, std::string type)
        : TestCase("gather-broadcast all-reduce of " + type + " on " + std::to_string(n)
                   + " ranks of a " + kind + " is exact")
        , m_kind(kind)
        , m_n(n)
        , m_type(type)
    {
    }

private:
    void DoRun() override
    {
        CollectiveConfig c = GatherBroadcast(m_kind, m_n, 4 * 1000);
        c.type = m_type;
        c.functional = true;
        CollectiveResult r = RunCollective(c);
        NS_TEST_ASSERT_MSG_EQ(r.rows.size(), 1, "one size");
        NS_TEST_EXPECT_MSG_EQ(r.rows[0].checked, true, "checked");
        NS_TEST_EXPECT_MSG_EQ(r.rows[0].correct, true, "every buffer is the sum");
        NS_TEST_EXPECT_MSG_EQ(r.rows[0].maxError, 0, "exact");
    }

    std::string m_kind;
    uint32_t m_n;
    std::string m_type;
};

class CollectiveTestBackendTestSuite : public TestSuite
{
public:
    CollectiveTestBackendTestSuite()
        : TestSuite("dlnet-collective-test-backend", UNIT)
    {
        AddTestCase(new GatherBroadcastTimingTestCase(8, 1 << 20), TestCase::QUICK);
        AddTestCase(new GatherBroadcastTimingTestCase(3, 100000), TestCase::QUICK);
        AddTestCase(new GatherBroadcastFunctionalTestCase("star", 5, "fp32"), TestCase::QUICK);
        AddTestCase(new GatherBroadcastFunctionalTestCase("leaf-spine", 8, "fp16"),
                    TestCase::QUICK);
        AddTestCase(new GatherBroadcastFunctionalTestCase("torus", 9, "int32"), TestCase::QUICK);
    }
};

CollectiveTestBackendTestSuite g_collectiveTestBackendTestSuite;

} // namespace
