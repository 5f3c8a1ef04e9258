/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-switch-program.h"

#include "fred-routing.h"

#include "ns3/collective-types.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/reduction.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FredSwitchProgram");

NS_OBJECT_ENSURE_REGISTERED(FredSwitchProgram);

TypeId
FredSwitchProgram::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FredSwitchProgram")
              .SetParent<SwitchProgram>()
              .SetGroupName("Dlnet")
              .AddConstructor<FredSwitchProgram>()
              .AddAttribute("MiddleStages",
                            "Middle subnetworks m of the switch's Fred_m(P) interconnect: flows "
                            "of one traffic class installed at once must be routable through it",
                            UintegerValue(3),
                            MakeUintegerAccessor(&FredSwitchProgram::m_middleStages),
                            MakeUintegerChecker<uint32_t>(1))
              .AddTraceSource("Result",
                              "A root switch finished reducing one packet index (job, index)",
                              MakeTraceSourceAccessor(&FredSwitchProgram::m_resultTrace),
                              "ns3::TracedCallback::Uint32Uint32");
    return tid;
}

FredSwitchProgram::FredSwitchProgram()
    : m_middleStages(3)
{
}

FredSwitchProgram::~FredSwitchProgram() = default;

void
FredSwitchProgram::DoDispose()
{
    m_flows.clear();
    m_slots.clear();
    SwitchProgram::DoDispose();
}

void
FredSwitchProgram::CheckRoutable(const FredSwitchFlow& flow) const
{
    // A flow's data enter on its inputs and, coming back down, on its uplinks;
    // they leave on its outputs and, going up, on its uplinks.
    auto asRoutingFlow = [](const FredSwitchFlow& f)
    {
        std::set<uint32_t> in(f.inputs.begin(), f.inputs.end());
        std::set<uint32_t> out(f.outputs.begin(), f.outputs.end());
        in.insert(f.parents.begin(), f.parents.end());
        out.insert(f.parents.begin(), f.parents.end());
        FredFlow r;
        r.name = f.name;
        r.inputs.assign(in.begin(), in.end());
        r.outputs.assign(out.begin(), out.end());
        return r;
    };
    std::vector<FredFlow> flows;
    for (const auto& [job, other] : m_flows)
    {
        if (other.tc == flow.tc)
        {
            flows.push_back(asRoutingFlow(other));
        }
    }
    flows.push_back(asRoutingFlow(flow));
    RouteFredFlows(GetSwitch()->GetNPorts(), m_middleStages, flows);
}

void
FredSwitchProgram::InstallFlow(const FredSwitchFlow& flow)
{
    NS_LOG_FUNCTION(this << flow.job << flow.name);
    NS_ASSERT_MSG(GetSwitch() != nullptr, "install the program on a switch first");
    uint32_t ports = GetSwitch()->GetNPorts();
    auto check = [&](const std::vector<uint32_t>& list)
    {
        for (uint32_t p : list)
        {
            if (p != FredSwitchFlow::NONE && p >= ports)
            {
                throw std::invalid_argument("flow '" + flow.name + "': port " + std::to_string(p)
                                            + " is not on this " + std::to_string(ports)
                                            + "-port switch");
            }
        }
    };
    check(flow.inputs);
    check(flow.outputs);
    check(flow.parents);
    check(flow.targetPort);
    for (const auto* list : {&flow.inputs, &flow.outputs, &flow.parents})
    {
        // a slot completes when every input has given once: a port twice would never complete
        if (std::set<uint32_t>(list->begin(), list->end()).size() != list->size())
        {
            throw std::invalid_argument("flow '" + flow.name + "': a port appears twice");
        }
    }
    if (m_flows.count(flow.job) > 0)
    {
        throw std::invalid_argument("flow '" + flow.name + "': job " + std::to_string(flow.job)
                                    + " is installed already");
    }
    CheckRoutable(flow);
    m_flows[flow.job] = flow;
}

void
FredSwitchProgram::RemoveFlow(uint32_t job)
{
    m_flows.erase(job);
    for (auto it = m_slots.begin(); it != m_slots.end();)
    {
        it = (it->first >> 32) == job ? m_slots.erase(it) : std::next(it);
    }
}

uint32_t
FredSwitchProgram::GetNFlows() const
{
    return m_flows.size();
}

uint64_t
FredSwitchProgram::GetReducedPackets() const
{
    return m_reduced;
}

uint32_t
FredSwitchProgram::GetPeakSlotsOccupied() const
{
    return m_peakSlots;
}

