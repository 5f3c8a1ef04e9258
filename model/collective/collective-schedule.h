/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_SCHEDULE_H
#define DLNET_COLLECTIVE_SCHEDULE_H

#include "collective-types.h"

#include <cstdint>
#include <functional>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One message of a step: to or from a peer (a communicator index).
 *
 * On the receiving side the bytes land at `offset` of the working buffer;
 * the sender reads them at `srcOffset` of its working buffer (or of its
 * input buffer when the step says so: all-to-all).
 */
struct CollectiveTransfer
{
    uint32_t peer;      //!< communicator index of the other side
    uint64_t offset;    //!< where the bytes land at the receiver
    uint64_t bytes;     //!< how many
    uint64_t srcOffset; //!< where the sender reads them
    uint32_t peerStep;  //!< the step of the other side this transfer belongs to
};

/**
 * \ingroup dlnet
 * \brief One step of one rank: post the sends, wait for the receives.
 *
 * The next step starts when every receive of this one has arrived and been
 * applied (reduced or copied); sends read the buffer when they are posted.
 */
struct CollectiveStep
{
    std::vector<CollectiveTransfer> sends; //!< posted when the step starts
    std::vector<CollectiveTransfer> recvs; //!< awaited before the next step
    bool reduce{false};                    //!< receives reduce into the buffer (else copy)
    bool sendFromInput{false};             //!< sends read the input buffer (all-to-all)
    uint8_t vc{0}; //!< virtual channel of its sends: the second level of a hierarchy uses 1
};

/**
 * \ingroup dlnet
 * \brief A flat ring over every rank of a communicator whose steps are made
 * when asked for rather than stored: index i sends to i + 1 and receives from
 * i - 1; the buffer range is cut into one element-aligned part per rank;
 * reduce-scatter steps (index i ends owning the reduced part i), then
 * all-gather steps. The steps are exactly those of the stored form; a ring
 * on n ranks has 2 (n - 1) steps on each of them, which stored would take
 * gigabytes at thousands of ranks.
 */
struct CollectiveRing
{
    uint32_t ranks{0};         //!< communicator size; 0: the lane stores its steps
    uint64_t offset{0};        //!< first byte of the range
    uint64_t bytes{0};         //!< size of the range
    uint32_t elementSize{1};   //!< parts never split an element
    bool reduceScatter{false}; //!< the reduce-scatter steps
    bool allGather{false};     //!< the all-gather steps (after the reduce-scatter ones)
};

/**
 * \ingroup dlnet
 * \brief An independent sequence of steps per rank. A collective is a set of
 * lanes (chunks of a pipelined collective, the two trees of a double binary
 * tree, the two directions of a bidirectional ring) that run concurrently.
 *
 * Read the steps through GetNSteps and GetStep: a lane either stores them
 * (`ranks`) or is a CollectiveRing that makes them on demand.
 */
struct CollectiveLane
{
    uint32_t chunk{0}; //!< pipelining chunk it belongs to
    /**
     * The connection its sends go on (a queue pair of its own to each peer,
     * FabricEndpoint::Send): the two trees of a double binary tree use 0 and
     * 1, as NCCL puts them on channels of their own (`connectTrees`: tree 0
     * on channel c, tree 1 on c + nChannels), so the one's messages to a peer
     * never queue behind the other's. Every other lane uses 0: its messages
     * to one peer go one after another, whatever lane they belong to.
     */
    uint32_t connection{0};
    std::vector<std::vector<CollectiveStep>> ranks; //!< stored steps per communicator rank
    CollectiveRing ring;                            //!< ring.ranks > 0: steps made on demand

    /// \return the communicator size the lane is for
    uint32_t GetNRanks() const;
    /// \param rank a communicator index \return its steps in this lane
    uint32_t GetNSteps(uint32_t rank) const;
    /**
     * \param rank a communicator index \param step one of its steps
     * \param scratch where a ring lane makes the step (its vectors' capacity is reused)
     * \return the step: a stored one, or scratch
     */
    const CollectiveStep& GetStep(uint32_t rank, uint32_t step, CollectiveStep& scratch) const;
};

/**
 * \ingroup dlnet
 * \brief The shape of the communicator, for hierarchical algorithms: rank
 * index = y * dim1 + x, dimension 1 first. dim1 = 0: no grid.
 */
struct CollectiveGrid
{
    uint32_t dim1{0};          //!< size of dimension 1 (mesh/torus X, ranks under a leaf)
    uint32_t dim2{0};          //!< size of dimension 2
    bool bidirectional{false}; //!< both ring directions have their own links (torus)
    bool dim2First{false};     //!< localBWAware found dimension 2 has more bandwidth
    bool bothOrders{false}; //!< half the data dimension 1 first, half dimension 2 first (2D mesh)
    bool secondLevelVc{false}; //!< dimension 2 sends on virtual channel 1 (switched levels)
};

