/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "weight-streaming.h"

#include "fred-collectives.h"
#include "fred-flow-engine.h"
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
    uint32_t pending{0}; //!< network=flow: streams not yet arrived
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

    void StreamArrived()
    {
        if (--pending == 0)
        {
            record.end = Simulator::Now();
            done(record);
        }
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

WeightStreaming::WeightStreaming(Wafer& wafer, FredCollectives* fred)
    : m_wafer(wafer)
    , m_shared(fred)
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
        FredCollectives* fred = m_shared;
        if (!fred)
        {
            // one for every stream: a new one per stream took the NPUs' FRED handlers
            // and then lost them as the old one's destructor removed its own
            if (!s.fred)
            {
                s.fred = std::make_unique<FredCollectives>(m_wafer, true);
            }
            fred = s.fred.get();
        }
        fred->StartBroadcast("weights",
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
    if (m_wafer.cluster.flow)
    {
        StartMeshFlows(bytes, packets);
        return;
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

void
WeightStreaming::StartMeshFlows(uint64_t bytes, uint64_t packets)
{
    State& s = *m_state;
    FlowNetwork& network = *m_wafer.cluster.flow;
    const uint32_t headers = FabricHeader::SERIALIZED_SIZE + FredHeader::SERIALIZED_SIZE;
    const double wire = double(bytes) + double(packets) * headers;
    const double packet = double(std::min<uint64_t>(bytes, s.payload)) + headers;
    // the links of the route from a to b, first hop first (X-Y: one path)
    auto path = [&network, packet](uint32_t a, uint32_t b)
    {
        std::vector<uint32_t> links;
        for (const auto& use : network.Resolve(a, b, 0, packet).uses)
        {
            links.push_back(use.first);
        }
        return links;
    };
    s.pending = m_wafer.ioRanks.size();
    for (uint32_t io = 0; io < m_wafer.ioRanks.size(); ++io)
    {
        // the controller to its NPU, then every NPU to its children: each copy loads the
        // links of its route, and a relaying NPU stores a packet before it sends it on
        FlowTree tree;
        tree.sourceWire = wire;
        uint32_t root = m_wafer.ioNpu[io];
        std::vector<std::vector<uint32_t>> from(m_wafer.npus); // links from the controller
        from[root] = path(m_wafer.ioRanks[io], root);
        for (uint32_t link : from[root])
        {
            tree.wire[link] += wire;
        }
        std::vector<uint32_t> order{root};
        for (std::size_t i = 0; i < order.size(); ++i)
        {
            uint32_t npu = order[i];
            for (uint32_t child : s.trees[io][npu])
            {
                std::vector<uint32_t> links = path(npu, child);
                for (uint32_t link : links)
                {
                    tree.wire[link] += wire;
                }
                from[child] = from[npu];
                from[child].insert(from[child].end(), links.begin(), links.end());
                order.push_back(child);
            }
        }
        for (uint32_t npu = 0; npu < m_wafer.npus; ++npu)
        {
            if (s.wanted[npu])
            {
                tree.latency = std::max(tree.latency, network.GetPathLatency(from[npu], packet));
            }
        }
        FlowNetwork::FlowSpec spec;
        spec.uses = tree.Uses();
        spec.bytes = wire;
        spec.priority = s.tc;
        std::shared_ptr<State> state = m_state;
        double latency = tree.latency;
        network.StartFlow(spec,
                          Callback<void>(
                              [state, latency]()
                              {
                                  Simulator::Schedule(
                                      Seconds(latency), &State::StreamArrived, state.get());
                              }));
    }
}

} // namespace ns3
