/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-network.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/interrupt.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/splitmix64.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <absl/hash/hash.h>
#include <absl/types/span.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

namespace
{
/// Routes kept for reuse, at most.
constexpr std::size_t MAX_CACHED_ROUTES = 1 << 18;
/// Delivery batches of one instant a message may join, at most (each a distinct latency).
constexpr std::size_t MAX_OPEN_BATCHES = 8;
/// QueuedLatency: the links before one a train may have waited at (its cost is their
/// square per link; past them the recurrence is a bound)
constexpr std::size_t MAX_HELD_LINKS = 8;

/// \return a message's bytes on the wire: its payload and a header per packet
double
WireBytes(const FabricMessage& message)
{
    return double(message.bytes) + double(message.packets) * FabricHeader::SERIALIZED_SIZE;
}

/// \return a free slot of a pool (a new one when none is free)
template <typename T>
uint32_t
Acquire(std::vector<T>& pool, std::vector<uint32_t>& free)
{
    if (!free.empty())
    {
        uint32_t index = free.back();
        free.pop_back();
        return index;
    }
    pool.emplace_back();
    return pool.size() - 1;
}

/// \return true if no link comes twice in uses
bool
AllDistinct(const std::vector<std::pair<uint32_t, double>>& uses)
{
    for (std::size_t i = 1; i < uses.size(); ++i)
    {
        for (std::size_t j = 0; j < i; ++j)
        {
            if (uses[j].first == uses[i].first)
            {
                return false;
            }
        }
    }
    return true;
}

/// \return how far past now, s, a flow's end may lie: half of what the clock still holds (the
/// other half a margin for the ends that follow it)
double
ClockHorizon(Time now)
{
    return (Time::Max() - now).GetSeconds() / 2;
}

/// The options that set link rates, for the clock refusal's remedy (SetRateOptions)
std::string g_rateOptions;

/// Refuse a flow whose end the simulator's clock cannot hold (the run would stall, or its
/// end wrap round). \param bytes its bytes left \param rate how fast, in words
/// \param seconds when it would end, from now \param now the time \param remedy what to do
[[noreturn]] void
ThrowBeyondClock(
    double bytes, const std::string& rate, double seconds, Time now, const std::string& remedy)
{
    std::ostringstream os;
    os << "rates: a flow of " << bytes << " bytes " << rate << " would end " << seconds
       << " s after t = " << now.GetSeconds()
       << " s, beyond the simulator's clock (half of what its resolution holds from now: "
       << ClockHorizon(now) / 86400 << " days); " << remedy;
    throw std::invalid_argument(os.str());
}
} // namespace

void
FlowNetwork::SetRateOptions(const std::string& options)
{
    g_rateOptions = options;
}

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowNetwork")
                            .SetParent<MessageTransport>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FlowNetwork>()
                            .AddAttribute("SolverMemory",
                                          "Bytes of solved rate problems kept for reuse: a "
                                          "component whose problem (links, flows, uses, in "
                                          "order) comes again takes the rates it had (the "
                                          "same rates, bit for bit). 0: none.",
                                          UintegerValue(32 << 20),
                                          MakeUintegerAccessor(&FlowNetwork::SetSolverMemory,
                                                               &FlowNetwork::GetSolverMemory),
                                          MakeUintegerChecker<uint64_t>())
                            .AddAttribute("SourceLockStep",
                                          "The messages an endpoint sends at one level (class "
                                          "and virtual channel) of its link move at one rate, "
                                          "the slowest's: the packet fabric's NIC serves its "
                                          "queue pairs round robin, and a lossless first hop's "
                                          "credit, shared by all of them, fills with the "
                                          "packets of the one held downstream. false: every "
                                          "message its own max-min share.",
                                          BooleanValue(false),
                                          MakeBooleanAccessor(&FlowNetwork::m_sourceLockStep),
                                          MakeBooleanChecker())
                            .AddAttribute("FinishTolerance",
                                          "When flows end, the flows due next end with them "
                                          "(in order of their ends, while each is due within "
                                          "this fraction of the time it has been sending): a "
                                          "crowd of flows whose ends differ by nanoseconds costs "
                                          "one rate solve, not one each. 0: every flow at its "
                                          "exact end.",
                                          DoubleValue(1e-4),
                                          MakeDoubleAccessor(&FlowNetwork::m_finishTolerance),
                                          MakeDoubleChecker<double>(0, 0.01))
                            .AddAttribute("IncrementalSolve",
                                          "After flows end (none starting at that instant), "
                                          "solve again only the flows at or above the lowest "
                                          "rate among them, reached from their links through "
                                          "such flows, on what the others leave: max-min "
                                          "filling below that rate is as it was, so the others "
                                          "keep their rates (the rates of a whole solve, up to "
                                          "rounding). A lower priority or per-hop levels on a "
                                          "link met, ended flows of two levels, or "
                                          "SourceLockStep: the whole component. Where each "
                                          "flow that starts has the links (in order), weights, "
                                          "class, VC and cap of one that ended at that instant "
                                          "(a message's next chunk on its route), the problem "
                                          "is the one last solved: each takes its ended flow's "
                                          "rate and nothing is solved (not for flows with "
                                          "per-hop levels, nor under SourceLockStep). false: "
                                          "the whole component at every change.",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&FlowNetwork::m_incremental),
                                          MakeBooleanChecker())
                            .AddTraceSource("FlowDone",
                                            "A flow's last byte has left its source (or is within "
                                            "FinishTolerance of it)",
                                            MakeTraceSourceAccessor(&FlowNetwork::m_flowDoneTrace),
                                            "ns3::FlowNetwork::FlowDoneTracedCallback");
    return tid;
}

FlowNetwork::FlowNetwork()
    : m_ticksPerSecond(double(Seconds(1).GetTimeStep()))
{
}

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
    m_endpointDev.clear();
    m_endpointLink.clear();
    m_queues.clear();
    m_pending.clear();
    m_freePending.clear();
    m_flows.clear();
    m_flowMark.clear();
    ClearReplacements();
    m_links.clear();
    m_linkMark.clear();
    m_linkOf.clear();
    m_routes.clear();
    m_routeIndex.clear();
    m_switches.clear();
    m_switchOf.clear();
    m_done.clear();
    m_batches.clear();
    m_freeBatches.clear();
    m_openBatches.clear();
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
        m_endpointDev.resize(address + 1, nullptr);
        m_endpointLink.resize(address + 1, NONE);
    }
    m_endpoints[address] = PeekPointer(endpoint);
    m_endpointDev[address] = PeekPointer(endpoint->GetDevice());
    m_endpointLink[address] = NONE;
    m_routes.clear();
    m_routeIndex.clear();
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
    link.peerSwitchIndex = NONE;
    link.peerPort = NONE;
    if (link.peerSwitch)
    {
        for (uint32_t port = 0; port < link.peerSwitch->GetNPorts(); ++port)
        {
            if (link.peerSwitch->GetPort(port) == peer)
            {
                link.peerPort = port;
                break;
            }
        }
        auto sw = m_switchOf.find(link.peerSwitch);
        if (sw == m_switchOf.end())
        {
            sw = m_switchOf.emplace(link.peerSwitch, m_switches.size()).first;
            m_switches.push_back(SwitchLinks{
                link.peerSwitch, std::vector<uint32_t>(link.peerSwitch->GetNPorts(), NONE)});
        }
        link.peerSwitchIndex = sw->second;
    }
    link.peer = PeekPointer(peer);
    uint32_t index = m_links.size();
    m_links.push_back(std::move(link));
    m_linkMark.emplace_back();
    m_linkOf[PeekPointer(device)] = index;
    return index;
}

