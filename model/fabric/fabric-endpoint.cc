/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-endpoint.h"

#include "fabric-header.h"
#include "fabric-net-device.h"

#include "ns3/ceil-divide.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricEndpoint");
NS_OBJECT_ENSURE_REGISTERED(FabricEndpoint);

namespace
{
constexpr uint32_t TAG_DATA = 1; //!< device tag of data packets (acks carry 0)
} // namespace

void
FabricEndpointDirectory::Register(uint32_t address, FabricEndpoint* endpoint)
{
    if (address >= m_endpoints.size())
    {
        m_endpoints.resize(address + 1, nullptr);
    }
    m_endpoints[address] = endpoint;
}

FabricEndpoint*
FabricEndpointDirectory::Lookup(uint32_t address) const
{
    return address < m_endpoints.size() ? m_endpoints[address] : nullptr;
}

void
FabricEndpointDirectory::Unregister(uint32_t address)
{
    if (address < m_endpoints.size())
    {
        m_endpoints[address] = nullptr;
    }
}

TypeId
FabricEndpoint::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricEndpoint")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<FabricEndpoint>()
              .AddAttribute("Window",
                            "Lossy mode: packets of one message sent and not yet acknowledged, "
                            "at most (0: no limit)",
                            UintegerValue(32),
                            MakeUintegerAccessor(&FabricEndpoint::m_window),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("RetransmitTimeout",
                            "Lossy mode: time without acknowledgement progress after which "
                            "unacknowledged packets are sent again; doubles on each expiry",
                            TimeValue(MilliSeconds(1)),
                            MakeTimeAccessor(&FabricEndpoint::m_rto),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("MaxRetransmitTimeout",
                            "Lossy mode: ceiling of the doubled retransmission timeout",
                            TimeValue(MilliSeconds(100)),
                            MakeTimeAccessor(&FabricEndpoint::m_maxRto),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("StageDepth",
                            "Data packets per traffic class and virtual channel kept ready in the "
                            "device's queue",
                            UintegerValue(2),
                            MakeUintegerAccessor(&FabricEndpoint::m_stageDepth),
                            MakeUintegerChecker<uint32_t>(1))
              .AddTraceSource("MessageDelivered",
                              "A message addressed to this endpoint has fully arrived",
                              MakeTraceSourceAccessor(&FabricEndpoint::m_deliveredTrace),
                              "ns3::FabricEndpoint::MessageTracedCallback")
              .AddTraceSource("Retransmit",
                              "A data packet is sent again: destination, message id, packet index",
                              MakeTraceSourceAccessor(&FabricEndpoint::m_retransmitTrace),
                              "ns3::FabricEndpoint::RetransmitTracedCallback");
    return tid;
}

FabricEndpoint::FabricEndpoint()
{
    NS_LOG_FUNCTION(this);
}

FabricEndpoint::~FabricEndpoint() = default;

void
FabricEndpoint::DoDispose()
{
    for (auto& [id, m] : m_out)
    {
        m.timer.Cancel();
    }
    m_out.clear();
    m_in.clear();
    if (m_directory)
    {
        m_directory->Unregister(m_address);
        m_directory = nullptr;
    }
    if (m_device)
    {
        m_device->SetFabricReceiveCallback(FabricNetDevice::FabricRxCallback());
        m_device->SetDequeueCallback(FabricNetDevice::DequeueCallback());
        m_device = nullptr;
    }
    m_receiveCallback = MessageCallback();
    m_transport = nullptr;
    Object::DoDispose();
}

void
FabricEndpoint::Setup(uint32_t address,
                      Ptr<FabricNetDevice> device,
                      Ptr<FabricEndpointDirectory> directory)
{
    m_address = address;
    m_device = device;
    m_directory = directory;
    m_directory->Register(address, this);
    m_lossy = device->GetFlowControl() == FabricNetDevice::LOSSY;
    // one send queue per traffic class and virtual channel
    uint32_t queues = 2 * device->GetTrafficClasses();
    m_destinations.assign(queues, std::deque<uint64_t>());
    m_queues.assign(queues, std::map<uint64_t, std::deque<uint32_t>>());
    m_staged.assign(queues, 0);
    m_filling.assign(queues, false);
    device->SetFabricReceiveCallback(MakeCallback(&FabricEndpoint::Receive, this));
    device->SetDequeueCallback(MakeCallback(&FabricEndpoint::PacketLeft, this));
}

uint32_t
FabricEndpoint::GetAddress() const
{
    return m_address;
}

Ptr<FabricNetDevice>
FabricEndpoint::GetDevice() const
{
    return m_device;
}

void
FabricEndpoint::SetReceiveCallback(MessageCallback cb)
{
    m_receiveCallback = cb;
}

uint32_t
FabricEndpoint::Send(uint32_t dst,
                     uint64_t bytes,
                     uint8_t tc,
                     MessageCallback onDelivered,
                     FabricPayload data,
                     uint8_t vc,
                     uint32_t connection)
{
    NS_LOG_FUNCTION(this << dst << bytes << +tc);
    if (!m_device)
    {
        throw std::logic_error("FabricEndpoint::Send: endpoint has no device (call Setup)");
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("FabricEndpoint::Send bytes: must be at least 1");
    }
    if (tc >= m_device->GetTrafficClasses())
    {
        throw std::invalid_argument("FabricEndpoint::Send tc: " + std::to_string(tc)
                                    + " is not below TrafficClasses ("
                                    + std::to_string(m_device->GetTrafficClasses()) + ")");
    }
    if (data && data->size() != bytes)
    {
        throw std::invalid_argument("FabricEndpoint::Send data: holds "
                                    + std::to_string(data->size()) + " bytes, message is "
                                    + std::to_string(bytes));
    }
    m_device->Setup();
    uint32_t segment = m_device->GetMaxPacketSize() - FabricHeader::SERIALIZED_SIZE;
    uint64_t total = dlnet::CeilDivide(bytes, segment);
    if (total > 0xffffffffULL)
    {
        // (named after the experiments' option: the message comes from a size the user gave)
        throw std::invalid_argument(
            "mtu: a message of " + std::to_string(bytes) + " bytes needs more than 2^32 packets of "
            + std::to_string(m_device->GetMaxPacketSize())
            + " bytes (FabricNetDevice Mtu, its FabricHeader included); raise mtu or lower the "
              "sizes");
    }
    uint32_t id = m_nextMsgId++;
    if (m_transport)
    {
        FabricMessage message;
        message.src = m_address;
        message.dst = dst;
        message.msgId = id;
        message.bytes = bytes;
        message.packets = static_cast<uint32_t>(total);
        message.tc = tc;
        message.sent = Simulator::Now();
        message.data = std::move(data);
        ++m_carried;
        m_transport->Carry(*this, message, vc ? 1 : 0, connection, onDelivered);
        return id;
    }
    OutMessage& m = m_out[id];
    m.dst = dst;
    m.connection = connection;
    m.bytes = bytes;
    m.total = static_cast<uint32_t>(total);
    m.segment = segment;
    m.tc = tc;
    m.vc = vc ? 1 : 0;
    m.data = std::move(data);
    m.onDelivered = onDelivered;
    m.sent = Simulator::Now();
    if (m_lossy)
    {
        m.state.assign(m.total, UNSENT);
    }
    Schedule(id, m);
    Fill(SendQueue(m));
    return id;
}

bool
FabricEndpoint::HasWork(const OutMessage& m) const
{
    if (!m_lossy)
    {
        return m.nextSeq < m.total;
    }
    return !m.again.empty() || (m.nextSeq < m.total && (m_window == 0 || m.inFlight < m_window));
}

void
FabricEndpoint::Schedule(uint32_t msgId, OutMessage& m)
{
    if (m.scheduled || !HasWork(m))
    {
        return;
    }
    m.scheduled = true;
    std::deque<uint32_t>& queue = m_queues[SendQueue(m)][QueuePair(m)];
    if (queue.empty())
    {
        m_destinations[SendQueue(m)].push_back(QueuePair(m));
    }
    queue.push_back(msgId);
}

void
FabricEndpoint::Fill(uint32_t sendQueue)
{
    const uint32_t sq = sendQueue;
    if (m_filling[sq])
    {
        return; // a packet left the device while this loop was enqueueing
    }
    m_filling[sq] = true;
    std::deque<uint64_t>& destinations = m_destinations[sq];
    while (m_staged[sq] < m_stageDepth && !destinations.empty())
    {
        uint64_t qp = destinations.front();
        destinations.pop_front();
        auto q = m_queues[sq].find(qp);
        std::deque<uint32_t>& queue = q->second;
        // Messages of one queue pair (destination and connection) go in order;
        // a message with nothing to send now (lossy: window full) steps aside.
        while (!queue.empty())
        {
            auto it = m_out.find(queue.front());
            if (it != m_out.end() && HasWork(it->second))
            {
                break;
            }
            if (it != m_out.end())
            {
                it->second.scheduled = false;
            }
            queue.pop_front();
        }
        if (!queue.empty())
        {
            uint32_t id = queue.front();
            OutMessage& m = m_out.find(id)->second;
            SendPacket(id, m);
            if (!HasWork(m))
            {
                m.scheduled = false;
                queue.pop_front();
            }
        }
        if (queue.empty())
        {
            m_queues[sq].erase(q);
        }
        else
        {
            destinations.push_back(qp); // queue pairs take turns, packet by packet
        }
    }
    m_filling[sq] = false;
}

void
FabricEndpoint::SendPacket(uint32_t msgId, OutMessage& m)
{
    uint32_t seq = 0;
    bool again = false;
    if (m_lossy)
    {
        // Packets acknowledged while waiting to go again are skipped.
        while (!m.again.empty() && m.state[m.again.front()] != QUEUED_AGAIN)
        {
            m.again.pop_front();
        }
        if (!m.again.empty())
        {
            seq = m.again.front();
            m.again.pop_front();
            again = true;
        }
        else if (m.nextSeq < m.total && (m_window == 0 || m.inFlight < m_window))
        {
            seq = m.nextSeq++;
        }
        else
        {
            return;
        }
        m.state[seq] = IN_FLIGHT;
        ++m.inFlight;
        if (again)
        {
            ++m_retransmitted;
            m_retransmitTrace(m.dst, msgId, seq);
        }
        ArmTimer(msgId, m);
    }
    else
    {
        seq = m.nextSeq++;
    }
    uint64_t offset = uint64_t(seq) * m.segment;
    uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(m.segment, m.bytes - offset));
    Ptr<Packet> packet
        = m.data ? Create<Packet>(m.data->data() + offset, len) : Create<Packet>(len);
    FabricHeader h;
    h.m_src = m_address;
    h.m_dst = m.dst;
    h.m_msgId = msgId;
    h.m_seq = seq;
    h.m_total = m.total;
    h.m_tc = m.tc;
    h.m_protocol = FabricHeader::DATA;
    h.m_flags = m.data ? FabricHeader::FLAG_PAYLOAD : 0;
    h.SetVc(m.vc);
    packet->AddHeader(h);
    ++m_staged[SendQueue(m)];
    if (!m_device->Enqueue(packet, m.tc, m.vc, TAG_DATA))
    {
        --m_staged[SendQueue(m)]; // dropped at the source's own buffer: the timer recovers it
    }
}

void
FabricEndpoint::ArmTimer(uint32_t msgId, OutMessage& m)
{
    if (m.timer.IsRunning())
    {
        return;
    }
    Time rto = m_rto;
    // the ceiling never lowers the configured timeout itself
    Time ceiling = std::max(m_maxRto, m_rto);
    for (uint32_t i = 0; i < m.timeouts && rto < ceiling; ++i)
    {
        rto = rto * 2;
    }
    rto = std::min(rto, ceiling);
    m.timer = Simulator::Schedule(rto, &FabricEndpoint::Timeout, this, msgId);
}

void
FabricEndpoint::Timeout(uint32_t msgId)
{
    auto it = m_out.find(msgId);
    if (it == m_out.end())
    {
        return;
    }
    OutMessage& m = it->second;
    ++m.timeouts;
    NS_LOG_LOGIC("timeout of message " << msgId << " to " << m.dst << ", " << m.inFlight
                                       << " packets unacknowledged");
    for (uint32_t seq = 0; seq < m.nextSeq; ++seq)
    {
        if (m.state[seq] == IN_FLIGHT)
        {
            m.state[seq] = QUEUED_AGAIN;
            m.again.push_back(seq);
            --m.inFlight;
        }
    }
    Schedule(msgId, m);
    Fill(SendQueue(m));
}

void
FabricEndpoint::PacketLeft(
    Ptr<FabricNetDevice> device, uint32_t tag, uint8_t tc, uint8_t vc, uint32_t size)
{
    if (tag == TAG_DATA)
    {
        --m_staged[2 * tc + vc];
        Fill(2 * tc + vc);
    }
}

void
FabricEndpoint::Receive(Ptr<FabricNetDevice> device, Ptr<Packet> packet)
{
    uint32_t wireSize = packet->GetSize();
    FabricHeader h;
    packet->RemoveHeader(h);
    // The endpoint consumes at line rate: its buffer is free at once.
    device->ReleaseRxBuffer(h.m_tc, h.GetVc(), wireSize);
    if (h.m_dst != m_address)
    {
        NS_LOG_WARN("endpoint " << m_address << " got a packet for " << h.m_dst);
        return;
    }
    if (h.m_protocol == FabricHeader::ACK)
    {
        ReceiveAck(h);
    }
    else if (h.m_protocol == FabricHeader::DATA)
    {
        ReceiveData(packet, h);
    }
    else
    {
        auto handler = m_protocols.find(h.m_protocol);
        if (handler != m_protocols.end())
        {
            handler->second(packet, h);
        }
        else
        {
            NS_LOG_WARN("endpoint " << m_address << ": no handler for protocol " << +h.m_protocol);
        }
    }
}

void
FabricEndpoint::SendRaw(
    Ptr<Packet> packet, uint32_t dst, uint8_t protocol, uint8_t tc, bool payload)
{
    NS_ASSERT_MSG(protocol > FabricHeader::ACK, "raw packets use their own protocol number");
    if (m_transport)
    {
        throw std::invalid_argument(std::string("network: a protocol of its own (in-network "
                                                "aggregation, FRED) sends packets, and the ")
                                    + m_transport->GetModelName()
                                    + "-level network carries messages only; use network=packet");
    }
    FabricHeader h;
    h.m_src = m_address;
    h.m_dst = dst;
    h.m_total = 1;
    h.m_tc = tc;
    h.m_protocol = protocol;
    h.m_flags = payload ? FabricHeader::FLAG_PAYLOAD : 0;
    if (dst == m_address)
    {
        // to itself (an aggregator on the worker's own host): memory, not the wire
        auto handler = m_protocols.find(protocol);
        if (handler != m_protocols.end())
        {
            Simulator::ScheduleNow(&FabricEndpoint::DeliverRaw, this, packet, h);
        }
        return;
    }
    packet->AddHeader(h);
    m_device->Enqueue(packet, tc, 0, 0);
}

void
FabricEndpoint::DeliverRaw(Ptr<Packet> packet, FabricHeader header)
{
    auto handler = m_protocols.find(header.m_protocol);
    if (handler != m_protocols.end())
    {
        handler->second(packet, header);
    }
}

void
FabricEndpoint::SetProtocolHandler(uint8_t protocol, RawCallback handler)
{
    NS_ASSERT_MSG(protocol > FabricHeader::ACK, "protocols 0 and 1 belong to the endpoint");
    if (handler.IsNull())
    {
        m_protocols.erase(protocol);
    }
    else
    {
        m_protocols[protocol] = handler;
    }
}

void
FabricEndpoint::SendAck(const FabricHeader& data)
{
    FabricHeader h;
    h.m_src = m_address;
    h.m_dst = data.m_src;
    h.m_msgId = data.m_msgId;
    h.m_seq = data.m_seq;
    h.m_total = data.m_total;
    h.m_tc = data.m_tc;
    h.m_protocol = FabricHeader::ACK;
    Ptr<Packet> ack = Create<Packet>();
    ack->AddHeader(h);
    m_device->Enqueue(ack, h.m_tc, 0, 0);
}

void
FabricEndpoint::ReceiveAck(const FabricHeader& h)
{
    auto it = m_out.find(h.m_msgId);
    if (it == m_out.end() || h.m_seq >= it->second.total)
    {
        return;
    }
    OutMessage& m = it->second;
    PacketState& s = m.state[h.m_seq];
    if (s == IN_FLIGHT)
    {
        --m.inFlight;
    }
    else if (s != QUEUED_AGAIN)
    {
        return; // duplicate acknowledgement
    }
    s = ACKED;
    ++m.acked;
    m.timeouts = 0;
    m.timer.Cancel();
    if (m.acked == m.total)
    {
        MaybeRetire(h.m_msgId);
        return;
    }
    if (m.inFlight > 0)
    {
        ArmTimer(h.m_msgId, m);
    }
    Schedule(h.m_msgId, m);
    Fill(SendQueue(m));
}

void
FabricEndpoint::ReceiveData(Ptr<Packet> packet, const FabricHeader& h)
{
    if (m_lossy)
    {
        SendAck(h);
        auto done = m_done.find(h.m_src);
        if (done != m_done.end() && done->second.Contains(h.m_msgId))
        {
            ++m_duplicates;
            return;
        }
    }
    auto key = std::make_pair(h.m_src, h.m_msgId);
    InMessage& in = m_in[key];
    if (in.total == 0)
    {
        in.total = h.m_total;
        if (m_lossy)
        {
            in.got.assign(in.total, false);
        }
        if (h.m_flags & FabricHeader::FLAG_PAYLOAD)
        {
            in.fragments.resize(in.total);
        }
    }
    if (h.m_seq >= in.total)
    {
        NS_LOG_WARN("packet index " << h.m_seq << " beyond message of " << in.total);
        return;
    }
    if (m_lossy)
    {
        if (in.got[h.m_seq])
        {
            ++m_duplicates;
            return;
        }
        in.got[h.m_seq] = true;
    }
    ++in.received;
    in.bytes += packet->GetSize();
    if (!in.fragments.empty())
    {
        in.fragments[h.m_seq] = packet;
    }
    if (in.received < in.total)
    {
        return;
    }

    FabricMessage msg;
    msg.src = h.m_src;
    msg.dst = m_address;
    msg.msgId = h.m_msgId;
    msg.bytes = in.bytes;
    msg.packets = in.total;
    msg.tc = h.m_tc;
    msg.hops = h.m_hops;
    msg.delivered = Simulator::Now();
    if (!in.fragments.empty())
    {
        auto bytes = std::make_shared<std::vector<uint8_t>>(in.bytes);
        uint64_t offset = 0;
        for (auto& fragment : in.fragments)
        {
            fragment->CopyData(bytes->data() + offset, fragment->GetSize());
            offset += fragment->GetSize();
        }
        msg.data = bytes;
    }
    m_in.erase(key);
    if (m_lossy)
    {
        m_done[h.m_src].Insert(h.m_msgId);
    }
    ++m_delivered;
    if (FabricEndpoint* source = m_directory->Lookup(h.m_src))
    {
        source->NotifyDelivered(msg);
    }
    m_deliveredTrace(msg);
    if (!m_receiveCallback.IsNull())
    {
        m_receiveCallback(msg);
    }
}

void
FabricEndpoint::NotifyDelivered(FabricMessage& message)
{
    auto it = m_out.find(message.msgId);
    if (it == m_out.end())
    {
        return;
    }
    OutMessage& m = it->second;
    message.sent = m.sent;
    if (m.delivered)
    {
        return;
    }
    m.delivered = true;
    MessageCallback cb = m.onDelivered;
    MaybeRetire(message.msgId);
    if (!cb.IsNull())
    {
        cb(message);
    }
}

void
FabricEndpoint::MaybeRetire(uint32_t msgId)
{
    auto it = m_out.find(msgId);
    if (it == m_out.end())
    {
        return;
    }
    OutMessage& m = it->second;
    if (m.delivered && (!m_lossy || m.acked == m.total))
    {
        m.timer.Cancel();
        m_out.erase(it);
    }
}

uint64_t
FabricEndpoint::GetDeliveredMessages() const
{
    return m_delivered;
}

uint64_t
FabricEndpoint::GetDuplicatePackets() const
{
    return m_duplicates;
}

uint64_t
FabricEndpoint::GetRetransmittedPackets() const
{
    return m_retransmitted;
}

uint32_t
FabricEndpoint::GetPendingMessages() const
{
    return m_out.size() + m_carried;
}

void
FabricEndpoint::SetTransport(Ptr<MessageTransport> transport)
{
    m_transport = transport;
}

Ptr<MessageTransport>
FabricEndpoint::GetTransport() const
{
    return m_transport;
}

void
FabricEndpoint::DeliverCarried(const FabricMessage& message)
{
    ++m_delivered;
    m_deliveredTrace(message);
    if (!m_receiveCallback.IsNull())
    {
        m_receiveCallback(message);
    }
}

void
FabricEndpoint::CarriedDone()
{
    NS_ASSERT(m_carried > 0);
    --m_carried;
}

} // namespace ns3
