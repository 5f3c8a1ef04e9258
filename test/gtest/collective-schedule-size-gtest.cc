/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: the limits on what one collective's schedule may hold. Below
// SCHEDULE_CHECK_RANKS every algorithm of every operation stays under them (so
// that CheckScheduleSize may skip the build there); a direct exchange crosses
// the messages-at-once limit at n (n - 1) > 2^21, i.e. from 1449 ranks; the
// advice names algorithms that implement the operation.

#include "expect-invalid.h"

#include "ns3/collective-schedule.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A grid of n ranks for the hierarchical algorithms (31 x 33 for 1023).
CollectiveGrid
GridOf(uint32_t dim1, uint32_t dim2)
{
    CollectiveGrid g;
    g.dim1 = dim1;
    g.dim2 = dim2;
    return g;
}

TEST(CollectiveScheduleSize, EveryAlgorithmFitsBelowTheCheckSize)
{
    const uint32_t n = SCHEDULE_CHECK_RANKS - 1;
    ASSERT_EQ(n, 31u * 33u);
    uint32_t built = 0;
    for (CollectiveOp op : {CollectiveOp::ALL_REDUCE,
                            CollectiveOp::REDUCE_SCATTER,
                            CollectiveOp::ALL_GATHER,
                            CollectiveOp::ALL_TO_ALL,
                            CollectiveOp::BROADCAST,
                            CollectiveOp::REDUCE})
    {
        for (CollectiveAlgorithm a : AlgorithmsFor(op))
        {
            for (bool onDemand : {true, false})
            {
                std::vector<CollectiveLane> lanes;
                // a byte per element and rank twice over: no part of the range is empty
                EXPECT_NO_THROW(BuildCollectiveLanes(
                    op, a, n, 0, 0, 2 * n * n, 1, GridOf(31, 33), 0, lanes, onDemand))
                    << ToString(op) << " " << ToString(a) << " on-demand " << onDemand;
                ++built;
            }
        }
    }
    EXPECT_GE(built, 20u);
}

TEST(CollectiveScheduleSize, DirectExchangeCrossesTheMessagesAtOnce)
{
    CollectiveGrid none;
    std::vector<CollectiveLane> lanes;
    // 1448 x 1447 = 2095256 messages at once: under 2^21
    EXPECT_NO_THROW(BuildCollectiveLanes(CollectiveOp::ALL_REDUCE,
                                         CollectiveAlgorithm::DIRECT,
                                         1448,
                                         0,
                                         0,
                                         1448ull * 1448,
                                         1,
                                         none,
                                         0,
                                         lanes));
    lanes.clear();
    // 1449 x 1448 = 2098152: over
    ExpectInvalid(
        [&]()
        {
            CheckScheduleSize(CollectiveOp::ALL_REDUCE,
                              CollectiveAlgorithm::DIRECT,
                              1449,
                              0,
                              1449ull * 1449,
                              1,
                              none,
                              1);
        },
        {"algorithm: direct's allreduce on 1449 ranks posts more than 2097152 messages at once",
         "(ring, halving-doubling or double-binary-tree)"});
    // the pairwise all-to-all posts one message per rank and step: it is the way out
    ExpectInvalid(
        [&]()
        {
            CheckScheduleSize(CollectiveOp::ALL_TO_ALL,
                              CollectiveAlgorithm::DIRECT,
                              1449,
                              0,
                              1449ull * 1449,
                              1,
                              none,
                              1);
        },
        {"messages at once", "fewer messages per rank (ring) or fewer ranks"});
    // ... until it stores more than 2^26 entries: 3 n (n - 1) from about 4730 ranks
    ExpectInvalid(
        [&]()
        {
            CheckScheduleSize(CollectiveOp::ALL_TO_ALL,
                              CollectiveAlgorithm::RING,
                              4800,
                              0,
                              4800ull * 4800,
                              1,
                              none,
                              1);
        },
        {"schedule entries", "every alltoall algorithm sends a message between each pair"});
}

} // namespace
