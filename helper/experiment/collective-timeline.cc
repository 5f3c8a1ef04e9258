/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-timeline.h"

#include "result-writer.h"

#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/json-document.h"
#include "ns3/log.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetCollectiveTimeline");

void
CollectiveTimeline::Connect(const Cluster& cluster)
{
    for (uint32_t r = 0; r < cluster.endpoints.size(); ++r)
    {
        m_rankOf[cluster.endpoints[r]->GetAddress()] = r;
        cluster.endpoints[r]->TraceConnectWithoutContext(
            "MessageDelivered", MakeCallback(&CollectiveTimeline::Delivered, this));
    }
}

void
CollectiveTimeline::ConnectSteps(Ptr<CollectiveEngine> engine)
{
    engine->TraceConnectWithoutContext("StepSend",
                                       MakeCallback(&CollectiveTimeline::StepPosted, this));
}

void
CollectiveTimeline::StepPosted(const CollectiveEngine::StepSend& send)
{
    m_steps[(uint64_t(send.srcAddress) << 32) | send.msgId] = send;
}

void
CollectiveTimeline::Delivered(const FabricMessage& m)
{
    auto step = m_steps.find((uint64_t(m.src) << 32) | m.msgId);
    uint32_t index = NO_STEP;
    if (step != m_steps.end())
    {
        index = m_posted.size();
        m_posted.push_back(step->second);
        m_steps.erase(step);
    }
    auto src = m_rankOf.find(m.src);
    auto dst = m_rankOf.find(m.dst);
    if (src == m_rankOf.end() || dst == m_rankOf.end())
    {
        if (index != NO_STEP)
        {
            m_posted.pop_back(); // (an engine's steps are between ranks: not expected)
        }
        return; // not between ranks (a switch program's own traffic)
    }
    m_messages.push_back(Message{src->second, dst->second, m.bytes, m.sent, m.delivered, index});
}

std::vector<CollectiveTimeline::RankTraffic>
CollectiveTimeline::TrafficByRank(uint32_t ranks) const
{
    std::vector<RankTraffic> out(ranks);
    for (const auto& m : m_messages)
    {
        if (m.src >= ranks || m.dst >= ranks)
        {
            continue;
        }
        for (uint32_t r : {m.src, m.dst})
        {
            out[r].known = true;
            out[r].spans.emplace_back(m.sent, m.delivered);
        }
        out[m.src].bytesSent += m.bytes;
        out[m.dst].bytesReceived += m.bytes;
    }
    return out;
}

CollectiveTimeline::RankTimes
CollectiveTimeline::RankTimesOf(const RankTraffic& traffic,
                                Time start,
                                const std::vector<std::pair<Time, Time>>& results)
{
    RankTimes t;
    t.known = traffic.known || !results.empty();
    std::vector<std::pair<Time, Time>> spans = results;
    spans.insert(spans.end(), traffic.spans.begin(), traffic.spans.end());
    // its part is over when its last message is in, sent or received: a send still
    // landing after its last receive (a reduce's non-root) keeps it in the collective
    Time last = start;
    for (const auto& span : spans)
    {
        last = std::max(last, span.second);
    }
    t.finish = last - start;
    t.network = UnionLength(std::move(spans));
    return t;
}

Time
UnionLength(std::vector<std::pair<Time, Time>> spans)
{
    std::sort(spans.begin(), spans.end());
    Time covered{0};
    Time from{0};
    Time to{0};
    bool open = false;
    for (const auto& [a, b] : spans)
    {
        if (open && a <= to)
        {
            to = std::max(to, b);
            continue;
        }
        covered += open ? to - from : Time{0};
        from = a;
        to = b;
        open = true;
    }
    return covered + (open ? to - from : Time{0});
}

void
CollectiveTimeline::Write(const std::string& path) const
{
    dlnet::MakeParentFolders("timeline", path); // CheckOutputFile made none
    std::ofstream out = dlnet::OpenOutputFile("timeline", path);
    ChromeTraceWriter trace(out);
    // the tracks: every rank that sent or received, each peer's two threads
    std::set<uint32_t> ranks;
    std::set<std::pair<uint32_t, uint32_t>> threads; // (rank, tid)
    for (const auto& m : m_messages)
    {
        ranks.insert(m.src);
        ranks.insert(m.dst);
        threads.insert({m.src, 2 * m.dst});
        threads.insert({m.dst, 2 * m.src + 1});
    }
    for (uint32_t r : ranks)
    {
        trace.Process(r, "rank " + std::to_string(r));
    }
    for (const auto& [r, tid] : threads)
    {
        trace.Thread(r, tid, (tid % 2 ? "recv from " : "send to ") + std::to_string(tid / 2));
    }
    for (const auto& m : m_messages)
    {
        std::string times
            = ",\"ts\":" + TraceMicroseconds(m.sent)
              + ",\"dur\":" + TraceMicroseconds(m.delivered - m.sent)
              + ",\"cat\":\"collective\",\"args\":{\"bytes\":" + std::to_string(m.bytes)
              + ",\"src\":" + std::to_string(m.src) + ",\"dst\":" + std::to_string(m.dst);
        // a side's slice: its name and the args that differ (the peer, the step)
        auto side = [&](bool send)
        {
            std::string peer = std::to_string(send ? m.dst : m.src);
            if (m.step == NO_STEP)
            {
                return ",\"name\":"
                       + dlnet::JsonText((send ? "send " : "recv ") + std::to_string(m.bytes)
                                         + " B")
                       + times + ",\"peer\":" + peer + "}}";
            }
            const CollectiveEngine::StepSend& posted = m_posted[m.step];
            std::string step = std::to_string(send ? posted.step : posted.peerStep);
            return ",\"name\":" + dlnet::JsonText("step " + step) + times + ",\"peer\":" + peer
                   + ",\"step\":" + step + ",\"collective\":" + std::to_string(posted.collective)
                   + ",\"lane\":" + std::to_string(posted.lane)
                   + ",\"chunk\":" + std::to_string(posted.chunk) + "}}";
        };
        trace.Event("{\"ph\":\"X\",\"pid\":" + std::to_string(m.src)
                    + ",\"tid\":" + std::to_string(2 * m.dst) + side(true));
        trace.Event("{\"ph\":\"X\",\"pid\":" + std::to_string(m.dst)
                    + ",\"tid\":" + std::to_string(2 * m.src + 1) + side(false));
    }
    trace.Finish();
    dlnet::CloseOutputFile("timeline", path, out);
}

} // namespace ns3
