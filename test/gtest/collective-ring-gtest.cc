/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: a flat ring made on demand (CollectiveRing) has exactly the
// steps the stored form has (BuildCollectiveLanes with ringOnDemand=false):
// every rank, every step, every transfer field, the flags. And the lanes'
// connections: the two trees of a double binary tree on 0 and 1 (NCCL's
// channels), every other algorithm's lanes on 0.

#include "expect-invalid.h"

#include "ns3/collective-schedule.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

std::string
Describe(const CollectiveStep& s)
{
    std::ostringstream o;
    o << "reduce " << s.reduce << " input " << s.sendFromInput << " vc " << +s.vc;
    for (const auto* list : {&s.sends, &s.recvs})
    {
        o << (list == &s.sends ? " sends" : " recvs");
        for (const auto& t : *list)
        {
            o << " {" << t.peer << " " << t.offset << " " << t.bytes << " " << t.srcOffset << " "
              << t.peerStep << "}";
        }
    }
    return o.str();
}

TEST(CollectiveRing, OnDemandStepsEqualStoredSteps)
{
    uint32_t compared = 0;
    for (CollectiveOp op :
         {CollectiveOp::ALL_REDUCE, CollectiveOp::REDUCE_SCATTER, CollectiveOp::ALL_GATHER})
    {
        for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 13u, 16u})
        {
            // sizes with remainders, fewer elements than ranks, an offset (a chunk)
            for (uint64_t elements : {1ull, 3ull, 16ull, 1000ull, 1048577ull})
            {
                for (uint32_t es : {2u, 4u})
                {
                    std::vector<CollectiveLane> stored;
                    std::vector<CollectiveLane> made;
                    CollectiveGrid grid;
                    for (bool onDemand : {false, true})
                    {
                        BuildCollectiveLanes(op,
                                             CollectiveAlgorithm::RING,
                                             n,
                                             0,
                                             6 * es,
                                             elements * es,
                                             es,
                                             grid,
                                             3,
                                             onDemand ? made : stored,
                                             onDemand);
                    }
                    ASSERT_EQ(stored.size(), 1u);
                    ASSERT_EQ(made.size(), 1u);
                    EXPECT_EQ(stored[0].ring.ranks, 0u);
                    EXPECT_EQ(made[0].ring.ranks, n);
                    EXPECT_TRUE(made[0].ranks.empty()) << "an on-demand lane stores no steps";
                    EXPECT_EQ(made[0].chunk, 3u);
                    ASSERT_EQ(made[0].GetNRanks(), stored[0].GetNRanks());
                    CollectiveStep scratch;
                    CollectiveStep unused;
                    for (uint32_t r = 0; r < n; ++r)
                    {
                        ASSERT_EQ(made[0].GetNSteps(r), stored[0].GetNSteps(r))
                            << "n " << n << " rank " << r;
                        for (uint32_t k = 0; k < made[0].GetNSteps(r); ++k)
                        {
                            EXPECT_EQ(Describe(made[0].GetStep(r, k, scratch)),
                                      Describe(stored[0].GetStep(r, k, unused)))
                                << "op " << int(op) << " n " << n << " elements " << elements
                                << " rank " << r << " step " << k;
                            ++compared;
                        }
                    }
                    EXPECT_TRUE(unused.sends.empty() && unused.recvs.empty())
                        << "a stored lane returns its own steps";
                }
            }
        }
    }
    EXPECT_GT(compared, 5000u);
}

TEST(CollectiveRing, OtherAlgorithmsAndOperationsStoreTheirSteps)
{
    std::vector<CollectiveLane> lanes;
    CollectiveGrid grid;
    BuildCollectiveLanes(
        CollectiveOp::BROADCAST, CollectiveAlgorithm::RING, 4, 0, 0, 4096, 4, grid, 0, lanes);
    BuildCollectiveLanes(CollectiveOp::ALL_REDUCE,
                         CollectiveAlgorithm::HALVING_DOUBLING,
                         4,
                         0,
                         0,
                         4096,
                         4,
                         grid,
                         0,
                         lanes);
    for (const auto& lane : lanes)
    {
        EXPECT_EQ(lane.ring.ranks, 0u);
        EXPECT_EQ(lane.ranks.size(), 4u);
    }
}

