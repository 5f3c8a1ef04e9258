/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "omnireduce.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OmniReduce");
NS_OBJECT_ENSURE_REGISTERED(OmniReduceAggregator);
NS_OBJECT_ENSURE_REGISTERED(OmniReduceWorker);

namespace
{

constexpr uint32_t NONE = OmniReduceHeader::NONE;

} // namespace

TypeId
OmniReduceAggregator::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OmniReduceAggregator")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<OmniReduceAggregator>()
              .AddAttribute("PacketTime",
                            "Processing time of one contribution packet; packets are processed "
                            "one at a time (0: the aggregator keeps up with any packet rate)",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&OmniReduceAggregator::m_packetTime),
                            MakeTimeChecker(Seconds(0)));
    return tid;
}

OmniReduceAggregator::OmniReduceAggregator() = default;

OmniReduceAggregator::~OmniReduceAggregator() = default;

void
OmniReduceAggregator::DoDispose()
{
    m_send = nullptr;
    m_slots.clear();
    Object::DoDispose();
}

void
OmniReduceAggregator::Setup(const OmniReduceJob& job, uint32_t self, SendFunction send)
{
    m_job = job;
    m_self = self;
    m_send = std::move(send);
    uint32_t n = job.workers.size();
    uint32_t a = job.aggregators.size();
    for (uint32_t j = 0; j < job.UsedSlots(); ++j)
    {
        if (job.aggregators[j % a] != self)
        {
            continue;
        }
        Slot& s = m_slots[j];
        for (uint32_t l = 0; l < job.lanes; ++l)
        {
            s.current.push_back(job.FirstBlock(j, l));
        }
        s.next.assign(n, std::vector<uint32_t>(job.lanes, NONE));
        s.expected.assign(n, true); // round 0: everybody sends every lane's first block
        s.received.assign(n, false);
        s.expectedCount = n;
        if (job.functional)
        {
            s.sums.assign(job.lanes, std::vector<float>(job.blockElements, 0.0f));
        }
    }
}

void
OmniReduceAggregator::Contribution(const OmniReduceHeader& h, Ptr<Packet> values)
{
    if (m_packetTime.IsZero())
    {
        Apply(h, values);
        return;
    }
    // one packet at a time, each taking PacketTime (a server core's per-packet cost)
    m_busyUntil = std::max(m_busyUntil, Simulator::Now()) + m_packetTime;
    Simulator::Schedule(
        m_busyUntil - Simulator::Now(), &OmniReduceAggregator::Apply, this, h, values);
}

void
OmniReduceAggregator::Apply(OmniReduceHeader h, Ptr<Packet> values)
{
    auto it = m_slots.find(h.m_slot);
    if (it == m_slots.end() || h.m_worker >= m_job.workers.size())
    {
        return;
    }
    Slot& s = it->second;
    uint32_t w = h.m_worker;
    if (h.m_round < s.round)
    {
        // the worker lost this round's result, and missed every later one
        // while it waited: send them again, in order
        for (uint32_t r = h.m_round; r < s.round; ++r)
        {
            ++m_resent;
            SendResult(h.m_slot, s.results[r], r, w);
        }
        return;
    }
    if (h.m_round > s.round || !s.expected[w] || s.received[w])
    {
        return; // a reminder before the round is complete, or a duplicate
    }
    s.received[w] = true;
    if (s.receivedCount++ == 0)
    {
        m_peakOccupied = std::max(m_peakOccupied, ++m_occupied); // first of the round
    }
    ++m_contributions;
    uint32_t offset = 0;
    for (uint32_t l = 0; l < m_job.lanes; ++l)
    {
        if (!(h.m_present & (1u << l)) || s.current[l] == NONE)
        {
            continue;
        }
        uint32_t n = m_job.BlockSize(s.current[l]);
        if (m_job.functional)
        {
            std::vector<float> block(n);
            Ptr<Packet> part = values->CreateFragment(offset, 4 * n);
            part->CopyData(reinterpret_cast<uint8_t*>(block.data()), 4 * n);
            for (uint32_t i = 0; i < n; ++i)
            {
                s.sums[l][i] += block[i];
            }
        }
        offset += 4 * n;
    }
    for (uint32_t l = 0; l < m_job.lanes && l < h.m_next.size(); ++l)
    {
        s.next[w][l] = h.m_next[l];
    }
    if (s.receivedCount == s.expectedCount)
    {
        Complete(h.m_slot, s);
    }
}

