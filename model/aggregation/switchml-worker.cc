/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switchml-worker.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchmlWorker");
NS_OBJECT_ENSURE_REGISTERED(SwitchmlWorker);

TypeId
SwitchmlWorker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::SwitchmlWorker")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<SwitchmlWorker>()
              .AddAttribute(
                  "Timeout",
                  "Time a slot waits for its round's result before sending the round again",
                  TimeValue(MilliSeconds(1)),
                  MakeTimeAccessor(&SwitchmlWorker::m_timeout),
                  MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("MaxTimeout",
                            "Ceiling of the timeout, which doubles after each expiry",
                            TimeValue(MilliSeconds(100)),
                            MakeTimeAccessor(&SwitchmlWorker::m_maxTimeout),
                            MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

SwitchmlWorker::SwitchmlWorker() = default;

SwitchmlWorker::~SwitchmlWorker() = default;

void
SwitchmlWorker::DoDispose()
{
    for (auto& t : m_timers)
    {
        t.Cancel();
    }
    if (m_endpoint)
    {
        m_endpoint->SetProtocolHandler(SwitchmlHeader::PROTOCOL, FabricEndpoint::RawCallback());
        m_endpoint = nullptr;
    }
    m_done = DoneCallback();
    Object::DoDispose();
}

void
SwitchmlWorker::Setup(Ptr<FabricEndpoint> endpoint,
                      uint16_t job,
                      uint32_t group,
                      uint16_t worker,
                      uint32_t workers,
                      uint32_t poolSize,
                      uint32_t elementsPerPacket,
                      uint64_t elements,
                      uint8_t tc,
                      std::vector<float> input)
{
    m_endpoint = endpoint;
    m_job = job;
    m_group = group;
    m_worker = worker;
    m_workers = workers;
    m_pool = poolSize;
    m_k = elementsPerPacket;
    m_elements = elements;
    m_chunks = (elements + m_k - 1) / m_k;
    m_tc = tc;
    m_input = std::move(input);
    uint32_t slots = std::min<uint64_t>(m_pool, m_chunks);
    m_round.assign(slots, 0);
    m_exponent.assign(slots, SwitchmlHeader::NO_EXPONENT);
    m_timeouts.assign(slots, 0);
    m_timers.assign(slots, EventId());
    if (!m_input.empty())
    {
        m_record.output.assign(m_elements, 0.0f);
    }
    m_endpoint->SetProtocolHandler(SwitchmlHeader::PROTOCOL,
                                   MakeCallback(&SwitchmlWorker::Receive, this));
}

void
SwitchmlWorker::Start(DoneCallback done)
{
    m_done = done;
    m_record.start = Simulator::Now();
    m_slotsLeft = m_round.size();
    for (uint32_t s = 0; s < m_round.size(); ++s)
    {
        Send(s, false);
    }
}

const SwitchmlWorkerRecord&
SwitchmlWorker::GetRecord() const
{
    return m_record;
}

int8_t
SwitchmlWorker::BlockExponent(const float* values, uint64_t count)
{
    float largest = 0;
    for (uint64_t i = 0; i < count; ++i)
    {
        largest = std::max(largest, std::fabs(values[i]));
    }
    if (largest == 0)
    {
        return SwitchmlHeader::NO_EXPONENT;
    }
    int e = 0;
    std::frexp(largest, &e); // largest = f 2^e with f in [0.5, 1): every |x| < 2^e
    return static_cast<int8_t>(std::clamp(e, -127, 127));
}

double
SwitchmlWorker::Scale(int8_t exponent, uint32_t workers)
{
    if (exponent == SwitchmlHeader::NO_EXPONENT)
    {
        return 0;
    }
    // n values below 2^e, each rounded by at most 1/2, stay inside int32
    return std::ldexp((2147483647.0 - 2.0 * workers) / workers, -exponent);
}

uint64_t
SwitchmlWorker::ChunkOf(uint32_t slot, uint32_t round) const
{
    return slot + uint64_t(round - 1) * m_pool;
}

int8_t
SwitchmlWorker::ExponentOf(uint64_t chunk) const
{
    if (m_input.empty() || chunk >= m_chunks)
    {
        return SwitchmlHeader::NO_EXPONENT;
    }
    uint64_t first = chunk * m_k;
    return BlockExponent(m_input.data() + first, std::min<uint64_t>(m_k, m_elements - first));
}

void
SwitchmlWorker::Send(uint32_t slot, bool again)
{
    uint32_t round = m_round[slot];
    SwitchmlHeader h;
    h.m_kind = SwitchmlHeader::CONTRIBUTION;
    h.m_version = (round & 1) | (m_input.empty() ? 0 : SwitchmlHeader::VALUES);
    h.m_job = m_job;
    h.m_worker = m_worker;
    h.m_slot = slot;
    h.m_round = round;
    Ptr<Packet> p;
    if (round == 0)
    {
        // the probe: no values, only this worker's exponent for the slot's first chunk
        p = Create<Packet>();
        h.m_nextExponent = ExponentOf(slot);
    }
    else
    {
        uint64_t chunk = ChunkOf(slot, round);
        uint64_t first = chunk * m_k;
        uint32_t n = std::min<uint64_t>(m_k, m_elements - first);
        h.m_exponent = m_exponent[slot];
        h.m_nextExponent = ExponentOf(chunk + m_pool);
        if (m_input.empty())
        {
            p = Create<Packet>(4 * n);
        }
        else
        {
            double scale = Scale(h.m_exponent, m_workers);
            std::vector<int32_t> q(n);
            for (uint32_t i = 0; i < n; ++i)
            {
                q[i] = static_cast<int32_t>(std::llround(m_input[first + i] * scale));
            }
            p = Create<Packet>(reinterpret_cast<const uint8_t*>(q.data()), 4 * n);
        }
        m_record.bytesUp += 4 * n;
    }
    p->AddHeader(h);
    ++m_record.packetsSent;
    if (again)
    {
        ++m_record.retransmissions;
    }
    m_endpoint->SendRaw(p, m_group, SwitchmlHeader::PROTOCOL, m_tc);
    Time timeout = m_timeout;
    // the ceiling never lowers the configured timeout itself
    Time ceiling = std::max(m_maxTimeout, m_timeout);
    for (uint32_t i = 0; i < m_timeouts[slot] && timeout < ceiling; ++i)
    {
        timeout = timeout * 2;
    }
    m_timers[slot].Cancel();
    m_timers[slot]
        = Simulator::Schedule(std::min(timeout, ceiling), &SwitchmlWorker::Timeout, this, slot);
}

void
SwitchmlWorker::Timeout(uint32_t slot)
{
    ++m_timeouts[slot];
    NS_LOG_LOGIC("worker " << m_worker << " slot " << slot << " round " << m_round[slot]
                           << " timed out");
    Send(slot, true);
}

void
SwitchmlWorker::Receive(Ptr<Packet> packet, const FabricHeader& header)
{
    SwitchmlHeader h;
    packet->RemoveHeader(h);
    if (h.m_kind != SwitchmlHeader::RESULT || h.m_job != m_job || h.m_slot >= m_round.size()
        || h.m_round != m_round[h.m_slot])
    {
        return; // a result this worker already has
    }
    uint32_t slot = h.m_slot;
    m_timers[slot].Cancel();
    m_timeouts[slot] = 0;
    uint32_t round = m_round[slot];
    if (round > 0)
    {
        uint64_t first = ChunkOf(slot, round) * m_k;
        uint32_t n = packet->GetSize() / 4;
        m_record.bytesDown += packet->GetSize();
        if (!m_input.empty())
        {
            std::vector<int32_t> sum(n);
            packet->CopyData(reinterpret_cast<uint8_t*>(sum.data()), 4 * n);
            double scale = Scale(h.m_exponent, m_workers);
            for (uint32_t i = 0; i < n; ++i)
            {
                m_record.output[first + i] = scale > 0 ? float(sum[i] / scale) : 0.0f;
            }
        }
    }
    m_exponent[slot] = h.m_nextExponent;
    m_round[slot] = round + 1;
    if (ChunkOf(slot, round + 1) < m_chunks)
    {
        Send(slot, false);
        return;
    }
    if (--m_slotsLeft == 0)
    {
        m_record.end = Simulator::Now();
        if (!m_done.IsNull())
        {
            m_done(m_record);
        }
    }
}

} // namespace ns3
