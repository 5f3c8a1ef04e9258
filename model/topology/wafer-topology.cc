/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "wafer-topology.h"

#include "fabric-helper.h"
#include "grid-topology.h"
#include "leaf-spine-topology.h"

#include "ns3/config-parse.h"
#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/time-resolution.h"

#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetWaferTopology");

namespace
{

/// I/O controllers per L1 switch; indices run L1 by L1.
constexpr uint32_t FRED_IO_PER_L1[FRED_L1] = {4, 4, 4, 3, 3};

/// \return the node a switch is aggregated to
Ptr<Node>
SwitchNode(Ptr<FabricSwitch> sw)
{
    Ptr<Node> node = sw->GetObject<Node>();
    if (!node)
    {
        throw std::logic_error("BuildWafer: a switch is not aggregated to a node");
    }
    return node;
}

/// \return the port of sw whose link leads to the node peer
uint32_t
PortToward(Ptr<FabricSwitch> sw, Ptr<Node> peer)
{
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        Ptr<FabricNetDevice> other = sw->GetPort(p)->GetPeer();
        if (other && other->GetNode() == peer)
        {
            return p;
        }
    }
    throw std::logic_error("BuildWafer: no switch port toward node "
                           + std::to_string(peer->GetId()));
}

/// \return the name the cluster gives a switch (its links' name for that end)
std::string
SwitchName(const Cluster& cluster, Ptr<FabricSwitch> sw)
{
    for (std::size_t s = 0; s < cluster.switches.size(); ++s)
    {
        if (cluster.switches[s] == sw)
        {
            return cluster.switchNames[s];
        }
    }
    throw std::logic_error("BuildWafer: a switch the cluster does not hold");
}

/// \return the switch BuildCluster named name
Ptr<FabricSwitch>
SwitchNamed(const Cluster& cluster, const std::string& name)
{
    for (std::size_t s = 0; s < cluster.switches.size(); ++s)
    {
        if (cluster.switchNames[s] == name)
        {
            return cluster.switches[s];
        }
    }
    throw std::logic_error("BuildWafer: the cluster has no switch " + name);
}

/**
 * Add one I/O controller: a new node with an endpoint of the next rank,
 * linked to the switch sw.
 * \return the switch's port toward it
 */
uint32_t
AttachIo(Wafer& wafer, const FabricHelper& helper, Ptr<FabricSwitch> sw, DataRate rate, Time delay)
{
    Cluster& cluster = wafer.cluster;
    uint32_t index = wafer.ioRanks.size();
    uint32_t rank = cluster.endpoints.size();
    Ptr<Node> swNode = SwitchNode(sw);
    std::string swName = SwitchName(cluster, sw);
    Ptr<Node> node = CreateObject<Node>();
    cluster.nodes.Add(node);
    auto [ioDev, swDev] = helper.Connect(node, swNode, rate, delay);
    uint32_t port = sw->AddPort(swDev); // sets the ingress latency: before Setup
    ioDev->Setup();
    swDev->Setup();
    cluster.links.push_back(
        Cluster::Link{"io", "io" + std::to_string(index), swName, ioDev, swDev});
    cluster.endpoints.push_back(helper.InstallEndpoint(node, ioDev, rank, cluster.directory));
    if (cluster.flow)
    {
        cluster.flow->Attach(cluster.endpoints.back()); // network=flow carries its messages too
    }
    wafer.ioRanks.push_back(rank);
    return port;
}

/// Mesh: the NPU and side of every I/O controller, by I/O index.
void
MeshIoPlaces(Wafer& w)
{
    const Cluster& c = w.cluster;
    w.rows = c.rows;
    w.cols = c.cols;
    // North (y = 0) x = 0..cols-1, south (y = rows-1) x = 0..cols-1,
    // west (x = 0) y = 0..rows-1, east (x = cols-1) y = 0..rows-1.
    for (uint32_t x = 0; x < w.cols; ++x)
    {
        w.ioNpu.push_back(x);
        w.ioSide.push_back('N');
    }
    for (uint32_t x = 0; x < w.cols; ++x)
    {
        w.ioNpu.push_back((w.rows - 1) * w.cols + x);
        w.ioSide.push_back('S');
    }
    for (uint32_t y = 0; y < w.rows; ++y)
    {
        w.ioNpu.push_back(y * w.cols);
        w.ioSide.push_back('W');
    }
    for (uint32_t y = 0; y < w.rows; ++y)
    {
        w.ioNpu.push_back(y * w.cols + w.cols - 1);
        w.ioSide.push_back('E');
    }
    NS_ASSERT(w.ioNpu.size() == WAFER_IOS);
}

