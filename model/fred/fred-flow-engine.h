/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FRED_FLOW_ENGINE_H
#define DLNET_FRED_FLOW_ENGINE_H

#include "fred-engine.h"
#include "fred-switch-program.h"

#include "ns3/fabric-switch.h"
#include "ns3/flow-network.h"

#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/// The per-switch flows of one job, as FredCollectives::Plan gives them.
typedef std::vector<std::pair<Ptr<FabricSwitch>, FredSwitchFlow>> FredPlan;

/**
 * \ingroup dlnet
 * \brief The links one stream of packets loads and how long its last packet
 * takes through them: a multicast tree that moves at one rate.
 */
struct FlowTree
{
    std::map<uint32_t, double> wire; //!< by link: wire bytes of the stream that cross it
    double sourceWire{0};            //!< wire bytes the source sends (the flow's bytes)
    double latency{0};               //!< s: the longest path's (FlowNetwork::GetPathLatency)

    /// \return the uses of a flow moving sourceWire at one rate: (link, wire / sourceWire)
    std::vector<std::pair<uint32_t, double>> Uses() const;
};

/**
 * \ingroup dlnet
 * \brief FredEngine's flow-level twin: an in-switch job (FredJob) as flows
 * of a FlowNetwork through the switches of its plan (FredCollectives::Plan),
 * no packets.
 *
 * The way FredSwitchProgram passes the packets on (up to the parent of
 * the packet's plane, the root turning them down to the outputs, a
 * reduce-scatter part to its owner only, a copy to every output but the one
 * it came on) is followed once per class of packets, the packets of one part
 * on one plane (index mod planes), instead of once per packet; a class's
 * wire bytes (payload plus the 24-byte FabricHeader and 12-byte FredHeader
 * per packet) load every link it crosses.
 *
 * - A reducing job (all-reduce, reduce-scatter) moves at one rate, since a
 *   switch passes an index on only when every input has given it: one flow
 *   whose uses are every link of its tree, each weighted by the share of a
 *   source's wire bytes that crosses it (an NPU link 1, an uplink of one of p
 *   planes 1/p, a reduce-scatter receiver's link its part's share).
 * - A copying job (all-gather, broadcast: weight streaming) is one flow per
 *   source over its multicast tree.
 *
 * Flows are in the job's traffic class (strict priority as at packet
 * level). A job ends when each of its flows' last byte has left its source
 * and crossed the longest path of its tree: propagation and switch latency
 * on every link and the packets' store and forward, as
 * FlowNetwork::GetPathLatency counts them for a path. Functional mode: the outputs are computed
 * when the job ends, the reduction over the sources in group order (ReduceSum), the copies put in
 * place, as the switches would leave them.
 *
 * Not modelled: a source running ahead of a slower link further up the tree
 * (packet level: the switch queues it), per-packet interleaving. The
 * admission of flows (Fred_m(P) conflicts, serialisation) is FredCollectives'
 * at either level.
 */
class FredFlowEngine : public Object
{
public:
    /// Signature of the Done trace source.
    typedef void (*DoneTracedCallback)(const FredRecord& record);

    static TypeId GetTypeId();
    FredFlowEngine();
    ~FredFlowEngine() override;

    /**
     * \param network the flow-level network the endpoints are attached to
     * \param endpoints endpoints by address
     */
    void SetNetwork(Ptr<FlowNetwork> network, const std::vector<Ptr<FabricEndpoint>>& endpoints);

    /**
     * Start a job now (validates first: std::invalid_argument).
     * \param job the job (payloadBytes as the packets would carry)
     * \param plan its per-switch flows (FredCollectives::Plan)
     * \param done called when it has finished
     */
    void Start(const FredJob& job, const FredPlan& plan, FredEngine::DoneCallback done);

    /// \return jobs running
    uint32_t GetRunning() const;

    /**
     * The trees of a job: one (reducing job) or one per source (copying job).
     * \param job a valid job \param plan its per-switch flows
     * \return the trees
     */
    std::vector<FlowTree> Trees(const FredJob& job, const FredPlan& plan);

protected:
    void DoDispose() override;

private:
    struct Running
    {
        FredJob job;
        FredEngine::DoneCallback done;
        FredRecord record;
        uint32_t pending{0}; //!< flows not yet arrived
    };

    void Arrived(uint32_t job);
    void Sent(uint32_t job, double latency);

    Ptr<FlowNetwork> m_network;
    std::vector<Ptr<FabricEndpoint>> m_endpoints;
    std::map<uint32_t, Running> m_running; //!< by job id
    TracedCallback<const FredRecord&> m_doneTrace;
};

} // namespace ns3

#endif /* DLNET_FRED_FLOW_ENGINE_H */
