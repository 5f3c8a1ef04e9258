/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "link-load-estimate.h"

#include "collective-schedule.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-header.h"
#include "ns3/interrupt.h"
#include "ns3/log.h"
#include "ns3/node.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkLoadEstimate");

namespace
{

/// The directed links of a cluster (one per sending device), named "from->to".
class LinkTable
{
public:
    explicit LinkTable(const Cluster& cluster)
    {
        for (const auto& link : cluster.links)
        {
            Add(link.a, link.from + "->" + link.to);
            Add(link.b, link.to + "->" + link.from);
        }
    }

    /// \return the index of a sending device's link (added, with a node-id name, if unknown)
    std::size_t Of(Ptr<FabricNetDevice> device)
    {
        auto it = m_index.find(PeekPointer(device));
        if (it != m_index.end())
        {
            return it->second;
        }
        Ptr<FabricNetDevice> peer = device->GetPeer();
        return Add(device,
                   "node" + std::to_string(device->GetNode()->GetId()) + "->node"
                       + (peer ? std::to_string(peer->GetNode()->GetId()) : std::string("?")));
    }

    const std::string& Name(std::size_t i) const
    {
        return m_names[i];
    }

    double Rate(std::size_t i) const
    {
        return m_rates[i];
    }

    std::size_t Size() const
    {
        return m_names.size();
    }

private:
    std::size_t Add(Ptr<FabricNetDevice> device, const std::string& name)
    {
        std::size_t i = m_names.size();
        m_index[PeekPointer(device)] = i;
        m_names.push_back(name);
        m_rates.push_back(device->GetDataRate().GetBitRate() / 8.0);
        return i;
    }

    std::map<const FabricNetDevice*, std::size_t> m_index;
    std::vector<std::string> m_names;
    std::vector<double> m_rates; //!< B/s
};

/// Routes messages over a cluster and adds up the bytes per link.
class Router
{
public:
    Router(const Cluster& cluster, LinkTable& links)
        : m_cluster(cluster)
        , m_links(links)
    {
    }

    /**
     * Add a message's wire bytes to the links it crosses.
     * \return the fixed cost of its path: propagation, switching, and the
     *         store and forward of its largest packet on every link after the first
     */
    double Route(const LinkMessage& m, uint32_t msgId, std::vector<double>& load)
    {
        if (m.src >= m_cluster.GetNRanks() || m.dst >= m_cluster.GetNRanks())
        {
            throw std::invalid_argument("EstimateLinkLoad: message " + std::to_string(m.src)
                                        + " -> " + std::to_string(m.dst)
                                        + ": rank out of range (cluster of "
                                        + std::to_string(m_cluster.GetNRanks()) + ")");
        }
        Ptr<FabricNetDevice> device = m_cluster.endpoints[m.src]->GetDevice();
        // as FabricEndpoint::Send cuts it
        double segment = device->GetMaxPacketSize() - FabricHeader::SERIALIZED_SIZE;
        double packets = std::ceil(double(m.bytes) / segment);
        double wire = double(m.bytes) + packets * FabricHeader::SERIALIZED_SIZE;
        double largest = std::min(double(m.bytes), segment) + FabricHeader::SERIALIZED_SIZE;
        return Hop(m, msgId, wire, largest, 1.0, device, 0, load);
    }

private:
    double Hop(const LinkMessage& m,
               uint32_t msgId,
               double wire,
               double largest,
               double share,
               Ptr<FabricNetDevice> device,
               uint32_t hop,
               std::vector<double>& load)
    {
        // hop by hop in a loop (a mesh path may be thousands of hops); a recursion only
        // where spraying splits the path. The hops' times are summed from the last, as the
        // recursion of each hop did (the same sum to the bit)
        std::vector<double> times;
        auto sum = [&times](double tail)
        {
            for (auto t = times.rbegin(); t != times.rend(); ++t)
            {
                tail = *t + tail;
            }
            return tail;
        };
        while (true)
        {
            std::size_t link = m_links.Of(device);
            // a path without a loop uses each link at most once
            if (hop >= m_links.Size())
            {
                throw std::invalid_argument("EstimateLinkLoad: the route from "
                                            + std::to_string(m.src) + " to " + std::to_string(m.dst)
                                            + " loops (it is longer than the network's "
                                            + std::to_string(m_links.Size()) + " links)");
            }
            if (load.size() < m_links.Size())
            {
                load.resize(m_links.Size(), 0);
            }
            load[link] += share * wire;
            Ptr<FabricNetDevice> peer = device->GetPeer();
            double t = device->GetFabricChannel()->GetDelay().GetSeconds()
                       + peer->GetIngressLatency().GetSeconds();
            if (hop > 0)
            {
                t += largest / m_links.Rate(link);
            }
            if (peer == m_cluster.endpoints[m.dst]->GetDevice())
            {
                return sum(t);
            }
            times.push_back(t);
            // a switch's port (on a mesh the router shares its node with the NPU)
            Ptr<FabricSwitch> sw = peer->GetNode()->GetObject<FabricSwitch>();
            if (!sw)
            {
                throw std::invalid_argument("EstimateLinkLoad: the route from "
                                            + std::to_string(m.src) + " to " + std::to_string(m.dst)
                                            + " ends at another node than its destination");
            }
            const std::vector<uint32_t>& ports = sw->GetRoute(m.dst);
            if (ports.empty())
            {
                throw std::invalid_argument("EstimateLinkLoad: a switch has no route to "
                                            + std::to_string(m.dst));
            }
            uint32_t port = sw->SelectPort(ports, m.src, m.dst, msgId);
            if (port != FabricSwitch::SPRAY)
            {
                device = sw->GetPort(port);
                ++hop;
                continue;
            }
            // spraying: an even split (the switch's round robin is per destination,
            // shared by every source, so over many packets each port gets its share)
            double slowest = 0;
            for (uint32_t each : ports)
            {
                slowest = std::max(slowest,
                                   Hop(m,
                                       msgId,
                                       wire,
                                       largest,
                                       share / ports.size(),
                                       sw->GetPort(each),
                                       hop + 1,
                                       load));
            }
            return sum(slowest);
        }
    }

