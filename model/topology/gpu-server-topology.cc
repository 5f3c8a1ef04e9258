/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-server-topology.h"

#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetGpuServerTopology");

GpuServerTopology::GpuServerTopology(const TopologyConfig& c, bool rail)
    : m_config(c)
    , m_rail(rail)
    , m_servers(c.servers)
    , m_gpus(c.gpusPerServer)
    , m_serversPerLeaf(rail ? 1 : c.serversPerLeaf)
    , m_spines(c.spines)
{
    CheckPositive("gpus-per-server", m_gpus);
    c.CheckSizeBesideNodes("servers", c.servers, TopologyConfig().servers);
    if (c.nodes != 0)
    {
        if (c.nodes % m_gpus != 0)
        {
            throw std::invalid_argument("nodes: " + std::to_string(c.nodes)
                                        + " is not a multiple of gpus-per-server ("
                                        + std::to_string(m_gpus) + ")");
        }
        m_servers = c.nodes / m_gpus;
    }
    CheckPositive("servers", m_servers);
    CheckPositive("spines", m_spines);
    CheckRankCount(GetKind(), uint64_t(m_servers) * m_gpus);
    if (!rail)
    {
        CheckPositive("servers-per-leaf", m_serversPerLeaf);
        if (m_servers % m_serversPerLeaf != 0)
        {
            throw std::invalid_argument("servers-per-leaf: " + std::to_string(m_serversPerLeaf)
                                        + " does not divide servers (" + std::to_string(m_servers)
                                        + ")");
        }
    }
    CheckFabricLinkCount("spines",
                         std::to_string(GetNLeaves()) + " leaves x " + std::to_string(m_spines)
                             + " spines",
                         uint64_t(GetNLeaves()) * m_spines);
    m_nvlinkRate = dlnet::ParseRate("nvlink-rate", c.nvlinkRate);
    m_nicRate = dlnet::ParseRate("nic-rate", c.nicRate);
    m_nicDelay = dlnet::ParseTime("link-delay", c.hostLinkDelay);
    m_localRate = DataRate(m_nvlinkRate.GetBitRate() + m_nicRate.GetBitRate());
    uint64_t nicsPerLeaf = GetNRanks() / GetNLeaves();
    // non-blocking by default: a leaf's uplinks carry all its NICs
    double uplink = double(m_nicRate.GetBitRate()) * nicsPerLeaf / m_spines;
    m_fabricRate = ParseRateOr("fabric-link-rate",
                               c.fabricLinkRate,
                               DataRate(static_cast<uint64_t>(std::max(1.0, std::round(uplink)))));
    m_fabricDelay = ParseTimeOr("fabric-link-delay", c.fabricLinkDelay, m_nicDelay);
}

const TopologyConfig&
GpuServerTopology::GetConfig() const
{
    return m_config;
}

std::string
GpuServerTopology::GetKind() const
{
    return m_rail ? "rail-optimised" : "gpu-leaf-spine";
}

uint32_t
GpuServerTopology::GetNRanks() const
{
    return m_servers * m_gpus;
}

uint32_t
GpuServerTopology::GetNLeaves() const
{
    return m_rail ? m_gpus : m_servers / m_serversPerLeaf;
}

uint32_t
GpuServerTopology::LeafOf(uint32_t rank) const
{
    return m_rail ? rank % m_gpus : rank / m_gpus / m_serversPerLeaf;
}

