/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-network.h"

#include "ns3/enum.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

namespace
{
/// Longest path before the routes are taken to loop.
constexpr uint32_t MAX_HOPS = 256;
} // namespace

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowNetwork")
                            .SetParent<MessageTransport>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FlowNetwork>()
                            .AddTraceSource("FlowDone",
                                            "A flow's last byte has left its source",
                                            MakeTraceSourceAccessor(&FlowNetwork::m_flowDoneTrace),
                                            "ns3::FlowNetwork::FlowDoneTracedCallback");
    return tid;
}

FlowNetwork::FlowNetwork() = default;
FlowNetwork::~FlowNetwork() = default;

void
FlowNetwork::DoDispose()
{
    if (m_finishEvent.IsRunning())
    {
        Simulator::Remove(m_finishEvent);
    }
    for (FabricEndpoint* endpoint : m_endpoints)
    {
        if (endpoint)
        {
            endpoint->SetTransport(nullptr);
        }
    }
    m_endpoints.clear();
    m_queues.clear();
    m_flows.clear();
    m_links.clear();
    m_linkOf.clear();
    MessageTransport::DoDispose();
}

const char*
FlowNetwork::GetModelName() const
{
    return "flow";
}

void
FlowNetwork::Attach(Ptr<FabricEndpoint> endpoint)
{
    uint32_t address = endpoint->GetAddress();
    if (address >= m_endpoints.size())
    {
        m_endpoints.resize(address + 1, nullptr);
    }
    m_endpoints[address] = PeekPointer(endpoint);
    endpoint->SetTransport(this);
}

uint32_t
FlowNetwork::GetLink(Ptr<FabricNetDevice> device)
{
    auto it = m_linkOf.find(PeekPointer(device));
    if (it != m_linkOf.end())
    {
        return it->second;
    }
    Ptr<FabricNetDevice> peer = device->GetPeer();
    if (!peer)
    {
        throw std::invalid_argument("network=flow: a device on node "
                                    + std::to_string(device->GetNode()->GetId()) + " has no link");
    }
    Link link;
    link.device = PeekPointer(device);
    link.capacity = device->GetDataRate().GetBitRate() / 8.0;
    link.delay = device->GetFabricChannel()->GetDelay().GetSeconds()
                 + peer->GetIngressLatency().GetSeconds();
    link.peerSwitch = PeekPointer(peer->GetNode()->GetObject<FabricSwitch>());
    link.peer = PeekPointer(peer);
    uint32_t index = m_links.size();
    m_links.push_back(std::move(link));
    m_linkOf[PeekPointer(device)] = index;
    return index;
}

double
FlowNetwork::GetCapacity(uint32_t link) const
{
    return m_links.at(link).capacity;
}

FlowRoute
FlowNetwork::Resolve(uint32_t src, uint32_t dst, uint32_t msgId, double packetBytes)
{
    if (src >= m_endpoints.size() || !m_endpoints[src] || dst >= m_endpoints.size()
        || !m_endpoints[dst])
    {
        throw std::invalid_argument("network=flow: message " + std::to_string(src) + " -> "
                                    + std::to_string(dst)
                                    + ": the flow-level network carries messages between "
                                      "endpoints (ranks) only");
    }
    FlowRoute route;
    route.latency = Walk(
        src, dst, msgId, packetBytes, PeekPointer(m_endpoints[src]->GetDevice()), 1.0, 0, route);
    return route;
}

