/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fat-tree-topology.h"

#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetFatTreeTopology");

namespace
{
/// \return k^3/4 without overflow (UINT64_MAX for a k far too large)
uint64_t
Hosts(uint64_t k)
{
    return k > (1u << 20) ? UINT64_MAX : k * k * k / 4;
}
} // namespace

FatTreeTopology::FatTreeTopology(const TopologyConfig& c)
    : m_config(c)
    , m_k(c.k)
    , m_hostRate(dlnet::ParseRate("link-rate", c.hostLinkRate))
    , m_hostDelay(dlnet::ParseTime("link-delay", c.hostLinkDelay))
{
    c.CheckSizeBesideNodes("k", c.k, TopologyConfig().k);
    if (c.nodes != 0)
    {
        m_k = 0;
        for (uint32_t k = 2; Hosts(k) <= c.nodes; k += 2)
        {
            if (Hosts(k) == c.nodes)
            {
                m_k = k;
            }
        }
        if (m_k == 0)
        {
            throw std::invalid_argument("nodes: " + std::to_string(c.nodes)
                                        + " is not k^3/4 for an even k (a fat tree has 2, 16, 54, "
                                          "128, 250, ... hosts); set k instead");
        }
    }
    if (m_k < 2 || m_k % 2 != 0)
    {
        throw std::invalid_argument(
            "k: got " + std::to_string(m_k)
            + "; expected an even switch radix of at least 2 (2, 4, 6, ...)");
    }
    CheckRankCount("fat-tree", Hosts(m_k));
    m_fabricRate = ParseRateOr("fabric-link-rate", c.fabricLinkRate, m_hostRate);
    m_fabricDelay = ParseTimeOr("fabric-link-delay", c.fabricLinkDelay, m_hostDelay);
}

const TopologyConfig&
FatTreeTopology::GetConfig() const
{
    return m_config;
}

std::string
FatTreeTopology::GetKind() const
{
    return "fat-tree";
}

uint32_t
FatTreeTopology::GetNRanks() const
{
    return Hosts(m_k);
}

Cluster
FatTreeTopology::Build() const
{
    const uint32_t k = m_k;
    const uint32_t half = k / 2;
    const uint32_t nRanks = GetNRanks();
    ClusterBuilder b(m_config, GetKind(), nRanks);
    auto podOf = [half](uint32_t rank)
    {
        return rank / (half * half);
    };
    auto edgeOf = [half](uint32_t rank)
    {
        return rank / half % half;
    };

    std::vector<Ptr<Node>> coreNode;
    std::vector<Ptr<FabricSwitch>> core;
    std::vector<std::string> coreName;
    for (uint32_t c = 0; c < half * half; ++c)
    {
        coreName.push_back("core" + std::to_string(c));
        coreNode.push_back(b.NewNode());
        core.push_back(b.NewSwitch(coreNode.back(), coreName.back()));
    }
    auto switchName = [](const std::string& tier, uint32_t pod, uint32_t i)
    {
        return tier + std::to_string(pod) + "-" + std::to_string(i);
    };
    // aggregation switches of every pod, then edge switches of every pod
    std::vector<Ptr<Node>> aggNode;
    std::vector<Ptr<FabricSwitch>> agg;
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t a = 0; a < half; ++a)
        {
            aggNode.push_back(b.NewNode());
            agg.push_back(b.NewSwitch(aggNode.back(), switchName("agg", p, a)));
            // With the edges' seed a flow's core index would equal its
            // aggregation index (the same hash modulo k/2 twice) and only k/2
            // of the (k/2)^2 cores would carry traffic (ECMP polarisation).
            agg.back()->SetAttribute("EcmpSeed", UintegerValue(m_config.ecmpSeed + 1));
        }
    }
    std::vector<Ptr<Node>> edgeNode;
    std::vector<Ptr<FabricSwitch>> edge;
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            edgeNode.push_back(b.NewNode());
            edge.push_back(b.NewSwitch(edgeNode.back(), switchName("edge", p, e)));
        }
    }

    // aggregation <-> core: agg a of pod p to cores a*half + j; core port p leads to pod p
    std::vector<std::vector<uint32_t>> aggUp(k * half);
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t a = 0; a < half; ++a)
        {
            uint32_t i = p * half + a;
            for (uint32_t j = 0; j < half; ++j)
            {
                uint32_t c = a * half + j;
                auto [aggDev, coreDev] = b.Link(aggNode[i],
                                                switchName("agg", p, a),
                                                coreNode[c],
                                                coreName[c],
                                                m_fabricRate,
                                                m_fabricDelay,
                                                "fabric");
                aggUp[i].push_back(agg[i]->AddPort(aggDev));
                uint32_t down = core[c]->AddPort(coreDev);
                core[c]->SetRoutes(p * half * half, (p + 1) * half * half - 1, {down});
            }
            // up (ECMP over its cores) to every rank; its own pod's ranks get down routes below
            agg[i]->SetRoutes(0, nRanks - 1, aggUp[i]);
        }
    }
    // edge <-> aggregation: edge e of pod p to every agg of pod p
    std::vector<std::vector<uint32_t>> edgeUp(k * half);
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            uint32_t ei = p * half + e;
            for (uint32_t a = 0; a < half; ++a)
            {
                uint32_t ai = p * half + a;
                auto [edgeDev, aggDev] = b.Link(edgeNode[ei],
                                                switchName("edge", p, e),
                                                aggNode[ai],
                                                switchName("agg", p, a),
                                                m_fabricRate,
                                                m_fabricDelay,
                                                "fabric");
                edgeUp[ei].push_back(edge[ei]->AddPort(edgeDev));
                uint32_t down = agg[ai]->AddPort(aggDev);
                agg[ai]->SetRoutes((p * half + e) * half, (p * half + e + 1) * half - 1, {down});
            }
            // up (ECMP over its pod's aggregation switches) to every rank but its own hosts
            edge[ei]->SetRoutes(0, nRanks - 1, edgeUp[ei]);
        }
    }
    // hosts
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        uint32_t ei = podOf(r) * half + edgeOf(r);
        Ptr<Node> host = b.NewNode();
        auto [hostDev, edgeDev] = b.Link(host,
                                         HostName(r),
                                         edgeNode[ei],
                                         switchName("edge", podOf(r), edgeOf(r)),
                                         m_hostRate,
                                         m_hostDelay,
                                         "host");
        edge[ei]->SetRoute(r, {edge[ei]->AddPort(edgeDev)});
        b.NewEndpoint(host, hostDev, r);
    }
    return b.Finish();
}

