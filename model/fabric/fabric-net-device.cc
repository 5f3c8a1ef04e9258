/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-header.h"

#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricNetDevice")
              .SetParent<NetDevice>()
              .SetGroupName("Dlnet")
              .AddConstructor<FabricNetDevice>()
              .AddAttribute("DataRate",
                            "Serialization rate of the link",
                            DataRateValue(DataRate("100Gbps")),
                            MakeDataRateAccessor(&FabricNetDevice::m_rate),
                            MakeDataRateChecker())
              .AddAttribute("Mtu",
                            "Largest packet, FabricHeader included, in bytes (up to 1 MiB)",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&FabricNetDevice::m_maxPacketSize),
                            MakeUintegerChecker<uint32_t>(0, 1 << 20))
              .AddAttribute("TrafficClasses",
                            "Number of traffic classes (strict priority, class 0 first)",
                            UintegerValue(4),
                            MakeUintegerAccessor(&FabricNetDevice::m_trafficClasses),
                            MakeUintegerChecker<uint8_t>(1, 8))
              .AddAttribute(
                  "FlowControl",
                  "Lossless (credit-based) or Lossy (drop-tail plus error model)",
                  EnumValue(FabricNetDevice::LOSSLESS),
                  MakeEnumAccessor(&FabricNetDevice::m_flowControl),
                  MakeEnumChecker(
                      FabricNetDevice::LOSSLESS, "Lossless", FabricNetDevice::LOSSY, "Lossy"))
              .AddAttribute("RxBufferSize",
                            "Receive buffer per queue advertised as credits to the peer "
                            "(lossless mode), bytes; 0 sizes it from the link's "
                            "bandwidth-delay product so that one flow can fill the link",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricNetDevice::m_rxBufferSize),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("TxBufferSize",
                            "Drop-tail output buffer per queue in lossy mode, bytes",
                            UintegerValue(1 << 20),
                            MakeUintegerAccessor(&FabricNetDevice::m_txBufferSize),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("IngressLatency",
                            "Processing latency of the node behind this device, applied to "
                            "every packet it receives (a switch's pipeline latency)",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FabricNetDevice::m_ingressLatency),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("ReceiveErrorModel",
                            "Error model applied to received packets (lossy mode only)",
                            PointerValue(),
                            MakePointerAccessor(&FabricNetDevice::m_receiveErrorModel),
                            MakePointerChecker<ErrorModel>())
              .AddTraceSource("MacTx",
                              "A packet starts serialization",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_macTxTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("MacRx",
                              "A packet has arrived and is handed to the node",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_macRxTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("Drop",
                              "A packet was dropped (buffer full or receive error)",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                              "ns3::FabricNetDevice::DropTracedCallback")
              .AddTraceSource("QueueBytes",
                              "Bytes queued for transmission over all queues",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_queuedBytes),
                              "ns3::TracedValueCallback::Uint64")
              .AddTraceSource("Sniffer",
                              "Packets sent or received, for packet capture",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("PromiscSniffer",
                              "Packets sent or received, for promiscuous packet capture",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_promiscSnifferTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
{
    NS_LOG_FUNCTION(this);
}

FabricNetDevice::~FabricNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    m_queues.clear();
    m_fabricRx = FabricRxCallback();
    m_dequeue = DequeueCallback();
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    NetDevice::DoDispose();
}

void
FabricNetDevice::DoInitialize()
{
    Setup();
    NetDevice::DoInitialize();
}

void
FabricNetDevice::Setup()
{
    if (m_ready)
    {
        return;
    }
    if (m_rate.GetBitRate() == 0)
    {
        throw std::invalid_argument("FabricNetDevice DataRate: must be greater than 0 bps");
    }
    if (m_maxPacketSize <= FabricHeader::SERIALIZED_SIZE)
    {
        throw std::invalid_argument("FabricNetDevice Mtu: " + std::to_string(m_maxPacketSize)
                                    + " bytes leaves no room for payload; must exceed the "
                                    + std::to_string(FabricHeader::SERIALIZED_SIZE)
                                    + "-byte FabricHeader");
    }
    if (m_flowControl == LOSSLESS && m_receiveErrorModel)
    {
        throw std::invalid_argument("FabricNetDevice ReceiveErrorModel: allowed only with "
                                    "FlowControl=Lossy (a lossless link never loses packets)");
    }
    if (m_flowControl == LOSSY && m_txBufferSize < m_maxPacketSize)
    {
        throw std::invalid_argument("FabricNetDevice TxBufferSize: must hold at least one "
                                    "packet of Mtu bytes");
    }
    Ptr<FabricNetDevice> peer = GetPeer();
    if (!peer)
    {
        throw std::logic_error("FabricNetDevice::Setup: device is not attached to a channel");
    }
    if (peer->m_flowControl != m_flowControl)
    {
        throw std::invalid_argument("FabricNetDevice FlowControl: both ends of a link must use "
                                    "the same mode (Lossless or Lossy)");
    }
    uint32_t nQueues = 2 * m_trafficClasses;
    // the queues come with the first packet: an idle device (a flow-level
    // run, or a port no traffic crosses) keeps no deque blocks
    m_queues.clear();
    m_queueBytes.assign(nQueues, 0);
    int64_t credit = peer->AdvertisedRxBuffer(m_rate, m_maxPacketSize);
    m_credits.assign(nQueues, credit);
    m_ready = true;
}

uint32_t
FabricNetDevice::AdvertisedRxBuffer(DataRate senderRate, uint32_t senderMaxPacket) const
{
    if (m_rxBufferSize != 0)
    {
        if (m_flowControl == LOSSLESS && m_rxBufferSize < senderMaxPacket)
        {
            throw std::invalid_argument(
                "FabricNetDevice RxBufferSize: " + std::to_string(m_rxBufferSize)
                + " bytes cannot hold one packet of the peer's Mtu ("
                + std::to_string(senderMaxPacket) + " bytes); the link would stall");
        }
        return m_rxBufferSize;
    }
    // Credits must cover a full credit round trip (out and back over the
    // wire plus this node's processing) or one flow cannot fill the link.
    Time loop = 2 * m_channel->GetDelay() + m_ingressLatency;
    double bdp = senderRate.GetBitRate() / 8.0 * loop.GetSeconds();
    return static_cast<uint32_t>(std::min<double>(4.0 * senderMaxPacket + bdp, 1u << 31));
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    m_channel = channel;
    m_channel->Attach(this);
}

bool
FabricNetDevice::Enqueue(Ptr<Packet> packet, uint8_t tc, uint8_t vc, uint32_t tag)
{
    NS_LOG_FUNCTION(this << packet << +tc << +vc);
    if (!m_ready)
    {
        Setup();
    }
    NS_ASSERT_MSG(tc < m_trafficClasses, "traffic class " << +tc << " out of range");
    uint32_t q = QueueIndex(tc, vc);
    uint32_t size = packet->GetSize();
    NS_ASSERT_MSG(size <= m_maxPacketSize, "packet of " << size << " bytes exceeds the Mtu");
    if (m_flowControl == LOSSY && m_queueBytes[q] + size > m_txBufferSize)
    {
        Drop(packet, DROP_QUEUE_FULL);
        return false;
    }
    if (m_queues.empty())
    {
        m_queues.resize(2 * m_trafficClasses);
    }
    m_queues[q].push_back(Item{packet, size, tag});
    m_queueBytes[q] += size;
    m_queuedBytes += size;
    m_maxQueuedBytes = std::max<uint64_t>(m_maxQueuedBytes, m_queuedBytes);
    ++m_queuedPackets;
    m_maxQueuedPackets = std::max(m_maxQueuedPackets, m_queuedPackets);
    TryTransmit();
    return true;
}

void
FabricNetDevice::TryTransmit()
{
    if (m_busy || m_queues.empty())
    {
        return;
    }
    bool lossless = (m_flowControl == LOSSLESS);
    bool waiting = false; // a queue holds a packet that lacks credit
    for (uint32_t tc = 0; tc < m_trafficClasses; ++tc)
    {
        for (int vc = 1; vc >= 0; --vc)
        {
            uint32_t q = QueueIndex(tc, vc);
            std::deque<Item>& queue = m_queues[q];
            if (queue.empty())
            {
                continue;
            }
            if (lossless && m_credits[q] < queue.front().size)
            {
                waiting = true;
                continue;
            }
            if (m_creditStalled)
            {
                m_creditStalled = false;
                m_creditStallTime += Simulator::Now() - m_creditStallStart;
            }
            Item item = std::move(queue.front());
            queue.pop_front();
            m_queueBytes[q] -= item.size;
            m_queuedBytes -= item.size;
            --m_queuedPackets;
            if (lossless)
            {
                m_credits[q] -= item.size;
            }
            m_busy = true;
            m_txBytes += item.size;
            ++m_txPackets;
            m_macTxTrace(item.packet);
            m_snifferTrace(item.packet);
            m_promiscSnifferTrace(item.packet);
            // DataRate's 128-bit division is costly per packet; sizes repeat
            if (item.size != m_lastTxSize || m_rate.GetBitRate() != m_lastTxRate)
            {
                m_lastTxSize = item.size;
                m_lastTxRate = m_rate.GetBitRate();
                m_lastTxTime = m_rate.CalculateBytesTxTime(item.size);
            }
            Time txTime = m_lastTxTime;
            m_busyTime += txTime;
            m_channel->TransmitStart(this, item.packet, txTime);
            Simulator::Schedule(txTime, &FabricNetDevice::TransmitComplete, this);
            if (!m_dequeue.IsNull())
            {
                m_dequeue(this, item.tag, tc, vc, item.size);
            }
            return;
        }
    }
    if (waiting && !m_creditStalled)
    {
        m_creditStalled = true;
        m_creditStallStart = Simulator::Now();
        ++m_creditStalls;
    }
}

void
FabricNetDevice::TransmitComplete()
{
    m_busy = false;
    TryTransmit();
}

void
FabricNetDevice::Receive(Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << packet);
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(packet))
    {
        Drop(packet, DROP_ERROR);
        return;
    }
    m_snifferTrace(packet);
    m_promiscSnifferTrace(packet);
    m_macRxTrace(packet);
    if (!m_fabricRx.IsNull())
    {
        m_fabricRx(this, packet);
    }
    else if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, 0, GetBroadcast());
    }
}

