/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-helper.h"

#include "fabric-helper.h"

#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/time-resolution.h"
#include "ns3/uinteger.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetTopologyHelper");

namespace
{

constexpr uint32_t MAX_RANKS = 1 << 16;

/// Everything a builder needs, resolved from the config.
struct BuildContext
{
    const TopologyConfig& config;
    FabricHelper helper;
    DataRate hostRate;
    Time hostDelay;
    DataRate fabricRate;
    Time fabricDelay;
    Cluster cluster;
    int64_t nextStream{1 << 16}; //!< loss models; streams below are the experiments'

    explicit BuildContext(const TopologyConfig& c)
        : config(c)
    {
    }

    Ptr<Node> NewNode()
    {
        Ptr<Node> node = CreateObject<Node>();
        cluster.nodes.Add(node);
        return node;
    }

    /// Connect and record a link; returns the two devices.
    std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>> Link(Ptr<Node> a,
                                                               const std::string& aName,
                                                               Ptr<Node> b,
                                                               const std::string& bName,
                                                               DataRate rate,
                                                               Time delay,
                                                               const std::string& tier)
    {
        auto devices = helper.Connect(a, b, rate, delay);
        if (config.flowControl == "lossy" && config.lossRate > 0 && tier != "local")
        {
            for (auto& device : {devices.first, devices.second})
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
                em->SetAttribute("ErrorRate", DoubleValue(config.lossRate));
                nextStream += em->AssignStreams(nextStream);
                device->SetAttribute("ReceiveErrorModel", PointerValue(em));
            }
        }
        cluster.links.push_back(Cluster::Link{tier, aName, bName, devices.first, devices.second});
        return devices;
    }

    Ptr<FabricSwitch> NewSwitch(Ptr<Node> node, const std::string& name)
    {
        Ptr<FabricSwitch> sw = helper.InstallSwitch(node);
        cluster.switches.push_back(sw);
        cluster.switchNames.push_back(name);
        return sw;
    }

    Ptr<FabricEndpoint> NewEndpoint(Ptr<Node> node, Ptr<FabricNetDevice> device, uint32_t rank)
    {
        Ptr<FabricEndpoint> ep = helper.InstallEndpoint(node, device, rank, cluster.directory);
        cluster.endpoints[rank] = ep;
        return ep;
    }
};

std::string
HostName(uint32_t rank)
{
    return "host" + std::to_string(rank);
}

void
BuildStar(BuildContext& ctx)
{
    const TopologyConfig& c = ctx.config;
    Ptr<Node> swNode = ctx.NewNode();
    Ptr<FabricSwitch> sw = ctx.NewSwitch(swNode, "switch");
    for (uint32_t r = 0; r < c.hosts; ++r)
    {
        Ptr<Node> host = ctx.NewNode();
        auto [hostDev, swDev]
            = ctx.Link(host, HostName(r), swNode, "switch", ctx.hostRate, ctx.hostDelay, "host");
        uint32_t port = sw->AddPort(swDev);
        sw->SetRoute(r, {port});
        ctx.NewEndpoint(host, hostDev, r);
    }
}

