/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "leaf-spine-topology.h"

#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <cmath>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetLeafSpineTopology");

LeafSpineTopology::LeafSpineTopology(const TopologyConfig& c)
    : m_config(c)
    , m_leaves(c.leaves)
    , m_hostsPerLeaf(c.hostsPerLeaf)
    , m_spines(c.spines)
    , m_hostRate(dlnet::ParseRate("link-rate", c.hostLinkRate))
    , m_hostDelay(dlnet::ParseTime("link-delay", c.hostLinkDelay))
{
    CheckPositive("hosts-per-leaf", m_hostsPerLeaf);
    c.CheckSizeBesideNodes("leaves", c.leaves, TopologyConfig().leaves);
    if (c.nodes != 0)
    {
        if (c.nodes % m_hostsPerLeaf != 0)
        {
            throw std::invalid_argument("nodes: " + std::to_string(c.nodes)
                                        + " is not a multiple of hosts-per-leaf ("
                                        + std::to_string(m_hostsPerLeaf) + ")");
        }
        m_leaves = c.nodes / m_hostsPerLeaf;
    }
    CheckPositive("leaves", m_leaves);
    CheckPositive("spines", m_spines);
    CheckOversubscription(c);
    CheckRankCount("leaf-spine", uint64_t(m_leaves) * m_hostsPerLeaf);
    CheckFabricLinkCount("spines",
                         std::to_string(m_leaves) + " leaves x " + std::to_string(m_spines)
                             + " spines",
                         uint64_t(m_leaves) * m_spines);
    if (!c.fabricLinkRate.empty())
    {
        m_fabricRate = dlnet::ParseRate("fabric-link-rate", c.fabricLinkRate);
    }
    else
    {
        m_fabricRate = LeafUplinkRate(
            m_hostRate.GetBitRate() * double(m_hostsPerLeaf), m_spines, c.oversubscription);
    }
    m_fabricDelay = c.fabricLinkDelay.empty()
                        ? m_hostDelay
                        : dlnet::ParseTime("fabric-link-delay", c.fabricLinkDelay);
}

const TopologyConfig&
LeafSpineTopology::GetConfig() const
{
    return m_config;
}

std::string
LeafSpineTopology::GetKind() const
{
    return "leaf-spine";
}

uint32_t
LeafSpineTopology::GetNRanks() const
{
    return m_leaves * m_hostsPerLeaf;
}

Cluster
LeafSpineTopology::Build() const
{
    ClusterBuilder b(m_config, GetKind(), GetNRanks());
    std::vector<Ptr<Node>> spineNodes;
    std::vector<Ptr<FabricSwitch>> spines;
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        spineNodes.push_back(b.NewNode());
        spines.push_back(b.NewSwitch(spineNodes.back(), "spine" + std::to_string(s)));
    }
    uint32_t nRanks = GetNRanks();
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        std::string leafName = "leaf" + std::to_string(l);
        Ptr<Node> leafNode = b.NewNode();
        Ptr<FabricSwitch> leaf = b.NewSwitch(leafNode, leafName);
        std::vector<uint32_t> uplinks;
        for (uint32_t s = 0; s < m_spines; ++s)
        {
            auto [leafDev, spineDev] = b.Link(leafNode,
                                              leafName,
                                              spineNodes[s],
                                              "spine" + std::to_string(s),
                                              m_fabricRate,
                                              m_fabricDelay,
                                              "fabric");
            uplinks.push_back(leaf->AddPort(leafDev));
            uint32_t down = spines[s]->AddPort(spineDev);
            spines[s]->SetRoutes(l * m_hostsPerLeaf, (l + 1) * m_hostsPerLeaf - 1, {down});
        }
        // every rank up (ECMP), then the leaf's own ranks down
        leaf->SetRoutes(0, nRanks - 1, uplinks);
        for (uint32_t h = 0; h < m_hostsPerLeaf; ++h)
        {
            uint32_t rank = l * m_hostsPerLeaf + h;
            Ptr<Node> host = b.NewNode();
            auto [hostDev, leafDev]
                = b.Link(host, HostName(rank), leafNode, leafName, m_hostRate, m_hostDelay, "host");
            leaf->SetRoute(rank, {leaf->AddPort(leafDev)});
            b.NewEndpoint(host, hostDev, rank);
        }
    }
    return b.Finish();
}

TopologyPath
LeafSpineTopology::GetPath(uint32_t a, uint32_t b) const
{
    PathLink host{double(m_hostRate.GetBitRate()), m_hostDelay.GetSeconds()};
    if (a / m_hostsPerLeaf == b / m_hostsPerLeaf)
    {
        return TopologyPath{{host, host}, 1};
    }
    PathLink fabric{double(m_fabricRate.GetBitRate()), m_fabricDelay.GetSeconds()};
    return TopologyPath{{host, fabric, fabric, host}, 3};
}