void
BuildMeshIo(Wafer& w, const FabricHelper& helper, DataRate ioRate, Time delay)
{
    Cluster& c = w.cluster;
    MeshIoPlaces(w);
    // BuildGrid: router r is switch r, on the node of NPU r.
    std::vector<Ptr<FabricSwitch>> routers(c.switches.begin(), c.switches.begin() + w.npus);
    for (uint32_t r = 0; r < w.npus; ++r)
    {
        if (SwitchNode(routers[r]) != c.endpoints[r]->GetDevice()->GetNode())
        {
            throw std::logic_error("BuildWafer: mesh router " + std::to_string(r)
                                   + " is not on the node of NPU " + std::to_string(r));
        }
    }
    for (uint32_t i = 0; i < WAFER_IOS; ++i)
    {
        uint32_t npu = w.ioNpu[i];
        uint32_t port = AttachIo(w, helper, routers[npu], ioRate, delay);
        uint32_t rank = w.ioRanks.back();
        for (uint32_t r = 0; r < w.npus; ++r)
        {
            // X-Y toward the I/O's NPU, then out of its router on the new port
            routers[r]->SetRoute(
                rank, r == npu ? std::vector<uint32_t>{port} : routers[r]->GetRoute(npu));
        }
    }
}

/// FRED: the L1 and L2 switches and their ports toward NPUs and each other.
void
FredSwitches(Wafer& w)
{
    const Cluster& c = w.cluster;
    w.npusPerL1 = FRED_NPUS_PER_L1;
    for (uint32_t j = 0; j < FRED_L2; ++j)
    {
        w.l2.push_back(SwitchNamed(c, "spine" + std::to_string(j)));
    }
    for (uint32_t k = 0; k < FRED_L1; ++k)
    {
        w.l1.push_back(SwitchNamed(c, "leaf" + std::to_string(k)));
    }
    // Ports found by what their links lead to, not assumed from the build order.
    w.l1Npu.assign(FRED_L1, std::vector<uint32_t>(w.npusPerL1));
    w.l1Up.assign(FRED_L1, std::vector<uint32_t>(FRED_L2));
    w.l2Down.assign(FRED_L2, std::vector<uint32_t>(FRED_L1));
    for (uint32_t k = 0; k < FRED_L1; ++k)
    {
        for (uint32_t i = 0; i < w.npusPerL1; ++i)
        {
            Ptr<Node> npu = c.endpoints[k * w.npusPerL1 + i]->GetDevice()->GetNode();
            w.l1Npu[k][i] = PortToward(w.l1[k], npu);
        }
        for (uint32_t j = 0; j < FRED_L2; ++j)
        {
            w.l1Up[k][j] = PortToward(w.l1[k], SwitchNode(w.l2[j]));
            w.l2Down[j][k] = PortToward(w.l2[j], SwitchNode(w.l1[k]));
        }
    }
}

void
BuildFredIo(Wafer& w, const FabricHelper& helper, DataRate ioRate, Time delay)
{
    FredSwitches(w);
    // Destination-mod-k: NPU 4k'+i is reached from every other L1 through L2 i.
    // (The L2s keep BuildCluster's single down route.)
    for (uint32_t k = 0; k < FRED_L1; ++k)
    {
        for (uint32_t dst = 0; dst < w.npus; ++dst)
        {
            if (w.L1Of(dst) != k)
            {
                w.l1[k]->SetRoute(dst, {w.l1Up[k][(dst % w.npusPerL1) % FRED_L2]});
            }
        }
    }
    // I/O controllers: indices 0-3 on L1 0, 4-7 on L1 1, 8-11 on L1 2,
    // 12-14 on L1 3, 15-17 on L1 4; the j-th of an L1 is reached from the
    // other L1s through L2 j.
    for (uint32_t k = 0; k < FRED_L1; ++k)
    {
        for (uint32_t j = 0; j < FRED_IO_PER_L1[k]; ++j)
        {
            uint32_t port = AttachIo(w, helper, w.l1[k], ioRate, delay);
            uint32_t rank = w.ioRanks.back();
            w.ioL1.push_back(k);
            w.ioL1Port.push_back(port);
            for (uint32_t k2 = 0; k2 < FRED_L1; ++k2)
            {
                w.l1[k2]->SetRoute(rank, {k2 == k ? port : w.l1Up[k2][j % FRED_L2]});
            }
            for (uint32_t j2 = 0; j2 < FRED_L2; ++j2)
            {
                w.l2[j2]->SetRoute(rank, {w.l2Down[j2][k]});
            }
        }
    }
    NS_ASSERT(w.ioRanks.size() == WAFER_IOS);
}

} // namespace