TEST(CollectiveLane, OnlyTheDoubleBinaryTreesHaveConnectionsOfTheirOwn)
{
    for (CollectiveOp op :
         {CollectiveOp::ALL_REDUCE, CollectiveOp::BROADCAST, CollectiveOp::REDUCE})
    {
        std::vector<CollectiveLane> lanes;
        CollectiveGrid grid;
        BuildCollectiveLanes(
            op, CollectiveAlgorithm::DOUBLE_BINARY_TREE, 8, 3, 0, 4096, 4, grid, 0, lanes);
        ASSERT_EQ(lanes.size(), 2u);
        EXPECT_EQ(lanes[0].connection, 0u);
        EXPECT_EQ(lanes[1].connection, 1u);
    }
    // two ranks: one tree, one connection
    std::vector<CollectiveLane> one;
    BuildCollectiveLanes(CollectiveOp::ALL_REDUCE,
                         CollectiveAlgorithm::DOUBLE_BINARY_TREE,
                         2,
                         0,
                         0,
                         4096,
                         4,
                         CollectiveGrid(),
                         0,
                         one);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].connection, 0u);
    // several lanes, one connection: a torus's two ring directions, a
    // mesh's two dimension orders (hierarchical), direct, halving-doubling
    CollectiveGrid torus;
    torus.dim1 = 4;
    torus.dim2 = 4;
    torus.bidirectional = true;
    CollectiveGrid mesh = torus;
    mesh.bidirectional = false;
    mesh.bothOrders = true;
    std::vector<CollectiveLane> others;
    BuildCollectiveLanes(CollectiveOp::ALL_REDUCE,
                         CollectiveAlgorithm::HIERARCHICAL,
                         16,
                         0,
                         0,
                         4096,
                         4,
                         torus,
                         0,
                         others);
    BuildCollectiveLanes(CollectiveOp::ALL_REDUCE,
                         CollectiveAlgorithm::HIERARCHICAL,
                         16,
                         0,
                         0,
                         4096,
                         4,
                         mesh,
                         1,
                         others);
    EXPECT_EQ(others.size(), 4u);
    for (CollectiveAlgorithm a : {CollectiveAlgorithm::RING,
                                  CollectiveAlgorithm::DIRECT,
                                  CollectiveAlgorithm::HALVING_DOUBLING})
    {
        BuildCollectiveLanes(
            CollectiveOp::ALL_REDUCE, a, 16, 0, 0, 4096, 4, CollectiveGrid(), 0, others);
    }
    for (const auto& lane : others)
    {
        EXPECT_EQ(lane.connection, 0u);
    }
}

} // namespace

TEST(CollectiveSchedule, ChunkCostCountsLanesStepsAndTransfers)
{
    // a ring of 8 made on demand: one entry per rank, so 2^21 / 8 chunks
    CollectiveGrid grid;
    auto lanesOf = [&](CollectiveAlgorithm a, uint32_t n)
    {
        // chunk 0 of 4096 bytes whatever the count: its entries do not depend on it
        return [a, n, grid](uint64_t)
        {
            std::vector<CollectiveLane> lanes;
            BuildCollectiveLanes(CollectiveOp::ALL_REDUCE, a, n, 0, 0, 4096, 4, grid, 0, lanes);
            return lanes;
        };
    };
    auto ringAt = lanesOf(CollectiveAlgorithm::RING, 8);
    std::vector<CollectiveLane> ring = ringAt(1);
    EXPECT_NO_THROW(CheckChunkCost(ring, 262144, 1, ringAt));
    ExpectInvalid(
        [&]
        {
            CheckChunkCost(ring, 262145, 1, ringAt);
        },
        {"chunks: got 262145", "holds 8 entries", "; 262144 chunks fit (8 entries each)"});
    // direct on 4 ranks, stored: one lane (an entry per rank: 4), and per rank two steps
    // (reduce-scatter, all-gather), each an entry with 3 sends and 3 receives:
    // 4 + 4 x 2 x (1 + 3 + 3) = 60, counted by hand
    auto directAt = lanesOf(CollectiveAlgorithm::DIRECT, 4);
    std::vector<CollectiveLane> direct = directAt(1);
    const uint64_t entries = 60;
    EXPECT_NO_THROW(CheckChunkCost(direct, (1u << 21) / entries, 1, directAt));
    ExpectInvalid(
        [&]
        {
            CheckChunkCost(direct, (1u << 21) / entries + 1, 1, directAt);
        },
        {"holds 60 entries"});
    // the algorithm's default is always allowed
    EXPECT_NO_THROW(CheckChunkCost(ring, 1u << 20, 1u << 20, ringAt));
}

TEST(CollectiveSchedule, ChunkCountQuotedFits)
{
    // A double binary tree on 16 ranks over 2^20 fp32 elements: at 2^19 chunks a chunk has
    // 2 elements and most parts are empty, so few entries; the count those few allow is
    // larger than what fits with the fuller chunks of that count (the first message quoted
    // 19418, which was refused in turn). The count quoted now fits.
    CollectiveGrid grid;
    const uint64_t elements = 1ull << 20;
    auto at = [&](uint64_t chunks)
    {
        std::vector<CollectiveLane> lanes;
        BuildCollectiveLanes(CollectiveOp::ALL_REDUCE,
                             CollectiveAlgorithm::DOUBLE_BINARY_TREE,
                             16,
                             0,
                             0,
                             elements / chunks * 4,
                             4,
                             grid,
                             0,
                             lanes);
        return lanes;
    };
    const uint64_t asked = 1ull << 19;
    std::string message;
    try
    {
        CheckChunkCost(at(asked), asked, 1, at);
    }
    catch (const std::invalid_argument& e)
    {
        message = e.what();
    }
    ASSERT_NE(message.find("chunks fit"), std::string::npos) << message;
    const std::size_t end = message.find(" chunks fit");
    const std::size_t begin = message.rfind(' ', end - 1) + 1;
    const uint64_t quoted = std::stoull(message.substr(begin, end - begin));
    EXPECT_LT(quoted, asked);
    EXPECT_NO_THROW(CheckChunkCost(at(quoted), quoted, 1, at)) << message;
}