uint32_t
FlowNetwork::LinkOut(uint32_t sw, uint32_t port)
{
    std::vector<uint32_t>& ports = m_switches[sw].portLink;
    if (port >= ports.size())
    {
        ports.resize(port + 1, NONE);
    }
    uint32_t link = ports[port];
    if (link == NONE)
    {
        // GetLink may add switches: m_switches is read again
        link = GetLink(m_switches[sw].sw->GetPort(port));
        m_switches[sw].portLink[port] = link;
    }
    return link;
}

double
FlowNetwork::GetCapacity(uint32_t link) const
{
    return m_links.at(link).capacity;
}

FlowRoute
FlowNetwork::Resolve(uint32_t src, uint32_t dst, uint32_t msgId, double packetBytes)
{
    return Resolve(src, dst, msgId, PacketTrain{0, packetBytes, packetBytes});
}

FlowRoute
FlowNetwork::Resolve(uint32_t src, uint32_t dst, uint32_t msgId, const PacketTrain& train)
{
    FlowRoute route;
    ResolveInto(src, dst, msgId, train, route);
    return route;
}

void
FlowNetwork::ResolveInto(
    uint32_t src, uint32_t dst, uint32_t msgId, const PacketTrain& train, FlowRoute& route)
{
    if (src >= m_endpoints.size() || !m_endpoints[src] || dst >= m_endpoints.size()
        || !m_endpoints[dst])
    {
        throw std::invalid_argument("network=flow: message " + std::to_string(src) + " -> "
                                    + std::to_string(dst)
                                    + ": the flow-level network carries messages between "
                                      "endpoints (ranks) only");
    }
    if (m_endpointLink[src] == NONE)
    {
        m_endpointLink[src] = GetLink(m_endpoints[src]->GetDevice());
    }
    route.latency = 0;
    if (m_routesGeneration != FabricSwitch::GetRoutesGeneration())
    {
        m_routes.clear();
        m_routeIndex.clear();
        m_routesGeneration = FabricSwitch::GetRoutesGeneration();
    }
    // by source, destinations sorted: a rank sends to few, a hash lookup misses the cache
    if (m_routeIndex.size() <= src)
    {
        m_routeIndex.resize(src + 1);
    }
    std::vector<std::pair<uint32_t, uint32_t>>& index = m_routeIndex[src];
    auto slot = std::lower_bound(index.begin(),
                                 index.end(),
                                 std::make_pair(dst, uint32_t(0)),
                                 [](const auto& a, const auto& b)
                                 {
                                     return a.first < b.first;
                                 });
    if (slot != index.end() && slot->first == dst)
    {
        CachedRoute& entry = m_routes[slot->second];
        route.uses.assign(entry.uses.begin(), entry.uses.end());
        route.vcs = entry.vcs;
        route.hops = entry.hops;
        if (entry.train.packets != train.packets || entry.train.largest != train.largest
            || entry.train.last != train.last)
        {
            entry.train = train;
            entry.latency = 0;
            for (const auto& [delay, rates] : entry.paths)
            {
                entry.latency = std::max(entry.latency, delay + StoreAndForward(rates, train));
            }
        }
        route.latency = entry.latency;
        return;
    }
    route.uses.clear();
    route.vcs.clear();
    route.hops = 0;
    m_path.clear();
    m_walkHashed = false;
    m_walkPaths.clear();
    Walk(src, dst, msgId, train, m_endpointLink[src], 1.0, FlowRoute::SENDER_VC, route);
    if (std::all_of(route.vcs.begin(),
                    route.vcs.end(),
                    [](uint8_t vc)
                    {
                        return vc == FlowRoute::SENDER_VC;
                    }))
    {
        route.vcs.clear(); // no torus port on the way: nothing to copy or check per message
    }
    // (bounded: an all-to-all of thousands of ranks would otherwise keep n^2 routes)
    if (!m_walkHashed && m_routes.size() < MAX_CACHED_ROUTES)
    {
        index.insert(slot, std::make_pair(dst, uint32_t(m_routes.size())));
        CachedRoute& entry = m_routes.emplace_back();
        entry.uses.assign(route.uses.begin(), route.uses.end());
        entry.vcs = route.vcs;
        entry.hops = route.hops;
        entry.paths.swap(m_walkPaths);
        entry.train = train;
        entry.latency = route.latency;
    }
}

double
FlowNetwork::StoreAndForward(const std::vector<double>& rates, const PacketTrain& train)
{
    if (rates.empty())
    {
        return 0;
    }
    double slowest = *std::min_element(rates.begin(), rates.end());
    double inverse = 0;
    for (double c : rates)
    {
        inverse += 1 / c;
    }
    if (train.packets == 0)
    {
        return train.largest * (inverse - 1 / slowest); // a long stream of equal packets
    }
    if (train.packets <= 1)
    {
        return train.last * (inverse - 1 / slowest);
    }
    // The longest monotone path through the (packet, link) grid: the full
    // packets up to link j (all but the last cross the slowest link met so
    // far), then the last packet from link j on.
    double best = 0;
    double head = 0;
    double tail = inverse;
    double slowestSoFar = rates[0];
    for (double c : rates)
    {
        head += 1 / c;
        slowestSoFar = std::min(slowestSoFar, c);
        best = std::max(
            best, train.largest * (head + (train.packets - 2) / slowestSoFar) + train.last * tail);
        tail -= 1 / c;
    }
    double bytes = (train.packets - 1) * train.largest + train.last;
    return std::max(0.0, best - bytes / slowest);
}

