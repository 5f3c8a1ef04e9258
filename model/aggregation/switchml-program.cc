/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switchml-program.h"

#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchmlProgram");
NS_OBJECT_ENSURE_REGISTERED(SwitchmlProgram);

TypeId
SwitchmlProgram::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::SwitchmlProgram")
              .SetParent<SwitchProgram>()
              .SetGroupName("Dlnet")
              .AddConstructor<SwitchmlProgram>()
              .AddAttribute("Slots",
                            "Aggregation slots of the switch, shared by its jobs (each job's "
                            "pool is held twice, for the two versions)",
                            UintegerValue(1 << 16),
                            MakeUintegerAccessor(&SwitchmlProgram::m_capacity),
                            MakeUintegerChecker<uint32_t>())
              .AddTraceSource("RoundComplete",
                              "Every contributor of a slot's round has added: job, slot, round",
                              MakeTraceSourceAccessor(&SwitchmlProgram::m_roundTrace),
                              "ns3::SwitchmlProgram::RoundTracedCallback");
    return tid;
}

SwitchmlProgram::SwitchmlProgram() = default;

SwitchmlProgram::~SwitchmlProgram() = default;

void
SwitchmlProgram::AddJob(const SwitchmlJob& job)
{
    if (m_jobs.count(job.id))
    {
        throw std::invalid_argument("job: id " + std::to_string(job.id)
                                    + " is already aggregated on this switch");
    }
    if (job.poolSize == 0 || m_used + job.poolSize > m_capacity)
    {
        throw std::invalid_argument(job.poolName + ": a pool of " + std::to_string(job.poolSize)
                                    + " slots does not fit the switch ("
                                    + std::to_string(m_capacity - m_used) + " of "
                                    + std::to_string(m_capacity)
                                    + " slots free; its attribute ns3::SwitchmlProgram::Slots)");
    }
    if (job.childPorts.empty() || job.childPorts.size() != job.childAddresses.size())
    {
        throw std::invalid_argument("workers: a job needs at least one contributor");
    }
    m_used += job.poolSize;
    JobState& js = m_jobs[job.id];
    js.job = job;
    for (auto& pool : js.pool)
    {
        pool.assign(job.poolSize, Slot());
        for (auto& slot : pool)
        {
            slot.seen.assign(job.childPorts.size(), false);
        }
    }
}

void
SwitchmlProgram::RemoveJob(uint16_t id)
{
    auto it = m_jobs.find(id);
    if (it != m_jobs.end())
    {
        for (const auto& set : it->second.pool)
        {
            for (const auto& slot : set)
            {
                m_occupied -= slot.count != 0 ? 1 : 0; // a round left unfinished
            }
        }
        m_used -= it->second.job.poolSize;
        m_jobs.erase(it);
    }
}

uint32_t
SwitchmlProgram::GetSlotsInUse() const
{
    return m_used;
}

uint32_t
SwitchmlProgram::GetPeakSlotsOccupied() const
{
    return m_peakOccupied;
}

uint64_t
SwitchmlProgram::GetAggregated() const
{
    return m_aggregated;
}

uint64_t
SwitchmlProgram::GetResultsResent() const
{
    return m_resent;
}

SwitchProgram::Verdict
SwitchmlProgram::Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort)
{
    if (header.m_protocol != SwitchmlHeader::PROTOCOL)
    {
        return CONTINUE;
    }
    SwitchmlHeader h;
    packet->PeekHeader(h);
    auto it = m_jobs.find(h.m_job);
    if (it == m_jobs.end() || h.m_slot >= it->second.job.poolSize)
    {
        return CONTINUE; // another switch's job, or bound elsewhere
    }
    // A result on its way down to a worker passes through untouched.
    if (h.m_kind == SwitchmlHeader::RESULT && header.m_dst != it->second.job.group)
    {
        return CONTINUE;
    }
    packet->RemoveHeader(h);
    if (h.m_kind == SwitchmlHeader::RESULT)
    {
        Result(it->second, h, packet);
    }
    else
    {
        Contribution(it->second, h, packet, inPort);
    }
    return CONSUMED;
}

