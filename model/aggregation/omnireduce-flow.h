/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OMNIREDUCE_FLOW_H
#define OMNIREDUCE_FLOW_H

#include "omnireduce-helper.h"

#include "ns3/cluster.h"
#include "ns3/communicator.h"
#include "ns3/topology.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The flow-level twin of an OmniReduce job (OmniReduceHelper runs it
 * when the cluster is at flow level).
 *
 * A slot is a stream of rounds with one packet in flight per worker, so
 * each slot is a flow. Its rounds follow from the block patterns exactly as
 * the protocol plays them: round 0 carries the first block of every lane
 * from every worker; round r carries, in each lane, the r-th non-zero block
 * of the lane's union over the workers, sent by the workers that hold it,
 * and every round's result (the union's blocks) goes to every worker. A
 * packet is a 24-byte fabric header, 20 + 4 f bytes of OmniReduce header
 * (f fused blocks) and the blocks it carries. The flow's unit is the bytes
 * of the results one worker receives; it loads each worker's way down from
 * the slot's aggregator by one per unit and each worker's way up by the
 * bytes that worker sends per byte of results (the aggregator's links carry
 * the sum; a colocated aggregator's own worker uses memory), and, with an
 * aggregator packet time, the aggregator's processor (a link of 1 / time
 * packets per second) by its contributions per unit. Slots share links
 * max-min fairly, as one packet per slot in each queue shares a link round
 * robin. A slot runs in two stages:
 *  - every round but the last, capped at one round per round trip (the
 *    worker's average packet up the slowest way, the contributions
 *    processed, the average result down the slowest way);
 *  - the last round, uncapped, then its round trip less the worker's
 *    serialisation.
 * The job ends with its last slot. Functional mode: each worker gets the
 * sum, in worker order, of the blocks sent (the first block of every lane
 * from everyone, else the non-zero ones), as the aggregator adds them.
 */
class OmniReduceFlow
{
public:
    /**
     * Start a job now (validated by OmniReduceHelper::Start).
     * \param cluster a cluster at flow level
     * \param topology its description (the switch of the switch placement)
     * \param comm the workers
     * \param job the job's shape (workers, aggregators, blocks, slots)
     * \param settings placement, threshold, packet time, job id
     * \param nonZero timing mode: per worker, which blocks hold values
     * \param inputs functional mode: per worker, the tensor
     * \param done called at the end with the job's record
     */
    static void Start(const Cluster& cluster,
                      const Topology& topology,
                      const Communicator& comm,
                      const OmniReduceJob& job,
                      const OmniReduceSettings& settings,
                      const std::vector<std::vector<bool>>& nonZero,
                      const std::vector<std::vector<float>>& inputs,
                      OmniReduceHelper::DoneCallback done);
};

} // namespace ns3

#endif /* OMNIREDUCE_FLOW_H */
