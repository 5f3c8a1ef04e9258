/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: the store and forward a train of packets needs over links of
// given rates beyond its bytes at the slowest rate (FlowNetwork's latency
// term). Expected values worked out by hand, the grid ones cell by cell.

#include "ns3/flow-network.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
constexpr double EPS = 1e-12;
} // namespace

// Equal rates (10 B/s, 3 links), a stream of 20-byte packets: one packet per
// link after the first, 20 x (3/10 - 1/10) = 4 s.
TEST(StoreAndForward, EqualRatesStream)
{
    EXPECT_NEAR(FlowNetwork::StoreAndForward({10, 10, 10}, PacketTrain{0, 20, 20}), 4, EPS);
}

// A first link faster than the bottleneck (40 then 10 B/s): only the first
// link's packet time is extra, 20 / 40 = 0.5 s (not 20 / 10 = 2 s).
TEST(StoreAndForward, FastFirstLink)
{
    EXPECT_NEAR(FlowNetwork::StoreAndForward({40, 10}, PacketTrain{0, 20, 20}), 0.5, EPS);
}

// Three packets of 20, 20 and 10 bytes over 40, 10, 40 B/s. Serialisation
// times by (packet, link): (0.5, 2, 0.5), (0.5, 2, 0.5), (0.25, 1, 0.25).
// Last bits out of link 3: packet 1 at 3.0, packet 2 at max(4.5, 3.0) + 0.5 =
// 5.0 (its link-2 exit 4.5), packet 3 at max(5.5, 5.0) + 0.25 = 5.75. The
// 50 bytes at 10 B/s take 5: 0.75 s extra.
TEST(StoreAndForward, ShortLastPacket)
{
    EXPECT_NEAR(FlowNetwork::StoreAndForward({40, 10, 40}, PacketTrain{3, 20, 10}), 0.75, EPS);
}

// One packet of 10 bytes over 40 and 10 B/s: 10/40 + 10/10 - 10/10 = 0.25 s.
TEST(StoreAndForward, OnePacket)
{
    EXPECT_NEAR(FlowNetwork::StoreAndForward({40, 10}, PacketTrain{1, 10, 10}), 0.25, EPS);
}

// One link: nothing beyond the bytes.
TEST(StoreAndForward, OneLink)
{
    EXPECT_NEAR(FlowNetwork::StoreAndForward({10}, PacketTrain{5, 20, 7}), 0, EPS);
    EXPECT_NEAR(FlowNetwork::StoreAndForward({}, PacketTrain{5, 20, 7}), 0, EPS);
}
