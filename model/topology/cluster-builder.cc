/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/time-resolution.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetClusterBuilder");

std::string
HostName(uint32_t rank)
{
    return "host" + std::to_string(rank);
}

ClusterBuilder::ClusterBuilder(const TopologyConfig& config,
                               const std::string& kind,
                               uint32_t ranks)
    : m_config(config)
{
    dlnet::UsePicoseconds();
    m_helper = MakeFabricHelper(config);
    m_cluster.kind = kind;
    m_cluster.directory = Create<FabricEndpointDirectory>();
    m_cluster.endpoints.resize(ranks);
}

Ptr<Node>
ClusterBuilder::NewNode()
{
    Ptr<Node> node = CreateObject<Node>();
    m_cluster.nodes.Add(node);
    return node;
}

std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>>
ClusterBuilder::Link(Ptr<Node> a,
                     const std::string& aName,
                     Ptr<Node> b,
                     const std::string& bName,
                     DataRate rate,
                     Time delay,
                     const std::string& tier)
{
    auto devices = m_helper.Connect(a, b, rate, delay);
    if (m_config.flowControl == "lossy" && m_config.lossRate > 0 && tier != "local")
    {
        for (auto& device : {devices.first, devices.second})
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
            em->SetAttribute("ErrorRate", DoubleValue(m_config.lossRate));
            m_nextStream += em->AssignStreams(m_nextStream);
            device->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    m_cluster.links.push_back(Cluster::Link{tier, aName, bName, devices.first, devices.second});
    return devices;
}

Ptr<FabricSwitch>
ClusterBuilder::NewSwitch(Ptr<Node> node, const std::string& name)
{
    Ptr<FabricSwitch> sw = m_helper.InstallSwitch(node);
    m_cluster.switches.push_back(sw);
    m_cluster.switchNames.push_back(name);
    return sw;
}

Ptr<FabricEndpoint>
ClusterBuilder::NewEndpoint(Ptr<Node> node, Ptr<FabricNetDevice> device, uint32_t rank)
{
    Ptr<FabricEndpoint> ep = m_helper.InstallEndpoint(node, device, rank, m_cluster.directory);
    m_cluster.endpoints[rank] = ep;
    return ep;
}

Cluster&
ClusterBuilder::GetCluster()
{
    return m_cluster;
}

Cluster
ClusterBuilder::Finish()
{
    for (const auto& link : m_cluster.links)
    {
        link.a->Setup();
        link.b->Setup();
    }
    if (m_config.network == "flow")
    {
        m_cluster.flow = CreateObject<FlowNetwork>();
        for (const auto& endpoint : m_cluster.endpoints)
        {
            m_cluster.flow->Attach(endpoint);
        }
    }
    if (!m_config.pcapPrefix.empty())
    {
        // validation checked that the folder can be made (and made none): make it now
        dlnet::MakeParentFolders("pcap", m_config.pcapPrefix);
        for (const auto& link : m_cluster.links)
        {
            m_helper.EnablePcap(m_config.pcapPrefix, link.a, true);
            m_helper.EnablePcap(m_config.pcapPrefix, link.b, true);
        }
    }
    return m_cluster;
}

void
RouteByRuns(Ptr<FabricSwitch> sw,
            uint32_t ranks,
            const std::function<uint32_t(uint32_t rank)>& portOf)
{
    if (ranks == 0)
    {
        return;
    }
    uint32_t first = 0;
    uint32_t port = portOf(0);
    for (uint32_t rank = 1; rank <= ranks; ++rank)
    {
        const uint32_t next = rank < ranks ? portOf(rank) : port;
        if (rank == ranks || next != port)
        {
            sw->SetRoutes(first, rank - 1, {port});
            first = rank;
            port = next;
        }
    }
}

} // namespace ns3