void
SwitchmlProgram::Contribution(JobState& js,
                              const SwitchmlHeader& h,
                              Ptr<Packet> payload,
                              uint32_t inPort)
{
    uint32_t n = js.job.childPorts.size();
    uint32_t c = h.m_worker;
    if (!js.job.localIndex.empty())
    {
        auto li = js.job.localIndex.find(h.m_worker);
        NS_ASSERT_MSG(li != js.job.localIndex.end(),
                      "worker " << h.m_worker << " is not below this switch");
        c = li->second;
    }
    NS_ASSERT_MSG(c < n, "contributor " << c << " out of " << n);
    Slot& slot = js.pool[h.m_version & 1][h.m_slot];
    Slot& shadow = js.pool[(h.m_version & 1) ^ 1][h.m_slot];
    if (slot.seen[c])
    {
        // A repeat: the contributor lost our result (or we lost its first copy
        // of the round upstream). Answer from the stored round, never add twice.
        if (slot.count == 0 && slot.round == h.m_round)
        {
            if (slot.complete)
            {
                ++m_resent;
                SendResult(js, slot, h, c);
            }
            else if (js.job.parentPort >= 0)
            {
                SendUp(js, slot, h);
            }
        }
        return;
    }
    slot.seen[c] = true;
    shadow.seen[c] = false; // the other version of this slot may be reused
    uint32_t elements = payload->GetSize() / 4;
    if (slot.count == 0)
    {
        // first contribution of a round
        m_peakOccupied = std::max(m_peakOccupied, ++m_occupied);
        slot.round = h.m_round;
        slot.complete = false;
        slot.exponent = h.m_exponent;
        slot.nextExponent = h.m_nextExponent;
        slot.bytes = payload->GetSize();
        slot.values.clear();
        if (h.m_version & SwitchmlHeader::VALUES)
        {
            slot.values.resize(elements);
            payload->CopyData(reinterpret_cast<uint8_t*>(slot.values.data()), elements * 4);
        }
    }
    else
    {
        slot.nextExponent = std::max(slot.nextExponent, h.m_nextExponent);
        if (!slot.values.empty())
        {
            std::vector<int32_t> add(elements);
            payload->CopyData(reinterpret_cast<uint8_t*>(add.data()), elements * 4);
            for (uint32_t i = 0; i < elements; ++i)
            {
                // quantisation keeps the sum of n values inside int32
                slot.values[i] = int32_t(uint32_t(slot.values[i]) + uint32_t(add[i]));
            }
        }
    }
    ++m_aggregated;
    slot.count = (slot.count + 1) % n;
    if (slot.count != 0)
    {
        return;
    }
    --m_occupied; // every contributor has added: the round is aggregated here
    m_roundTrace(js.job.id, h.m_slot, h.m_round);
    if (js.job.parentPort >= 0)
    {
        SendUp(js, slot, h);
        return;
    }
    slot.complete = true;
    for (uint32_t k = 0; k < n; ++k)
    {
        SendResult(js, slot, h, k);
    }
}

void
SwitchmlProgram::Result(JobState& js, const SwitchmlHeader& h, Ptr<Packet> payload)
{
    Slot& slot = js.pool[h.m_version & 1][h.m_slot];
    if (slot.round != h.m_round || slot.count != 0 || slot.complete)
    {
        return; // a repeated result from above
    }
    slot.complete = true;
    slot.exponent = h.m_exponent;
    slot.nextExponent = h.m_nextExponent;
    if (!slot.values.empty())
    {
        payload->CopyData(reinterpret_cast<uint8_t*>(slot.values.data()), slot.values.size() * 4);
    }
    for (uint32_t k = 0; k < js.job.childPorts.size(); ++k)
    {
        SendResult(js, slot, h, k);
    }
}

Ptr<Packet>
SwitchmlProgram::Payload(const Slot& slot) const
{
    if (slot.values.empty())
    {
        return Create<Packet>(slot.bytes);
    }
    return Create<Packet>(reinterpret_cast<const uint8_t*>(slot.values.data()),
                          slot.values.size() * 4);
}

void
SwitchmlProgram::SendResult(JobState& js, const Slot& slot, const SwitchmlHeader& h, uint32_t c)
{
    Ptr<Packet> p = Payload(slot);
    SwitchmlHeader r = h;
    r.m_kind = SwitchmlHeader::RESULT;
    r.m_exponent = slot.exponent;
    r.m_nextExponent = slot.nextExponent;
    r.m_round = slot.round;
    p->AddHeader(r);
    FabricHeader f;
    f.m_src = js.job.group;
    f.m_dst = js.job.childAddresses[c];
    f.m_total = 1;
    f.m_tc = js.job.tc;
    f.m_protocol = SwitchmlHeader::PROTOCOL;
    GetSwitch()->SendOnPort(js.job.childPorts[c], p, f);
}

void
SwitchmlProgram::SendUp(JobState& js, const Slot& slot, const SwitchmlHeader& h)
{
    Ptr<Packet> p = Payload(slot);
    SwitchmlHeader up = h;
    up.m_kind = SwitchmlHeader::CONTRIBUTION;
    up.m_worker = js.job.indexAtParent;
    up.m_exponent = slot.exponent;
    up.m_nextExponent = slot.nextExponent;
    up.m_round = slot.round;
    p->AddHeader(up);
    FabricHeader f;
    f.m_src = js.job.group;
    f.m_dst = js.job.group;
    f.m_total = 1;
    f.m_tc = js.job.tc;
    f.m_protocol = SwitchmlHeader::PROTOCOL;
    GetSwitch()->SendOnPort(js.job.parentPort, p, f);
}

} // namespace ns3