    const Cluster& m_cluster;
    LinkTable& m_links;
};

/// Levels (phases) of the steps of a collective's lanes.
class Levels
{
public:
    /**
     * \param lanes the lanes \param lanesOfChunk lanes by chunk
     * \param positionInChunk by lane
     * \param firstEntry FirstEntries of the lanes
     * \param inFlight chunks a rank works on at once
     * \param stagger the request's staggerChunks
     * \param pipeline a chunk enters a step one level after the chunk before it
     */
    Levels(const std::vector<CollectiveLane>& lanes,
           const std::vector<std::vector<uint32_t>>& lanesOfChunk,
           const std::vector<uint32_t>& positionInChunk,
           const std::vector<uint64_t>& firstEntry,
           uint32_t inFlight,
           bool stagger,
           bool pipeline)
        : m_lanes(lanes)
        , m_lanesOfChunk(lanesOfChunk)
        , m_position(positionInChunk)
        , m_first(firstEntry)
        , m_inFlight(inFlight)
        , m_stagger(stagger)
        , m_pipeline(pipeline)
        , m_ranks(uint32_t((firstEntry.size() - 1) / std::max<std::size_t>(lanes.size(), 1)))
        , m_memo(firstEntry.back(), UNKNOWN)
    {
    }

    /**
     * Where each (lane, rank)'s levels start in a flat memo: one per step and one for the
     * lane's end (GetNSteps).
     * \param lanes the lanes
     * \param ranks ranks of every lane
     * \return (lane * ranks + rank) -> its first entry; the last element is the count
     */
    static std::vector<uint64_t> FirstEntries(const std::vector<CollectiveLane>& lanes,
                                              uint32_t ranks)
    {
        std::vector<uint64_t> first;
        first.reserve(lanes.size() * ranks + 1);
        uint64_t next = 0;
        for (const auto& lane : lanes)
        {
            for (uint32_t r = 0; r < ranks; ++r)
            {
                first.push_back(next);
                next += lane.GetNSteps(r) + 1;
            }
        }
        first.push_back(next);
        return first;
    }