double
FlowNetwork::Walk(uint32_t src,
                  uint32_t dst,
                  uint32_t msgId,
                  double packetBytes,
                  const FabricNetDevice* device,
                  double share,
                  uint32_t hop,
                  FlowRoute& route)
{
    if (hop >= MAX_HOPS)
    {
        throw std::invalid_argument("network=flow: no loop-free route from " + std::to_string(src)
                                    + " to " + std::to_string(dst));
    }
    uint32_t index = GetLink(Ptr<FabricNetDevice>(const_cast<FabricNetDevice*>(device)));
    bool merged = false;
    for (auto& use : route.uses)
    {
        if (use.first == index)
        {
            use.second += share;
            merged = true;
            break;
        }
    }
    if (!merged)
    {
        route.uses.emplace_back(index, share);
    }
    const Link& link = m_links[index];
    double t = link.delay + (hop > 0 ? packetBytes / link.capacity : 0);
    if (link.peer == PeekPointer(m_endpoints[dst]->GetDevice()))
    {
        route.hops = std::max(route.hops, hop);
        return t;
    }
    FabricSwitch* sw = link.peerSwitch;
    if (!sw)
    {
        throw std::invalid_argument("network=flow: the route from " + std::to_string(src) + " to "
                                    + std::to_string(dst)
                                    + " ends at another node than its destination");
    }
    const std::vector<uint32_t>& ports = sw->GetRoute(dst);
    if (ports.empty())
    {
        throw std::invalid_argument("network=flow: a switch has no route to "
                                    + std::to_string(dst));
    }
    // the switch's balancing attributes (read per hop: switches are few per path)
    if (ports.size() == 1)
    {
        return t
               + Walk(src,
                      dst,
                      msgId,
                      packetBytes,
                      PeekPointer(sw->GetPort(ports[0])),
                      share,
                      hop + 1,
                      route);
    }
    EnumValue lb;
    sw->GetAttribute("LoadBalancing", lb);
    if (lb.Get() != FabricSwitch::PER_PACKET)
    {
        UintegerValue seed;
        sw->GetAttribute("EcmpSeed", seed);
        uint32_t port
            = ports[FabricSwitch::FlowHash(src, dst, msgId, static_cast<uint32_t>(seed.Get()))
                    % ports.size()];
        return t
               + Walk(src,
                      dst,
                      msgId,
                      packetBytes,
                      PeekPointer(sw->GetPort(port)),
                      share,
                      hop + 1,
                      route);
    }
    // spraying: an even split over the equal-cost ports
    double slowest = 0;
    for (uint32_t port : ports)
    {
        slowest = std::max(slowest,
                           Walk(src,
                                dst,
                                msgId,
                                packetBytes,
                                PeekPointer(sw->GetPort(port)),
                                share / ports.size(),
                                hop + 1,
                                route));
    }
    return t + slowest;
}

void
FlowNetwork::Carry(FabricEndpoint& source,
                   const FabricMessage& message,
                   uint8_t vc,
                   Callback<void, const FabricMessage&> onDelivered)
{
    Pending p;
    p.message = message;
    p.onDelivered = onDelivered;
    uint32_t segment = source.GetDevice()->GetMaxPacketSize() - FabricHeader::SERIALIZED_SIZE;
    double largest = std::min<double>(message.bytes, segment) + FabricHeader::SERIALIZED_SIZE;
    p.route = Resolve(message.src, message.dst, message.msgId, largest);
    p.message.hops = p.route.hops;
    QueueKey key{message.src, message.dst, 2u * message.tc + vc};
    std::deque<Pending>& queue = m_queues[key];
    queue.push_back(std::move(p));
    if (queue.size() == 1)
    {
        StartHead(key);
    }
}

void
FlowNetwork::StartHead(const QueueKey& key)
{
    const Pending& p = m_queues[key].front();
    FlowSpec spec;
    spec.uses = p.route.uses;
    spec.bytes
        = double(p.message.bytes) + double(p.message.packets) * FabricHeader::SERIALIZED_SIZE;
    spec.priority = p.message.tc;
    StartFlow(spec, MakeCallback(&FlowNetwork::MessageSent, this, key));
}

void
FlowNetwork::MessageSent(QueueKey key)
{
    auto it = m_queues.find(key);
    NS_ASSERT(it != m_queues.end() && !it->second.empty());
    Pending p = std::move(it->second.front());
    it->second.pop_front();
    Simulator::Schedule(Seconds(p.route.latency), &FlowNetwork::Deliver, this, p);
    if (it->second.empty())
    {
        m_queues.erase(it);
    }
    else
    {
        StartHead(key);
    }
}

void
FlowNetwork::Deliver(Pending p)
{
    ++m_messages;
    p.message.delivered = Simulator::Now();
    FabricEndpoint* source
        = p.message.src < m_endpoints.size() ? m_endpoints[p.message.src] : nullptr;
    FabricEndpoint* destination
        = p.message.dst < m_endpoints.size() ? m_endpoints[p.message.dst] : nullptr;
    if (source)
    {
        source->CarriedDone();
    }
    if (!p.onDelivered.IsNull())
    {
        p.onDelivered(p.message);
    }
    if (destination)
    {
        destination->DeliverCarried(p.message);
    }
}

