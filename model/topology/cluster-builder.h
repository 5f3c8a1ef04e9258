/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_CLUSTER_BUILDER_H
#define DLNET_CLUSTER_BUILDER_H

#include "cluster.h"
#include "fabric-helper.h"
#include "topology-helper.h"

#include <functional>
#include <string>
#include <utility>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief What every topology's Build uses: nodes, named links (with the
 * config's loss model), switches and endpoints recorded in a Cluster, then
 * devices set up and PCAP enabled by Finish.
 */
class ClusterBuilder
{
public:
    /**
     * \param config the (validated) settings shared by every topology
     * \param kind the topology's name, for the cluster
     * \param ranks the number of endpoints
     */
    ClusterBuilder(const TopologyConfig& config, const std::string& kind, uint32_t ranks);

    /// \return a new node of the cluster
    Ptr<Node> NewNode();

    /**
     * Connect and record a full-duplex link.
     * \param tier "host", "fabric", "local" (no loss model), "io" or a topology's own
     * \return the devices on a and on b
     */
    std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>> Link(Ptr<Node> a,
                                                               const std::string& aName,
                                                               Ptr<Node> b,
                                                               const std::string& bName,
                                                               DataRate rate,
                                                               Time delay,
                                                               const std::string& tier);

    /// \return a switch on the node, recorded with its name
    Ptr<FabricSwitch> NewSwitch(Ptr<Node> node, const std::string& name);

    /// \return an endpoint with address `rank` on the node's device
    Ptr<FabricEndpoint> NewEndpoint(Ptr<Node> node, Ptr<FabricNetDevice> device, uint32_t rank);

    /// \return the cluster so far (for topologies that note their shape)
    Cluster& GetCluster();

    /// Set every device up, enable PCAP if asked; \return the cluster
    Cluster Finish();

private:
    const TopologyConfig& m_config;
    FabricHelper m_helper;
    Cluster m_cluster;
    int64_t m_nextStream{1 << 16}; //!< loss models; streams below are the experiments'
};

/// \return "host<rank>"
std::string HostName(uint32_t rank);

/**
 * Sets a switch's routes from ranges of ranks given in increasing order, with one SetRoutes per
 * longest run of consecutive ranks on one port (a SetRoute per rank made a 128 x 128 mesh take
 * 9 s to build).
 */
class RouteRunWriter
{
public:
    explicit RouteRunWriter(Ptr<FabricSwitch> sw);
    /// Route ranks first .. last through port; first is the rank after the last one added.
    void Add(uint32_t first, uint32_t last, uint32_t port);
    /// Set the run in progress (call once, after the last Add).
    void Flush();

private:
    Ptr<FabricSwitch> m_switch;
    bool m_open{false};
    uint32_t m_first{0};
    uint32_t m_last{0};
    uint32_t m_port{0};
};

/**
 * Route a switch to every rank 0 .. ranks - 1 through portOf(rank), by runs (RouteRunWriter).
 */
void RouteByRuns(Ptr<FabricSwitch> sw,
                 uint32_t ranks,
                 const std::function<uint32_t(uint32_t rank)>& portOf);

} // namespace ns3

#endif /* DLNET_CLUSTER_BUILDER_H */
