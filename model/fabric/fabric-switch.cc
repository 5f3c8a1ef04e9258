/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-switch.h"

#include "fabric-net-device.h"
#include "switch-program.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/splitmix64.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricSwitch")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<FabricSwitch>()
              .AddAttribute("Latency",
                            "Switching latency from the last bit in to the packet joining its "
                            "egress queue",
                            TimeValue(NanoSeconds(0)),
                            MakeTimeAccessor(&FabricSwitch::m_latency),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute(
                  "LoadBalancing",
                  "How a packet picks among equal-cost egress ports: PerFlow (ECMP "
                  "hash, one path per message) or PerPacket (round-robin spraying)",
                  EnumValue(FabricSwitch::PER_FLOW),
                  MakeEnumAccessor(&FabricSwitch::m_loadBalancing),
                  MakeEnumChecker(
                      FabricSwitch::PER_FLOW, "PerFlow", FabricSwitch::PER_PACKET, "PerPacket"))
              .AddAttribute("EcmpSeed",
                            "Perturbation of the ECMP flow hash",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricSwitch::m_ecmpSeed),
                            MakeUintegerChecker<uint32_t>())
              .AddTraceSource("Forward",
                              "A packet joins an egress queue: packet (header on), "
                              "ingress port, egress port",
                              MakeTraceSourceAccessor(&FabricSwitch::m_forwardTrace),
                              "ns3::FabricSwitch::ForwardTracedCallback")
              .AddTraceSource("NoRoute",
                              "A packet was dropped: no route for its destination",
                              MakeTraceSourceAccessor(&FabricSwitch::m_noRouteTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
{
    NS_LOG_FUNCTION(this);
}

FabricSwitch::~FabricSwitch() = default;

void
FabricSwitch::DoDispose()
{
    for (auto& port : m_ports)
    {
        port.device->SetFabricReceiveCallback(FabricNetDevice::FabricRxCallback());
        port.device->SetDequeueCallback(FabricNetDevice::DequeueCallback());
    }
    m_ports.clear();
    for (auto& program : m_programs)
    {
        program->Dispose();
    }
    m_programs.clear();
    m_routes.clear();
    m_portSets.clear();
    m_portSetIndex.clear();
    m_sprayNext.clear();
    Object::DoDispose();
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> device, int dimension, bool dateline)
{
    uint32_t index = m_ports.size();
    m_ports.push_back(Port{device, dimension, dateline});
    device->SetAttribute("IngressLatency", TimeValue(m_latency));
    device->SetFabricReceiveCallback(FabricNetDevice::FabricRxCallback(
        [this, index](Ptr<FabricNetDevice>, Ptr<Packet> packet)
        {
            ReceiveFromPort(index, packet);
        }));
    device->SetDequeueCallback(MakeCallback(&FabricSwitch::PacketLeft, this));
    return index;
}

uint32_t
FabricSwitch::GetNPorts() const
{
    return m_ports.size();
}

Ptr<FabricNetDevice>
FabricSwitch::GetPort(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    return m_ports[port].device;
}

int
FabricSwitch::GetPortDimension(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    return m_ports[port].dimension;
}

bool
FabricSwitch::GetPortDateline(uint32_t port) const
{
    NS_ASSERT(port < m_ports.size());
    return m_ports[port].dateline;
}

void
FabricSwitch::SetRoute(uint32_t dst, const std::vector<uint32_t>& ports)
{
    SetRoutes(dst, dst, ports);
}

namespace
{
uint64_t g_routesGeneration = 0;
} // namespace

uint64_t
FabricSwitch::GetRoutesGeneration()
{
    return g_routesGeneration;
}

void
FabricSwitch::SetRoutes(uint32_t first, uint32_t last, const std::vector<uint32_t>& ports)
{
    ++g_routesGeneration;
    NS_ASSERT_MSG(first <= last, "route range " << first << ".." << last);
    for (uint32_t p : ports)
    {
        NS_ASSERT_MSG(p < m_ports.size(), "route to " << first << " names port " << p);
    }
    // a new route starts its round robin afresh, as a new table entry would
    if (!m_sprayNext.empty())
    {
        for (auto it = m_sprayNext.begin(); it != m_sprayNext.end();)
        {
            it = it->first >= first && it->first <= last ? m_sprayNext.erase(it) : std::next(it);
        }
    }
    constexpr uint32_t NONE = 0xffffffff;
    uint32_t set = NONE;
    if (!ports.empty())
    {
        // a spine has a set per leaf: a search through them made a 65536-leaf fabric quadratic
        auto found = m_portSetIndex.find(ports);
        if (found == m_portSetIndex.end())
        {
            found = m_portSetIndex.emplace(ports, m_portSets.size()).first;
            m_portSets.push_back(&found->first); // a map's keys stay where they are
        }
        set = found->second;
    }
    // the ranges [lo, hi) overlap first..last; what sticks out of them stays
    auto lo = std::lower_bound(m_routes.begin(),
                               m_routes.end(),
                               first,
                               [](const RouteRange& r, uint32_t a)
                               {
                                   return r.last < a;
                               });
    auto hi = std::upper_bound(lo,
                               m_routes.end(),
                               last,
                               [](uint32_t a, const RouteRange& r)
                               {
                                   return a < r.first;
                               });
    // at most three pieces: what sticks out on the left, the new range, on the right
    RouteRange pieces[3];
    uint32_t n = 0;
    if (lo != hi && lo->first < first)
    {
        pieces[n++] = {lo->first, first - 1, lo->set};
    }
    if (set != NONE)
    {
        pieces[n++] = {first, last, set};
    }
    if (lo != hi && std::prev(hi)->last > last)
    {
        pieces[n++] = {last + 1, std::prev(hi)->last, std::prev(hi)->set};
    }
    // neighbours with the same ports merge
    if (n > 0 && lo != m_routes.begin() && std::prev(lo)->set == pieces[0].set
        && std::prev(lo)->last + 1 == pieces[0].first)
    {
        --lo;
        pieces[0].first = lo->first;
    }
    if (n > 0 && hi != m_routes.end() && hi->set == pieces[n - 1].set
        && pieces[n - 1].last + 1 == hi->first)
    {
        pieces[n - 1].last = hi->last;
        ++hi;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (kept > 0 && pieces[kept - 1].set == pieces[i].set
            && pieces[kept - 1].last + 1 == pieces[i].first)
        {
            pieces[kept - 1].last = pieces[i].last;
        }
        else
        {
            pieces[kept++] = pieces[i];
        }
    }
    // replace [lo, hi) by the pieces (an append when the table is built in order)
    std::size_t at = lo - m_routes.begin();
    std::size_t overlap = hi - lo;
    std::size_t common = std::min<std::size_t>(overlap, kept);
    std::copy(pieces, pieces + common, m_routes.begin() + at);
    if (kept > overlap)
    {
        m_routes.insert(m_routes.begin() + at + common, pieces + common, pieces + kept);
    }
    else
    {
        m_routes.erase(m_routes.begin() + at + common, m_routes.begin() + at + overlap);
    }
}

const std::vector<uint32_t>&
FabricSwitch::GetRoute(uint32_t dst) const
{
    static const std::vector<uint32_t> none;
    auto it = std::upper_bound(m_routes.begin(),
                               m_routes.end(),
                               dst,
                               [](uint32_t a, const RouteRange& r)
                               {
                                   return a < r.first;
                               });
    if (it == m_routes.begin() || std::prev(it)->last < dst)
    {
        return none;
    }
    return *m_portSets[std::prev(it)->set];
}

uint32_t
FabricSwitch::GetNRouteRanges() const
{
    return m_routes.size();
}

void
FabricSwitch::AddProgram(Ptr<SwitchProgram> program)
{
    program->SetSwitch(this);
    m_programs.push_back(program);
}

void
FabricSwitch::RemoveProgram(Ptr<SwitchProgram> program)
{
    m_programs.erase(std::remove(m_programs.begin(), m_programs.end(), program), m_programs.end());
}

uint32_t
FabricSwitch::GetNPrograms() const
{
    return m_programs.size();
}

Ptr<SwitchProgram>
FabricSwitch::GetProgram(uint32_t i) const
{
    return m_programs.at(i);
}

void
FabricSwitch::ReceiveFromPort(uint32_t inPort, Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << inPort << packet);
    uint32_t wireSize = packet->GetSize();
    FabricHeader header;
    packet->RemoveHeader(header);
    // The credit belongs to the queue the packet arrived in, whatever a
    // program later does to its header.
    uint32_t ingress = (inPort << 4) | (uint32_t(header.m_tc) << 1) | header.GetVc();
    for (auto& program : m_programs)
    {
        if (program->Process(packet, header, inPort) == SwitchProgram::CONSUMED)
        {
            ReleaseIngress(ingress, wireSize);
            return;
        }
    }
    NS_ASSERT_MSG(packet->GetSize() + FabricHeader::SERIALIZED_SIZE == wireSize,
                  "a switch program changed the size of a packet it passed on");
    Forward(packet, header, ingress);
}

void
FabricSwitch::ReleaseIngress(uint32_t ingress, uint32_t size)
{
    if (ingress != NO_INGRESS)
    {
        m_ports[ingress >> 4].device->ReleaseRxBuffer((ingress >> 1) & 7, ingress & 1, size);
    }
}

void
FabricSwitch::Forward(Ptr<Packet> packet, FabricHeader& header, uint32_t ingress)
{
    const std::vector<uint32_t>& ports = GetRoute(header.m_dst);
    if (ports.empty())
    {
        NS_LOG_WARN("no route to " << header.m_dst);
        ++m_noRoute;
        packet->AddHeader(header);
        m_noRouteTrace(packet);
        ReleaseIngress(ingress, packet->GetSize());
        return;
    }
    Transmit(PickPort(ports, header), packet, header, ingress);
}

uint64_t
FabricSwitch::FlowHash(uint32_t src, uint32_t dst, uint32_t msgId, uint32_t seed)
{
    // cheap, well mixed and stable: a predictor can follow a message's path
    uint64_t x = (uint64_t(src) << 32) ^ dst;
    x ^= (uint64_t(msgId) << 17) ^ (uint64_t(seed) << 41);
    return dlnet::SplitMix64(x);
}

uint32_t
FabricSwitch::SelectPort(const std::vector<uint32_t>& ports,
                         uint32_t src,
                         uint32_t dst,
                         uint32_t msgId) const
{
    if (ports.size() == 1)
    {
        return ports[0];
    }
    if (m_loadBalancing == PER_PACKET)
    {
        return SPRAY;
    }
    return ports[FlowHash(src, dst, msgId, m_ecmpSeed) % ports.size()];
}

uint32_t
FabricSwitch::PickPort(const std::vector<uint32_t>& ports, const FabricHeader& header)
{
    uint32_t port = SelectPort(ports, header.m_src, header.m_dst, header.m_msgId);
    if (port != SPRAY)
    {
        return port;
    }
    // round robin per destination
    uint32_t& next = m_sprayNext[header.m_dst];
    port = ports[next];
    next = (next + 1) % ports.size();
    return port;
}

void
FabricSwitch::Transmit(uint32_t outPort, Ptr<Packet> packet, FabricHeader& header, uint32_t ingress)
{
    const Port& out = m_ports[outPort];
    uint32_t inPort = ingress == NO_INGRESS ? NO_INGRESS : ingress >> 4;
    // Off the rings of a torus the sender's virtual channel stands (a
    // hierarchical collective keeps each level on its own one).
    if (out.dimension >= 0)
    {
        bool sameDimension = inPort != NO_INGRESS && m_ports[inPort].dimension == out.dimension;
        header.SetVc(((sameDimension && header.GetVc()) || out.dateline) ? 1 : 0);
    }
    if (header.m_hops < 0xff)
    {
        ++header.m_hops;
    }
    packet->AddHeader(header);
    ++m_forwarded;
    m_forwardTrace(packet, inPort, outPort);
    out.device->Enqueue(packet, header.m_tc, header.GetVc(), ingress);
}

void
FabricSwitch::PacketLeft(
    Ptr<FabricNetDevice> device, uint32_t tag, uint8_t tc, uint8_t vc, uint32_t size)
{
    ReleaseIngress(tag, size);
}

void
FabricSwitch::SendOnPort(uint32_t port, Ptr<Packet> packet, const FabricHeader& header)
{
    NS_ASSERT(port < m_ports.size());
    FabricHeader h = header;
    Transmit(port, packet, h, NO_INGRESS);
}

void
FabricSwitch::SendRouted(Ptr<Packet> packet, const FabricHeader& header)
{
    FabricHeader h = header;
    Forward(packet, h, NO_INGRESS);
}

uint64_t
FabricSwitch::GetForwardedPackets() const
{
    return m_forwarded;
}

uint64_t
FabricSwitch::GetNoRouteDrops() const
{
    return m_noRoute;
}

} // namespace ns3