    /// \return the level at which rank enters step (steps.size(): finishes the lane)
    int64_t Of(uint32_t lane, uint32_t rank, uint32_t step)
    {
        int32_t& memo = m_memo[m_first[std::size_t(lane) * m_ranks + rank] + step];
        if (memo == BUSY)
        {
            throw std::logic_error("CollectivePhases: the schedule's steps wait on each other");
        }
        if (memo != UNKNOWN)
        {
            return memo;
        }
        memo = BUSY;
        const CollectiveLane& steps = m_lanes[lane];
        CollectiveStep scratch; // (each call its own: the calls below make steps too)
        uint32_t chunk = m_lanes[lane].chunk;
        int64_t level = 0;
        if (step == 0)
        {
            // CollectiveEngine::StartChunks: a chunk starts once the one
            // inFlight before it is done (the engine frees the place of
            // whichever finishes first; here, that one)
            if (chunk >= m_inFlight)
            {
                for (uint32_t before : m_lanesOfChunk[chunk - m_inFlight])
                {
                    level = std::max(level, Of(before, rank, m_lanes[before].GetNSteps(rank)));
                }
            }
        }
        else
        {
            level = Of(lane, rank, step - 1);
            for (const auto& recv : steps.GetStep(rank, step - 1, scratch).recvs)
            {
                level = std::max(level, Of(lane, recv.peer, recv.peerStep) + 1);
            }
        }
        if (chunk > 0 && step < steps.GetNSteps(rank))
        {
            uint32_t before = m_lanesOfChunk[chunk - 1][m_position[lane]];
            if (m_stagger)
            {
                // CollectiveEngine::Gated: after the chunk before has left the step
                level = std::max(level, Of(before, rank, step + 1));
            }
            else if (m_pipeline && !steps.GetStep(rank, step, scratch).sends.empty())
            {
                // its sends queue behind the chunk before's on the same links
                level = std::max(level, Of(before, rank, step) + 1);
            }
        }
        memo = int32_t(level); // (a level < the memo's entries, about MAX_ESTIMATE_STEPS)
        return level;
    }

private:
    static constexpr int32_t UNKNOWN = -1;
    static constexpr int32_t BUSY = -2;

    const std::vector<CollectiveLane>& m_lanes;
    const std::vector<std::vector<uint32_t>>& m_lanesOfChunk;
    const std::vector<uint32_t>& m_position;
    const std::vector<uint64_t>& m_first;
    uint32_t m_inFlight;
    bool m_stagger;
    bool m_pipeline;
    uint32_t m_ranks;            //!< ranks of every lane
    std::vector<int32_t> m_memo; //!< by m_first[lane * ranks + rank] + step
};

} // namespace

LinkLoadEstimate
EstimateLinkLoad(const Cluster& cluster, const std::vector<LinkPhase>& phases)
{
    LinkTable links(cluster);
    Router router(cluster, links);
    LinkLoadEstimate e;
    std::vector<uint32_t> nextId(cluster.GetNRanks(), 0);
    std::vector<double> busy;  // seconds per link over the whole collective
    std::vector<double> total; // wire bytes per link over the whole collective
    for (const auto& phase : phases)
    {
        std::vector<double> load(links.Size(), 0);
        PhaseLoad p;
        for (const auto& m : phase.messages)
        {
            uint32_t id = m.msgId;
            if (m.src < nextId.size())
            {
                if (id == LinkMessage::NEXT_ID)
                {
                    id = nextId[m.src]++;
                }
                else
                {
                    nextId[m.src] = std::max(nextId[m.src], id + 1);
                }
            }
            if (m.src == m.dst || m.bytes == 0)
            {
                continue;
            }
            p.latency += router.Route(m, id, load);
            if (++p.messages % 4096 == 0)
            {
                dlnet::PollInterrupt(); // (Ctrl-C: a direct exchange of 1024 ranks routes 1 M)
            }
        }
        if (p.messages > 0)
        {
            // the mean, as the alpha-beta model's ring alpha: a ring's data
            // dependency passes every neighbour's path in turn over the steps
            p.latency /= p.messages;
        }
        load.resize(links.Size(), 0);
        busy.resize(links.Size(), 0);
        total.resize(links.Size(), 0);
        double slowest = 0;
        for (std::size_t l = 0; l < load.size(); ++l)
        {
            double t = load[l] / links.Rate(l);
            busy[l] += t;
            total[l] += load[l];
            if (t > slowest)
            {
                slowest = t;
                p.busiestLink = links.Name(l);
                p.busiestBytes = load[l];
                p.busiestRate = links.Rate(l);
            }
        }
        p.seconds = slowest + p.latency;
        e.bandwidthSeconds += slowest;
        e.latencySeconds += p.latency;
        e.seconds += p.seconds;
        e.phases.push_back(p);
    }
    double longest = 0;
    for (std::size_t l = 0; l < busy.size(); ++l)
    {
        if (busy[l] > longest)
        {
            longest = busy[l];
            e.busiestLink = links.Name(l);
            e.busiestBytes = total[l];
            e.busiestRate = links.Rate(l);
        }
    }
    return e;
}