void
BuildLeafSpine(BuildContext& ctx)
{
    const TopologyConfig& c = ctx.config;
    std::vector<Ptr<Node>> spineNodes;
    std::vector<Ptr<FabricSwitch>> spines;
    for (uint32_t s = 0; s < c.spines; ++s)
    {
        spineNodes.push_back(ctx.NewNode());
        spines.push_back(ctx.NewSwitch(spineNodes.back(), "spine" + std::to_string(s)));
    }
    uint32_t nRanks = c.leaves * c.hostsPerLeaf;
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        std::string leafName = "leaf" + std::to_string(l);
        Ptr<Node> leafNode = ctx.NewNode();
        Ptr<FabricSwitch> leaf = ctx.NewSwitch(leafNode, leafName);
        std::vector<uint32_t> uplinks;
        for (uint32_t s = 0; s < c.spines; ++s)
        {
            auto [leafDev, spineDev] = ctx.Link(leafNode,
                                                leafName,
                                                spineNodes[s],
                                                "spine" + std::to_string(s),
                                                ctx.fabricRate,
                                                ctx.fabricDelay,
                                                "fabric");
            uplinks.push_back(leaf->AddPort(leafDev));
            uint32_t down = spines[s]->AddPort(spineDev);
            for (uint32_t h = 0; h < c.hostsPerLeaf; ++h)
            {
                spines[s]->SetRoute(l * c.hostsPerLeaf + h, {down});
            }
        }
        for (uint32_t h = 0; h < c.hostsPerLeaf; ++h)
        {
            uint32_t rank = l * c.hostsPerLeaf + h;
            Ptr<Node> host = ctx.NewNode();
            auto [hostDev, leafDev] = ctx.Link(
                host, HostName(rank), leafNode, leafName, ctx.hostRate, ctx.hostDelay, "host");
            leaf->SetRoute(rank, {leaf->AddPort(leafDev)});
            ctx.NewEndpoint(host, hostDev, rank);
        }
        for (uint32_t rank = 0; rank < nRanks; ++rank)
        {
            if (rank / c.hostsPerLeaf != l)
            {
                leaf->SetRoute(rank, uplinks);
            }
        }
    }
}

/// Mesh and torus: one NPU per grid point, each with its own router.
void
BuildGrid(BuildContext& ctx, bool torus)
{
    const TopologyConfig& c = ctx.config;
    uint32_t rows = c.rows;
    uint32_t cols = c.cols;
    ctx.cluster.rows = rows;
    ctx.cluster.cols = cols;
    DataRate localRate = c.localLinkRate.empty()
                             ? DataRate(4 * ctx.fabricRate.GetBitRate())
                             : dlnet::ParseRate("local-link-rate", c.localLinkRate);
    std::vector<Ptr<Node>> nodes;
    std::vector<Ptr<FabricSwitch>> routers;
    std::vector<uint32_t> localPort;
    auto name = [cols](uint32_t r)
    {
        return "npu" + std::to_string(r) + "-x" + std::to_string(r % cols) + "-y"
               + std::to_string(r / cols);
    };
    for (uint32_t r = 0; r < rows * cols; ++r)
    {
        nodes.push_back(ctx.NewNode());
        routers.push_back(ctx.NewSwitch(nodes.back(), "router" + std::to_string(r)));
        auto [npuDev, routerDev]
            = ctx.Link(nodes[r], name(r), nodes[r], name(r), localRate, Seconds(0), "local");
        localPort.push_back(routers[r]->AddPort(routerDev));
        ctx.NewEndpoint(nodes[r], npuDev, r);
    }
    // port[r][dir]: dir 0 +X, 1 -X, 2 +Y, 3 -Y; UINT32_MAX where no link.
    std::vector<std::array<uint32_t, 4>> port(rows * cols);
    for (auto& p : port)
    {
        p.fill(UINT32_MAX);
    }
    auto connect = [&](uint32_t a, uint32_t b, int dim, bool dateline)
    {
        auto [da, db] = ctx.Link(
            nodes[a], name(a), nodes[b], name(b), ctx.fabricRate, ctx.fabricDelay, "fabric");
        port[a][2 * dim] = routers[a]->AddPort(da, dim, dateline);     // a -> b is the + direction
        port[b][2 * dim + 1] = routers[b]->AddPort(db, dim, dateline); // b -> a is the - direction
    };
    for (uint32_t y = 0; y < rows; ++y)
    {
        for (uint32_t x = 0; x < cols; ++x)
        {
            uint32_t r = y * cols + x;
            if (x + 1 < cols)
            {
                connect(r, r + 1, 0, false);
            }
            else if (torus && cols > 2)
            {
                connect(r, y * cols, 0, true);
            }
            if (y + 1 < rows)
            {
                connect(r, r + cols, 1, false);
            }
            else if (torus && rows > 2)
            {
                connect(r, x, 1, true);
            }
        }
    }
    // Dimension-order routing: X first, then Y; on a torus the shorter way
    // round, the + direction on a tie.
    auto step = [torus](uint32_t from, uint32_t to, uint32_t size) -> int
    {
        if (from == to)
        {
            return 0;
        }
        uint32_t forward = (to + size - from) % size;
        if (!torus || size <= 2)
        {
            return to > from ? 1 : -1;
        }
        return forward <= size - forward ? 1 : -1;
    };
    for (uint32_t r = 0; r < rows * cols; ++r)
    {
        for (uint32_t d = 0; d < rows * cols; ++d)
        {
            uint32_t out = localPort[r];
            int sx = step(r % cols, d % cols, cols);
            int sy = step(r / cols, d / cols, rows);
            if (sx != 0)
            {
                out = port[r][sx > 0 ? 0 : 1];
            }
            else if (sy != 0)
            {
                out = port[r][sy > 0 ? 2 : 3];
            }
            NS_ASSERT_MSG(out != UINT32_MAX, "grid routing found no port");
            routers[r]->SetRoute(d, {out});
        }
    }
}

} // namespace