WaferScaleTopology::WaferScaleTopology(const WaferConfig& config)
    : m_wafer(config)
{
    config.Validate();
    m_variant = ParseWaferVariant("variant", config.variant);
    TopologyConfig inner = WaferTopology(config);
    if (m_variant == WaferVariant::MESH)
    {
        m_inner = Create<GridTopology>(inner, false);
    }
    else
    {
        m_inner = Create<LeafSpineTopology>(inner);
    }
    m_config = inner;
    m_config.kind = WaferKindName(m_variant);
    // what FromTopologyConfig reads back
    m_config.hostLinkRate = config.npuBandwidth;
    m_config.hostLinkDelay = config.linkDelay;
    m_config.given = {"link-rate", "link-delay", "mtu"};
    if (config.network != "packet")
    {
        m_config.given.insert("network");
    }
}

WaferConfig
WaferScaleTopology::FromTopologyConfig(const TopologyConfig& config, WaferVariant variant)
{
    // (MakeTopology refused the fabric options a wafer does not take: RegisterWafers)
    WaferConfig w;
    w.variant = ToString(variant);
    if (config.given.count("link-rate"))
    {
        // (checked under the option's own name: Validate would name npu-bandwidth)
        dlnet::ParseRate("link-rate", config.hostLinkRate, WAFER_MIN_NPU_BPS);
        w.npuBandwidth = config.hostLinkRate;
    }
    if (config.given.count("link-delay"))
    {
        w.linkDelay = config.hostLinkDelay;
    }
    // the config's mtu (its default too) is the packet: the models read it
    // (named here: WaferConfig::Validate would name its payload-bytes, an option this
    // config does not have)
    const uint32_t minMtu = WAFER_MIN_PAYLOAD + FabricHeader::SERIALIZED_SIZE;
    if (config.mtu < minMtu || config.mtu > MAX_MTU)
    {
        throw std::invalid_argument(
            "mtu: got " + std::to_string(config.mtu) + "; a wafer packet needs "
            + std::to_string(minMtu) + " to " + std::to_string(MAX_MTU) + " bytes (a payload of "
            + std::to_string(WAFER_MIN_PAYLOAD) + " bytes at least behind the "
            + std::to_string(FabricHeader::SERIALIZED_SIZE) + "-byte header)");
    }
    w.payloadBytes = config.mtu - FabricHeader::SERIALIZED_SIZE;
    w.network = config.network;
    w.Validate();
    return w;
}

std::string
WaferScaleTopology::GetKind() const
{
    return WaferKindName(m_variant);
}

const TopologyConfig&
WaferScaleTopology::GetConfig() const
{
    return m_config;
}

uint32_t
WaferScaleTopology::GetNRanks() const
{
    return WAFER_NPUS;
}

WaferVariant
WaferScaleTopology::GetVariant() const
{
    return m_variant;
}

const WaferConfig&
WaferScaleTopology::GetWaferConfig() const
{
    return m_wafer;
}

TopologyPath
WaferScaleTopology::GetPath(uint32_t a, uint32_t b) const
{
    return m_inner->GetPath(a, b);
}

bool
WaferScaleTopology::HasEqualCostPaths() const
{
    return false; // the mesh routes by dimension, the FRED tree by destination
}

double
WaferScaleTopology::GetRankRate() const
{
    return m_inner->GetRankRate();
}