void
FlowNetwork::Walk(uint32_t src,
                  uint32_t dst,
                  uint32_t msgId,
                  const PacketTrain& train,
                  uint32_t index,
                  double share,
                  uint8_t vc,
                  FlowRoute& route)
{
    // hop by hop in a loop (a mesh path may be thousands of hops); a recursion only
    // where spraying splits the path
    std::vector<uint32_t>& path = m_path;
    const std::size_t base = path.size();
    while (true)
    {
        // a path without a loop uses each link at most once
        if (path.size() >= m_links.size())
        {
            throw std::invalid_argument("network=flow: the route from " + std::to_string(src)
                                        + " to " + std::to_string(dst)
                                        + " loops (it is longer than the network's "
                                        + std::to_string(m_links.size()) + " links)");
        }
        // (sprayed paths that meet again on a link with different channels: the first one's)
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
            route.vcs.push_back(vc);
        }
        path.push_back(index);
        const Link& link = m_links[index];
        if (link.peer == m_endpointDev[dst])
        {
            // one path done: its delays and the store and forward its rates make
            double delay = 0;
            std::vector<double>& rates = m_rates;
            rates.clear();
            for (uint32_t l : path)
            {
                delay += m_links[l].delay;
                rates.push_back(m_links[l].capacity);
            }
            route.latency = std::max(route.latency, delay + StoreAndForward(rates, train));
            route.hops = std::max<uint32_t>(route.hops, path.size() - 1);
            if (!m_walkHashed)
            {
                m_walkPaths.emplace_back(delay, rates); // (a route a hash chose is not kept)
            }
            break;
        }
        FabricSwitch* sw = link.peerSwitch;
        uint32_t swIndex = link.peerSwitchIndex; // (link goes stale as links are added)
        if (!sw)
        {
            throw std::invalid_argument("network=flow: the route from " + std::to_string(src)
                                        + " to " + std::to_string(dst)
                                        + " ends at another node than its destination");
        }
        const std::vector<uint32_t>& ports = sw->GetRoute(dst);
        if (ports.empty())
        {
            throw std::invalid_argument("network=flow: a switch has no route to "
                                        + std::to_string(dst));
        }
        uint32_t port = sw->SelectPort(ports, src, dst, msgId);
        m_walkHashed = m_walkHashed || (port != FabricSwitch::SPRAY && ports.size() > 1);
        // the virtual channel on the way out, as FabricSwitch::Transmit sets it: on a torus
        // port VC 1 if the link crosses a dateline or the packet stays in its dimension on
        // VC 1, else VC 0; off the rings the channel it came with
        uint32_t inPort = link.peerPort;
        auto vcOut = [sw, inPort, vc](uint32_t out) -> uint8_t
        {
            int dimension = sw->GetPortDimension(out);
            if (dimension < 0)
            {
                return vc;
            }
            if (sw->GetPortDateline(out))
            {
                return 1;
            }
            bool sameDimension = inPort != NONE && sw->GetPortDimension(inPort) == dimension;
            return sameDimension ? vc : 0;
        };
        if (port != FabricSwitch::SPRAY)
        {
            vc = vcOut(port);
            index = LinkOut(swIndex, port);
            continue;
        }
        // spraying: an even split over the equal-cost ports
        for (uint32_t each : ports)
        {
            Walk(src,
                 dst,
                 msgId,
                 train,
                 LinkOut(swIndex, each),
                 share / ports.size(),
                 vcOut(each),
                 route);
        }
        break;
    }
    path.resize(base);
}

void
FlowNetwork::Carry(FabricEndpoint& source,
                   const FabricMessage& message,
                   uint8_t vc,
                   uint32_t connection,
                   Callback<void, const FabricMessage&> onDelivered)
{
    NS_ASSERT_MSG(message.packets >= 1, "a message has a packet at least (Send refuses 0 bytes)");
    uint32_t segment = source.GetDevice()->GetMaxPacketSize() - FabricHeader::SERIALIZED_SIZE;
    PacketTrain train;
    train.packets = message.packets;
    train.largest = std::min<double>(message.bytes, segment) + FabricHeader::SERIALIZED_SIZE;
    train.last = double(message.bytes - uint64_t(message.packets - 1) * segment)
                 + FabricHeader::SERIALIZED_SIZE;
    if (++m_carried % 65536 == 0)
    {
        dlnet::PollInterrupt(); // (Ctrl-C: an all-to-all posts a million messages at once)
    }
    uint32_t index = Acquire(m_pending, m_freePending);
    Pending& p = m_pending[index];
    try
    {
        ResolveInto(message.src, message.dst, message.msgId, train, p.route); // (reuses its uses)
    }
    catch (...)
    {
        m_freePending.push_back(index);
        throw;
    }
    p.message = message;
    p.onDelivered = onDelivered;
    p.message.hops = p.route.hops;
    p.vc = vc;
    p.connection = connection;
    p.next = NONE;
    p.train = train;
    p.tailSet = false;
    p.flow = NONE;
    p.beforeEnds.clear();
    QueueKey key{message.src, message.dst, 2u * message.tc + vc, connection};
    auto [it, first] = m_queues.emplace(key, Queue{index, index});
    if (first)
    {
        StartHead(index);
    }
    else
    {
        // behind another: both paths' tails, for QueuedLatency (the other's is its flow's
        // uses if it is sending)
        Queue& queue = it->second;
        SetTail(p, p.route.uses);
        Pending& before = m_pending[queue.tail];
        if (!before.tailSet)
        {
            // (a flow that ended this instant may be freed, its id taken, before its message
            // is told it was sent: then no tail, no bound, as for a message already sent)
            bool sending = before.flow != NONE && m_flows[before.flow].active
                           && m_flows[before.flow].pending == queue.tail;
            if (before.flow == NONE || sending)
            {
                SetTail(before, sending ? m_flows[before.flow].uses : before.route.uses);
            }
        }
        before.next = index;
        queue.tail = index;
    }
}

void
FlowNetwork::StartHead(uint32_t pending)
{
    Pending& p = m_pending[pending];
    p.flow = Start(p.route.uses, // (taken: the flow's old list comes back, to be refilled)
                   WireBytes(p.message),
                   p.message.tc,
                   p.vc,
                   MaxMinSolver::NO_CAP,
                   pending,
                   Callback<void>(),
                   &p.route.vcs);
}

void
FlowNetwork::MessageSent(uint32_t pending)
{
    const Pending& p = m_pending[pending];
    auto it = m_queues.find(
        QueueKey{p.message.src, p.message.dst, 2u * p.message.tc + p.vc, p.connection});
    NS_ASSERT(it != m_queues.end() && it->second.head == pending);
    uint32_t next = p.next;
    // (a message alone on its queue pair, the most, needs neither a bound nor its times)
    ScheduleDelivery(pending, p.tailSet ? QueuedLatency(p) : p.route.latency);
    if (next == NONE)
    {
        m_queues.erase(it);
    }
    else
    {
        it->second.head = next;
        StartHead(next);
    }
}