void
FredSwitchProgram::Send(const FredSwitchFlow& flow,
                        uint32_t port,
                        const FabricHeader& header,
                        const FredHeader& fred,
                        Ptr<const Packet> data)
{
    Ptr<Packet> p = data->Copy();
    p->AddHeader(fred);
    FabricHeader h = header;
    auto endpoint = flow.endpointAt.find(port);
    h.m_dst = endpoint == flow.endpointAt.end() ? NO_ENDPOINT : endpoint->second;
    GetSwitch()->SendOnPort(port, p, h);
}

SwitchProgram::Verdict
FredSwitchProgram::Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort)
{
    if (header.m_protocol != FredHeader::PROTOCOL)
    {
        return CONTINUE;
    }
    FredHeader fred;
    packet->RemoveHeader(fred);
    auto found = m_flows.find(fred.m_job);
    if (found == m_flows.end())
    {
        NS_LOG_WARN("no flow for FRED job " << fred.m_job << " on port " << inPort);
        return CONSUMED;
    }
    const FredSwitchFlow& flow = found->second;
    const bool fromParent
        = std::find(flow.parents.begin(), flow.parents.end(), inPort) != flow.parents.end();
    const bool root = flow.parents.empty();
    uint32_t up = root ? FredSwitchFlow::NONE : flow.parents[fred.m_seq % flow.parents.size()];

    auto sendDown = [&](Ptr<const Packet> data, uint32_t except)
    {
        FredHeader down = fred;
        down.m_kind = FredHeader::DOWN;
        flow.ForEachDownPort(fred.m_target,
                             except,
                             [&](uint32_t port)
                             {
                                 Send(flow, port, header, down, data);
                             });
    };

    if (fred.m_kind == FredHeader::DOWN || fromParent)
    {
        sendDown(packet, FredSwitchFlow::NONE);
        return CONSUMED;
    }
    if (!flow.reduce)
    {
        // A gathered part: copies to the receivers here, and on up toward the others.
        sendDown(packet, inPort);
        if (!root)
        {
            Send(flow, up, header, fred, packet);
        }
        return CONSUMED;
    }

    auto input = std::find(flow.inputs.begin(), flow.inputs.end(), inPort);
    if (input == flow.inputs.end())
    {
        NS_LOG_WARN("FRED job " << fred.m_job << ": port " << inPort << " is not an input");
        return CONSUMED;
    }
    uint64_t key = (uint64_t(fred.m_job) << 32) | fred.m_seq;
    Slot& slot = m_slots[key];
    bool payload = header.m_flags & FabricHeader::FLAG_PAYLOAD;
    if (slot.arrived == 0)
    {
        // first contribution of this index: a partial result held from now on
        slot.seen.assign(flow.inputs.size(), false);
        m_peakSlots = std::max<uint32_t>(m_peakSlots, m_slots.size());
    }
    std::size_t from = input - flow.inputs.begin();
    if (slot.seen[from])
    {
        NS_LOG_WARN("FRED job " << fred.m_job << ": index " << fred.m_seq << " twice from port "
                                << inPort);
        return CONSUMED;
    }
    slot.seen[from] = true;
    if (slot.arrived == 0)
    {
        slot.size = packet->GetSize();
        slot.payload = payload;
        if (payload)
        {
            slot.sum.resize(slot.size);
            packet->CopyData(slot.sum.data(), slot.size);
        }
    }
    else
    {
        if (packet->GetSize() != slot.size || payload != slot.payload)
        {
            throw std::logic_error("FRED job " + std::to_string(fred.m_job)
                                   + ": contributions of one index differ in size or in mode");
        }
        if (payload)
        {
            std::vector<uint8_t> data(slot.size);
            packet->CopyData(data.data(), slot.size);
            ReduceSum(static_cast<DataType>(fred.m_type), slot.sum.data(), data.data(), slot.size);
        }
    }
    ++m_reduced;
    if (++slot.arrived < flow.inputs.size())
    {
        return CONSUMED;
    }
    Ptr<Packet> result
        = slot.payload ? Create<Packet>(slot.sum.data(), slot.size) : Create<Packet>(slot.size);
    m_slots.erase(key);
    if (root)
    {
        m_resultTrace(fred.m_job, fred.m_seq);
        sendDown(result, FredSwitchFlow::NONE);
    }
    else
    {
        Send(flow, up, header, fred, result);
    }
    return CONSUMED;
}

} // namespace ns3