uint32_t
FlowNetwork::StartFlow(const FlowSpec& spec, Callback<void> onSent)
{
    uint32_t id;
    if (!m_freeFlows.empty())
    {
        id = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    else
    {
        id = m_flows.size();
        m_flows.emplace_back();
    }
    Flow& f = m_flows[id];
    f.uses = spec.uses;
    f.slot.resize(f.uses.size());
    f.bytes = spec.bytes;
    f.remaining = spec.bytes;
    f.rate = 0;
    f.cap = spec.cap;
    f.last = Simulator::Now();
    f.started = f.last;
    f.priority = spec.priority;
    ++f.version;
    f.active = true;
    f.onSent = onSent;
    for (std::size_t i = 0; i < f.uses.size(); ++i)
    {
        Link& link = m_links.at(f.uses[i].first);
        f.slot[i] = link.flows.size();
        link.flows.push_back(id);
    }
    ++m_active;
    m_maxActive = std::max(m_maxActive, m_active);
    if (f.uses.empty())
    {
        // no link to share: only its cap bounds it
        f.rate = f.cap;
        Time dt = f.cap == MaxMinSolver::NO_CAP ? Time(0) : Seconds(f.remaining / f.cap);
        m_finishes.push({Simulator::Now() + dt, id, f.version});
        Reschedule();
        return id;
    }
    Touch(f.uses[0].first);
    return id;
}

void
FlowNetwork::Touch(uint32_t link)
{
    m_dirty.push_back(link);
    if (!m_updatePending)
    {
        m_updatePending = true;
        Simulator::ScheduleNow(&FlowNetwork::Update, this);
    }
}

void
FlowNetwork::Update()
{
    m_updatePending = false;
    if (m_dirty.empty())
    {
        return;
    }
    // the flows that share a link with a changed one, directly or through others
    ++m_stamp;
    std::vector<uint32_t> linkQueue;
    std::vector<uint32_t> flows;
    for (uint32_t l : m_dirty)
    {
        if (m_links[l].stamp != m_stamp)
        {
            m_links[l].stamp = m_stamp;
            linkQueue.push_back(l);
        }
    }
    m_dirty.clear();
    for (std::size_t q = 0; q < linkQueue.size(); ++q)
    {
        for (uint32_t f : m_links[linkQueue[q]].flows)
        {
            Flow& flow = m_flows[f];
            if (flow.stamp == m_stamp)
            {
                continue;
            }
            flow.stamp = m_stamp;
            flows.push_back(f);
            for (const auto& use : flow.uses)
            {
                if (m_links[use.first].stamp != m_stamp)
                {
                    m_links[use.first].stamp = m_stamp;
                    linkQueue.push_back(use.first);
                }
            }
        }
    }
    if (flows.empty())
    {
        return;
    }
    ++m_solves;
    Time now = Simulator::Now();
    // local link numbers: the order the search met them
    std::unordered_map<uint32_t, uint32_t> local;
    local.reserve(linkQueue.size());
    m_solver.Reset(linkQueue.size());
    for (uint32_t i = 0; i < linkQueue.size(); ++i)
    {
        local[linkQueue[i]] = i;
        m_solver.SetCapacity(i, m_links[linkQueue[i]].capacity);
    }
    for (uint32_t f : flows)
    {
        Flow& flow = m_flows[f];
        if (flow.rate > 0 && flow.rate != MaxMinSolver::NO_CAP)
        {
            flow.remaining
                = std::max(0.0, flow.remaining - flow.rate * (now - flow.last).GetSeconds());
        }
        flow.last = now;
        uint32_t s = m_solver.AddFlow(flow.priority, flow.cap);
        for (const auto& use : flow.uses)
        {
            m_solver.AddUse(s, local[use.first], use.second);
        }
    }
    m_solver.Solve();
    // finish times beyond what a Time holds (a rate starved to rounding) wait for a change
    const double horizon = (Time::Max() - now).GetSeconds() / 2;
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        Flow& flow = m_flows[flows[i]];
        flow.rate = m_solver.GetRate(i);
        ++flow.version;
        double seconds = flow.rate == MaxMinSolver::NO_CAP || flow.remaining <= 0
                             ? 0
                             : flow.remaining / flow.rate;
        if (flow.rate <= 0 || !(seconds < horizon))
        {
            continue; // starved by higher priorities: waits for a change
        }
        m_finishes.push({now + Seconds(seconds), flows[i], flow.version});
    }
    // drop superseded entries when they pile up
    if (m_finishes.size() > 64 + 4 * size_t(m_active))
    {
        std::vector<Finish> keep;
        while (!m_finishes.empty())
        {
            const Finish& e = m_finishes.top();
            if (m_flows[e.flow].active && m_flows[e.flow].version == e.version)
            {
                keep.push_back(e);
            }
            m_finishes.pop();
        }
        for (const Finish& e : keep)
        {
            m_finishes.push(e);
        }
    }
    Reschedule();
}

