/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hetero-leaf-spine-topology.h"

#include "cluster-builder.h"
#include "leaf-spine-topology.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetHeteroLeafSpineTopology");

namespace
{
/// The most hosts a topology may have (CheckRankCount's bound).
constexpr uint64_t MAX_HOSTS = 65536;
} // namespace

std::vector<HostGroup>
ParseHostGroups(const std::string& field, const std::string& text)
{
    const std::string allowed = "expected COUNTxRATE items separated by commas, e.g. "
                                "4x25Gbps,3x100Gbps (COUNT >= 1, at most "
                                + std::to_string(MAX_HOSTS) + " hosts in all)";
    if (text.empty())
    {
        throw std::invalid_argument(field + ": is empty; " + allowed);
    }
    std::vector<HostGroup> groups;
    uint64_t hosts = 0;
    std::size_t begin = 0;
    while (begin <= text.size())
    {
        std::size_t comma = text.find(',', begin);
        std::size_t end = comma == std::string::npos ? text.size() : comma;
        std::string item = text.substr(begin, end - begin);
        std::string where = field + ": item " + std::to_string(groups.size() + 1) + " '"
                            + dlnet::PrintableText(item) + "'";
        std::size_t x = item.find('x');
        if (x == std::string::npos || x == 0 || x + 1 == item.size())
        {
            throw std::invalid_argument(where + " is not COUNTxRATE; " + allowed);
        }
        HostGroup g;
        try
        {
            g.count = uint32_t(dlnet::ParseUnsigned("count", item.substr(0, x), 1, MAX_HOSTS));
            g.rate = dlnet::ParseRate("rate", item.substr(x + 1));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(where + ": " + e.what());
        }
        hosts += g.count;
        if (hosts > MAX_HOSTS)
        {
            throw std::invalid_argument(field + ": more than " + std::to_string(MAX_HOSTS)
                                        + " hosts in all; " + allowed);
        }
        groups.push_back(g);
        if (comma == std::string::npos)
        {
            break;
        }
        begin = comma + 1;
    }
    return groups;
}

HeteroLeafSpineTopology::HeteroLeafSpineTopology(const TopologyConfig& c)
    : m_config(c)
    , m_spines(c.spines)
    , m_hostDelay(dlnet::ParseTime("link-delay", c.hostLinkDelay))
{
    CheckPositive("hosts-per-leaf", c.hostsPerLeaf);
    CheckPositive("spines", m_spines);
    CheckOversubscription(c);
    std::vector<HostGroup> groups = ParseHostGroups("host-groups", c.hostGroups);
    for (const HostGroup& g : groups)
    {
        // a group starts on a new leaf: no leaf mixes rates
        for (uint32_t h = 0; h < g.count; ++h)
        {
            if (h % c.hostsPerLeaf == 0)
            {
                m_firstRank.push_back(m_hostRate.size());
            }
            m_leafOf.push_back(m_firstRank.size() - 1);
            m_hostRate.push_back(g.rate);
        }
    }
    CheckRankCount("hetero-leaf-spine", m_hostRate.size());
    m_slowestRate = double(std::min_element(m_hostRate.begin(), m_hostRate.end())->GetBitRate());
    CheckFabricLinkCount("spines",
                         std::to_string(m_firstRank.size()) + " leaves x "
                             + std::to_string(m_spines) + " spines",
                         uint64_t(m_firstRank.size()) * m_spines);
    if (c.nodes != 0 && c.nodes != m_hostRate.size())
    {
        throw std::invalid_argument("nodes: " + std::to_string(c.nodes)
                                    + " is not the host count of host-groups ("
                                    + std::to_string(m_hostRate.size()) + "); expected 0 or that");
    }
    m_firstRank.push_back(m_hostRate.size());
    DataRate fixed;
    if (!c.fabricLinkRate.empty())
    {
        fixed = dlnet::ParseRate("fabric-link-rate", c.fabricLinkRate);
    }
    for (uint32_t l = 0; l + 1 < m_firstRank.size(); ++l)
    {
        if (!c.fabricLinkRate.empty())
        {
            m_uplinkRate.push_back(fixed);
            continue;
        }
        // the leaf as if full: a group's last leaf, partly filled, gets the uplinks of its
        // others (a lone host on it must not find an uplink slower than its own link)
        double sum = double(m_hostRate[m_firstRank[l]].GetBitRate()) * c.hostsPerLeaf;
        m_uplinkRate.push_back(
            LeafUplinkRate(sum, m_spines, c.oversubscription, "leaf " + std::to_string(l) + " "));
    }
    m_fabricDelay = c.fabricLinkDelay.empty()
                        ? m_hostDelay
                        : dlnet::ParseTime("fabric-link-delay", c.fabricLinkDelay);
}