void
FlowNetwork::SetTail(Pending& p, const std::vector<std::pair<uint32_t, double>>& uses) const
{
    // a path's tail from its last slowest link (a FIFO there and after it: QueuedLatency)
    p.tailSet = true;
    p.tail.clear();
    p.pathHash = 0;
    if (uses.empty())
    {
        return;
    }
    std::size_t slowest = 0;
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < uses.size(); ++k)
    {
        if (uses[k].second != 1.0)
        {
            return; // (sprayed: its paths have no order between them)
        }
        double capacity = m_links[uses[k].first].capacity;
        if (capacity <= least)
        {
            slowest = k;
            least = capacity;
        }
    }
    for (std::size_t k = slowest; k < uses.size(); ++k)
    {
        p.tail.emplace_back(m_links[uses[k].first].capacity, m_links[uses[k].first].delay);
    }
    p.pathHash = absl::Hash<absl::Span<const std::pair<uint32_t, double>>>{}(uses);
}

double
FlowNetwork::QueuedLatency(const Pending& p)
{
    const auto& tail = p.tail;
    const PacketTrain& train = p.train;
    // (paths of one source and destination differ by ECMP's choice: a 64-bit hash tells
    // those few apart)
    bool held
        = !p.beforeEnds.empty() && p.beforeHash == p.pathHash && p.beforeEnds.size() == tail.size();
    // where its own times go: the next message's
    absl::InlinedVector<double, 2> spare;
    absl::InlinedVector<double, 2>& out = p.next != NONE ? m_pending[p.next].beforeEnds : spare;
    if (p.next != NONE)
    {
        m_pending[p.next].beforeHash = p.pathHash;
    }
    if (tail.empty())
    {
        out.clear();
        return p.route.latency;
    }
    double now = ToSeconds(Simulator::Now());
    // Its own last packet's end on each link of the tail, alone: backlogged at the slowest
    // link, so the last packet follows the one before at once; after it every link is
    // faster, so that one is never held, but the last may be (a short one behind a full one).
    std::size_t n = tail.size();
    absl::InlinedVector<double, 2> ends(n, 0.0);
    double last = 0;
    double previous = train.packets > 1 ? -train.last / tail[0].first
                                        : -std::numeric_limits<double>::infinity();
    for (std::size_t k = 1; k < n; ++k)
    {
        double arrive = tail[k - 1].second;
        previous += arrive + train.largest / tail[k].first;
        last = std::max(last + arrive, previous) + train.last / tail[k].first;
        ends[k] = last;
    }
    double shift = now + p.route.latency - (last + tail[n - 1].second);
    for (double& end : ends)
    {
        end += shift;
    }
    const double alone = ends[n - 1];
    if (held)
    {
        // the train waiting at link j until the last packet before it has left: its last
        // packet's end on each link k from there (a FIFO's max-plus recurrence, from the
        // nearest links only: a bound as the tail grows)
        double wire = WireBytes(p.message);
        std::vector<double>& rates = m_tailRates;
        for (std::size_t k = 0; k < n; ++k)
        {
            double delays = 0;
            double slowest = std::numeric_limits<double>::infinity();
            rates.clear();
            for (std::size_t j = k + 1; j-- > (k >= MAX_HELD_LINKS ? k - MAX_HELD_LINKS : 0);)
            {
                if (j < k)
                {
                    delays += tail[j].second;
                }
                slowest = std::min(slowest, tail[j].first);
                rates.insert(rates.begin(), tail[j].first);
                ends[k] = std::max(ends[k],
                                   p.beforeEnds[j] + wire / slowest + delays
                                       + StoreAndForward(rates, train));
            }
        }
    }
    out = ends;
    if (ends[n - 1] <= alone)
    {
        return p.route.latency; // (exactly: no rounding through the ends)
    }
    return std::max(p.route.latency, ends[n - 1] + tail[n - 1].second - now);
}

void
FlowNetwork::ScheduleDelivery(uint32_t pending, double latency)
{
    // The messages sent in one instant with one latency share a delivery
    // event, in the order they were sent: a collective's step sends many.
    Time now = Simulator::Now();
    if (m_openAt != now)
    {
        m_openBatches.clear();
        m_openAt = now;
    }
    for (const auto& [batchLatency, batch] : m_openBatches)
    {
        if (batchLatency == latency)
        {
            m_batches[batch].push_back(pending);
            return;
        }
    }
    uint32_t batch = Acquire(m_batches, m_freeBatches);
    m_batches[batch].assign(1, pending);
    if (m_openBatches.size() < MAX_OPEN_BATCHES)
    {
        m_openBatches.emplace_back(latency, batch);
    }
    Simulator::Schedule(ToTime(latency), &FlowNetwork::DeliverBatch, this, batch);
}

void
FlowNetwork::DeliverBatch(uint32_t batch)
{
    if (m_openAt == Simulator::Now())
    {
        // (a latency of zero: nothing may join a batch already delivered)
        for (std::size_t i = 0; i < m_openBatches.size(); ++i)
        {
            if (m_openBatches[i].second == batch)
            {
                m_openBatches.erase(m_openBatches.begin() + i);
                break;
            }
        }
    }
    // out of the pool first: the deliveries may send and batch again
    std::vector<uint32_t> messages;
    messages.swap(m_batches[batch]);
    m_freeBatches.push_back(batch);
    for (uint32_t pending : messages)
    {
        Deliver(pending);
    }
    if (m_batches[batch].empty() && m_batches[batch].capacity() < messages.capacity())
    {
        messages.clear();
        m_batches[batch].swap(messages); // (keeps the capacity warm)
    }
}

void
FlowNetwork::Deliver(uint32_t pending)
{
    // out of the pool first: the callbacks may carry new messages
    FabricMessage message = std::move(m_pending[pending].message);
    Callback<void, const FabricMessage&> onDelivered = m_pending[pending].onDelivered;
    m_pending[pending].onDelivered = Callback<void, const FabricMessage&>();
    m_freePending.push_back(pending);
    ++m_messages;
    message.delivered = Simulator::Now();
    FabricEndpoint* source = message.src < m_endpoints.size() ? m_endpoints[message.src] : nullptr;
    FabricEndpoint* destination
        = message.dst < m_endpoints.size() ? m_endpoints[message.dst] : nullptr;
    if (source)
    {
        source->CarriedDone();
    }
    if (!onDelivered.IsNull())
    {
        onDelivered(message);
    }
    if (destination)
    {
        destination->DeliverCarried(message);
    }
}

uint32_t
FlowNetwork::StartFlow(const FlowSpec& spec, Callback<void> onSent)
{
    std::vector<std::pair<uint32_t, double>> uses = spec.uses;
    return Start(uses, spec.bytes, spec.priority, spec.vc, spec.cap, NONE, onSent);
}

