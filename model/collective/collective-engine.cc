/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-engine.h"

#include "reduction.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveEngine");
NS_OBJECT_ENSURE_REGISTERED(CollectiveEngine);

void
CollectiveRequest::Validate(uint32_t n) const
{
    uint32_t es = ElementSize(type);
    if (bytes == 0)
    {
        throw std::invalid_argument("bytes: got 0; expected at least one " + ToString(type)
                                    + " element");
    }
    if (bytes % es != 0)
    {
        throw std::invalid_argument("bytes: " + std::to_string(bytes) + " is not a multiple of the "
                                    + std::to_string(es) + "-byte " + ToString(type) + " element");
    }
    if (root >= n)
    {
        throw std::invalid_argument("root: " + std::to_string(root)
                                    + " is not a communicator index "
                                      "(0 to "
                                    + std::to_string(n - 1) + ")");
    }
    if (op == CollectiveOp::SEND_RECV && n < 2)
    {
        throw std::invalid_argument("ranks: sendrecv needs a communicator of at least 2 ranks "
                                    "(index 0 sends to index 1)");
    }
    bool partitioned = op == CollectiveOp::REDUCE_SCATTER || op == CollectiveOp::ALL_GATHER
                       || op == CollectiveOp::ALL_TO_ALL;
    if (partitioned && chunks > 1)
    {
        // A chunk is a contiguous range: chunking would give each rank a part
        // of every chunk instead of its part of the buffer.
        throw std::invalid_argument("chunks: " + ToString(op) + " runs in one chunk; got "
                                    + std::to_string(chunks));
    }
    if (chunks > 0 && chunks > bytes / es)
    {
        throw std::invalid_argument("chunks: " + std::to_string(chunks) + " chunks of a "
                                    + std::to_string(bytes / es)
                                    + "-element buffer; at most one "
                                      "chunk per element");
    }
    if (op == CollectiveOp::ALL_TO_ALL && (bytes / es) % n != 0)
    {
        throw std::invalid_argument("bytes: alltoall of " + std::to_string(bytes)
                                    + " bytes does not split into " + std::to_string(n)
                                    + " equal blocks of " + ToString(type) + " elements");
    }
    if (!Implements(algorithm, op))
    {
        std::string names;
        for (auto a : AlgorithmsFor(op))
        {
            names += (names.empty() ? "" : ", ") + ToString(a);
        }
        throw std::invalid_argument("algorithm: " + ToString(algorithm) + " does not implement "
                                    + ToString(op) + "; algorithms for " + ToString(op) + ": "
                                    + names + " or auto");
    }
    bool hierarchical = algorithm == CollectiveAlgorithm::HIERARCHICAL
                        || algorithm == CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE;
    if (hierarchical && op != CollectiveOp::SEND_RECV
        && (grid.dim1 == 0 || grid.dim2 == 0 || grid.dim1 * grid.dim2 != n))
    {
        throw std::invalid_argument(
            "algorithm: " + ToString(algorithm)
            + " needs a two-dimensional topology (its grid: mesh, torus, leaf-spine, fat-tree, "
              "dragonfly, GPU servers) and the communicator of all its ranks");
    }
    if (!inputs.empty())
    {
        if (inputs.size() != n)
        {
            throw std::invalid_argument("inputs: " + std::to_string(inputs.size()) + " buffers for "
                                        + std::to_string(n) + " ranks");
        }
        for (const auto& in : inputs)
        {
            if (in.size() != bytes)
            {
                throw std::invalid_argument("inputs: a buffer of " + std::to_string(in.size())
                                            + " bytes; expected " + std::to_string(bytes));
            }
        }
    }
}