const TopologyConfig&
HeteroLeafSpineTopology::GetConfig() const
{
    return m_config;
}

std::string
HeteroLeafSpineTopology::GetKind() const
{
    return "hetero-leaf-spine";
}

uint32_t
HeteroLeafSpineTopology::GetNRanks() const
{
    return m_hostRate.size();
}

uint32_t
HeteroLeafSpineTopology::GetLeaves() const
{
    return m_uplinkRate.size();
}

double
HeteroLeafSpineTopology::GetHostRate(uint32_t rank) const
{
    return double(m_hostRate.at(rank).GetBitRate());
}

uint32_t
HeteroLeafSpineTopology::GetLeafOf(uint32_t rank) const
{
    return m_leafOf.at(rank);
}

double
HeteroLeafSpineTopology::GetUplinkRate(uint32_t leaf) const
{
    return double(m_uplinkRate.at(leaf).GetBitRate());
}

Cluster
HeteroLeafSpineTopology::Build() const
{
    uint32_t nRanks = GetNRanks();
    ClusterBuilder b(m_config, GetKind(), nRanks);
    std::vector<Ptr<Node>> spineNodes;
    std::vector<Ptr<FabricSwitch>> spines;
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        spineNodes.push_back(b.NewNode());
        spines.push_back(b.NewSwitch(spineNodes.back(), "spine" + std::to_string(s)));
    }
    for (uint32_t l = 0; l < GetLeaves(); ++l)
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
                                              m_uplinkRate[l],
                                              m_fabricDelay,
                                              "fabric");
            uplinks.push_back(leaf->AddPort(leafDev));
            uint32_t down = spines[s]->AddPort(spineDev);
            if (m_firstRank[l + 1] > m_firstRank[l])
            {
                spines[s]->SetRoutes(m_firstRank[l], m_firstRank[l + 1] - 1, {down});
            }
        }
        // every rank up (ECMP), then the leaf's own ranks down
        leaf->SetRoutes(0, nRanks - 1, uplinks);
        for (uint32_t r = m_firstRank[l]; r < m_firstRank[l + 1]; ++r)
        {
            Ptr<Node> host = b.NewNode();
            auto [hostDev, leafDev]
                = b.Link(host, HostName(r), leafNode, leafName, m_hostRate[r], m_hostDelay, "host");
            leaf->SetRoute(r, {leaf->AddPort(leafDev)});
            b.NewEndpoint(host, hostDev, r);
        }
    }
    return b.Finish();
}

TopologyPath
HeteroLeafSpineTopology::GetPath(uint32_t a, uint32_t b) const
{
    PathLink from{GetHostRate(a), m_hostDelay.GetSeconds()};
    PathLink to{GetHostRate(b), m_hostDelay.GetSeconds()};
    uint32_t la = m_leafOf.at(a);
    uint32_t lb = m_leafOf.at(b);
    if (la == lb)
    {
        return TopologyPath{{from, to}, 1};
    }
    PathLink up{GetUplinkRate(la), m_fabricDelay.GetSeconds()};
    PathLink down{GetUplinkRate(lb), m_fabricDelay.GetSeconds()};
    return TopologyPath{{from, up, down, to}, 3};
}

bool
HeteroLeafSpineTopology::HasEqualCostPaths() const
{
    uint32_t leavesWithRanks = 0;
    for (uint32_t l = 0; l < GetLeaves(); ++l)
    {
        leavesWithRanks += m_firstRank[l + 1] > m_firstRank[l] ? 1 : 0;
    }
    return leavesWithRanks > 1 && m_spines > 1; // a leaf's uplinks, one per spine
}

double
HeteroLeafSpineTopology::GetRankRate() const
{
    // (a scan of every host per call made the estimate's alphas, one a ring pair, quadratic:
    // 84 s to refuse 65536 hosts)
    return m_slowestRate;
}

static const bool g_registered = TopologyRegistry::Add(
    {"hetero-leaf-spine",
     8,
     "leaf-spine whose hosts come in groups of their own link rate (host-groups)",
     {"host-groups",
      "hosts-per-leaf",
      "spines",
      "oversubscription",
      "fabric-link-rate",
      "fabric-link-delay"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<HeteroLeafSpineTopology>(c));
     },
     {"link-rate"},
     "its host links are set by host-groups"});

} // namespace ns3