TopologyPath
FatTreeTopology::GetPath(uint32_t a, uint32_t b) const
{
    const uint32_t half = m_k / 2;
    PathLink host{double(m_hostRate.GetBitRate()), m_hostDelay.GetSeconds()};
    PathLink fabric{double(m_fabricRate.GetBitRate()), m_fabricDelay.GetSeconds()};
    if (a / half == b / half)
    {
        return TopologyPath{{host, host}, 1}; // the edge switch
    }
    if (a / (half * half) == b / (half * half))
    {
        return TopologyPath{{host, fabric, fabric, host}, 3}; // edge, aggregation, edge
    }
    return TopologyPath{{host, fabric, fabric, fabric, fabric, host}, 5}; // through a core
}

bool
FatTreeTopology::HasEqualCostPaths() const
{
    return m_k >= 4; // k/2 uplinks from every edge and aggregation switch
}

double
FatTreeTopology::GetRankRate() const
{
    return m_hostRate.GetBitRate();
}

TopologyGrid
FatTreeTopology::GetGrid() const
{
    TopologyGrid g;
    g.dim1 = m_k / 2;              // the hosts under an edge switch
    g.dim2 = GetNRanks() / g.dim1; // every edge switch
    g.dim1Rate = m_hostRate.GetBitRate();
    // a host's share of its edge switch's k/2 uplinks (k/2 hosts share them)
    g.dim2Rate = std::min(double(m_hostRate.GetBitRate()), double(m_fabricRate.GetBitRate()));
    return g;
}

// No aggregation tree: the in-network backends (SwitchML, OmniReduce) have
// been written and tested for trees of at most two switch levels (star,
// leaf-spine); a fat tree's tree is three levels (edge, aggregation, core)
// whose middle level must be the same aggregation index in every pod. Until
// that is exercised by a test, the topology reports that it cannot
// aggregate rather than hand out an untested tree.

static const bool g_registered = TopologyRegistry::Add(
    {"fat-tree",
     4,
     "three-tier k-ary fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 "
     "cores, k^3/4 hosts (ECMP up, deterministic down)",
     {"k", "fabric-link-rate", "fabric-link-delay"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<FatTreeTopology>(c));
     }});

} // namespace ns3