TypeId
CollectiveEngine::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::CollectiveEngine")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<CollectiveEngine>()
              .AddAttribute("Chunks",
                            "Pipelining chunks of a collective whose request leaves them at 0; "
                            "0 here too: 8 for trees and chains, 1 for the others",
                            UintegerValue(0),
                            MakeUintegerAccessor(&CollectiveEngine::m_chunks),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("ChunksInFlight",
                            "Chunks a rank works on at once when the request leaves it at 0; "
                            "0 here too: all of them",
                            UintegerValue(0),
                            MakeUintegerAccessor(&CollectiveEngine::m_chunksInFlight),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("LaunchLatency",
                            "A collective's fixed cost before its first step on every rank "
                            "(NCCL's tuning model: its base latency, 8.4 us for the ring with "
                            "the Simple protocol in NCCL 2.8); not for point-to-point sends",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&CollectiveEngine::m_launchLatency),
                            MakeTimeChecker(Seconds(0), Seconds(dlnet::MAX_TIME_SECONDS)))
              .AddAttribute("StepLatency",
                            "A collective step's fixed cost between its start and its sends, "
                            "per step of every lane and chunk (NCCL's tuning model: its "
                            "hardware latency per step, 3.4 us over NVLink for the ring with "
                            "the Simple protocol in NCCL 2.8); for a step that sends to "
                            "another host NetworkStepLatency instead, once that is set; not "
                            "for point-to-point sends",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&CollectiveEngine::m_stepLatency),
                            MakeTimeChecker(Seconds(0), Seconds(dlnet::MAX_TIME_SECONDS)))
              .AddAttribute("NetworkStepLatency",
                            "The fixed cost of a collective step that sends to a rank of "
                            "another host (SetHosts; NCCL's node), in place of StepLatency "
                            "(NCCL 2.8: 9.6 us over the network for the ring with the Simple "
                            "protocol); 0: such steps take StepLatency too",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&CollectiveEngine::m_networkStepLatency),
                            MakeTimeChecker(Seconds(0), Seconds(dlnet::MAX_TIME_SECONDS)))
              .AddTraceSource("Done",
                              "A collective finished on every rank",
                              MakeTraceSourceAccessor(&CollectiveEngine::m_doneTrace),
                              "ns3::CollectiveEngine::DoneTracedCallback")
              .AddTraceSource("StepSend",
                              "A step of a collective posted a message to a peer (fired after "
                              "the endpoint's Send, with its message id)",
                              MakeTraceSourceAccessor(&CollectiveEngine::m_stepSendTrace),
                              "ns3::CollectiveEngine::StepSendTracedCallback");
    return tid;
}

CollectiveEngine::CollectiveEngine() = default;

CollectiveEngine::~CollectiveEngine() = default;

void
CollectiveEngine::DoDispose()
{
    for (auto& ep : m_endpoints)
    {
        ep->SetReceiveCallback(FabricEndpoint::MessageCallback());
    }
    m_endpoints.clear();
    m_instances.clear();
    m_envelopes.clear();
    m_schedules.clear();
    Object::DoDispose();
}

void
CollectiveEngine::SetEndpoints(const std::vector<Ptr<FabricEndpoint>>& endpoints)
{
    m_endpoints = endpoints;
    m_hostOf.clear(); // (SetHosts again for these endpoints)
    for (auto& ep : m_endpoints)
    {
        ep->SetReceiveCallback(MakeCallback(&CollectiveEngine::Receive, this));
    }
}

void
CollectiveEngine::SetHosts(const std::vector<uint32_t>& hostOfRank)
{
    if (!hostOfRank.empty() && hostOfRank.size() != m_endpoints.size())
    {
        throw std::invalid_argument("hosts: got " + std::to_string(hostOfRank.size())
                                    + " entries; expected one per rank ("
                                    + std::to_string(m_endpoints.size()) + ") or none");
    }
    m_hostOf = hostOfRank;
}

bool
CollectiveEngine::LeavesHost(const Instance& inst, uint32_t rank, const CollectiveStep& step) const
{
    const std::vector<uint32_t>& ranks = inst.comm.ranks;
    for (const auto& t : step.sends)
    {
        uint32_t a = ranks[rank];
        uint32_t b = ranks[t.peer];
        // without a host map every rank is a host of its own
        if (m_hostOf.empty() ? a != b : m_hostOf[a] != m_hostOf[b])
        {
            return true;
        }
    }
    return false;
}

LibraryLatencies
CollectiveEngine::GetDefaultLatencies()
{
    TypeId tid = GetTypeId();
    auto read = [&tid](const std::string& name)
    {
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw std::logic_error("CollectiveEngine has no attribute " + name);
        }
        return DynamicCast<const TimeValue>(info.initialValue)->Get().GetSeconds();
    };
    return LibraryLatencies{read("LaunchLatency"), read("StepLatency"), read("NetworkStepLatency")};
}

