/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_AGGREGATION_FLOW_H
#define DLNET_AGGREGATION_FLOW_H

#include "ns3/flow-network.h"

#include <functional>
#include <utility>
#include <vector>

namespace ns3
{

/// (link, weight) pairs: the load a flow puts on each link per unit of its rate.
typedef std::vector<std::pair<uint32_t, double>> FlowUses;

/**
 * \ingroup dlnet
 * \brief One stage of an in-network job's stream on the flow-level network:
 * a flow, the earliest time it may start and the latency after its last byte.
 */
struct FlowStage
{
    FlowNetwork::FlowSpec spec; //!< the flow; no bytes: only the waits
    double notBefore{0};        //!< s after the first stage started: it starts no earlier
    double after{0};            //!< s from its last byte to the next stage (or the end)
};

/**
 * Run stages one after another: each starts once the one before it is over
 * (its last byte plus its `after`) and not before its own notBefore; `done`
 * is called when the last one is over.
 * \param network the flow-level network \param stages the stages \param done at the end
 */
void RunFlowStages(Ptr<FlowNetwork> network,
                   std::vector<FlowStage> stages,
                   std::function<void()> done);

/**
 * Add `weight` x each use of `route` to `uses`, merging links already there
 * (nothing for a weight of 0).
 * \param uses what a flow loads so far \param route links and their shares
 * \param weight the load per unit of the flow's rate
 */
void AddUses(FlowUses& uses, const FlowUses& route, double weight);

/**
 * \ingroup dlnet
 * \brief One way of a packet over links in order (store and forward at each).
 */
struct FlowLeg
{
    FlowUses uses;      //!< the links, first hop first (weights: a sprayed route's shares)
    double first{0};    //!< capacity of the first link, B/s (0: no link, memory)
    double delay{0};    //!< s: propagation and switching latency of every link
    double perByte{0};  //!< s per byte: store and forward on each link after the first
    bool memory{false}; //!< no wire: to the same host

    /// \param bytes a packet \return from its first bit on the first link to its arrival
    double Time(double bytes) const;
    /// \param bytes a packet \return from its last bit on the first link to its arrival
    double Latency(double bytes) const;
};

/**
 * \param network the network
 * \param uses links a packet crosses in order, each with the share of the
 *        packets that cross it (a sprayed route's paths: their mean time)
 * \return the leg over them
 */
FlowLeg LegOver(const FlowNetwork& network, const FlowUses& uses);

/**
 * \param network the network \param src an endpoint \param dst another (or src: memory)
 * \return the leg of a raw packet (message id 0) from src to dst, as the switches route it
 */
FlowLeg RouteLeg(FlowNetwork& network, uint32_t src, uint32_t dst);

} // namespace ns3

#endif /* DLNET_AGGREGATION_FLOW_H */