Cluster
GpuServerTopology::Build() const
{
    const uint32_t n = GetNRanks();
    const uint32_t nLeaves = GetNLeaves();
    ClusterBuilder b(m_config, GetKind(), n);
    auto gpuName = [this](uint32_t r)
    {
        return "gpu" + std::to_string(r / m_gpus) + "-" + std::to_string(r % m_gpus);
    };
    std::vector<Ptr<Node>> gpuNode;
    std::vector<Ptr<FabricSwitch>> router;
    std::vector<uint32_t> localPort;
    for (uint32_t r = 0; r < n; ++r)
    {
        gpuNode.push_back(b.NewNode());
        router.push_back(b.NewSwitch(gpuNode.back(), "router" + std::to_string(r)));
        auto [gpuDev, routerDev] = b.Link(gpuNode[r],
                                          gpuName(r),
                                          gpuNode[r],
                                          "router" + std::to_string(r),
                                          m_localRate,
                                          Seconds(0),
                                          "local");
        localPort.push_back(router[r]->AddPort(routerDev));
        b.NewEndpoint(gpuNode[r], gpuDev, r);
    }
    std::vector<uint32_t> nvlinkPort(n);
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        std::string name = "nvswitch" + std::to_string(s);
        Ptr<Node> swNode = b.NewNode();
        Ptr<FabricSwitch> sw = b.NewSwitch(swNode, name);
        for (uint32_t r = s * m_gpus; r < (s + 1) * m_gpus; ++r)
        {
            auto [routerDev, swDev]
                = b.Link(gpuNode[r], gpuName(r), swNode, name, m_nvlinkRate, Seconds(0), "nvlink");
            nvlinkPort[r] = router[r]->AddPort(routerDev);
            sw->SetRoute(r, {sw->AddPort(swDev)});
        }
    }
    std::vector<Ptr<Node>> leafNode;
    std::vector<Ptr<FabricSwitch>> leaf;
    std::vector<std::string> leafName;
    for (uint32_t l = 0; l < nLeaves; ++l)
    {
        leafName.push_back((m_rail ? "rail" : "leaf") + std::to_string(l));
        leafNode.push_back(b.NewNode());
        leaf.push_back(b.NewSwitch(leafNode.back(), leafName.back()));
    }
    std::vector<uint32_t> nicPort(n);
    std::vector<uint32_t> leafPort(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        uint32_t l = LeafOf(r);
        auto [routerDev, leafDev] = b.Link(
            gpuNode[r], gpuName(r), leafNode[l], leafName[l], m_nicRate, m_nicDelay, "nic");
        nicPort[r] = router[r]->AddPort(routerDev);
        leafPort[r] = leaf[l]->AddPort(leafDev);
    }
    std::vector<std::vector<uint32_t>> uplinks(nLeaves);
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        std::string name = "spine" + std::to_string(s);
        Ptr<Node> spineNode = b.NewNode();
        Ptr<FabricSwitch> spine = b.NewSwitch(spineNode, name);
        std::vector<uint32_t> down(nLeaves);
        for (uint32_t l = 0; l < nLeaves; ++l)
        {
            auto [leafDev, spineDev] = b.Link(
                leafNode[l], leafName[l], spineNode, name, m_fabricRate, m_fabricDelay, "fabric");
            uplinks[l].push_back(leaf[l]->AddPort(leafDev));
            down[l] = spine->AddPort(spineDev);
        }
        // down to each rank's leaf, in runs of ranks on one leaf
        for (uint32_t first = 0, last = 0; first < n; first = last + 1)
        {
            for (last = first; last + 1 < n && LeafOf(last + 1) == LeafOf(first); ++last)
            {
            }
            spine->SetRoutes(first, last, {down[LeafOf(first)]});
        }
    }
    // a leaf: every rank up (ECMP), then its own ranks down
    for (uint32_t l = 0; l < nLeaves; ++l)
    {
        leaf[l]->SetRoutes(0, n - 1, uplinks[l]);
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        leaf[LeafOf(r)]->SetRoute(r, {leafPort[r]});
        // a GPU's router: the NIC, NVLink to its server's GPUs, the local link to its own GPU
        uint32_t server = r / m_gpus;
        router[r]->SetRoutes(0, n - 1, {nicPort[r]});
        router[r]->SetRoutes(server * m_gpus, (server + 1) * m_gpus - 1, {nvlinkPort[r]});
        router[r]->SetRoute(r, {localPort[r]});
    }
    return b.Finish();
}