uint32_t
CollectiveEngine::GetRunning() const
{
    return m_instances.size();
}

uint64_t
CollectiveEngine::GetBufferBytes() const
{
    uint64_t bytes = 0;
    for (const auto& [id, inst] : m_instances)
    {
        for (const auto& buffers : {&inst.request.inputs, &inst.work})
        {
            for (const auto& b : *buffers)
            {
                bytes += b.capacity();
            }
        }
    }
    return bytes;
}

uint32_t
CollectiveEngine::Start(const Communicator& comm, CollectiveRequest request, DoneCallback done)
{
    comm.Validate(m_endpoints.size());
    uint32_t n = comm.GetSize();
    CollectiveRequest& resolved = request;
    resolved.chunks = ResolvedChunks(request, m_chunks);
    if (resolved.chunksInFlight == 0)
    {
        resolved.chunksInFlight = m_chunksInFlight ? m_chunksInFlight : resolved.chunks;
    }
    resolved.Validate(n);
    auto built = ScheduleOf(resolved, n); // (may refuse the chunks: before any state)

    uint32_t id = m_nextId++;
    Instance& inst = m_instances[id];
    inst.id = id;
    inst.comm = comm;
    inst.request = std::move(resolved);
    inst.done = done;
    const CollectiveRequest& req = inst.request;
    inst.schedule = std::move(built);
    const Schedule& schedule = *inst.schedule;
    inst.laneState.assign(schedule.lanes.size(), std::vector<LaneState>(n));
    inst.ranks.assign(n, RankState());
    for (auto& rs : inst.ranks)
    {
        for (uint32_t c = 0; c < req.chunks; ++c)
        {
            rs.lanesLeft.push_back(schedule.lanesOfChunk[c].size());
        }
    }
    bool readsInput = schedule.readsInput;
    if (readsInput)
    {
        inst.work = inst.request.inputs; // sends read the input after the work buffer changed
    }
    else
    {
        inst.work = std::move(inst.request.inputs); // the input is the first work buffer
        inst.request.inputs.clear();
    }
    inst.record.id = id;
    inst.record.communicator = comm.name;
    inst.record.op = req.op;
    inst.record.algorithm = ToString(req.algorithm);
    inst.record.bytes = req.bytes;
    inst.record.start = Simulator::Now();
    inst.record.bytesSent.assign(n, 0);
    inst.record.bytesReceived.assign(n, 0);
    NS_LOG_INFO("collective " << id << ": " << ToString(req.op) << " " << ToString(req.algorithm)
                              << " of " << req.bytes << " bytes on " << n << " ranks, "
                              << schedule.lanes.size() << " lanes");
    // (NCCL's tuning model has these for its collectives; its send and receive are not in it)
    inst.delayed = req.op != CollectiveOp::SEND_RECV;
    if (inst.delayed && m_launchLatency.IsStrictlyPositive())
    {
        Simulator::Schedule(m_launchLatency, &CollectiveEngine::Launch, this, id);
    }
    else
    {
        Launch(id);
    }
    return id;
}

void
CollectiveEngine::Launch(uint32_t id)
{
    auto it = m_instances.find(id);
    if (it == m_instances.end())
    {
        return; // disposed meanwhile
    }
    for (uint32_t r = 0; r < it->second.comm.GetSize(); ++r)
    {
        StartChunks(it->second, r);
    }
}

