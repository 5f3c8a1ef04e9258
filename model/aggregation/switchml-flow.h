/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCHML_FLOW_H
#define SWITCHML_FLOW_H

#include "switchml-helper.h"

#include "ns3/cluster.h"
#include "ns3/communicator.h"
#include "ns3/topology.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The flow-level twin of a SwitchML job (SwitchmlHelper runs it when
 * the cluster is at flow level).
 *
 * Every worker sends the same packets in lockstep and a slot's round ends
 * when every contribution is in, so the job is one flow whose uses are every
 * link of its aggregation tree, each once: the workers' links up, the
 * switch-to-switch links both ways, the links down to the workers. It moves
 * each worker's wire bytes (a 16-byte SwitchML and a 24-byte fabric header
 * per packet) in three stages:
 *  - the probes of round 0 (P packets of 40 bytes);
 *  - from the return of the first probe's result (one round trip of a
 *    40-byte packet) the data of every round but the last, capped by the
 *    pool: P packets of W bytes per round trip of a W-byte packet;
 *  - the last round's packets (the window no longer waits for results);
 * and ends when the last result is back: one round trip after the last
 * byte left, less its serialisation on the worker's link. The round trip of
 * a packet of x bytes is the longest way up to the root plus the longest way
 * down, each link x / capacity + propagation + switching latency.
 *
 * Functional mode: the sums as the switches make them (the block exponent
 * of each chunk is the largest over the workers, every value is rounded to
 * int32 at that scale and the int32 values are added), so the outputs are
 * those of the packet level, bit for bit.
 */
class SwitchmlFlow
{
public:
    /**
     * Start a job now (validated by SwitchmlHelper::Start).
     * \param cluster a cluster at flow level
     * \param tree the job's aggregation tree
     * \param comm the workers
     * \param elements float32 elements of the tensor
     * \param elementsPerPacket k
     * \param pool slots (at most the chunks)
     * \param tc the job's traffic class
     * \param inputs functional mode: per worker, the tensor; empty: timing mode
     * \param done called at the end with every worker's record
     */
    static void Start(const Cluster& cluster,
                      const AggregationTree& tree,
                      const Communicator& comm,
                      uint64_t elements,
                      uint32_t elementsPerPacket,
                      uint32_t pool,
                      uint8_t tc,
                      const std::vector<std::vector<float>>& inputs,
                      SwitchmlHelper::DoneCallback done);

    /**
     * \param inputs per worker, E floats
     * \param elementsPerPacket k: the chunk that shares a block exponent
     * \return the aggregate SwitchML delivers
     */
    static std::vector<float> Sum(const std::vector<std::vector<float>>& inputs,
                                  uint32_t elementsPerPacket);
};

} // namespace ns3

#endif /* SWITCHML_FLOW_H */
