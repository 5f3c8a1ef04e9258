/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "wafer-helper.h"

#include "fabric-helper.h"
#include "topology-helper.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/time-resolution.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetWaferHelper");

namespace
{

constexpr uint32_t WAFER_IOS = 18;
constexpr uint32_t FRED_L1 = 5;
constexpr uint32_t FRED_L2 = 4;
constexpr uint32_t FRED_NPUS_PER_L1 = 4;
/// I/O controllers per L1 switch; indices run L1 by L1.
constexpr uint32_t FRED_IO_PER_L1[FRED_L1] = {4, 4, 4, 3, 3};
/// Largest packet the fabric takes, header included (TopologyConfig::mtu).
constexpr uint32_t MAX_MTU = 1u << 20;
constexpr uint32_t MIN_PAYLOAD = 64;

/// \return the rate in exact ns-3 syntax
std::string
RateString(DataRate rate)
{
    return std::to_string(rate.GetBitRate()) + "bps";
}

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

/// \return the name the cluster's link records give a node
std::string
NodeName(const Cluster& cluster, Ptr<Node> node)
{
    for (const auto& link : cluster.links)
    {
        if (link.a->GetNode() == node)
        {
            return link.from;
        }
        if (link.b->GetNode() == node)
        {
            return link.to;
        }
    }
    return "node" + std::to_string(node->GetId());
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
    std::string swName = NodeName(cluster, swNode);
    Ptr<Node> node = CreateObject<Node>();
    cluster.nodes.Add(node);
    auto [ioDev, swDev] = helper.Connect(node, swNode, rate, delay);
    uint32_t port = sw->AddPort(swDev); // sets the ingress latency: before Setup
    ioDev->Setup();
    swDev->Setup();
    cluster.links.push_back(
        Cluster::Link{"io", "io" + std::to_string(index), swName, ioDev, swDev});
    cluster.endpoints.push_back(helper.InstallEndpoint(node, ioDev, rank, cluster.directory));
    wafer.ioRanks.push_back(rank);
    return port;
}

void
BuildMeshIo(Wafer& w, const FabricHelper& helper, DataRate ioRate, Time delay)
{
    Cluster& c = w.cluster;
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

void
BuildFredIo(Wafer& w, const FabricHelper& helper, DataRate ioRate, Time delay)
{
    Cluster& c = w.cluster;
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

const std::vector<std::string>&
WaferVariants()
{
    static const std::vector<std::string> variants
        = {"mesh", "fred-a", "fred-b", "fred-c", "fred-d"};
    return variants;
}

void
WaferConfig::Validate() const
{
    dlnet::ParseChoice("variant", variant, WaferVariants());
    DataRate npu = dlnet::ParseRate("npu-bandwidth", npuBandwidth);
    if (npu.GetBitRate() < 8)
    {
        throw std::invalid_argument("npu-bandwidth: got '" + npuBandwidth
                                    + "'; expected at least 8bps (FRED-A/B uplinks get an eighth)");
    }
    dlnet::ParseRate("io-rate", ioRate);
    dlnet::ParseTime("link-delay", linkDelay, dlnet::MAX_DELAY_SECONDS);
    const uint32_t maxPayload = MAX_MTU - FabricHeader::SERIALIZED_SIZE;
    if (payloadBytes < MIN_PAYLOAD || payloadBytes > maxPayload)
    {
        throw std::invalid_argument("payload-bytes: got " + std::to_string(payloadBytes)
                                    + "; expected " + std::to_string(MIN_PAYLOAD) + " to "
                                    + std::to_string(maxPayload) + " bytes (the "
                                    + std::to_string(FabricHeader::SERIALIZED_SIZE)
                                    + "-byte FabricHeader makes packets of at most 1 MiB)");
    }
    if (middleStages < 1)
    {
        throw std::invalid_argument("middle-stages: got 0; expected a whole number of at least 1");
    }
}

bool
Wafer::IsFred() const
{
    return variant.rfind("fred-", 0) == 0;
}

bool
Wafer::InSwitch() const
{
    return variant == "fred-b" || variant == "fred-d";
}

TopologyConfig
WaferTopology(const WaferConfig& config)
{
    config.Validate();
    DataRate npu = dlnet::ParseRate("npu-bandwidth", config.npuBandwidth);
    TopologyConfig t;
    t.hostLinkRate = config.npuBandwidth;
    t.hostLinkDelay = config.linkDelay;
    t.fabricLinkDelay = config.linkDelay;
    t.switchLatency = "0ns";
    t.mtu = config.payloadBytes + FabricHeader::SERIALIZED_SIZE;
    t.trafficClasses = 4;
    t.flowControl = "lossless";
    if (config.variant == "mesh")
    {
        t.kind = "mesh";
        t.rows = WAFER_MESH_ROWS;
        t.cols = WAFER_MESH_COLS;
        t.fabricLinkRate = RateString(DataRate(npu.GetBitRate() / 4));
        t.localLinkRate = config.npuBandwidth;
    }
    else
    {
        bool thin = config.variant == "fred-a" || config.variant == "fred-b";
        t.kind = "leaf-spine";
        t.leaves = FRED_L1;
        t.hostsPerLeaf = FRED_NPUS_PER_L1;
        t.spines = FRED_L2;
        t.fabricLinkRate = thin ? RateString(DataRate(npu.GetBitRate() / 8)) : config.npuBandwidth;
    }
    return t;
}

Wafer
BuildWafer(const WaferConfig& config)
{
    config.Validate();
    dlnet::UsePicoseconds(); // before any Time is kept
    TopologyConfig t = WaferTopology(config);
    DataRate ioRate = dlnet::ParseRate("io-rate", config.ioRate);
    Time delay = dlnet::ParseTime("link-delay", config.linkDelay);

    Wafer w;
    w.variant = config.variant;
    w.npus = WAFER_NPUS;
    w.middleStages = config.middleStages;
    w.cluster = BuildCluster(t);
    NS_ASSERT(w.cluster.GetNRanks() == w.npus);
    FabricHelper helper = MakeFabricHelper(t);
    if (w.IsFred())
    {
        BuildFredIo(w, helper, ioRate, delay);
    }
    else
    {
        BuildMeshIo(w, helper, ioRate, delay);
    }
    return w;
}

} // namespace ns3