std::shared_ptr<const CollectiveEngine::Schedule>
CollectiveEngine::ScheduleOf(const CollectiveRequest& req, uint32_t n)
{
    uint32_t es = ElementSize(req.type);
    const CollectiveScheduleKey key
        = MakeScheduleKey(req.op, req.algorithm, n, req.root, req.bytes, es, req.chunks, req.grid);
    auto it = m_schedules.find(key);
    if (it != m_schedules.end())
    {
        return it->second;
    }
    auto schedule = std::make_shared<Schedule>();
    uint64_t elements = req.bytes / es;
    for (uint32_t c = 0; c < req.chunks; ++c)
    {
        schedule->lanesOfChunk.emplace_back(); // (not all at once: CheckChunkCost first)
        uint64_t lo = elements * c / req.chunks;
        uint64_t hi = elements * (c + 1) / req.chunks;
        std::size_t first = schedule->lanes.size();
        BuildCollectiveLanes(req.op,
                             req.algorithm,
                             n,
                             req.root,
                             lo * es,
                             (hi - lo) * es,
                             es,
                             req.grid,
                             c,
                             schedule->lanes);
        if (c == 0)
        {
            CheckChunkCost(
                schedule->lanes,
                req.chunks,
                DefaultChunks(req.op, req.algorithm),
                FirstChunkAt(req.op, req.algorithm, n, req.root, req.bytes, es, req.grid));
        }
        for (std::size_t l = first; l < schedule->lanes.size(); ++l)
        {
            schedule->positionInChunk.push_back(l - first);
            schedule->lanesOfChunk[c].push_back(l);
        }
    }
    for (const auto& lane : schedule->lanes)
    {
        // (a ring made on demand never sends from the input)
        for (const auto& steps : lane.ranks)
        {
            for (const auto& st : steps)
            {
                schedule->readsInput
                    = schedule->readsInput || (st.sendFromInput && !st.sends.empty());
            }
        }
    }
    if (m_schedules.size() >= 1024)
    {
        m_schedules.clear(); // a sweep of many shapes: keep the memory bounded
    }
    m_schedules.emplace(key, schedule);
    return schedule;
}

uint32_t
CollectiveEngine::DefaultChunks(CollectiveOp op, CollectiveAlgorithm a)
{
    bool pipelined = a == CollectiveAlgorithm::DOUBLE_BINARY_TREE
                     || (a == CollectiveAlgorithm::RING
                         && (op == CollectiveOp::BROADCAST || op == CollectiveOp::REDUCE));
    return pipelined ? 8 : 1;
}

uint32_t
CollectiveEngine::ResolvedChunks(const CollectiveRequest& request, uint32_t chunksAttribute)
{
    if (request.chunks != 0)
    {
        return request.chunks;
    }
    if (request.op == CollectiveOp::REDUCE_SCATTER || request.op == CollectiveOp::ALL_GATHER
        || request.op == CollectiveOp::ALL_TO_ALL)
    {
        return 1; // whatever the Chunks attribute says
    }
    uint32_t chunks
        = chunksAttribute != 0 ? chunksAttribute : DefaultChunks(request.op, request.algorithm);
    return std::max<uint64_t>(
        1, std::min<uint64_t>(chunks, request.bytes / ElementSize(request.type)));
}

void
CollectiveEngine::StartChunks(Instance& inst, uint32_t rank)
{
    RankState& rs = inst.ranks[rank];
    if (rs.starting)
    {
        return; // the loop below picks up the freed place
    }
    rs.starting = true;
    while (rs.activeChunks < inst.request.chunksInFlight && rs.nextChunk < inst.request.chunks)
    {
        uint32_t c = rs.nextChunk++;
        ++rs.activeChunks;
        for (uint32_t lane : inst.schedule->lanesOfChunk[c])
        {
            Enter(inst, lane, rank, 0);
        }
    }
    rs.starting = false;
}

void
CollectiveEngine::Enter(Instance& inst, uint32_t lane, uint32_t rank, uint32_t step)
{
    const CollectiveLane& steps = inst.schedule->lanes[lane];
    const uint32_t nSteps = steps.GetNSteps(rank);
    LaneState& ls = inst.laneState[lane][rank];
    while (true)
    {
        if (step >= nSteps)
        {
            ls.step = nSteps;
            Wake(inst, lane, rank);
            LaneDone(inst, lane, rank);
            return;
        }
        if (Gated(inst, lane, rank, step))
        {
            ls.step = int64_t(step) - 1; // arrivals for the step wait as early ones
            return;
        }
        ls.step = step;
        // (st is not used past PostSends: Wake may make other steps in the scratch)
        const CollectiveStep& st = steps.GetStep(rank, step, m_stepScratch);
        ls.pending = st.recvs.size();
        PostSends(inst, lane, rank, step, st);
        // the next chunk may enter the step this one left, its sends queued behind these
        Wake(inst, lane, rank);
        auto it = inst.early.find(StepKey{lane, rank, step});
        if (it != inst.early.end())
        {
            std::vector<Early> arrivals = std::move(it->second);
            inst.early.erase(it);
            for (const auto& a : arrivals)
            {
                Apply(inst, lane, rank, a);
            }
        }
        if (ls.pending > 0)
        {
            return;
        }
        ++step;
    }
}

