/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/file-io.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/time-resolution.h"
#include "ns3/trace-helper.h"

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
        // ns-3 opens each file itself: a FIFO there would hold the run, a device abort it
        PcapHelper names;
        for (const auto& link : m_cluster.links)
        {
            for (const auto& device : {link.a, link.b})
            {
                dlnet::CheckOutputFileKind(
                    "pcap", names.GetFilenameFromDevice(m_config.pcapPrefix, device));
            }
        }
        for (const auto& link : m_cluster.links)
        {
            m_helper.EnablePcap(m_config.pcapPrefix, link.a, true);
            m_helper.EnablePcap(m_config.pcapPrefix, link.b, true);
        }
    }
    return m_cluster;
}

RouteRunWriter::RouteRunWriter(Ptr<FabricSwitch> sw)
    : m_switch(sw)
{
}

void
RouteRunWriter::Add(uint32_t first, uint32_t last, uint32_t port)
{
    NS_ASSERT_MSG(first <= last && (!m_open || first == m_last + 1),
                  "route runs must be consecutive ranges in increasing order");
    if (m_open && port == m_port)
    {
        m_last = last;
        return;
    }
    Flush();
    m_open = true;
    m_first = first;
    m_last = last;
    m_port = port;
}

void
RouteRunWriter::Flush()
{
    if (m_open)
    {
        m_switch->SetRoutes(m_first, m_last, {m_port});
        m_open = false;
    }
}

void
RouteByRuns(Ptr<FabricSwitch> sw,
            uint32_t ranks,
            const std::function<uint32_t(uint32_t rank)>& portOf)
{
    RouteRunWriter runs(sw);
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        runs.Add(rank, rank, portOf(rank));
    }
    runs.Flush();
}

} // namespace ns3