const std::vector<std::string>&
TopologyKinds()
{
    static const std::vector<std::string> kinds = {"star", "leaf-spine", "mesh", "torus"};
    return kinds;
}

TopologyConfig
TopologyConfig::Shaped() const
{
    TopologyConfig t = *this;
    if (nodes == 0)
    {
        return t;
    }
    if (kind == "star")
    {
        t.hosts = nodes;
    }
    else if (kind == "leaf-spine")
    {
        if (hostsPerLeaf == 0 || nodes % hostsPerLeaf != 0)
        {
            throw std::invalid_argument("nodes: " + std::to_string(nodes)
                                        + " is not a multiple of hosts-per-leaf ("
                                        + std::to_string(hostsPerLeaf) + ")");
        }
        t.leaves = nodes / hostsPerLeaf;
    }
    else
    {
        // the most square factorization: cols >= rows
        uint32_t rows = 1;
        for (uint32_t r = 1; r * r <= nodes; ++r)
        {
            if (nodes % r == 0)
            {
                rows = r;
            }
        }
        t.rows = rows;
        t.cols = nodes / rows;
    }
    t.nodes = 0;
    return t;
}

uint32_t
TopologyConfig::GetNRanks() const
{
    if (nodes != 0)
    {
        return Shaped().GetNRanks();
    }
    if (kind == "star")
    {
        return hosts;
    }
    if (kind == "leaf-spine")
    {
        return leaves * hostsPerLeaf;
    }
    return rows * cols;
}