bool
CollectiveEngine::Gated(Instance& inst, uint32_t lane, uint32_t rank, uint32_t step)
{
    uint32_t chunk = inst.schedule->lanes[lane].chunk;
    if (!inst.request.staggerChunks || chunk == 0)
    {
        return false;
    }
    uint32_t before = inst.schedule->lanesOfChunk[chunk - 1][inst.schedule->positionInChunk[lane]];
    if (inst.laneState[before][rank].step > int64_t(step))
    {
        return false;
    }
    inst.waiting[(uint64_t(before) << 32) | rank] = {lane, step};
    return true;
}

void
CollectiveEngine::Wake(Instance& inst, uint32_t lane, uint32_t rank)
{
    auto it = inst.waiting.find((uint64_t(lane) << 32) | rank);
    if (it == inst.waiting.end() || inst.laneState[lane][rank].step <= int64_t(it->second.second))
    {
        return;
    }
    auto [next, step] = it->second;
    inst.waiting.erase(it);
    Enter(inst, next, rank, step);
}

FabricPayload
CollectiveEngine::ReadPayload(const Instance& inst,
                              uint32_t rank,
                              const CollectiveStep& step,
                              const CollectiveTransfer& t) const
{
    if (inst.work.empty())
    {
        return FabricPayload(); // timing mode
    }
    const std::vector<uint8_t>& from
        = step.sendFromInput ? inst.request.inputs[rank] : inst.work[rank];
    return std::make_shared<const std::vector<uint8_t>>(from.begin() + t.srcOffset,
                                                        from.begin() + t.srcOffset + t.bytes);
}

void
CollectiveEngine::PostSends(
    Instance& inst, uint32_t lane, uint32_t rank, uint32_t index, const CollectiveStep& step)
{
    Time latency = m_networkStepLatency.IsStrictlyPositive() && LeavesHost(inst, rank, step)
                       ? m_networkStepLatency
                       : m_stepLatency;
    if (!inst.delayed || !latency.IsStrictlyPositive() || step.sends.empty())
    {
        for (const auto& t : step.sends)
        {
            SendOne(inst, lane, rank, index, step.vc, t, ReadPayload(inst, rank, step, t));
        }
        return;
    }
    // The payloads are read now, as the step starts: the receives it applies
    // while its sends wait must not reach them.
    std::vector<Outgoing> messages;
    messages.reserve(step.sends.size());
    for (const auto& t : step.sends)
    {
        messages.push_back(Outgoing{t, ReadPayload(inst, rank, step, t)});
    }
    Simulator::Schedule(latency,
                        &CollectiveEngine::Transmit,
                        this,
                        inst.id,
                        lane,
                        rank,
                        index,
                        step.vc,
                        std::move(messages));
}

void
CollectiveEngine::Transmit(uint32_t id,
                           uint32_t lane,
                           uint32_t rank,
                           uint32_t index,
                           uint8_t vc,
                           const std::vector<Outgoing>& messages)
{
    // (the collective is still running, its receivers waiting for these messages,
    // unless the engine was disposed meanwhile)
    auto it = m_instances.find(id);
    if (it == m_instances.end())
    {
        return;
    }
    for (const auto& m : messages)
    {
        SendOne(it->second, lane, rank, index, vc, m.transfer, m.data);
    }
}