void
FabricNetDevice::ReleaseRxBuffer(uint8_t tc, uint8_t vc, uint32_t bytes)
{
    if (m_flowControl == LOSSLESS)
    {
        m_channel->ReturnCredit(this, QueueIndex(tc, vc), bytes);
    }
}

void
FabricNetDevice::AddCredit(uint32_t queue, uint32_t bytes)
{
    m_credits[queue] += bytes;
    TryTransmit();
}

void
FabricNetDevice::Drop(Ptr<const Packet> packet, DropReason reason)
{
    NS_LOG_FUNCTION(this << packet << reason);
    if (reason == DROP_ERROR)
    {
        ++m_rxErrorDrops;
    }
    else
    {
        ++m_queueDrops;
    }
    m_dropTrace(packet, reason);
}

void
FabricNetDevice::SetFabricReceiveCallback(FabricRxCallback cb)
{
    m_fabricRx = cb;
}

void
FabricNetDevice::SetDequeueCallback(DequeueCallback cb)
{
    m_dequeue = cb;
}

DataRate
FabricNetDevice::GetDataRate() const
{
    return m_rate;
}

uint32_t
FabricNetDevice::GetMaxPacketSize() const
{
    return m_maxPacketSize;
}

uint8_t
FabricNetDevice::GetTrafficClasses() const
{
    return m_trafficClasses;
}