/**
 * \ingroup dlnet
 * \brief Build the lanes of one collective on one byte range of the buffer.
 *
 * \param op the operation
 * \param algorithm a concrete algorithm (not AUTO)
 * \param ranks communicator size
 * \param root root index (broadcast, reduce)
 * \param offset first byte of the range
 * \param bytes size of the range (a multiple of elementSize)
 * \param elementSize bytes per element: parts never split an element
 * \param grid the communicator's shape (hierarchical algorithms)
 * \param chunk the pipelining chunk the lanes belong to
 * \param out lanes are appended here
 * \param ringOnDemand a flat ring (all-reduce, reduce-scatter, all-gather) is
 *        one CollectiveRing lane; false: its steps are stored like any other's
 *
 * Throws std::invalid_argument when the algorithm does not implement the
 * operation (the message names both and the algorithms that do).
 */
void BuildCollectiveLanes(CollectiveOp op,
                          CollectiveAlgorithm algorithm,
                          uint32_t ranks,
                          uint32_t root,
                          uint64_t offset,
                          uint64_t bytes,
                          uint32_t elementSize,
                          const CollectiveGrid& grid,
                          uint32_t chunk,
                          std::vector<CollectiveLane>& out,
                          bool ringOnDemand = true);

/// What a collective's schedule depends on: op, algorithm, ranks, root, bytes, element size,
/// chunks, and the grid's sizes and flags (MakeScheduleKey).
using CollectiveScheduleKey = std::tuple<uint32_t,
                                         uint32_t,
                                         uint32_t,
                                         uint32_t,
                                         uint64_t,
                                         uint32_t,
                                         uint64_t,
                                         uint32_t,
                                         uint32_t,
                                         uint32_t>;

/// \return the key of a schedule (the arguments as BuildCollectiveLanes', bytes the buffer's)
CollectiveScheduleKey MakeScheduleKey(CollectiveOp op,
                                      CollectiveAlgorithm algorithm,
                                      uint32_t ranks,
                                      uint32_t root,
                                      uint64_t bytes,
                                      uint32_t elementSize,
                                      uint64_t chunks,
                                      const CollectiveGrid& grid);

/// Below this many ranks no algorithm comes near BuildCollectiveLanes' limits (a GoogleTest
/// checks every algorithm and operation at this size).
constexpr uint32_t SCHEDULE_CHECK_RANKS = 1024;

/**
 * Throw std::invalid_argument, as BuildCollectiveLanes would, when one chunk's schedule is
 * beyond what a run can hold: more than 2^26 steps and messages, or more than 2^21 messages
 * posted at once (a direct exchange posts n (n - 1)). From SCHEDULE_CHECK_RANKS ranks on it
 * builds the chunk and drops it; below, it returns at once. Backends call it from Validate,
 * so that auto passes over an algorithm that could not run.
 * \param op the operation \param algorithm a concrete algorithm \param ranks communicator
 * size \param root root index \param bytes the whole buffer's size \param elementSize bytes
 * per element \param grid the communicator's shape \param chunks the chunks it is cut into
 */
void CheckScheduleSize(CollectiveOp op,
                       CollectiveAlgorithm algorithm,
                       uint32_t ranks,
                       uint32_t root,
                       uint64_t bytes,
                       uint32_t elementSize,
                       const CollectiveGrid& grid,
                       uint64_t chunks);

/**
 * Refuse a chunk count whose schedule would not fit in memory: the lanes of
 * one chunk (its first) times the chunks, counted as one entry per lane and
 * rank plus one per stored step and transfer, above 2^21 entries (at most
 * about a kilobyte each in the engine and its estimate). The algorithm's own
 * default count of chunks is always allowed.
 * \param firstChunk the lanes BuildCollectiveLanes made for chunk 0
 * \param chunks the chunk count asked for \param defaultChunks the algorithm's
 * \param firstChunkAt makes chunk 0's lanes at another chunk count: fewer chunks are
 * larger and may hold more entries each, so the count the refusal quotes is checked too
 * Throws std::invalid_argument naming chunks and a count that fits.
 */
void CheckChunkCost(
    const std::vector<CollectiveLane>& firstChunk,
    uint64_t chunks,
    uint64_t defaultChunks,
    const std::function<std::vector<CollectiveLane>(uint64_t chunks)>& firstChunkAt);

/**
 * \return what makes chunk 0's lanes of a collective cut into a given number of chunks
 * (CheckChunkCost's firstChunkAt); the arguments as BuildCollectiveLanes', bytes the whole
 * buffer's
 */
std::function<std::vector<CollectiveLane>(uint64_t chunks)> FirstChunkAt(
    CollectiveOp op,
    CollectiveAlgorithm algorithm,
    uint32_t ranks,
    uint32_t root,
    uint64_t bytes,
    uint32_t elementSize,
    const CollectiveGrid& grid);

/// \return true if the algorithm implements the operation
bool Implements(CollectiveAlgorithm algorithm, CollectiveOp op);

/// \return the algorithms that implement an operation (AUTO excluded)
std::vector<CollectiveAlgorithm> AlgorithmsFor(CollectiveOp op);

} // namespace ns3

#endif /* DLNET_COLLECTIVE_SCHEDULE_H */
