/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-helper.h"

#include "ns3/fabric-channel.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/pcap-file-wrapper.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHelper");

namespace
{
/// PCAP link type for a private link layer (LINKTYPE_USER0): the frames start with a FabricHeader.
constexpr uint32_t DLT_FABRIC = 147;
} // namespace

FabricHelper::FabricHelper()
{
    m_deviceFactory.SetTypeId("ns3::FabricNetDevice");
    m_channelFactory.SetTypeId("ns3::FabricChannel");
    m_switchFactory.SetTypeId("ns3::FabricSwitch");
    m_endpointFactory.SetTypeId("ns3::FabricEndpoint");
}

void
FabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
FabricHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
FabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
FabricHelper::SetEndpointAttribute(const std::string& name, const AttributeValue& value)
{
    m_endpointFactory.Set(name, value);
}

std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>>
FabricHelper::Connect(Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay) const
{
    Ptr<FabricChannel> channel = m_channelFactory.Create<FabricChannel>();
    channel->SetAttribute("Delay", TimeValue(delay));
    Ptr<FabricNetDevice> devices[2];
    Ptr<Node> nodes[2] = {a, b};
    for (int i = 0; i < 2; ++i)
    {
        devices[i] = m_deviceFactory.Create<FabricNetDevice>();
        devices[i]->SetAttribute("DataRate", DataRateValue(rate));
        devices[i]->SetAddress(Mac48Address::Allocate());
        nodes[i]->AddDevice(devices[i]);
        devices[i]->Attach(channel);
    }
    return {devices[0], devices[1]};
}

NetDeviceContainer
FabricHelper::Install(NodeContainer nodes) const
{
    if (nodes.GetN() != 2)
    {
        throw std::invalid_argument("nodes: got " + std::to_string(nodes.GetN())
                                    + " nodes; a fabric link connects exactly 2");
    }
    return Install(nodes.Get(0), nodes.Get(1));
}

NetDeviceContainer
FabricHelper::Install(Ptr<Node> a, Ptr<Node> b) const
{
    if (!a || !b || a == b)
    {
        throw std::invalid_argument("nodes: a fabric link connects two different nodes");
    }
    Ptr<FabricChannel> channel = m_channelFactory.Create<FabricChannel>();
    NetDeviceContainer devices;
    for (const Ptr<Node>& node : {a, b})
    {
        Ptr<FabricNetDevice> device = m_deviceFactory.Create<FabricNetDevice>();
        device->SetAddress(Mac48Address::Allocate());
        node->AddDevice(device);
        device->Attach(channel);
        devices.Add(device);
    }
    return devices;
}

Ptr<FabricSwitch>
FabricHelper::InstallSwitch(Ptr<Node> node) const
{
    Ptr<FabricSwitch> sw = m_switchFactory.Create<FabricSwitch>();
    node->AggregateObject(sw);
    return sw;
}

Ptr<FabricEndpoint>
FabricHelper::InstallEndpoint(Ptr<Node> node,
                              Ptr<FabricNetDevice> device,
                              uint32_t address,
                              Ptr<FabricEndpointDirectory> directory) const
{
    Ptr<FabricEndpoint> endpoint = m_endpointFactory.Create<FabricEndpoint>();
    node->AggregateObject(endpoint);
    endpoint->Setup(address, device, directory);
    return endpoint;
}

void
FabricHelper::EnablePcapInternal(std::string prefix,
                                 Ptr<NetDevice> nd,
                                 bool promiscuous,
                                 bool explicitFilename)
{
    Ptr<FabricNetDevice> device = nd->GetObject<FabricNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("FabricHelper::EnablePcapInternal: not a FabricNetDevice");
        return;
    }
    PcapHelper pcapHelper;
    std::string filename
        = explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file = pcapHelper.CreateFile(
        filename, std::ios::out, static_cast<PcapHelper::DataLinkType>(DLT_FABRIC));
    pcapHelper.HookDefaultSink<FabricNetDevice>(
        device, promiscuous ? "PromiscSniffer" : "Sniffer", file);
}

} // namespace ns3