TopologyGrid
WaferScaleTopology::GetGrid() const
{
    return m_inner->GetGrid();
}

Cluster
WaferScaleTopology::Build() const
{
    dlnet::UsePicoseconds(); // before any Time is kept
    DataRate ioRate = dlnet::ParseRate("io-rate", m_wafer.ioRate);
    Time delay = dlnet::ParseTime("link-delay", m_wafer.linkDelay);

    Wafer w;
    w.variant = m_variant;
    w.npus = WAFER_NPUS;
    w.middleStages = m_wafer.middleStages;
    w.cluster = m_inner->Build();
    NS_ASSERT(w.cluster.GetNRanks() == w.npus);
    FabricHelper helper = MakeFabricHelper(WaferTopology(m_wafer));
    if (IsFred(m_variant))
    {
        BuildFredIo(w, helper, ioRate, delay);
    }
    else
    {
        BuildMeshIo(w, helper, ioRate, delay);
    }
    return w.cluster;
}

Wafer
WaferScaleTopology::Describe(const Cluster& cluster) const
{
    if (cluster.GetNRanks() != WAFER_NPUS + WAFER_IOS)
    {
        throw std::invalid_argument("topology: a cluster of " + std::to_string(cluster.GetNRanks())
                                    + " endpoints is not a " + GetKind() + " (20 NPUs and 18 I/O "
                                    + "controllers)");
    }
    Wafer w;
    w.variant = m_variant;
    w.npus = WAFER_NPUS;
    w.middleStages = m_wafer.middleStages;
    w.cluster = cluster;
    for (uint32_t i = 0; i < WAFER_IOS; ++i)
    {
        w.ioRanks.push_back(WAFER_NPUS + i);
    }
    if (!IsFred(m_variant))
    {
        MeshIoPlaces(w);
        return w;
    }
    FredSwitches(w);
    uint32_t io = 0;
    for (uint32_t k = 0; k < FRED_L1; ++k)
    {
        for (uint32_t j = 0; j < FRED_IO_PER_L1[k]; ++j, ++io)
        {
            Ptr<Node> node = cluster.endpoints[w.ioRanks[io]]->GetDevice()->GetNode();
            w.ioL1.push_back(k);
            w.ioL1Port.push_back(PortToward(w.l1[k], node));
        }
    }
    return w;
}

Wafer
WaferScaleTopology::BuildWafer() const
{
    return Describe(Build());
}

namespace
{

bool
RegisterWafers()
{
    // a wafer takes these of the fabric options; the others are the preset's
    static const std::set<std::string> taken
        = {"topology", "link-rate", "link-delay", "mtu", "network"};
    std::vector<std::string> refused;
    for (const auto& option : TopologyConfig::FabricOptions())
    {
        if (!taken.count(option))
        {
            refused.push_back(option);
        }
    }
    uint32_t order = 50;
    for (WaferVariant v : {WaferVariant::MESH,
                           WaferVariant::FRED_A,
                           WaferVariant::FRED_B,
                           WaferVariant::FRED_C,
                           WaferVariant::FRED_D})
    {
        static const char* help[] = {
            "FRED paper wafer: 20 NPUs on a 5 x 4 mesh and 18 I/O controllers",
            "FRED paper wafer: 20 NPUs on a FRED fat tree, 375 GB/s uplinks (A)",
            "FRED paper wafer: as fred-a, collectives in the switches (B)",
            "FRED paper wafer: 20 NPUs on a FRED fat tree, 3 TB/s uplinks (C)",
            "FRED paper wafer: as fred-c, collectives in the switches (D)",
        };
        TopologyRegistry::Add({WaferKindName(v),
                               order,
                               help[order - 50],
                               {},
                               [v](const TopologyConfig& c)
                               {
                                   return Ptr<const Topology>(Create<WaferScaleTopology>(
                                       WaferScaleTopology::FromTopologyConfig(c, v)));
                               },
                               refused,
                               "a wafer takes link-rate (NPU bandwidth), link-delay, mtu and "
                               "network (it is lossless, 4 traffic classes, switch latency 0)",
                               {"link-rate", "link-delay"}}); // (FromTopologyConfig)
        ++order;
    }
    return true;
}

const bool g_registered = RegisterWafers();

} // namespace

} // namespace ns3
