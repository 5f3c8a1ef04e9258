/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the wire",
                                          TimeValue(NanoSeconds(500)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

FabricChannel::FabricChannel()
{
    NS_LOG_FUNCTION(this);
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    if (m_nDevices >= 2)
    {
        throw std::logic_error("FabricChannel::Attach: a channel takes exactly two devices");
    }
    m_dev[m_nDevices++] = device;
}

void
FabricChannel::Cache() const
{
    // The ends do not change once packets flow: look their node ids and
    // arrival delays up once, not per packet.
    for (int i = 0; i < 2; ++i)
    {
        m_context[i] = m_dev[i]->GetNode()->GetId();
        m_arrival[i] = m_delay + m_dev[i]->GetIngressLatency();
    }
    m_cached = true;
}

void
FabricChannel::TransmitStart(const FabricNetDevice* src, Ptr<Packet> packet, Time txTime) const
{
    if (!m_cached)
    {
        Cache();
    }
    // The receiver's ingress processing latency (a switch's pipeline delay)
    // is folded into the arrival event: one event per hop.
    int d = (PeekPointer(m_dev[0]) == src) ? 1 : 0;
    Simulator::ScheduleWithContext(m_context[d],
                                   txTime + m_arrival[d],
                                   &FabricNetDevice::Receive,
                                   PeekPointer(m_dev[d]),
                                   packet);
}

void
FabricChannel::ReturnCredit(const FabricNetDevice* src, uint32_t queue, uint32_t bytes) const
{
    if (!m_cached)
    {
        Cache();
    }
    int d = (PeekPointer(m_dev[0]) == src) ? 1 : 0;
    Simulator::ScheduleWithContext(
        m_context[d], m_delay, &FabricNetDevice::AddCredit, PeekPointer(m_dev[d]), queue, bytes);
}

Time
FabricChannel::GetDelay() const
{
    return m_delay;
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(Ptr<const FabricNetDevice> device) const
{
    return (m_dev[0] == device) ? m_dev[1] : m_dev[0];
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return (i < m_nDevices) ? m_dev[i] : nullptr;
}

} // namespace ns3