FabricNetDevice::FlowControl
FabricNetDevice::GetFlowControl() const
{
    return m_flowControl;
}

Time
FabricNetDevice::GetIngressLatency() const
{
    return m_ingressLatency;
}

Ptr<FabricChannel>
FabricNetDevice::GetFabricChannel() const
{
    return m_channel;
}

Ptr<FabricNetDevice>
FabricNetDevice::GetPeer() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

uint64_t
FabricNetDevice::GetTxBytes() const
{
    return m_txBytes;
}

uint64_t
FabricNetDevice::GetTxPackets() const
{
    return m_txPackets;
}

uint64_t
FabricNetDevice::GetQueuedBytes() const
{
    return m_queuedBytes;
}

uint64_t
FabricNetDevice::GetDrops() const
{
    return m_queueDrops + m_rxErrorDrops;
}

uint64_t
FabricNetDevice::GetQueueDrops() const
{
    return m_queueDrops;
}

uint64_t
FabricNetDevice::GetRxErrorDrops() const
{
    return m_rxErrorDrops;
}

uint64_t
FabricNetDevice::GetMaxQueuedBytes() const
{
    return m_maxQueuedBytes;
}

uint64_t
FabricNetDevice::GetMaxQueuedPackets() const
{
    return m_maxQueuedPackets;
}

Time
FabricNetDevice::GetBusyTime() const
{
    return m_busyTime;
}

uint64_t
FabricNetDevice::GetCreditStalls() const
{
    return m_creditStalls;
}

Time
FabricNetDevice::GetCreditStallTime() const
{
    return m_creditStalled ? m_creditStallTime + (Simulator::Now() - m_creditStallStart)
                           : m_creditStallTime;
}

bool
FabricNetDevice::IsBusy() const
{
    return m_busy;
}

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    if (m_ready)
    {
        return false; // queues and credits are sized: set the Mtu attribute before Setup
    }
    m_maxPacketSize = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    // NetDevice's MTU is 16 bits; the Mtu attribute holds the full value.
    return static_cast<uint16_t>(std::min<uint32_t>(m_maxPacketSize, 0xffff));
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
}

bool
FabricNetDevice::IsBroadcast() const
{
    return false;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    // Generic NetDevice path: the caller's packet must already carry a
    // FabricHeader; it travels in traffic class 0.
    return Enqueue(packet, 0, 0, 0);
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address& source,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return false;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
