/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "star-topology.h"

#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetStarTopology");

StarTopology::StarTopology(const TopologyConfig& config)
    : m_config(config)
    , m_hosts(config.nodes ? config.nodes : config.hosts)
    , m_rate(dlnet::ParseRate("link-rate", config.hostLinkRate))
    , m_delay(dlnet::ParseTime("link-delay", config.hostLinkDelay))
{
    config.CheckSizeBesideNodes("hosts", config.hosts, TopologyConfig().hosts);
    CheckPositive("hosts", m_hosts);
    CheckRankCount("star", m_hosts);
}

const TopologyConfig&
StarTopology::GetConfig() const
{
    return m_config;
}

std::string
StarTopology::GetKind() const
{
    return "star";
}

uint32_t
StarTopology::GetNRanks() const
{
    return m_hosts;
}

Cluster
StarTopology::Build() const
{
    ClusterBuilder b(m_config, GetKind(), m_hosts);
    Ptr<Node> swNode = b.NewNode();
    Ptr<FabricSwitch> sw = b.NewSwitch(swNode, "switch");
    for (uint32_t r = 0; r < m_hosts; ++r)
    {
        Ptr<Node> host = b.NewNode();
        auto [hostDev, swDev]
            = b.Link(host, HostName(r), swNode, "switch", m_rate, m_delay, "host");
        uint32_t port = sw->AddPort(swDev);
        sw->SetRoute(r, {port});
        b.NewEndpoint(host, hostDev, r);
    }
    return b.Finish();
}

TopologyPath
StarTopology::GetPath(uint32_t a, uint32_t b) const
{
    PathLink host{double(m_rate.GetBitRate()), m_delay.GetSeconds()};
    return TopologyPath{{host, host}, 1};
}

bool
StarTopology::HasEqualCostPaths() const
{
    return false; // one switch: one route between any two hosts
}

double
StarTopology::GetRankRate() const
{
    return m_rate.GetBitRate();
}

AggregationTree
StarTopology::GetAggregationTree(const std::vector<uint32_t>& ranks, uint32_t job) const
{
    AggregationTree tree;
    AggregationTree::Node sw;
    sw.switchIndex = 0;
    sw.ranks = ranks;
    sw.rankPorts = ranks; // switch port r leads to rank r
    tree.nodes.push_back(sw);
    return tree;
}

static const bool g_registered
    = TopologyRegistry::Add({"star",
                             0,
                             "hosts on one switch",
                             {"hosts"},
                             [](const TopologyConfig& c)
                             {
                                 return Ptr<const Topology>(Create<StarTopology>(c));
                             }});

} // namespace ns3
