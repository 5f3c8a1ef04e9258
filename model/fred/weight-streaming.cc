/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "weight-streaming.h"

#include "fred-collectives.h"
#include "fred-header.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetWeightStreaming");

namespace
{
/// NPUs relay weight-streaming data on the mesh under their own protocol number.
const uint8_t RELAY_PROTOCOL = FabricHeader::RegisterProtocol(5, "relay");
} // namespace

struct WeightStreaming::State
{
    std::vector<std::vector<std::vector<uint32_t>>> trees; //!< [io][npu] children
    std::vector<uint64_t> received;                        //!< packets per NPU
    std::vector<bool> wanted;                              //!< receivers among the NPUs
    uint32_t receivers{0};
    uint64_t expected{0}; //!< packets per NPU
    uint32_t complete{0};
    uint32_t payload{0};
    uint8_t tc{0};
    StreamingRecord record;
    Callback<void, const StreamingRecord&> done;
    std::unique_ptr<FredCollectives> fred;
    Wafer* wafer{nullptr};

    void FredDone(const FredRecord& r)
    {
        record.end = r.end;
        done(record);
    }

    void Relay(uint32_t npu, Ptr<Packet> packet, const FabricHeader& header)
    {
        FredHeader h;
        packet->PeekHeader(h);
        for (uint32_t child : trees[h.m_job][npu])
        {
            wafer->cluster.endpoints[npu]->SendRaw(packet->Copy(), child, RELAY_PROTOCOL, tc);
        }
        if (++received[npu] == expected && wanted[npu] && ++complete == receivers)
        {
            record.end = Simulator::Now();
            done(record);
        }
    }
};

WeightStreaming::WeightStreaming(Wafer& wafer)
    : m_wafer(wafer)
    , m_state(std::make_shared<State>())
{
    m_state->wafer = &wafer;
}

WeightStreaming::~WeightStreaming()
{
    if (!m_wafer.IsFred())
    {
        for (uint32_t n = 0; n < m_wafer.npus; ++n)
        {
            m_wafer.cluster.endpoints[n]->SetProtocolHandler(RELAY_PROTOCOL,
                                                             FabricEndpoint::RawCallback());
        }
    }
}

std::vector<std::vector<uint32_t>>
WeightStreaming::MeshTree(uint32_t io) const
{
    const Wafer& w = m_wafer;
    uint32_t root = w.ioNpu.at(io);
    // into the wafer first: X for a west or east controller, Y for north or south
    bool xFirst = w.ioSide[io] == 'W' || w.ioSide[io] == 'E';
    std::vector<std::vector<uint32_t>> children(w.npus);
    int rx = root % w.cols;
    int ry = root / w.cols;
    for (uint32_t n = 0; n < w.npus; ++n)
    {
        if (n == root)
        {
            continue;
        }
        int x = n % w.cols;
        int y = n / w.cols;
        // The path goes along the first dimension to the target's coordinate,
        // then along the second: the parent is one step back on it.
        int px = x;
        int py = y;
        if (xFirst)
        {
            (y != ry) ? py += (y > ry ? -1 : 1) : px += (x > rx ? -1 : 1);
        }
        else
        {
            (x != rx) ? px += (x > rx ? -1 : 1) : py += (y > ry ? -1 : 1);
        }
        children[py * w.cols + px].push_back(n);
    }
    return children;
}

void
WeightStreaming::Start(uint64_t bytes, uint8_t tc, Callback<void, const StreamingRecord&> done)
{
    std::vector<uint32_t> npus;
    for (uint32_t n = 0; n < m_wafer.npus; ++n)
    {
        npus.push_back(n);
    }
    Start(bytes, tc, npus, done);
}

void
WeightStreaming::Start(uint64_t bytes,
                       uint8_t tc,
                       const std::vector<uint32_t>& receivers,
                       Callback<void, const StreamingRecord&> done)
{
    if (receivers.empty())
    {
        throw std::invalid_argument("receivers: none; at least one NPU");
    }
    std::vector<bool> wanted(m_wafer.npus, false);
    for (uint32_t r : receivers)
    {
        if (r >= m_wafer.npus || wanted[r])
        {
            throw std::invalid_argument("receivers: NPU " + std::to_string(r)
                                        + " twice or not an NPU (0 to "
                                        + std::to_string(m_wafer.npus - 1) + ")");
        }
        wanted[r] = true;
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("bytes: got 0; a positive stream size per I/O controller");
    }
    State& s = *m_state;
    s.done = done;
    s.tc = tc;
    s.record = StreamingRecord();
    s.record.start = Simulator::Now();
    s.record.bytesPerStream = bytes;
    s.record.streams = m_wafer.ioRanks.size();
    s.record.receivers = receivers.size();
    s.wanted = wanted;
    s.receivers = receivers.size();
    if (m_wafer.IsFred())
    {
        // the previous stream's engine goes first: its destructor takes the NPUs'
        // handlers and the switches' programs back, the new one's included
        s.fred.reset();
        s.fred = std::make_unique<FredCollectives>(m_wafer, true);
        s.fred->StartBroadcast("weights",
                               m_wafer.ioRanks,
                               receivers,
                               bytes,
                               tc,
                               MakeCallback(&State::FredDone, m_state.get()));
        return;
    }
    uint32_t mtu = m_wafer.cluster.endpoints[0]->GetDevice()->GetMaxPacketSize();
    s.payload = mtu - FabricHeader::SERIALIZED_SIZE - FredHeader::SERIALIZED_SIZE;
    uint64_t packets = (bytes + s.payload - 1) / s.payload;
    s.trees.clear();
    for (uint32_t io = 0; io < m_wafer.ioRanks.size(); ++io)
    {
        s.trees.push_back(MeshTree(io));
    }
    s.received.assign(m_wafer.npus, 0);
    s.expected = packets * m_wafer.ioRanks.size();
    s.complete = 0;
    for (uint32_t n = 0; n < m_wafer.npus; ++n)
    {
        m_wafer.cluster.endpoints[n]->SetProtocolHandler(
            RELAY_PROTOCOL, MakeCallback(&State::Relay, m_state.get()).Bind(n));
    }
    for (uint32_t io = 0; io < m_wafer.ioRanks.size(); ++io)
    {
        Ptr<FabricEndpoint> source = m_wafer.cluster.endpoints[m_wafer.ioRanks[io]];
        for (uint64_t k = 0; k < packets; ++k)
        {
            uint32_t size = std::min<uint64_t>(s.payload, bytes - k * s.payload);
            Ptr<Packet> p = Create<Packet>(size);
            FredHeader h;
            h.m_job = io;
            h.m_seq = k;
            p->AddHeader(h);
            source->SendRaw(p, m_wafer.ioNpu[io], RELAY_PROTOCOL, tc);
        }
    }
}

} // namespace ns3
