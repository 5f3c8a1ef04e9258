/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_ALPHA_BETA_MODEL_H
#define DLNET_ALPHA_BETA_MODEL_H

#include "collective-schedule.h"
#include "collective-types.h"

#include "ns3/topology.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A communication library's own costs, which the network does not see
 * (the CollectiveEngine's latency attributes), in seconds.
 */
struct LibraryLatencies
{
    double launch{0};      //!< s once per collective (CollectiveEngine::LaunchLatency)
    double step{0};        //!< s per step (StepLatency)
    double networkStep{0}; //!< s per step that leaves a host (NetworkStepLatency); 0: step

    /// \return the latency of a step that leaves its host or not
    double StepOf(bool leavesHost) const
    {
        return leavesHost && networkStep > 0 ? networkStep : step;
    }
};

/**
 * \ingroup dlnet
 * \brief What the alpha-beta model knows of the network between ranks.
 *
 * alpha is the fixed cost of one step between neighbours (propagation,
 * switching, and the store-and-forward of one packet per extra hop); the
 * bandwidths are payload bytes per second (the link rate times the share
 * of payload in a full packet); the library's latencies come on top of the
 * network's for a collective's steps.
 */
struct NetworkModel
{
    double alpha{1e-6};       //!< s per step
    double bandwidth{12.5e9}; //!< payload B/s of a rank's link
    double dim1Bandwidth{
        0}; //!< hierarchical: payload B/s of a dimension-1 ring step (0: bandwidth)
    double dim2Bandwidth{
        0};           //!< hierarchical: payload B/s of a dimension-2 ring step (0: bandwidth)
    double alpha1{0}; //!< hierarchical: alpha of a dimension-1 step (0: alpha)
    double alpha2{0}; //!< hierarchical: alpha of a dimension-2 step (0: alpha)
    double linkRate{
        12.5e9};         //!< raw link rate of a rank, B/s (in-network packets are not Mtu-sized)
    CollectiveGrid grid; //!< shape, when the communicator is a full grid
    double launch{0};    //!< s once per collective: the library's LaunchLatency
    /// s per step of a collective: the library's step latency, mean over ring
    /// neighbours (NetworkStepLatency between hosts); not in alpha, which a send takes alone
    double libraryStep{0};
    double libraryStep1{0}; //!< hierarchical: the same along dimension 1
    double libraryStep2{0}; //!< hierarchical: the same along dimension 2
    /// bytes of the packet whose store and forward per hop the alphas include (the Mtu;
    /// 0: none to scale, WithPacket leaves the alphas as they are)
    double packetBytes{0};
    double alphaBase{0};  //!< alpha without any packet's store and forward
    double alpha1Base{0}; //!< alpha1 without it (0 with alpha1 = 0)
    double alpha2Base{0}; //!< alpha2 without it
    /// s: the fixed cost of the path from the first rank to the second, which a
    /// send/receive takes (0: alpha)
    double sendAlpha{0};
    double sendAlphaBase{0}; //!< sendAlpha without any packet's store and forward
};

/**
 * The model with alphas for packets of `packetBytes` (FabricHeader included)
 * instead of the Mtu's: the store and forward per hop scaled down (never up),
 * as a message smaller than a packet leaves a switch after its own bytes.
 * The copy's packetBytes is 0, so it is not scaled again.
 */
NetworkModel WithPacket(const NetworkModel& model, double packetBytes);

/**
 * The alpha-beta model of a topology for a group: alpha is the mean fixed
 * cost between ring neighbours (PathLatency), the bandwidth the payload
 * share of the rank's link; a group of every rank in order gets the
 * topology's grid, with per-dimension alphas and bandwidths.
 * \param topology the topology
 * \param ranks the group, by communicator index
 * \param switchLatency s per switch
 * \param mtu bytes of a full packet, FabricHeader included
 * \param library the library's latencies (Topology::GetHostOf tells which steps
 *        leave a host)
 * \return the model
 */
NetworkModel MakeNetworkModel(const Topology& topology,
                              const std::vector<uint32_t>& ranks,
                              double switchLatency,
                              uint32_t mtu,
                              const LibraryLatencies& library = LibraryLatencies());

/**
 * Predicted time of a collective under the alpha-beta model: the library's
 * launch latency once and its step latency with every alpha, except for a
 * point-to-point send (SEND_RECV), which takes neither (as in the engine).
 * \param op operation
 * \param algorithm a concrete algorithm that implements op
 * \param n ranks
 * \param bytes buffer size S
 * \param chunks pipelining chunks (trees and chains use them)
 * \param model the network
 * \return seconds
 */
double PredictCollectiveTime(CollectiveOp op,
                             CollectiveAlgorithm algorithm,
                             uint32_t n,
                             uint64_t bytes,
                             uint32_t chunks,
                             const NetworkModel& model);

} // namespace ns3

#endif /* DLNET_ALPHA_BETA_MODEL_H */