void
OmniReduceAggregator::Complete(uint32_t j, Slot& s)
{
    uint32_t n = m_job.workers.size();
    Result r;
    r.next.assign(m_job.lanes, NONE);
    for (uint32_t l = 0; l < m_job.lanes; ++l)
    {
        if (s.current[l] == NONE)
        {
            continue;
        }
        uint32_t size = m_job.BlockSize(s.current[l]);
        r.present |= 1u << l;
        r.bytes += 4 * size;
        if (m_job.functional)
        {
            r.values.insert(r.values.end(), s.sums[l].begin(), s.sums[l].begin() + size);
            std::fill(s.sums[l].begin(), s.sums[l].end(), 0.0f);
        }
        uint32_t least = NONE;
        for (uint32_t w = 0; w < n; ++w)
        {
            least = std::min(least, s.next[w][l]);
        }
        r.next[l] = least;
    }
    --m_occupied;
    uint32_t round = s.round++;
    s.results.push_back(r);
    s.current = r.next;
    s.expectedCount = 0;
    s.receivedCount = 0;
    for (uint32_t w = 0; w < n; ++w)
    {
        bool expected = false;
        for (uint32_t l = 0; l < m_job.lanes; ++l)
        {
            expected = expected || (s.current[l] != NONE && s.next[w][l] == s.current[l]);
        }
        s.expected[w] = expected;
        s.received[w] = false;
        s.expectedCount += expected;
    }
    for (uint32_t w = 0; w < n; ++w)
    {
        SendResult(j, s.results.back(), round, w);
    }
}

void
OmniReduceAggregator::SendResult(uint32_t j, const Result& r, uint32_t round, uint32_t w)
{
    OmniReduceHeader h;
    h.m_kind = OmniReduceHeader::RESULT;
    h.m_flags = m_job.functional ? OmniReduceHeader::VALUES : 0;
    h.m_slot = j;
    h.m_round = round;
    h.m_present = r.present;
    h.m_next = r.next;
    Ptr<Packet> p = m_job.functional ? Create<Packet>(
                        reinterpret_cast<const uint8_t*>(r.values.data()), 4 * r.values.size())
                                     : Create<Packet>(r.bytes);
    p->AddHeader(h);
    m_resultBytes += r.bytes;
    m_send(m_job.workers[w], p);
}

uint64_t
OmniReduceAggregator::GetContributions() const
{
    return m_contributions;
}

uint64_t
OmniReduceAggregator::GetResultsResent() const
{
    return m_resent;
}

uint64_t
OmniReduceAggregator::GetResultBytes() const
{
    return m_resultBytes;
}

uint32_t
OmniReduceAggregator::GetPeakSlotsOccupied() const
{
    return m_peakOccupied;
}