void
FlowNetwork::Reschedule()
{
    while (!m_finishes.empty())
    {
        const Finish& e = m_finishes.top();
        if (m_flows[e.flow].active && m_flows[e.flow].version == e.version)
        {
            break;
        }
        m_finishes.pop();
    }
    if (m_finishes.empty())
    {
        return;
    }
    Time at = m_finishes.top().at;
    if (m_finishEvent.IsRunning())
    {
        if (m_finishAt <= at)
        {
            return;
        }
        Simulator::Remove(m_finishEvent);
    }
    m_finishAt = at;
    m_finishEvent = Simulator::Schedule(at - Simulator::Now(), &FlowNetwork::OnFinish, this);
}

void
FlowNetwork::OnFinish()
{
    Time now = Simulator::Now();
    std::vector<Callback<void>> done;
    while (!m_finishes.empty() && m_finishes.top().at <= now)
    {
        Finish e = m_finishes.top();
        m_finishes.pop();
        Flow& flow = m_flows[e.flow];
        if (!flow.active || flow.version != e.version)
        {
            continue;
        }
        m_flowDoneTrace(e.flow, flow.bytes, flow.started);
        done.push_back(flow.onSent);
        Remove(e.flow);
    }
    Reschedule();
    for (auto& cb : done)
    {
        if (!cb.IsNull())
        {
            cb();
        }
    }
}

void
FlowNetwork::Remove(uint32_t id)
{
    Flow& flow = m_flows[id];
    for (std::size_t i = 0; i < flow.uses.size(); ++i)
    {
        Link& link = m_links[flow.uses[i].first];
        link.carried += flow.uses[i].second * flow.bytes;
        uint32_t slot = flow.slot[i];
        uint32_t moved = link.flows.back();
        link.flows[slot] = moved;
        link.flows.pop_back();
        if (moved != id)
        {
            Flow& other = m_flows[moved];
            for (std::size_t j = 0; j < other.uses.size(); ++j)
            {
                if (other.uses[j].first == flow.uses[i].first)
                {
                    other.slot[j] = slot;
                    break;
                }
            }
        }
        Touch(flow.uses[i].first);
    }
    flow.active = false;
    flow.onSent = Callback<void>();
    ++flow.version;
    --m_active;
    m_freeFlows.push_back(id);
}

double
FlowNetwork::GetCarriedBytes(Ptr<FabricNetDevice> device)
{
    auto it = m_linkOf.find(PeekPointer(device));
    return it == m_linkOf.end() ? 0 : m_links[it->second].carried;
}

uint64_t
FlowNetwork::GetMessages() const
{
    return m_messages;
}

uint64_t
FlowNetwork::GetSolves() const
{
    return m_solves;
}

uint32_t
FlowNetwork::GetMaxActiveFlows() const
{
    return m_maxActive;
}

double
FlowNetwork::GetDelay(uint32_t link) const
{
    return m_links.at(link).delay;
}

double
FlowNetwork::GetPathLatency(const std::vector<uint32_t>& links, double packetBytes) const
{
    double t = 0;
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        const Link& link = m_links.at(links[i]);
        t += link.delay + (i > 0 ? packetBytes / link.capacity : 0);
    }
    return t;
}

} // namespace ns3