bool
LeafSpineTopology::HasEqualCostPaths() const
{
    return m_leaves > 1 && m_spines > 1; // a leaf's uplinks, one per spine
}

double
LeafSpineTopology::GetRankRate() const
{
    return m_hostRate.GetBitRate();
}

TopologyGrid
LeafSpineTopology::GetGrid() const
{
    TopologyGrid g;
    g.dim1 = m_hostsPerLeaf;
    g.dim2 = m_leaves;
    g.dim1Rate = m_hostRate.GetBitRate();
    // a rank's share of its leaf's uplinks
    g.dim2Rate = std::min(double(m_hostRate.GetBitRate()),
                          m_spines * double(m_fabricRate.GetBitRate()) / m_hostsPerLeaf);
    return g;
}

AggregationTree
LeafSpineTopology::GetAggregationTree(const std::vector<uint32_t>& ranks, uint32_t job) const
{
    std::map<uint32_t, std::vector<uint32_t>> members; // leaf -> ranks
    for (uint32_t r : ranks)
    {
        members[r / m_hostsPerLeaf].push_back(r);
    }
    AggregationTree tree;
    uint32_t rootSpine = job % m_spines;
    for (const auto& [leaf, group] : members)
    {
        AggregationTree::Node node;
        node.switchIndex = m_spines + leaf;
        node.ranks = group;
        for (uint32_t r : group)
        {
            node.rankPorts.push_back(m_spines + r % m_hostsPerLeaf);
        }
        node.parentPort = rootSpine;
        tree.nodes.push_back(node);
    }
    if (tree.nodes.size() > 1)
    {
        AggregationTree::Node root;
        root.switchIndex = rootSpine;
        uint32_t rootIndex = tree.nodes.size();
        uint32_t child = 0;
        for (const auto& [leaf, group] : members)
        {
            root.children.push_back(child);
            root.childPorts.push_back(leaf);
            tree.nodes[child++].parent = rootIndex;
        }
        tree.nodes.push_back(root);
    }
    return tree;
}

static const bool g_registered
    = TopologyRegistry::Add({"leaf-spine",
                             1,
                             "leaf switches of hosts, each linked to every spine (ECMP)",
                             {"leaves",
                              "hosts-per-leaf",
                              "spines",
                              "oversubscription",
                              "fabric-link-rate",
                              "fabric-link-delay"},
                             [](const TopologyConfig& c)
                             {
                                 return Ptr<const Topology>(Create<LeafSpineTopology>(c));
                             }});

void
CheckOversubscription(double oversubscription)
{
    if (!(oversubscription > 0) || !std::isfinite(oversubscription))
    {
        throw std::invalid_argument("oversubscription: got " + std::to_string(oversubscription)
                                    + "; expected a number greater than 0 (1 = non-blocking)");
    }
}

void
CheckOversubscription(const TopologyConfig& c)
{
    CheckOversubscription(c.oversubscription);
    if (!c.fabricLinkRate.empty() && c.oversubscription != TopologyConfig().oversubscription)
    {
        // taken and ignored before: the given uplink rate wins
        throw std::invalid_argument(
            "oversubscription: got " + dlnet::ShortestText(c.oversubscription)
            + "; it sets the uplink rate, which fabric-link-rate ("
            + dlnet::PrintableText(c.fabricLinkRate) + ") sets here; give one of them");
    }
}

DataRate
LeafUplinkRate(double hostBits, uint32_t spines, double oversubscription, const std::string& leaf)
{
    CheckOversubscription(oversubscription);
    double uplink = hostBits / (double(spines) * oversubscription);
    if (!(uplink >= 1 && uplink <= double(dlnet::MAX_RATE_BPS)))
    {
        throw std::invalid_argument(
            "oversubscription: gives " + leaf + "an uplink rate of " + dlnet::ShortestText(uplink)
            + " bit/s (its hosts' " + dlnet::ShortestText(hostBits) + " bit/s over "
            + std::to_string(spines) + " spines at oversubscription "
            + dlnet::ShortestText(oversubscription) + "); expected 1bps to "
            + std::to_string(dlnet::MAX_RATE_BPS / 1000000000ULL)
            + "Gbps: change oversubscription, hosts-per-leaf or spines, or set fabric-link-rate");
    }
    return DataRate(static_cast<uint64_t>(std::llround(uplink)));
}

} // namespace ns3
