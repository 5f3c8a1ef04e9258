/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_LINK_LOAD_ESTIMATE_H
#define DLNET_LINK_LOAD_ESTIMATE_H

#include "collective-engine.h"
#include "communicator.h"

#include "ns3/cluster.h"
#include "ns3/topology.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One message of a phase, between cluster ranks (endpoint addresses).
 */
struct LinkMessage
{
    /// msgId value that asks for the next id of the source (see EstimateLinkLoad)
    static constexpr uint32_t NEXT_ID = std::numeric_limits<uint32_t>::max();

    uint32_t src{0};         //!< cluster rank of the sender
    uint32_t dst{0};         //!< cluster rank of the receiver
    uint64_t bytes{0};       //!< payload bytes
    uint32_t msgId{NEXT_ID}; //!< the id the source's endpoint gives it (PerFlow ECMP hashes it)
};

/**
 * \ingroup dlnet
 * \brief Messages that are in flight together: one step of a collective.
 */
struct LinkPhase
{
    std::vector<LinkMessage> messages; //!< sent at the start of the phase
};

/**
 * \ingroup dlnet
 * \brief Where one phase's time goes.
 */
struct PhaseLoad
{
    double seconds{0};       //!< bandwidth + latency
    double latency{0};       //!< fixed cost: mean over its messages of their path's fixed cost
    std::string busiestLink; //!< the link that bounds the phase ("" if no message)
    double busiestBytes{0};  //!< wire bytes it carries in the phase
    double busiestRate{0};   //!< its rate, B/s
    uint32_t messages{0};    //!< messages in the phase
};

/**
 * \ingroup dlnet
 * \brief A collective's time from the load of its most-loaded links.
 *
 * Each phase takes the time its most-loaded link needs for its wire bytes
 * (payload and a FabricHeader per packet) plus a fixed cost, the mean over
 * its messages of their path's (propagation, switching, and the store and
 * forward of the largest packet on every link after the first: the alpha
 * of the alpha-beta model, averaged as its ring alpha is); the phases run
 * one after another.
 */
struct LinkLoadEstimate
{
    double seconds{0};             //!< the estimate
    double bandwidthSeconds{0};    //!< sum over phases of the busiest link's time
    double latencySeconds{0};      //!< sum over phases of the fixed costs
    std::string busiestLink;       //!< the link busy longest over the whole collective ("a->b")
    double busiestBytes{0};        //!< wire bytes it carries over the whole collective
    double busiestRate{0};         //!< its rate, B/s
    std::vector<PhaseLoad> phases; //!< phase by phase
};

/**
 * Estimate the time of explicit phases on a built cluster. Every message is
 * routed hop by hop over the switches' installed forwarding tables: with
 * PerFlow load balancing each switch picks the port FabricSwitch::PickPort
 * picks (FlowHash(src, dst, msgId, EcmpSeed) % ports), with PerPacket the
 * message's wire bytes split evenly over the equal-cost ports.
 *
 * A message whose msgId is LinkMessage::NEXT_ID takes its source's next id
 * in phase order, counting from 0 (a fresh endpoint).
 *
 * \param cluster the cluster (routes installed; nothing runs)
 * \param phases phases, in order
 * \return the estimate; throws std::invalid_argument on a rank out of range
 *         or a destination a switch has no route to
 */
LinkLoadEstimate EstimateLinkLoad(const Cluster& cluster, const std::vector<LinkPhase>& phases);

/**
 * The phases of a collective as the CollectiveEngine runs it on a fresh
 * cluster: the same lanes and steps (BuildCollectiveLanes per chunk), each
 * send in the phase at which its step can start (a step starts when its
 * previous step's receives have arrived, each taking one phase), and the
 * message ids the endpoints will give (the order the engine posts sends).
 *
 * Chunks: with several chunks a chunk enters a step one phase after the
 * chunk before it (staggerChunks: once that chunk has left the step), so a
 * pipelined collective's phases each carry one chunk; chunksInFlight holds a
 * chunk back until the chunk that many before it is done on that rank.
 *
 * \param comm the communicator
 * \param request the collective (chunks 0: CollectiveEngine::DefaultChunks,
 *        chunksInFlight 0: all; as the engine with its attributes at 0)
 * \return the phases; throws std::invalid_argument as CollectiveRequest::Validate,
 *         and ("estimate: ...") on more than MAX_ESTIMATE_MESSAGES messages or
 *         MAX_ESTIMATE_STEPS steps
 */
std::vector<LinkPhase> CollectivePhases(const Communicator& comm, const CollectiveRequest& request);

/// CollectivePhases' limit: the messages it keeps (each about 100 bytes while it sorts
/// them; a ring on 4096 ranks, 33.5 million, took 3.2 GB)
constexpr uint64_t MAX_ESTIMATE_MESSAGES = 1ull << 25;

/// CollectivePhases' other limit: the steps of every rank of every lane, whose levels it keeps
/// (4 bytes each, 8 in several chunks: at most 1 GiB; a ring on 8192 ranks has 134.2 million,
/// on 16384 ranks 537 million)
constexpr uint64_t MAX_ESTIMATE_STEPS = 1ull << 27;

/**
 * EstimateLinkLoad of CollectivePhases.
 * \param cluster the cluster the collective would run on
 * \param comm the communicator
 * \param request the collective
 * \return the estimate
 */
LinkLoadEstimate EstimateCollectiveOnLinks(const Cluster& cluster,
                                           const Communicator& comm,
                                           const CollectiveRequest& request);

/**
 * The communication library's share of a collective's time over its phases:
 * its launch latency once, and per phase the mean over the phase's senders
 * of their step latency (NetworkStepLatency for a sender with a message to
 * another host), as the estimate's fixed costs average the paths'; in
 * several chunks only the first phase's, since the other chunks' transfers
 * hide the rest. A point-to-point send (SEND_RECV) takes none, as in the engine.
 * \param request the collective (its chunks resolved as CollectivePhases does)
 * \param phases its phases (CollectivePhases)
 * \param topology which ranks share a host (Topology::GetHostOf)
 * \param library the latencies
 * \return seconds to add to the estimate
 */
double LibraryLatencyOfPhases(const CollectiveRequest& request,
                              const std::vector<LinkPhase>& phases,
                              const Topology& topology,
                              const LibraryLatencies& library);

} // namespace ns3

#endif /* DLNET_LINK_LOAD_ESTIMATE_H */