uint32_t
FlowNetwork::Start(std::vector<std::pair<uint32_t, double>>& uses,
                   double bytes,
                   uint8_t priority,
                   uint8_t vc,
                   double cap,
                   uint32_t pending,
                   Callback<void> onSent,
                   const std::vector<uint8_t>* vcs)
{
    if (!(bytes >= 0) || !std::isfinite(bytes))
    {
        // (NaN would reach the clock check and be called too long; a negative size would end
        // at once, as if sent)
        std::ostringstream os;
        os << "network=flow: a flow's bytes must be a finite number >= 0; got " << bytes;
        throw std::invalid_argument(os.str());
    }
    if (!(cap > 0))
    {
        std::ostringstream os;
        os << "network=flow: a flow's cap must be a positive rate; got " << cap << " B/s";
        throw std::invalid_argument(os.str());
    }
    if (uses.empty() && cap != MaxMinSolver::NO_CAP)
    {
        // no link to share: its cap alone sets its end, now
        const Time now = Simulator::Now();
        const double seconds = bytes / cap;
        if (!(seconds < ClockHorizon(now)))
        {
            std::ostringstream os;
            os << "capped at " << cap * 8 << " bit/s";
            ThrowBeyondClock(bytes, os.str(), seconds, now, "raise its rate or lower the sizes");
        }
    }
    uint32_t id = Acquire(m_flows, m_freeFlows);
    m_finishes.Reserve(m_flows.size());
    m_flowMark.resize(m_flows.size());
    Flow& f = m_flows[id];
    f.uses.swap(uses);
    f.slot.resize(f.uses.size());
    f.bytes = bytes;
    f.remaining = bytes;
    f.rate = 0;
    f.cap = cap;
    f.last = Simulator::Now();
    f.started = f.last;
    f.sendingSince = f.last;
    // a device serves its classes by strict priority, and within one VC 1 first; a torus's
    // dateline moves a flow to VC 1 on the way: each use at its own level
    f.priority = static_cast<uint8_t>(2 * priority + (vc ? 0 : 1));
    f.usePriority.clear();
    if (vcs && vcs->size() == f.uses.size())
    {
        bool mixed = false;
        for (std::size_t i = 0; i < vcs->size(); ++i)
        {
            uint8_t at = (*vcs)[i] == FlowRoute::SENDER_VC ? vc : (*vcs)[i];
            f.usePriority.push_back(static_cast<uint8_t>(2 * priority + (at ? 0 : 1)));
            mixed = mixed || f.usePriority[i] != f.usePriority[0];
        }
        if (!f.usePriority.empty())
        {
            f.priority = f.usePriority[0];
        }
        if (!mixed)
        {
            f.usePriority.clear(); // one level on every link: the flow's
        }
    }
    // (a message's route has each link once: Walk merges the paths of a sprayed one that meet)
    f.distinct = pending != NONE || AllDistinct(f.uses);
    m_flowMark[id].level = f.priority;
    m_flowMark[id].perUse = !f.usePriority.empty();
    m_flowMark[id].rate = 0;
    ++f.version;
    f.active = true;
    f.pending = pending;
    f.onSent = onSent;
    for (std::size_t i = 0; i < f.uses.size(); ++i)
    {
        Link& link = m_links.at(f.uses[i].first);
        f.slot[i] = link.flows.size();
        if (link.flows.empty())
        {
            link.busySince = Simulator::Now();
        }
        link.flows.push_back(id);
        link.weights.push_back(f.uses[i].second);
    }
    ++m_active;
    m_maxActive = std::max(m_maxActive, m_active);
    if (f.uses.empty())
    {
        // no link to share: only its cap bounds it
        f.rate = f.cap;
        m_flowMark[id].rate = f.rate;
        // (its end was checked against the clock above)
        Time dt = f.cap == MaxMinSolver::NO_CAP ? Time(0) : Seconds(f.remaining / f.cap);
        m_finishes.Set(id, Finish{Simulator::Now() + dt, id});
        Reschedule();
        return id;
    }
    m_startedSinceUpdate = true;
    if (m_incremental && !m_sourceLockStep)
    {
        m_startedFlows.push_back(id);
        m_replaceable = m_replaceable && f.usePriority.empty();
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
    if (m_incremental && !m_sourceLockStep)
    {
        ReplaceEnded(); // (when it replaces, m_dirty is cleared: nothing below is solved)
    }
    ClearReplacements();
    const double endedLowest = m_endedLowest;
    const bool endsAlone = m_endedAny && !m_startedSinceUpdate && !m_endedLevels;
    m_startedSinceUpdate = false;
    m_endedAny = false;
    m_endedLevels = false;
    m_endedLowest = std::numeric_limits<double>::infinity();
    if (m_dirty.empty())
    {
        return;
    }
    if (endsAlone && m_incremental && !m_sourceLockStep
        && UpdateAfterEnds(endedLowest, m_endedLevel))
    {
        return;
    }
    // the flows that share a link with a changed one, directly or through others
    ++m_stamp;
    std::vector<uint32_t>& linkQueue = m_linkQueue;
    std::vector<uint32_t>& flows = m_solveFlows;
    linkQueue.clear();
    flows.clear();
    for (uint32_t l : m_dirty)
    {
        if (m_linkMark[l].stamp != m_stamp)
        {
            m_linkMark[l].stamp = m_stamp;
            linkQueue.push_back(l);
        }
    }
    m_dirty.clear();
    for (std::size_t q = 0; q < linkQueue.size(); ++q)
    {
        const std::vector<uint32_t>& onLink = m_links[linkQueue[q]].flows;
        for (std::size_t j = 0; j < onLink.size(); ++j)
        {
            uint32_t f = onLink[j];
            if (j + PREFETCH_AHEAD < onLink.size())
            {
                __builtin_prefetch(&m_flowMark[onLink[j + PREFETCH_AHEAD]]);
                PrefetchFlow(onLink[j + PREFETCH_AHEAD]);
            }
            if (m_flowMark[f].stamp == m_stamp)
            {
                continue;
            }
            m_flowMark[f].stamp = m_stamp;
            flows.push_back(f);
            if (flows.size() % 65536 == 0)
            {
                dlnet::PollInterrupt(); // (a component of a million flows)
            }
            const Flow& flow = m_flows[f];
            for (const auto& use : flow.uses)
            {
                if (m_linkMark[use.first].stamp != m_stamp)
                {
                    m_linkMark[use.first].stamp = m_stamp;
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
    dlnet::PollInterrupt(); // (Ctrl-C: one large component's solve takes seconds)
    Time now = Simulator::Now();
    // local link numbers: the order the search met them
    m_solver.Reset(linkQueue.size());
    for (uint32_t i = 0; i < linkQueue.size(); ++i)
    {
        m_linkMark[linkQueue[i]].local = i;
        m_solver.SetCapacity(i, m_links[linkQueue[i]].capacity);
    }
    if (m_sourceLockStep)
    {
        for (uint32_t f : flows)
        {
            Advance(m_flows[f], now);
        }
        AddBundles(flows);
    }
    else
    {
        AddSolveFlows(now);
    }
    m_solver.Solve();
    TakeRates(now);
}

uint64_t
FlowNetwork::ReplacementKey(const std::pair<uint32_t, double>* uses,
                            std::size_t n,
                            uint8_t level,
                            double cap)
{
    auto mix = [](uint64_t h, uint64_t v)
    {
        return dlnet::SplitMix64(h ^ v);
    };
    uint64_t h = mix(level, n);
    for (std::size_t i = 0; i < n; ++i)
    {
        uint64_t weight;
        std::memcpy(&weight, &uses[i].second, sizeof weight);
        h = mix(mix(h, uses[i].first), weight);
    }
    uint64_t c;
    std::memcpy(&c, &cap, sizeof c);
    return mix(h, c);
}

void
FlowNetwork::ClearReplacements()
{
    m_endedFlows.clear();
    m_endedUses.clear();
    m_startedFlows.clear();
    m_replaceable = true;
}

void
FlowNetwork::ReplaceEnded()
{
    const std::size_t n = m_startedFlows.size();
    if (!m_replaceable || n == 0 || n != m_endedFlows.size())
    {
        return;
    }
    // both sides by key; equal keys pair in order (a key shared by flows that differ, a
    // collision, refuses: the instant is solved)
    m_startedKey.resize(n);
    m_startedOrder.resize(n);
    m_endedOrder.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const Flow& flow = m_flows[m_startedFlows[i]];
        m_startedKey[i]
            = ReplacementKey(flow.uses.data(), flow.uses.size(), flow.priority, flow.cap);
        m_startedOrder[i] = i;
        EndedFlow& e = m_endedFlows[i];
        e.key = ReplacementKey(m_endedUses.data() + e.begin, e.n, e.level, e.cap);
        m_endedOrder[i] = i;
    }
    std::sort(m_startedOrder.begin(),
              m_startedOrder.end(),
              [this](uint32_t a, uint32_t b)
              {
                  return m_startedKey[a] < m_startedKey[b]
                         || (m_startedKey[a] == m_startedKey[b] && a < b);
              });
    std::sort(m_endedOrder.begin(),
              m_endedOrder.end(),
              [this](uint32_t a, uint32_t b)
              {
                  return m_endedFlows[a].key < m_endedFlows[b].key
                         || (m_endedFlows[a].key == m_endedFlows[b].key && a < b);
              });
    m_replacedRate.resize(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        const uint32_t i = m_startedOrder[k];
        const EndedFlow& e = m_endedFlows[m_endedOrder[k]];
        const Flow& flow = m_flows[m_startedFlows[i]];
        if (e.key != m_startedKey[i] || e.level != flow.priority || e.cap != flow.cap
            || e.n != flow.uses.size()
            || !std::equal(flow.uses.begin(), flow.uses.end(), m_endedUses.begin() + e.begin))
        {
            return;
        }
        m_replacedRate[i] = e.rate;
    }
    ++m_replacements;
    // (the records go before the rates are taken: a refusal from TakeRate leaves none behind)
    m_replacing.swap(m_startedFlows);
    ClearReplacements();
    m_dirty.clear();
    const Time now = Simulator::Now();
    const double horizon = ClockHorizon(now);
    for (std::size_t i = 0; i < n; ++i)
    {
        TakeRate(m_replacing[i], m_replacedRate[i], now, horizon);
    }
    Reschedule();
}

bool
FlowNetwork::UpdateAfterEnds(double lowest, uint8_t level)
{
    // Max-min filling without the ended flows rises as it did with them up to `lowest`: an
    // ended flow was unfrozen below its rate, so its links were not yet full, and leaving
    // only raises their levels. The flows frozen below it keep their rates; the rest of the
    // filling is that of the flows at or above it, reached from the ended flows' links
    // through such flows, over what the kept flows leave of each link. (A flow at or above
    // it that is not reached shares no link whose residue changes: its rate stands too.)
    // Higher priorities (lower levels) do not see the ended flows' level: they are kept. A
    // lower priority on a link met takes what this level leaves, which changes: the whole
    // component is solved instead. (Any threshold at or below `lowest` holds: a hair below
    // it takes in the flows that tie with the ended ones but fall an ulp short of them.)
    const double threshold = lowest * (1 - 1e-9);
    ++m_stamp;
    std::vector<uint32_t>& linkQueue = m_linkQueue;
    std::vector<uint32_t>& flows = m_solveFlows;
    linkQueue.clear();
    flows.clear();
    m_residual.clear();
    auto meet = [this, &linkQueue](uint32_t l)
    {
        if (m_linkMark[l].stamp != m_stamp)
        {
            m_linkMark[l].stamp = m_stamp;
            m_linkMark[l].local = linkQueue.size();
            linkQueue.push_back(l);
        }
    };
    for (uint32_t l : m_dirty)
    {
        meet(l);
    }
    for (std::size_t q = 0; q < linkQueue.size(); ++q)
    {
        const Link& link = m_links[linkQueue[q]];
        const std::vector<uint32_t>& onLink = link.flows;
        double kept = 0; // what kept flows take of it (below the threshold, or higher priority)
        for (std::size_t j = 0; j < onLink.size(); ++j)
        {
            // (most flows are kept: only the marks are read, and a flow's own lines only
            // when it is solved again)
            if (j + 2 * PREFETCH_AHEAD < onLink.size())
            {
                __builtin_prefetch(&m_flowMark[onLink[j + 2 * PREFETCH_AHEAD]]);
            }
            if (j + PREFETCH_AHEAD < onLink.size()
                && !(m_flowMark[onLink[j + PREFETCH_AHEAD]].rate < lowest))
            {
                PrefetchFlow(onLink[j + PREFETCH_AHEAD]);
            }
            uint32_t f = onLink[j];
            FlowMark& mark = m_flowMark[f];
            if (mark.level > level || mark.perUse)
            {
                return false; // (a level below shares what the ended ones' level leaves)
            }
            if (mark.rate < threshold || mark.level < level)
            {
                kept += link.weights[j] * mark.rate;
                continue;
            }
            if (mark.stamp == m_stamp)
            {
                continue;
            }
            mark.stamp = m_stamp;
            flows.push_back(f);
            if (flows.size() % 65536 == 0)
            {
                dlnet::PollInterrupt();
            }
            for (const auto& use : m_flows[f].uses)
            {
                meet(use.first);
            }
        }
        m_residual.push_back(std::max(0.0, link.capacity - kept));
    }
    m_dirty.clear();
    if (flows.empty())
    {
        return true; // every flow on the links freed is held below `lowest` elsewhere
    }
    ++m_solves;
    ++m_incrementalSolves;
    NS_LOG_LOGIC("after ends at rates from " << lowest << " B/s: " << flows.size() << " flows on "
                                             << linkQueue.size() << " links solved again");
    dlnet::PollInterrupt();
    Time now = Simulator::Now();
    m_solver.Reset(linkQueue.size());
    for (uint32_t i = 0; i < linkQueue.size(); ++i)
    {
        m_solver.SetCapacity(i, m_residual[i]);
    }
    AddSolveFlows(now);
    m_solver.Solve();
    TakeRates(now);
    return true;
}

double
FlowNetwork::RemainingAt(const Flow& flow, Time now) const
{
    if (flow.rate > 0 && flow.rate != MaxMinSolver::NO_CAP)
    {
        return std::max(0.0, flow.remaining - flow.rate * ToSeconds(now - flow.last));
    }
    return flow.remaining;
}

void
FlowNetwork::Advance(Flow& flow, Time now) const
{
    flow.remaining = RemainingAt(flow, now);
    flow.last = now;
}

void
FlowNetwork::AddSolveFlows(Time now)
{
    // (each flow's bytes brought up to now in the pass that adds it: one visit of its
    // cache lines instead of two)
    const std::vector<uint32_t>& flows = m_solveFlows;
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        if (i + 2 * PREFETCH_AHEAD < flows.size())
        {
            PrefetchFlow(flows[i + 2 * PREFETCH_AHEAD]);
        }
        if (i + PREFETCH_AHEAD < flows.size())
        {
            __builtin_prefetch(m_flows[flows[i + PREFETCH_AHEAD]].uses.data());
        }
        Flow& flow = m_flows[flows[i]];
        Advance(flow, now);
        uint32_t s = m_solver.AddFlow(flow.priority, flow.cap);
        if (s % 65536 == 0)
        {
            dlnet::PollInterrupt();
        }
        for (std::size_t u = 0; u < flow.uses.size(); ++u)
        {
            const auto& use = flow.uses[u];
            uint8_t priority = UseLevel(flow, u);
            if (flow.distinct)
            {
                m_solver.AddDistinctUse(s, m_linkMark[use.first].local, use.second, priority);
            }
            else
            {
                m_solver.AddUse(s, m_linkMark[use.first].local, use.second, priority);
            }
        }
    }
}

void
FlowNetwork::TakeRates(Time now)
{
    const std::vector<uint32_t>& flows = m_solveFlows;
    // finish times beyond what a Time holds (a rate starved to rounding) wait for a change
    const double horizon = ClockHorizon(now);
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        if (i % 65536 == 65535)
        {
            dlnet::PollInterrupt();
        }
        if (i + PREFETCH_AHEAD < flows.size())
        {
            PrefetchFlow(flows[i + PREFETCH_AHEAD]);
        }
        TakeRate(flows[i], m_solver.GetRate(m_sourceLockStep ? m_solverFlow[i] : i), now, horizon);
    }
    Reschedule();
}

void
FlowNetwork::TakeRate(uint32_t id, double rate, const Time& now, double horizon)
{
    Flow& flow = m_flows[id];
    if (flow.rate <= 0 && rate > 0)
    {
        flow.sendingSince = now;
    }
    flow.rate = rate;
    m_flowMark[id].rate = rate;
    ++flow.version;
    double seconds
        = flow.rate == MaxMinSolver::NO_CAP || flow.remaining <= 0 ? 0 : flow.remaining / flow.rate;
    if (flow.rate > 0 && !(seconds < horizon))
    {
        // A real share of its slowest link (not a residue of rounding under strict
        // priority) whose end the clock cannot hold: the run would stall, not finish.
        double slowest = std::numeric_limits<double>::infinity();
        for (const auto& [link, weight] : flow.uses)
        {
            slowest = std::min(slowest, m_links[link].capacity / std::max(weight, 1e-300));
        }
        if (flow.rate >= 1e-6 * slowest)
        {
            std::ostringstream os;
            os << "at " << flow.rate * 8 << " bit/s (its slowest link " << slowest * 8 << " bit/s)";
            ThrowBeyondClock(flow.remaining,
                             os.str(),
                             seconds,
                             now,
                             "raise the rates of the links it crosses"
                                 + (g_rateOptions.empty() ? "" : " (" + g_rateOptions + ")")
                                 + " or lower the sizes");
        }
    }
    if (flow.rate <= 0 || !(seconds < horizon))
    {
        m_finishes.Remove(id); // starved by higher priorities: waits for a change
        return;
    }
    m_finishes.Set(id, Finish{now + ToTime(seconds), id});
}

void
FlowNetwork::PrefetchFlow(uint32_t flow) const
{
    // (every line the flow touches: an element of m_flows need not start on a line)
    const auto first = reinterpret_cast<uintptr_t>(&m_flows[flow]);
    for (uintptr_t at = first & ~(CACHE_LINE - 1); at < first + sizeof(Flow); at += CACHE_LINE)
    {
        __builtin_prefetch(reinterpret_cast<const void*>(at));
    }
}

void
FlowNetwork::AddBundles(const std::vector<uint32_t>& flows)
{
    // one solver flow per (first link, level of its first use, which is the flow's
    // priority) for messages; a flow started directly is its own
    m_solverFlow.assign(flows.size(), 0);
    m_bundleUses.clear();
    std::map<std::pair<uint32_t, uint8_t>, uint32_t> bundles;
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        const Flow& flow = m_flows[flows[i]];
        uint32_t s;
        if (flow.pending != NONE && !flow.uses.empty())
        {
            auto [it, added] = bundles.emplace(std::make_pair(flow.uses[0].first, flow.priority),
                                               m_solver.GetNFlows());
            if (added)
            {
                m_solver.AddFlow(flow.priority, flow.cap);
            }
            s = it->second;
        }
        else
        {
            s = m_solver.AddFlow(flow.priority, flow.cap);
        }
        m_solverFlow[i] = s;
        for (std::size_t u = 0; u < flow.uses.size(); ++u)
        {
            m_bundleUses.push_back(BundleUse{
                s, m_linkMark[flow.uses[u].first].local, UseLevel(flow, u), flow.uses[u].second});
        }
    }
    std::stable_sort(m_bundleUses.begin(),
                     m_bundleUses.end(),
                     [](const BundleUse& a, const BundleUse& b)
                     {
                         return std::tie(a.flow, a.link, a.priority)
                                < std::tie(b.flow, b.link, b.priority);
                     });
    for (std::size_t i = 0; i < m_bundleUses.size();)
    {
        BundleUse u = m_bundleUses[i];
        for (++i; i < m_bundleUses.size() && m_bundleUses[i].flow == u.flow
                  && m_bundleUses[i].link == u.link && m_bundleUses[i].priority == u.priority;
             ++i)
        {
            u.weight += m_bundleUses[i].weight;
        }
        m_solver.AddDistinctUse(u.flow, u.link, u.weight, u.priority);
    }
}

void
FlowNetwork::Reschedule()
{
    if (m_finishes.Empty())
    {
        return;
    }
    Time at = m_finishes.TopKey().at;
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
    std::vector<Done> done;
    done.swap(m_done); // (kept warm; empty)
    // (rates about to be solved again at this instant would make the ends ahead stale)
    const bool ratesFinal = !m_updatePending;
    while (!m_finishes.Empty()
           && (m_finishes.TopKey().at <= now || (ratesFinal && EndsNow(m_finishes.TopKey(), now))))
    {
        Finish e = m_finishes.TopKey();
        m_finishes.Pop();
        Flow& flow = m_flows[e.flow];
        m_flowDoneTrace(e.flow, flow.bytes, flow.started);
        done.push_back(Done{flow.pending, flow.onSent});
        Remove(e.flow);
    }
    Reschedule();
    for (auto& d : done)
    {
        if (d.pending != NONE)
        {
            MessageSent(d.pending);
        }
        else if (!d.onSent.IsNull())
        {
            d.onSent();
        }
    }
    done.clear();
    if (m_done.capacity() < done.capacity())
    {
        m_done.swap(done);
    }
}

bool
FlowNetwork::EndsNow(const Finish& e, Time now) const
{
    // (the time it has been sending, not since it started: one that waited starved behind a
    // higher class has little left to send; in ticks, the fraction rounded down)
    int64_t early = (e.at - now).GetTimeStep();
    int64_t sending = (e.at - m_flows[e.flow].sendingSince).GetTimeStep();
    return early <= static_cast<int64_t>(m_finishTolerance * static_cast<double>(sending));
}

void
FlowNetwork::Remove(uint32_t id)
{
    Flow& flow = m_flows[id];
    if (!flow.uses.empty())
    {
        m_endedLevels = m_endedLevels || !flow.usePriority.empty()
                        || (m_endedAny && flow.priority != m_endedLevel);
        m_endedAny = true;
        m_endedLevel = flow.priority;
        m_endedLowest = std::min(m_endedLowest, flow.rate);
        m_replaceable = m_replaceable && flow.usePriority.empty();
        if (m_replaceable && m_incremental && !m_sourceLockStep)
        {
            m_endedFlows.push_back(EndedFlow{0,
                                             static_cast<uint32_t>(m_endedUses.size()),
                                             static_cast<uint32_t>(flow.uses.size()),
                                             flow.priority,
                                             flow.cap,
                                             flow.rate});
            m_endedUses.insert(m_endedUses.end(), flow.uses.begin(), flow.uses.end());
        }
    }
    for (std::size_t i = 0; i < flow.uses.size(); ++i)
    {
        Link& link = m_links[flow.uses[i].first];
        link.carried += flow.uses[i].second * flow.bytes;
        // the last entry moves into this one's place; its use is found by link and slot (a
        // flow may list a link twice, and the entry moved may be this flow's other use)
        const uint32_t slot = flow.slot[i];
        const uint32_t back = link.flows.size() - 1;
        const uint32_t moved = link.flows[back];
        link.flows[slot] = moved;
        link.flows.pop_back();
        link.weights[slot] = link.weights[back];
        link.weights.pop_back();
        if (link.flows.empty())
        {
            link.busy += Simulator::Now() - link.busySince;
        }
        flow.slot[i] = NONE; // (gone: its stale slot must not match a later move)
        if (slot != back)
        {
            Flow& other = m_flows[moved];
            for (std::size_t j = 0; j < other.uses.size(); ++j)
            {
                if (other.uses[j].first == flow.uses[i].first && other.slot[j] == back)
                {
                    other.slot[j] = slot;
                    break;
                }
            }
        }
        Touch(flow.uses[i].first);
    }
    m_finishes.Remove(id);
    flow.active = false;
    flow.pending = NONE;
    flow.onSent = Callback<void>();
    ++flow.version;
    --m_active;
    m_freeFlows.push_back(id);
}

double
FlowNetwork::GetCarriedBytes(Ptr<FabricNetDevice> device)
{
    auto it = m_linkOf.find(PeekPointer(device));
    if (it == m_linkOf.end())
    {
        return 0;
    }
    // the ended flows', and what the flows still on it have sent so far (a run cut by its
    // stop-time showed a link busy all along and 0 bytes carried)
    const Link& link = m_links[it->second];
    double carried = link.carried;
    const Time now = Simulator::Now();
    for (std::size_t j = 0; j < link.flows.size(); ++j)
    {
        const Flow& flow = m_flows[link.flows[j]];
        carried += link.weights[j] * (flow.bytes - RemainingAt(flow, now));
    }
    return carried;
}

Time
FlowNetwork::GetBusyTime(Ptr<FabricNetDevice> device)
{
    auto it = m_linkOf.find(PeekPointer(device));
    if (it == m_linkOf.end())
    {
        return Time(0);
    }
    const Link& link = m_links[it->second];
    return link.flows.empty() ? link.busy : link.busy + (Simulator::Now() - link.busySince);
}

uint64_t
FlowNetwork::GetMessages() const
{
    return m_messages;
}

void
FlowNetwork::SetSolverMemory(uint64_t bytes)
{
    m_solver.SetMemory(bytes);
}

uint64_t
FlowNetwork::GetSolverMemory() const
{
    return m_solver.GetMemory();
}

uint64_t
FlowNetwork::GetSolverMemoryHits() const
{
    return m_solver.GetMemoryHits();
}

uint64_t
FlowNetwork::GetIncrementalSolves() const
{
    return m_incrementalSolves;
}

uint64_t
FlowNetwork::GetReplacements() const
{
    return m_replacements;
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

uint32_t
FlowNetwork::AddLink(double capacity)
{
    if (!(capacity > 0))
    {
        throw std::invalid_argument("network=flow: a link needs a positive capacity");
    }
    Link link;
    link.device = nullptr;
    link.capacity = capacity;
    link.delay = 0;
    link.peerSwitch = nullptr;
    link.peerPort = NONE;
    link.peer = nullptr;
    m_links.push_back(std::move(link));
    m_linkMark.emplace_back();
    return m_links.size() - 1;
}

double
FlowNetwork::GetPathLatency(const std::vector<uint32_t>& links, double packetBytes) const
{
    double delay = 0;
    std::vector<double> rates;
    for (uint32_t l : links)
    {
        delay += m_links.at(l).delay;
        rates.push_back(m_links[l].capacity);
    }
    PacketTrain stream;
    stream.largest = packetBytes;
    return delay + StoreAndForward(rates, stream);
}

} // namespace ns3