void
TopologyConfig::Validate() const
{
    dlnet::ParseChoice("topology", kind, TopologyKinds());
    if (nodes != 0)
    {
        Shaped().Validate();
        return;
    }
    auto positive = [](const std::string& field, uint64_t v)
    {
        if (v == 0)
        {
            throw std::invalid_argument(field + ": got 0; expected a whole number of at least 1");
        }
    };
    if (kind == "star")
    {
        positive("hosts", hosts);
    }
    else if (kind == "leaf-spine")
    {
        positive("leaves", leaves);
        positive("hosts-per-leaf", hostsPerLeaf);
        positive("spines", spines);
        if (!(oversubscription > 0) || !std::isfinite(oversubscription))
        {
            throw std::invalid_argument("oversubscription: got " + std::to_string(oversubscription)
                                        + "; expected a number greater than 0 (1 = non-blocking)");
        }
    }
    else
    {
        positive("rows", rows);
        positive("cols", cols);
    }
    uint64_t ranks = kind == "star"         ? uint64_t(hosts)
                     : kind == "leaf-spine" ? uint64_t(leaves) * hostsPerLeaf
                                            : uint64_t(rows) * cols;
    if (ranks > MAX_RANKS)
    {
        throw std::invalid_argument("topology: " + std::to_string(ranks) + " ranks; at most "
                                    + std::to_string(MAX_RANKS) + " are supported");
    }
    if (kind != "star" && ranks < 2)
    {
        throw std::invalid_argument("topology: a " + kind + " needs at least 2 ranks");
    }
    DataRate host = dlnet::ParseRate("link-rate", hostLinkRate);
    if (kind == "leaf-spine" && fabricLinkRate.empty())
    {
        double uplink
            = host.GetBitRate() * double(hostsPerLeaf) / (double(spines) * oversubscription);
        if (!(uplink >= 1 && uplink <= double(dlnet::MAX_RATE_BPS)))
        {
            throw std::invalid_argument("oversubscription: gives an uplink rate of "
                                        + std::to_string(uplink) + " bit/s; expected 1bps to "
                                        + std::to_string(dlnet::MAX_RATE_BPS / 1000000000ULL)
                                        + "Gbps: change it or set fabric-link-rate");
        }
    }
    dlnet::ParseTime("link-delay", hostLinkDelay, dlnet::MAX_DELAY_SECONDS);
    if (!fabricLinkRate.empty())
    {
        dlnet::ParseRate("fabric-link-rate", fabricLinkRate);
    }
    if (!fabricLinkDelay.empty())
    {
        dlnet::ParseTime("fabric-link-delay", fabricLinkDelay, dlnet::MAX_DELAY_SECONDS);
    }
    if (!localLinkRate.empty())
    {
        dlnet::ParseRate("local-link-rate", localLinkRate);
    }
    dlnet::ParseTime("switch-latency", switchLatency, dlnet::MAX_DELAY_SECONDS);
    if (mtu <= FabricHeader::SERIALIZED_SIZE || mtu > (1u << 20))
    {
        throw std::invalid_argument(
            "mtu: got " + std::to_string(mtu) + "; expected "
            + std::to_string(FabricHeader::SERIALIZED_SIZE + 1) + " to 1048576 bytes (the "
            + std::to_string(FabricHeader::SERIALIZED_SIZE) + "-byte FabricHeader included)");
    }
    if (trafficClasses < 1 || trafficClasses > 8)
    {
        throw std::invalid_argument("traffic-classes: got " + std::to_string(trafficClasses)
                                    + "; expected 1 to 8");
    }
    dlnet::ParseChoice("flow-control", flowControl, {"lossless", "lossy"});
    dlnet::ParseChoice("load-balancing", loadBalancing, {"flow", "packet"});
    if (!(lossRate >= 0 && lossRate < 1))
    {
        throw std::invalid_argument("loss-rate: got " + std::to_string(lossRate)
                                    + "; expected a probability in [0, 1)");
    }
    if (lossRate > 0 && flowControl != "lossy")
    {
        throw std::invalid_argument("loss-rate: a packet loss rate needs flow-control=lossy "
                                    "(a lossless fabric never loses packets)");
    }
    if (flowControl == "lossy" && bufferBytes < mtu)
    {
        throw std::invalid_argument("buffer-bytes: got " + std::to_string(bufferBytes)
                                    + "; must hold one packet of mtu (" + std::to_string(mtu)
                                    + ") bytes");
    }
    if (rxBufferBytes != 0 && rxBufferBytes < mtu)
    {
        throw std::invalid_argument("rx-buffer-bytes: got " + std::to_string(rxBufferBytes)
                                    + "; expected 0 (automatic) or at least mtu ("
                                    + std::to_string(mtu) + ") bytes");
    }
    if (rxBufferBytes > UINT32_MAX || bufferBytes > UINT32_MAX)
    {
        throw std::invalid_argument("buffer-bytes/rx-buffer-bytes: at most 4294967295 bytes");
    }
    Time rto
        = dlnet::ParseTime("retransmit-timeout", retransmitTimeout, dlnet::MAX_TIMEOUT_SECONDS);
    if (rto < NanoSeconds(1))
    {
        throw std::invalid_argument("retransmit-timeout: got '" + retransmitTimeout
                                    + "'; expected a time from 1ns to 10s");
    }
    if (!pcapPrefix.empty())
    {
        // ns-3 aborts when it cannot open a PCAP file: check the folder first.
        std::string::size_type slash = pcapPrefix.rfind('/');
        std::string folder = slash == std::string::npos ? "." : pcapPrefix.substr(0, slash + 1);
        struct stat st;
        if (pcapPrefix.find('\0') != std::string::npos || pcapPrefix.back() == '/'
            || stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)
            || access(folder.c_str(), W_OK) != 0)
        {
            throw std::invalid_argument("pcap: got '" + dlnet::PrintableText(pcapPrefix)
                                        + "'; expected a file name prefix in an existing, "
                                          "writable folder (the folder '"
                                        + dlnet::PrintableText(folder) + "' is not)");
        }
    }
}