TopologyPath
GpuServerTopology::GetPath(uint32_t a, uint32_t b) const
{
    PathLink local{double(m_localRate.GetBitRate()), 0};
    PathLink nvlink{double(m_nvlinkRate.GetBitRate()), 0};
    PathLink nic{double(m_nicRate.GetBitRate()), m_nicDelay.GetSeconds()};
    PathLink fabric{double(m_fabricRate.GetBitRate()), m_fabricDelay.GetSeconds()};
    if (a / m_gpus == b / m_gpus)
    {
        return TopologyPath{{local, nvlink, nvlink, local}, 3}; // router, NVSwitch, router
    }
    if (LeafOf(a) == LeafOf(b))
    {
        return TopologyPath{{local, nic, nic, local}, 3}; // router, leaf, router
    }
    return TopologyPath{{local, nic, fabric, fabric, nic, local}, 5};
}

bool
GpuServerTopology::HasEqualCostPaths() const
{
    // a leaf's uplinks, one per spine, carry what leaves a server for another leaf
    return m_servers > 1 && GetNLeaves() > 1 && m_spines > 1;
}

// The NIC: every byte a GPU sends out of its server leaves through its own
// NIC, and NVLink is several times faster, so for the collectives over all
// ranks (a flat ring or halving-doubling crosses servers at every step that
// leaves one) the NIC bounds a rank's sending. A communicator inside one
// server is bounded by this too, pessimistically; the grid gives the
// hierarchical algorithms NVLink for the inside-the-server dimension.
double
GpuServerTopology::GetRankRate() const
{
    return m_nicRate.GetBitRate();
}

uint32_t
GpuServerTopology::GetHostOf(uint32_t rank) const
{
    return rank / m_gpus;
}

TopologyGrid
GpuServerTopology::GetGrid() const
{
    TopologyGrid g;
    g.dim1 = m_gpus;    // inside a server, over the NVSwitch
    g.dim2 = m_servers; // GPU i of every server, over the NICs
    g.dim1Rate = m_nvlinkRate.GetBitRate();
    g.dim2Rate = m_nicRate.GetBitRate();
    if (!m_rail && GetNLeaves() > 1)
    {
        // the rings of GPU i cross leaves: the NICs of a leaf share its uplinks
        g.dim2Rate = std::min(
            g.dim2Rate, double(m_spines) * m_fabricRate.GetBitRate() / (m_serversPerLeaf * m_gpus));
    }
    // (rail-optimised: the ring of GPU i stays on rail i, NIC to NIC)
    return g;
}

static const bool g_railRegistered = TopologyRegistry::Add(
    {"rail-optimised",
     6,
     "GPU servers (NVSwitch inside, one NIC per GPU); GPU i of every server on rail leaf i, "
     "leaves joined by spines (ECMP)",
     {"servers",
      "gpus-per-server",
      "nvlink-rate",
      "nic-rate",
      "spines",
      "fabric-link-rate",
      "fabric-link-delay"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<GpuServerTopology>(c, true));
     },
     {"link-rate"},
     "its links are set by nvlink-rate, nic-rate and fabric-link-rate"});

static const bool g_leafSpineRegistered = TopologyRegistry::Add(
    {"gpu-leaf-spine",
     7,
     "GPU servers (NVSwitch inside, one NIC per GPU); a server's NICs on one leaf of a "
     "leaf-spine (ECMP), servers-per-leaf servers each",
     {"servers",
      "gpus-per-server",
      "nvlink-rate",
      "nic-rate",
      "spines",
      "servers-per-leaf",
      "fabric-link-rate",
      "fabric-link-delay"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<GpuServerTopology>(c, false));
     },
     {"link-rate"},
     "its links are set by nvlink-rate, nic-rate and fabric-link-rate"});

} // namespace ns3
