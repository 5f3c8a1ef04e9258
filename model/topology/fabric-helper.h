/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_HELPER_H
#define FABRIC_HELPER_H

#include "ns3/fabric-endpoint.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Builds fabric links, switches and endpoints, and enables PCAP.
 *
 * Like PointToPointHelper: one ObjectFactory per component with
 * Set<Thing>Attribute, defaults applied to everything it creates after.
 */
class FabricHelper : public PcapHelperForDevice
{
public:
    FabricHelper();

    /// Attribute of every FabricNetDevice created from now on.
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// Attribute of every FabricChannel created from now on.
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /// Attribute of every FabricSwitch created from now on.
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /// Attribute of every FabricEndpoint created from now on.
    void SetEndpointAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Connect two nodes with a full-duplex link, as PointToPointHelper::Install
     * does: the devices' DataRate and the channel's Delay are the factories'
     * (SetDeviceAttribute, SetChannelAttribute).
     * \param nodes exactly two nodes (std::invalid_argument "nodes: ..." otherwise)
     * \return the device on nodes.Get(0), then the one on nodes.Get(1)
     */
    NetDeviceContainer Install(NodeContainer nodes) const;

    /// \return the devices on a and on b, connected as Install(NodeContainer) does
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b) const;

    /**
     * Connect two nodes with a full-duplex link at the given rate and delay.
     * \return the devices on a and on b
     */
    std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>> Connect(Ptr<Node> a,
                                                                  Ptr<Node> b,
                                                                  DataRate rate,
                                                                  Time delay) const;

    /// \return a switch aggregated to the node (ports are added by the caller)
    Ptr<FabricSwitch> InstallSwitch(Ptr<Node> node) const;

    /// \return an endpoint aggregated to the node, on the given device
    Ptr<FabricEndpoint> InstallEndpoint(Ptr<Node> node,
                                        Ptr<FabricNetDevice> device,
                                        uint32_t address,
                                        Ptr<FabricEndpointDirectory> directory) const;

private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    ObjectFactory m_deviceFactory;
    ObjectFactory m_channelFactory;
    ObjectFactory m_switchFactory;
    ObjectFactory m_endpointFactory;
};

} // namespace ns3

#endif /* FABRIC_HELPER_H */