TypeId
OmniReduceWorker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OmniReduceWorker")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<OmniReduceWorker>()
              .AddAttribute("Threshold",
                            "Functional mode: a block is zero when every |value| is at most this",
                            DoubleValue(0),
                            MakeDoubleAccessor(&OmniReduceWorker::m_threshold),
                            MakeDoubleChecker<double>(0))
              .AddAttribute("Timeout",
                            "Time a slot waits for its round's result before sending again",
                            TimeValue(MilliSeconds(1)),
                            MakeTimeAccessor(&OmniReduceWorker::m_timeout),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("MaxTimeout",
                            "Ceiling of the timeout, which doubles after each expiry",
                            TimeValue(MilliSeconds(100)),
                            MakeTimeAccessor(&OmniReduceWorker::m_maxTimeout),
                            MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

OmniReduceWorker::OmniReduceWorker() = default;

OmniReduceWorker::~OmniReduceWorker() = default;

void
OmniReduceWorker::DoDispose()
{
    for (auto& s : m_slots)
    {
        s.timer.Cancel();
    }
    m_send = nullptr;
    m_done = DoneCallback();
    Object::DoDispose();
}

void
OmniReduceWorker::Setup(const OmniReduceJob& job,
                        uint16_t worker,
                        std::vector<bool> nonZero,
                        std::vector<float> input,
                        OmniReduceAggregator::SendFunction send)
{
    m_job = job;
    m_worker = worker;
    m_input = std::move(input);
    m_send = std::move(send);
    if (!m_input.empty())
    {
        // the worker finds its non-zero blocks in its own tensor
        nonZero = NonZeroBlocks(job, m_input, m_threshold);
        m_record.output.assign(job.elements, 0.0f);
    }
    m_nonZero = std::move(nonZero);
    m_slots.assign(job.UsedSlots(), Slot());
    for (uint32_t j = 0; j < m_slots.size(); ++j)
    {
        Slot& s = m_slots[j];
        for (uint32_t l = 0; l < job.lanes; ++l)
        {
            uint32_t first = job.FirstBlock(j, l);
            s.current.push_back(first);
            s.mine.push_back(first == NONE ? NONE : NextNonZero(uint64_t(first) + job.Stride()));
            if (first != NONE)
            {
                s.present |= 1u << l; // round 0 sends every lane's first block
            }
        }
    }
}

std::vector<bool>
OmniReduceWorker::NonZeroBlocks(const OmniReduceJob& job,
                                const std::vector<float>& input,
                                double threshold)
{
    std::vector<bool> nonZero(job.Blocks(), false);
    for (uint64_t b = 0; b < job.Blocks(); ++b)
    {
        uint64_t first = b * job.blockElements;
        for (uint32_t i = 0; i < job.BlockSize(b) && !nonZero[b]; ++i)
        {
            nonZero[b] = std::fabs(input[first + i]) > threshold;
        }
    }
    return nonZero;
}

uint32_t
OmniReduceWorker::NextNonZero(uint64_t from) const
{
    for (uint64_t b = from; b < m_job.Blocks(); b += m_job.Stride())
    {
        if (m_nonZero[b])
        {
            return uint32_t(b);
        }
    }
    return NONE;
}

void
OmniReduceWorker::Start(DoneCallback done)
{
    m_done = done;
    m_record.start = Simulator::Now();
    m_slotsLeft = m_slots.size();
    for (uint32_t j = 0; j < m_slots.size(); ++j)
    {
        Send(j, false);
    }
}

const OmniReduceWorkerRecord&
OmniReduceWorker::GetRecord() const
{
    return m_record;
}

void
OmniReduceWorker::Send(uint32_t j, bool again)
{
    Slot& s = m_slots[j];
    if (s.present != 0 || again)
    {
        OmniReduceHeader h;
        h.m_kind = OmniReduceHeader::CONTRIBUTION;
        h.m_flags = m_input.empty() ? 0 : OmniReduceHeader::VALUES;
        h.m_worker = m_worker;
        h.m_slot = j;
        h.m_round = s.round;
        h.m_present = s.present;
        h.m_next = s.mine;
        std::vector<float> values;
        uint32_t bytes = 0;
        for (uint32_t l = 0; l < m_job.lanes; ++l)
        {
            if (!(s.present & (1u << l)))
            {
                continue;
            }
            uint32_t n = m_job.BlockSize(s.current[l]);
            bytes += 4 * n;
            if (!m_input.empty())
            {
                auto first = m_input.begin() + uint64_t(s.current[l]) * m_job.blockElements;
                values.insert(values.end(), first, first + n);
            }
        }
        Ptr<Packet> p
            = m_input.empty()
                  ? Create<Packet>(bytes)
                  : Create<Packet>(reinterpret_cast<const uint8_t*>(values.data()), bytes);
        p->AddHeader(h);
        ++m_record.packetsSent;
        m_record.bytesUp += bytes;
        if (again)
        {
            ++m_record.retransmissions;
        }
        m_send(m_job.aggregators[j % m_job.aggregators.size()], p);
    }
    Time timeout = m_timeout;
    // the ceiling never lowers the configured timeout itself
    Time ceiling = std::max(m_maxTimeout, m_timeout);
    for (uint32_t i = 0; i < s.timeouts && timeout < ceiling; ++i)
    {
        timeout = timeout * 2;
    }
    s.timer.Cancel();
    s.timer = Simulator::Schedule(std::min(timeout, ceiling), &OmniReduceWorker::Timeout, this, j);
}

void
OmniReduceWorker::Timeout(uint32_t j)
{
    ++m_slots[j].timeouts;
    Send(j, true);
}

void
OmniReduceWorker::Result(const OmniReduceHeader& h, Ptr<Packet> values)
{
    if (h.m_slot >= m_slots.size())
    {
        return;
    }
    Slot& s = m_slots[h.m_slot];
    if (s.done || h.m_round != s.round)
    {
        return; // a result this worker already has
    }
    s.timer.Cancel();
    s.timeouts = 0;
    uint32_t offset = 0;
    for (uint32_t l = 0; l < m_job.lanes; ++l)
    {
        if (!(h.m_present & (1u << l)) || s.current[l] == NONE)
        {
            continue;
        }
        uint32_t n = m_job.BlockSize(s.current[l]);
        m_record.bytesDown += 4 * n;
        if (!m_input.empty())
        {
            Ptr<Packet> part = values->CreateFragment(offset, 4 * n);
            part->CopyData(
                reinterpret_cast<uint8_t*>(m_record.output.data()
                                           + uint64_t(s.current[l]) * m_job.blockElements),
                4 * n);
        }
        offset += 4 * n;
    }
    s.current = h.m_next;
    ++s.round;
    s.present = 0;
    bool any = false;
    for (uint32_t l = 0; l < m_job.lanes; ++l)
    {
        if (s.current[l] == NONE)
        {
            continue;
        }
        any = true;
        if (s.mine[l] == s.current[l])
        {
            s.present |= 1u << l;
            s.mine[l] = NextNonZero(uint64_t(s.current[l]) + m_job.Stride());
        }
    }
    if (any)
    {
        Send(h.m_slot, false);
        return;
    }
    s.done = true;
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