FabricHelper
MakeFabricHelper(const TopologyConfig& config)
{
    const TopologyConfig& c = config;
    FabricHelper h;
    h.SetDeviceAttribute("Mtu", UintegerValue(c.mtu));
    h.SetDeviceAttribute("TrafficClasses", UintegerValue(c.trafficClasses));
    h.SetDeviceAttribute(
        "FlowControl",
        EnumValue(c.flowControl == "lossy" ? FabricNetDevice::LOSSY : FabricNetDevice::LOSSLESS));
    h.SetDeviceAttribute("TxBufferSize", UintegerValue(c.bufferBytes));
    h.SetDeviceAttribute("RxBufferSize", UintegerValue(c.rxBufferBytes));
    h.SetSwitchAttribute("Latency", TimeValue(dlnet::ParseTime("switch-latency", c.switchLatency)));
    h.SetSwitchAttribute("EcmpSeed", UintegerValue(c.ecmpSeed));
    h.SetSwitchAttribute(
        "LoadBalancing",
        EnumValue(c.loadBalancing == "packet" ? FabricSwitch::PER_PACKET : FabricSwitch::PER_FLOW));
    h.SetEndpointAttribute("Window", UintegerValue(c.window));
    h.SetEndpointAttribute("RetransmitTimeout",
                           TimeValue(dlnet::ParseTime("retransmit-timeout", c.retransmitTimeout)));
    return h;
}

Cluster
BuildCluster(const TopologyConfig& config)
{
    config.Validate();
    const TopologyConfig c = config.Shaped();
    dlnet::UsePicoseconds();
    BuildContext ctx(c);
    ctx.hostRate = dlnet::ParseRate("link-rate", c.hostLinkRate);
    ctx.hostDelay = dlnet::ParseTime("link-delay", c.hostLinkDelay);
    ctx.fabricDelay = c.fabricLinkDelay.empty()
                          ? ctx.hostDelay
                          : dlnet::ParseTime("fabric-link-delay", c.fabricLinkDelay);
    if (!c.fabricLinkRate.empty())
    {
        ctx.fabricRate = dlnet::ParseRate("fabric-link-rate", c.fabricLinkRate);
    }
    else if (c.kind == "leaf-spine")
    {
        double uplink = ctx.hostRate.GetBitRate() * double(c.hostsPerLeaf)
                        / (double(c.spines) * c.oversubscription);
        ctx.fabricRate = DataRate(static_cast<uint64_t>(std::llround(uplink)));
    }
    else
    {
        ctx.fabricRate = ctx.hostRate;
    }

    ctx.helper = MakeFabricHelper(c);
    FabricHelper& h = ctx.helper;

    ctx.cluster.kind = c.kind;
    ctx.cluster.directory = Create<FabricEndpointDirectory>();
    ctx.cluster.endpoints.resize(c.GetNRanks());
    if (c.kind == "star")
    {
        BuildStar(ctx);
    }
    else if (c.kind == "leaf-spine")
    {
        BuildLeafSpine(ctx);
    }
    else
    {
        BuildGrid(ctx, c.kind == "torus");
    }
    for (const auto& link : ctx.cluster.links)
    {
        link.a->Setup();
        link.b->Setup();
    }
    if (!c.pcapPrefix.empty())
    {
        for (const auto& link : ctx.cluster.links)
        {
            h.EnablePcap(c.pcapPrefix, link.a, true);
            h.EnablePcap(c.pcapPrefix, link.b, true);
        }
    }
    return ctx.cluster;
}

} // namespace ns3