std::vector<LinkPhase>
CollectivePhases(const Communicator& comm, const CollectiveRequest& request)
{
    uint32_t n = comm.GetSize();
    CollectiveRequest req = request;
    uint32_t es = ElementSize(req.type);
    req.chunks = CollectiveEngine::ResolvedChunks(req); // (the engine's attributes at 0)
    if (req.chunksInFlight == 0)
    {
        req.chunksInFlight = req.chunks;
    }
    req.Validate(n);

    std::vector<CollectiveLane> lanes;
    std::vector<std::vector<uint32_t>> lanesOfChunk; // (one by one: CheckChunkCost first)
    std::vector<uint32_t> position;
    uint64_t elements = req.bytes / es;
    for (uint32_t c = 0; c < req.chunks; ++c)
    {
        uint64_t lo = elements * c / req.chunks;
        uint64_t hi = elements * (c + 1) / req.chunks;
        std::size_t first = lanes.size();
        lanesOfChunk.emplace_back();
        BuildCollectiveLanes(
            req.op, req.algorithm, n, req.root, lo * es, (hi - lo) * es, es, req.grid, c, lanes);
        if (c == 0)
        {
            CheckChunkCost(
                lanes,
                req.chunks,
                CollectiveEngine::DefaultChunks(req.op, req.algorithm),
                FirstChunkAt(req.op, req.algorithm, n, req.root, req.bytes, es, req.grid));
        }
        for (std::size_t l = first; l < lanes.size(); ++l)
        {
            position.push_back(l - first);
            lanesOfChunk[c].push_back(l);
        }
    }
    // each step of each rank holds its level (twice in several chunks): a ring on 8192 ranks
    // of 4 bytes sends few messages but has 134 million steps
    const std::vector<uint64_t> first = Levels::FirstEntries(lanes, n);
    const uint64_t steps = first.back() - (first.size() - 1); // (less each lane's end)
    if (steps > MAX_ESTIMATE_STEPS)
    {
        throw std::invalid_argument(
            "estimate: " + ToString(req.op) + " of " + std::to_string(req.bytes) + " bytes with "
            + ToString(req.algorithm) + " on " + std::to_string(n) + " ranks has "
            + std::to_string(steps) + " steps over its ranks, more than "
            + std::to_string(MAX_ESTIMATE_STEPS)
            + ", the most the link-load estimate keeps in memory (at most 1 GiB); "
              "set estimate=false to run without it");
    }
    // Every step's level and every message are kept until the phases are built (and the
    // messages then in them): a count first, stopping at the limit, so that a schedule
    // too large is refused before it fills the memory (a ring on 65536 ranks sends 8.6e9)
    uint64_t count = 0;
    for (uint32_t l = 0; l < lanes.size() && count <= MAX_ESTIMATE_MESSAGES; ++l)
    {
        for (uint32_t r = 0; r < n && count <= MAX_ESTIMATE_MESSAGES; ++r)
        {
            CollectiveStep scratch;
            for (uint32_t k = 0; k < lanes[l].GetNSteps(r) && count <= MAX_ESTIMATE_MESSAGES; ++k)
            {
                count += lanes[l].GetStep(r, k, scratch).sends.size();
            }
        }
    }
    if (count > MAX_ESTIMATE_MESSAGES)
    {
        throw std::invalid_argument(
            "estimate: " + ToString(req.op) + " of " + std::to_string(req.bytes) + " bytes with "
            + ToString(req.algorithm) + " on " + std::to_string(n) + " ranks sends more than "
            + std::to_string(MAX_ESTIMATE_MESSAGES)
            + " messages, the most the link-load estimate keeps in memory (about 3 GiB); "
              "set estimate=false to run without it");
    }
    // when the engine posts a send (for the ids), and the phase its bytes are counted in
    Levels posted(
        lanes, lanesOfChunk, position, first, req.chunksInFlight, req.staggerChunks, false);
    // (a send/receive's chunks go back to back on one path, each without a later step to
    // overlap: one phase, its latency once, not one phase and latency per chunk); in one
    // chunk the two are the same levels (pipelining orders a chunk after the one before)
    std::unique_ptr<Levels> pipelined;
    if (req.chunks > 1 && req.op != CollectiveOp::SEND_RECV)
    {
        pipelined = std::make_unique<Levels>(
            lanes, lanesOfChunk, position, first, req.chunksInFlight, req.staggerChunks, true);
    }
    Levels& phase = pipelined ? *pipelined : posted;

    // Message ids: an endpoint numbers its messages in the order they are
    // sent. The engine posts, at the start, each rank's chunks in flight lane
    // by lane, running through steps that wait for nothing; later a step's
    // sends go when its last receive arrives. Sorting a rank's sends by
    // (level posted, lane, step) is that order when the lanes of a rank reach
    // a level in lane order. It can diverge when several lanes run (chunks,
    // trees, the two directions of a ring) and a later lane's receive arrives
    // first, or when levels drift apart in time (a slow path holds one pair
    // back while others run ahead): ids then differ and PerFlow ECMP may hash
    // such messages onto other ports than estimated.
    struct Send
    {
        int64_t posted;
        uint32_t lane;
        uint32_t step;
        uint32_t index;
        int64_t phase;
        LinkMessage message;
    };

    std::vector<std::vector<Send>> byRank(n);
    for (uint32_t l = 0; l < lanes.size(); ++l)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            dlnet::PollInterrupt();
            CollectiveStep scratch;
            for (uint32_t k = 0; k < lanes[l].GetNSteps(r); ++k)
            {
                const CollectiveStep& st = lanes[l].GetStep(r, k, scratch);
                for (uint32_t i = 0; i < st.sends.size(); ++i)
                {
                    const CollectiveTransfer& t = st.sends[i];
                    LinkMessage m;
                    m.src = comm.ranks[r];
                    m.dst = comm.ranks[t.peer];
                    m.bytes = t.bytes;
                    byRank[r].push_back(Send{posted.Of(l, r, k), l, k, i, phase.Of(l, r, k), m});
                }
            }
        }
    }
    std::vector<LinkPhase> phases;
    for (auto& sends : byRank)
    {
        std::sort(sends.begin(),
                  sends.end(),
                  [](const Send& a, const Send& b)
                  {
                      return std::tie(a.posted, a.lane, a.step, a.index)
                             < std::tie(b.posted, b.lane, b.step, b.index);
                  });
        uint32_t id = 0;
        for (auto& s : sends)
        {
            s.message.msgId = id++;
            if (phases.size() <= std::size_t(s.phase))
            {
                phases.resize(s.phase + 1);
            }
            phases[s.phase].messages.push_back(s.message);
        }
    }
    // a level where only receives complete carries nothing
    phases.erase(std::remove_if(phases.begin(),
                                phases.end(),
                                [](const LinkPhase& p)
                                {
                                    return p.messages.empty();
                                }),
                 phases.end());
    return phases;
}