void
CollectiveEngine::SendOne(Instance& inst,
                          uint32_t lane,
                          uint32_t rank,
                          uint32_t index,
                          uint8_t vc,
                          const CollectiveTransfer& t,
                          const FabricPayload& data)
{
    Ptr<FabricEndpoint> ep = m_endpoints[inst.comm.ranks[rank]];
    uint32_t dstAddress = inst.comm.ranks[t.peer];
    // The lane's connection: the two trees of a double binary tree have
    // their own (NCCL's channels) and do not queue behind each other
    // where they send to the same peer; every other lane uses 0.
    uint32_t msgId = ep->Send(dstAddress,
                              t.bytes,
                              inst.comm.tc,
                              FabricEndpoint::MessageCallback(),
                              data,
                              vc,
                              inst.schedule->lanes[lane].connection);
    uint64_t key = (uint64_t(inst.comm.ranks[rank]) << 32) | msgId;
    m_envelopes[key] = Envelope{inst.id, lane, t.peerStep, rank, t.peer, t.offset, t.bytes};
    inst.record.bytesSent[rank] += t.bytes;
    ++inst.record.messages;
    if (!m_stepSendTrace.IsEmpty())
    {
        m_stepSendTrace(StepSend{inst.id,
                                 lane,
                                 inst.schedule->lanes[lane].chunk,
                                 index,
                                 t.peerStep,
                                 rank,
                                 t.peer,
                                 inst.comm.ranks[rank],
                                 dstAddress,
                                 msgId,
                                 t.bytes});
    }
}

void
CollectiveEngine::Apply(Instance& inst, uint32_t lane, uint32_t rank, const Early& a)
{
    if (a.data)
    {
        // (timing mode carries no data: the step, which a ring makes on demand, is not needed)
        const CollectiveStep& st = inst.schedule->lanes[lane].GetStep(
            rank, inst.laneState[lane][rank].step, m_applyScratch);
        uint8_t* dst = inst.work[rank].data() + a.offset;
        if (st.reduce)
        {
            ReduceSum(inst.request.type, dst, a.data->data(), a.bytes);
        }
        else
        {
            std::copy(a.data->begin(), a.data->end(), dst);
        }
    }
    inst.record.bytesReceived[rank] += a.bytes;
    --inst.laneState[lane][rank].pending;
}

void
CollectiveEngine::Receive(const FabricMessage& m)
{
    auto it = m_envelopes.find((uint64_t(m.src) << 32) | m.msgId);
    if (it == m_envelopes.end())
    {
        NS_LOG_WARN("message " << m.msgId << " from " << m.src << " belongs to no collective");
        return;
    }
    Envelope env = it->second;
    m_envelopes.erase(it);
    auto inst = m_instances.find(env.instance);
    NS_ASSERT_MSG(inst != m_instances.end(), "message for a finished collective");
    Early arrival{env.src, env.offset, env.bytes, m.data};
    LaneState& ls = inst->second.laneState[env.lane][env.dst];
    if (ls.step == int64_t(env.step))
    {
        Apply(inst->second, env.lane, env.dst, arrival);
        if (ls.pending == 0)
        {
            Enter(inst->second, env.lane, env.dst, env.step + 1);
        }
        return;
    }
    NS_ASSERT_MSG(ls.step < int64_t(env.step), "message for a step already completed");
    inst->second.early[StepKey{env.lane, env.dst, env.step}].push_back(arrival);
}

void
CollectiveEngine::LaneDone(Instance& inst, uint32_t lane, uint32_t rank)
{
    RankState& rs = inst.ranks[rank];
    uint32_t chunk = inst.schedule->lanes[lane].chunk;
    if (--rs.lanesLeft[chunk] > 0)
    {
        return;
    }
    --rs.activeChunks;
    if (++rs.chunksDone < inst.request.chunks)
    {
        StartChunks(inst, rank);
        return;
    }
    if (++inst.ranksDone == inst.comm.GetSize())
    {
        inst.record.end = Simulator::Now();
        // Finish outside the call chain that is still using the instance.
        Simulator::ScheduleNow(&CollectiveEngine::Finish, this, inst.id);
    }
}

void
CollectiveEngine::Finish(uint32_t id)
{
    auto it = m_instances.find(id);
    NS_ASSERT(it != m_instances.end());
    Instance inst = std::move(it->second);
    m_instances.erase(it);
    std::vector<std::vector<uint8_t>>().swap(inst.request.inputs); // free before the callbacks
    inst.record.outputs = std::move(inst.work);
    m_doneTrace(inst.record);
    if (!inst.done.IsNull())
    {
        inst.done(inst.record);
    }
}

} // namespace ns3
