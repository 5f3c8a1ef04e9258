/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Incast of 8 senders into one switch port: lossless (no drops, full port,
// fair shares) and lossy with random loss (every message intact, once).

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <iostream>

using namespace ns3;

namespace
{

TrafficConfig
Incast(uint64_t bytes)
{
    TrafficConfig c;
    c.topology.kind = "star";
    c.topology.hosts = 9;
    c.topology.hostLinkRate = "100Gbps";
    c.topology.hostLinkDelay = "500ns";
    c.pattern = "incast";
    c.target = 0;
    c.senders = 8;
    c.messageBytes = bytes;
    return c;
}

class LosslessIncastTestCase : public TestCase
{
public:
    LosslessIncastTestCase(std::string flowControlNote, uint32_t rxBuffer)
        : TestCase("lossless 8-to-1 incast, rx buffer "
                   + (rxBuffer ? std::to_string(rxBuffer) + " B" : std::string("automatic"))
                   + flowControlNote)
        , m_rxBuffer(rxBuffer)
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c = Incast(8 << 20);
        c.topology.rxBufferBytes = m_rxBuffer;
        TrafficResult r = RunTraffic(c);
        NS_TEST_ASSERT_MSG_EQ(r.allDelivered, true, "every message delivered");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "a lossless fabric drops nothing");
        // Goodput into the target against the port's payload rate or, when
        // every receive buffer holds a single packet, against what one credit
        // per round trip allows: one packet per (serialisation + 2 delays).
        double portPayloadRate = 100e9 * (4096.0 - 24) / 4096;
        if (m_rxBuffer == 4096)
        {
            portPayloadRate = (4096.0 - 24) * 8 / (4096 * 8 / 100e9 + 2 * 500e-9);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(r.aggregateGoodput,
                                  portPayloadRate,
                                  0.02 * portPayloadRate,
                                  "aggregate goodput of the incast port (payload rate or "
                                  "credit-limited rate)");
        // Fair shares: every sender gets 1/8 of the port, so all finish together.
        double lo = 1e300;
        double hi = 0;
        for (const auto& m : r.messages)
        {
            lo = std::min(lo, m.goodput);
            hi = std::max(hi, m.goodput);
        }
        double fair = portPayloadRate / 8;
        std::cout << "measured: " << GetName() << ": drops " << r.drops << ", goodput "
                  << r.aggregateGoodput / 1e9 << " Gbit/s (expected " << portPayloadRate / 1e9
                  << "), shares " << lo / 1e9 << " to " << hi / 1e9 << " Gbit/s (fair "
                  << portPayloadRate / 8e9 << ")" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(lo, fair, 0.05 * fair, "smallest share");
        NS_TEST_ASSERT_MSG_EQ_TOL(hi, fair, 0.05 * fair, "largest share");
        // Back-pressure held the excess at the senders: the switch queue
        // never exceeded the credits of its 8 ingress ports.
        uint64_t maxQueue = 0;
        for (const auto& l : r.links)
        {
            if (l.from == "switch" && l.to == "host0")
            {
                maxQueue = l.maxQueueBytes;
            }
        }
        uint64_t credits = m_rxBuffer ? m_rxBuffer : 4 * 4096 + 12500;
        NS_TEST_ASSERT_MSG_LT_OR_EQ(maxQueue, 8 * credits, "egress queue bounded by credits");
    }

    uint32_t m_rxBuffer;
};

class LossyIncastTestCase : public TestCase
{
public:
    LossyIncastTestCase(double loss, uint32_t mtu)
        : TestCase("lossy 8-to-1 incast, functional, loss " + std::to_string(loss) + ", mtu "
                   + std::to_string(mtu))
        , m_loss(loss)
        , m_mtu(mtu)
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c = Incast(1 << 20);
        c.topology.flowControl = "lossy";
        c.topology.lossRate = m_loss;
        c.topology.mtu = m_mtu;
        c.topology.retransmitTimeout = "200us";
        c.topology.bufferBytes = 4 << 20; // room for every window: losses come from the error model
        c.functional = true;
        c.messages = 2;
        TrafficResult r = RunTraffic(c);
        std::cout << "measured: " << GetName() << ": delivered " << r.deliveredMessages << "/"
                  << r.expectedMessages << ", intact " << r.allIntact << ", duplicate deliveries "
                  << r.duplicateDeliveries << ", drops " << r.drops << ", retransmissions "
                  << r.retransmissions << ", duplicate packets dropped " << r.duplicatePackets
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(r.deliveredMessages, r.expectedMessages, "every message delivered");
        NS_TEST_ASSERT_MSG_EQ(r.duplicateDeliveries, 0, "no message delivered twice");
        NS_TEST_ASSERT_MSG_EQ(r.allIntact, true, "every byte equal to what was sent");
        if (m_loss > 0)
        {
            NS_TEST_ASSERT_MSG_GT(r.drops, 0, "the error model dropped packets");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(r.retransmissions, r.drops, "each loss was sent again");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "no loss, no overflow");
            NS_TEST_ASSERT_MSG_EQ(r.retransmissions, 0, "nothing to retransmit");
        }
    }

    double m_loss;
    uint32_t m_mtu;
};

/// A tiny drop-tail buffer overflows in lossy mode: the endpoint recovers.
class LossyOverflowTestCase : public TestCase
{
public:
    LossyOverflowTestCase()
        : TestCase("lossy incast into a 16 KiB buffer: overflow drops recovered")
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c = Incast(256 << 10);
        c.topology.flowControl = "lossy";
        c.topology.bufferBytes = 16 << 10;
        c.topology.retransmitTimeout = "100us";
        c.functional = true;
        TrafficResult r = RunTraffic(c);
        NS_TEST_ASSERT_MSG_GT(r.drops, 0, "the buffer overflowed");
        NS_TEST_ASSERT_MSG_EQ(r.deliveredMessages, r.expectedMessages, "every message delivered");
        NS_TEST_ASSERT_MSG_EQ(r.duplicateDeliveries, 0, "no message delivered twice");
        NS_TEST_ASSERT_MSG_EQ(r.allIntact, true, "every byte equal to what was sent");
    }
};

} // namespace

class FabricIncastTestSuite : public TestSuite
{
public:
    FabricIncastTestSuite()
        : TestSuite("dlnet-fabric-incast", UNIT)
    {
        AddTestCase(new LosslessIncastTestCase("", 0), TestCase::QUICK);
        AddTestCase(
            new LosslessIncastTestCase(" (one packet of credit per link: credit-limited)", 4096),
            TestCase::QUICK);
        AddTestCase(new LossyIncastTestCase(0.0, 4096), TestCase::QUICK);
        AddTestCase(new LossyIncastTestCase(0.01, 4096), TestCase::QUICK);
        AddTestCase(new LossyIncastTestCase(0.05, 1500), TestCase::QUICK);
        AddTestCase(new LossyOverflowTestCase, TestCase::QUICK);
    }
};

static FabricIncastTestSuite g_fabricIncastTestSuite;