LinkLoadEstimate
EstimateCollectiveOnLinks(const Cluster& cluster,
                          const Communicator& comm,
                          const CollectiveRequest& request)
{
    comm.Validate(cluster.GetNRanks());
    return EstimateLinkLoad(cluster, CollectivePhases(comm, request));
}

double
LibraryLatencyOfPhases(const CollectiveRequest& request,
                       const std::vector<LinkPhase>& phases,
                       const Topology& topology,
                       const LibraryLatencies& library)
{
    if (request.op == CollectiveOp::SEND_RECV || phases.empty())
    {
        return 0;
    }
    // in several chunks the other chunks' transfers hide the steps' latencies: one counts
    const bool chunked = CollectiveEngine::ResolvedChunks(request) > 1;
    double seconds = library.launch;
    for (const auto& phase : phases)
    {
        // a sender's step waits NetworkStepLatency when any of its messages leaves its host
        std::map<uint32_t, bool> leaves;
        for (const auto& m : phase.messages)
        {
            leaves[m.src] = leaves[m.src] || topology.GetHostOf(m.src) != topology.GetHostOf(m.dst);
        }
        if (leaves.empty())
        {
            continue;
        }
        double sum = 0;
        for (const auto& [src, away] : leaves)
        {
            sum += library.StepOf(away);
        }
        seconds += sum / leaves.size();
        if (chunked)
        {
            break;
        }
    }
    return seconds;
}

} // namespace ns3
