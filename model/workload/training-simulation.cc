/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-simulation.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/boolean.h"
#include "ns3/collective-backend.h"
#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/fred-backend.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/wafer-topology.h"
#include "ns3/weight-streaming.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingSimulation");

NS_OBJECT_ENSURE_REGISTERED(TrainingSimulation);

namespace
{
/// Streams of a rank: compute, then one per TrainingDimension.
constexpr uint32_t STREAMS = 1 + TRAINING_DIMENSIONS;
constexpr uint32_t COMPUTE_STREAM = 0;

uint32_t
StreamOf(TrainingDimension d)
{
    return 1 + uint32_t(d);
}

std::string
StreamName(uint32_t s)
{
    return s == COMPUTE_STREAM ? std::string("compute") : ToString(TrainingDimension(s - 1));
}

std::string
TaskName(const TrainingGraph& g, uint32_t t)
{
    const TrainingTask& task = g.tasks[t];
    return "task " + std::to_string(t) + " (" + ToString(task.kind)
           + (task.label.empty() ? "" : " '" + task.label + "'") + ")";
}

/// Runs concurrent groups itself, and owns the wafer's FRED engine: one instance for all jobs.
const std::string FRED_IN_SWITCH = "fred-in-switch";

/// \return the key of a backend instance: (job, dimension, name); fred-in-switch one for all
std::tuple<uint32_t, uint32_t, std::string>
BackendKey(uint32_t job, TrainingDimension d, const std::string& name)
{
    if (name == FRED_IN_SWITCH)
    {
        return std::make_tuple(UINT32_MAX, UINT32_MAX, name);
    }
    return std::make_tuple(job, uint32_t(d), name);
}

/// Sends go as SEND_RECV of whole fp16 elements (an odd size is rounded up by one byte).
uint64_t
SendBytes(uint64_t bytes)
{
    return bytes + bytes % 2;
}
} // namespace

/// Everything the executor holds.
struct TrainingSimulation::State
{
    /// One job's execution state.
    struct Job
    {
        const TrainingJobSetup* setup{nullptr}; //!< in State::setups
        std::vector<TrainingTaskRun> runs;
        std::vector<uint32_t> waiting;    //!< unfinished deps per task
        std::vector<uint8_t> phase;       //!< 0 waiting, 1 ready, 2 running, 3 worked, 4 done
        std::vector<uint32_t> depOffset;  //!< CSR of dependants
        std::vector<uint32_t> dependants; //!< CSR of dependants
        std::vector<std::vector<uint32_t>> streams; //!< [rank * STREAMS + s] task indices
        std::vector<uint32_t> heads;                //!< position of each stream's head
        std::vector<uint32_t> streamOffset;         //!< CSR of each task's streams
        std::vector<uint32_t> taskStreams;          //!< CSR of each task's streams
        std::vector<std::string> backendOf;         //!< per task: backend name (comm kinds)
        uint32_t finished{0};
        /// SendRendezvous (sized only then): per job rank, compute tasks running on its
        /// compute stream
        std::vector<uint32_t> computing;
        /// SendRendezvous: per job rank, blocking sends to it waiting for its compute to end
        std::vector<std::vector<uint32_t>> rendezvous;
        std::vector<char> inRendezvous; //!< per task: in a rendezvous list
    };

    /// A backend instance shared by the collectives it runs.
    struct Backend
    {
        Ptr<CollectiveBackend> backend;
        bool serial{false}; //!< one collective at a time (in-network, not fred-in-switch)
    };

    /// Collectives (or streams) waiting for a serial resource.
    struct Pending
    {
        uint32_t job;
        uint32_t task;
    };

    Cluster cluster;
    Ptr<const Topology> topology;
    std::vector<TrainingJobSetup> setups;
    std::vector<Job> jobs;
    /// (job, dimension, backend name) -> instance
    std::map<std::tuple<uint32_t, uint32_t, std::string>, Backend> backends;
    /// auto's choice per (job, dimension, op, bytes, group size)
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint32_t>, std::string> autoChoice;
    /// backend name -> implements SEND_RECV
    std::map<std::string, bool> sends;
    /// serial resources (backend names, "ws") -> busy and its queue
    std::map<std::string, std::pair<bool, std::deque<Pending>>> serial;
    const WaferScaleTopology* wafer{nullptr};
    std::unique_ptr<Wafer> waferDescription;
    /// OverlapSlowdown > 0: a compute task whose rate follows the communication beside it.
    struct Contended
    {
        uint32_t job;
        uint32_t task;
        double remaining; //!< uncontended time steps of work left
        Time since;       //!< when `remaining` was last brought up to date
        bool slowed;      //!< running at 1 / (1 + slowdown) since `since`
        EventId end;
    };
    /// per cluster rank: communication tasks in flight on it
    std::vector<uint32_t> commInFlight;
    /// per cluster rank: the index in `contended` of the compute task running on it, or none
    std::vector<uint32_t> computeOn;
    std::vector<Contended> contended; //!< slots, reused
    std::vector<uint32_t> freeSlots;
    std::unique_ptr<WeightStreaming> streaming;
    uint64_t collectives{0};
    bool started{false};
};

TypeId
TrainingSimulation::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::TrainingSimulation")
              .SetParent<Object>()
              .SetGroupName("Dlnet")
              .AddConstructor<TrainingSimulation>()
              .AddAttribute("FreeCommunication",
                            "Every communication task finishes the instant it starts (infinite "
                            "rates, no network): validation and the compute-only ideal.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&TrainingSimulation::m_free),
                            MakeBooleanChecker())
              .AddAttribute("OverlapSlowdown",
                            "Contention between compute and communication on one GPU: while a "
                            "collective or send of a GPU is in flight (NCCL's kernels take SMs "
                            "and memory bandwidth), the compute task running there progresses "
                            "at 1 / (1 + x) of its rate. 0: communication costs compute "
                            "nothing.",
                            DoubleValue(0),
                            MakeDoubleAccessor(&TrainingSimulation::m_overlapSlowdown),
                            MakeDoubleChecker<double>(0, 100))
              .AddAttribute("SendRendezvous",
                            "A blocking SEND starts only when its receiver is not computing: "
                            "NCCL's send completes only with the matching receive, which a "
                            "synchronous pipeline (Megatron-LM's p2p_communication) posts "
                            "between its steps. false: a blocking send starts as soon as its "
                            "sender is ready and its bytes wait at the receiver.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&TrainingSimulation::m_rendezvous),
                            MakeBooleanChecker())
              .AddTraceSource("TaskDone",
                              "A task finished (its finishDelay included).",
                              MakeTraceSourceAccessor(&TrainingSimulation::m_taskDone),
                              "ns3::TrainingSimulation::TaskDoneCallback");
    return tid;
}

TrainingSimulation::TrainingSimulation()
    : m_state(std::make_unique<State>())
{
}

TrainingSimulation::~TrainingSimulation() = default;

void
TrainingSimulation::DoDispose()
{
    if (m_state)
    {
        for (auto& [key, b] : m_state->backends)
        {
            b.backend->Dispose();
        }
        m_state->backends.clear();
        m_state->streaming.reset();
        m_state->waferDescription.reset();
    }
    Object::DoDispose();
}

Ptr<CollectiveBackend>
TrainingSimulation::BackendFor(uint32_t job, TrainingDimension d, const std::string& name)
{
    State& s = *m_state;
    auto key = BackendKey(job, d, name);
    auto it = s.backends.find(key);
    if (it == s.backends.end())
    {
        const CollectiveKind& kind = CollectiveRegistry::Get(name, "backend");
        State::Backend b;
        b.backend = kind.create();
        if (name == FRED_IN_SWITCH)
        {
            // flows that cannot be routed beside the running ones wait, not throw mid-run
            b.backend->SetAttribute("SerialiseConflicts", BooleanValue(true));
        }
        b.serial = kind.inNetwork && name != FRED_IN_SWITCH;
        it = s.backends.emplace(key, b).first;
    }
    return it->second.backend;
}

std::string
TrainingSimulation::ResolveBackend(uint32_t job,
                                   TrainingDimension d,
                                   const CollectiveRequest& request,
                                   const Communicator& comm)
{
    State& s = *m_state;
    const std::string& configured = s.jobs[job].setup->dimensions[uint32_t(d)].backend;
    bool send = request.op == CollectiveOp::SEND_RECV;
    if (configured != "auto")
    {
        auto known = s.sends.find(configured);
        if (send && known == s.sends.end())
        {
            known = s.sends
                        .emplace(configured,
                                 CollectiveRegistry::Create(configured, "backend")
                                     ->Implements(CollectiveOp::SEND_RECV))
                        .first;
        }
        if (send && !known->second)
        {
            return "ring"; // a dimension whose backend has no point-to-point sends by ring
        }
        return configured;
    }
    auto key
        = std::make_tuple(job, uint32_t(d), uint32_t(request.op), request.bytes, comm.GetSize());
    auto it = s.autoChoice.find(key);
    if (it != s.autoChoice.end())
    {
        return it->second;
    }
    const TopologyConfig& config = s.topology->GetConfig();
    NetworkModel model
        = MakeNetworkModel(*s.topology,
                           comm.ranks,
                           dlnet::ParseTime("switch-latency", config.switchLatency).GetSeconds(),
                           config.mtu,
                           CollectiveEngine::GetDefaultLatencies()); // the run's own
    std::string name = CollectiveRegistry::ChooseAuto(request, *s.topology, comm, model);
    s.autoChoice.emplace(key, name);
    return name;
}

void
TrainingSimulation::Setup(const Cluster& cluster,
                          Ptr<const Topology> topology,
                          std::vector<TrainingJobSetup> jobs)
{
    NS_ABORT_MSG_IF(m_state->started, "TrainingSimulation::Setup after Start");
    for (auto& [key, b] : m_state->backends)
    {
        b.backend->Dispose(); // a second Setup: the first one's backends go
    }
    m_state = std::make_unique<State>();
    State& s = *m_state;
    s.cluster = cluster;
    s.topology = topology;
    s.wafer = dynamic_cast<const WaferScaleTopology*>(PeekPointer(topology));
    uint32_t clusterRanks = topology->GetNRanks();
    std::map<uint32_t, std::string> owner; // cluster rank -> job
    std::set<std::string> names;
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        TrainingJobSetup& js = jobs[j];
        if (!names.insert(js.name).second)
        {
            throw std::invalid_argument("name: job name '" + js.name + "' used twice");
        }
        const std::string where = js.name + ": ";
        try
        {
            js.graph.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(where + "graph: " + e.what());
        }
        if (js.placement.size() != js.graph.ranks)
        {
            throw std::invalid_argument(where + "placement: " + std::to_string(js.placement.size())
                                        + " cluster ranks for a graph of "
                                        + std::to_string(js.graph.ranks) + " ranks");
        }
        for (uint32_t r = 0; r < js.placement.size(); ++r)
        {
            uint32_t c = js.placement[r];
            if (c >= clusterRanks)
            {
                throw std::invalid_argument(where + "placement: job rank " + std::to_string(r)
                                            + " on cluster rank " + std::to_string(c)
                                            + "; the cluster has ranks 0 to "
                                            + std::to_string(clusterRanks - 1));
            }
            auto [it, fresh] = owner.emplace(c, js.name);
            if (!fresh)
            {
                throw std::invalid_argument(where + "placement: cluster rank " + std::to_string(c)
                                            + (it->second == js.name
                                                   ? " appears twice"
                                                   : " is already a rank of " + it->second)
                                            + "; placements must be distinct cluster ranks");
            }
        }
        for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
        {
            const std::string& b = js.dimensions[d].backend;
            if (b != "auto")
            {
                try
                {
                    CollectiveRegistry::Get(b, "backend");
                }
                catch (const std::invalid_argument& e)
                {
                    throw std::invalid_argument(js.name + " dimension "
                                                + ToString(TrainingDimension(d)) + ": " + e.what());
                }
            }
        }
    }
    s.setups = std::move(jobs);
    s.jobs.resize(s.setups.size());
    for (uint32_t j = 0; j < s.jobs.size(); ++j)
    {
        s.jobs[j].setup = &s.setups[j];
        Prepare(j);
    }
}

Communicator
TrainingSimulation::CommOf(uint32_t job, const TrainingTask& task) const
{
    const TrainingJobSetup& js = *m_state->jobs[job].setup;
    Communicator comm;
    comm.name = js.name + "/" + task.group;
    comm.tc = js.dimensions[uint32_t(task.dimension)].trafficClass;
    uint32_t members = task.kind == TrainingTaskKind::SEND ? 2 : task.ranks.size();
    for (uint32_t i = 0; i < members; ++i)
    {
        comm.ranks.push_back(js.placement[task.ranks[i]]);
    }
    return comm;
}

CollectiveRequest
TrainingSimulation::RequestOf(const TrainingTask& task, const Communicator& comm) const
{
    CollectiveRequest r;
    if (task.kind == TrainingTaskKind::SEND)
    {
        r.op = CollectiveOp::SEND_RECV;
        r.type = DataType::FP16;
        r.bytes = SendBytes(task.bytes);
        return r;
    }
    r.op = task.op;
    r.type = task.type;
    r.bytes = task.bytes;
    // The shape of a grid-wide communicator, which the hierarchical schedules need (without
    // it they refuse every collective); the others ignore it.
    const State& s = *m_state;
    for (uint32_t i = 0; i < comm.ranks.size(); ++i)
    {
        if (comm.ranks[i] != i)
        {
            return r; // not the grid in rank order
        }
    }
    if (s.wafer)
    {
        if (comm.ranks.size() != WAFER_NPUS)
        {
            return r;
        }
        if (s.wafer->GetVariant() == WaferVariant::MESH)
        {
            // 2D: rows and columns, half the data in each dimension order (FRED paper)
            r.grid.dim1 = WAFER_MESH_COLS;
            r.grid.dim2 = WAFER_MESH_ROWS;
            r.grid.bothOrders = true;
            // pipelined in staggered chunks, as fred-vs-mesh runs it (its defaults: 64
            // chunks, 8 in flight), at least one element per rank and chunk
            r.chunks = uint32_t(std::max<uint64_t>(
                1, std::min<uint64_t>(64, r.bytes / ElementSize(r.type) / WAFER_NPUS)));
            r.chunksInFlight = std::min<uint32_t>(8, r.chunks);
            r.staggerChunks = true;
        }
        else
        {
            // two-level ring: the NPUs of an L1, then the NPUs of one local index
            r.grid.dim1 = FRED_NPUS_PER_L1;
            r.grid.dim2 = WAFER_NPUS / FRED_NPUS_PER_L1;
            r.grid.secondLevelVc = true;
        }
        return r;
    }
    TopologyGrid grid = s.topology->GetGrid();
    if (grid.dim1 > 0 && comm.ranks.size() == grid.dim1 * grid.dim2)
    {
        r.grid.dim1 = grid.dim1;
        r.grid.dim2 = grid.dim2;
        r.grid.bidirectional = grid.bidirectional;
        r.grid.dim2First = grid.dim2Rate > grid.dim1Rate;
    }
    return r;
}

void
TrainingSimulation::Prepare(uint32_t j)
{
    State& s = *m_state;
    State::Job& job = s.jobs[j];
    const TrainingGraph& g = job.setup->graph;
    uint32_t n = g.tasks.size();
    job.runs.assign(n, TrainingTaskRun());
    job.waiting.assign(n, 0);
    job.phase.assign(n, 0);
    job.backendOf.assign(n, "");
    if (m_rendezvous)
    {
        job.computing.assign(g.ranks, 0);
        job.rendezvous.assign(g.ranks, {});
        job.inRendezvous.assign(n, 0);
    }
    job.streams.assign(size_t(g.ranks) * STREAMS, {});
    job.heads.assign(job.streams.size(), 0);
    job.depOffset.assign(n + 1, 0);
    job.streamOffset.assign(n + 1, 0);
    job.taskStreams.clear();
    for (uint32_t t = 0; t < n; ++t)
    {
        const TrainingTask& task = g.tasks[t];
        job.runs[t].job = j;
        job.runs[t].task = t;
        job.waiting[t] = task.deps.size();
        for (uint32_t d : task.deps)
        {
            ++job.depOffset[d + 1];
        }
        for (uint32_t st : StreamsOf(task))
        {
            job.streams[st].push_back(t);
            job.taskStreams.push_back(st);
        }
        job.streamOffset[t + 1] = job.taskStreams.size();
    }
    for (uint32_t t = 0; t < n; ++t)
    {
        job.depOffset[t + 1] += job.depOffset[t];
    }
    job.dependants.assign(job.depOffset[n], 0);
    std::vector<uint32_t> fill(job.depOffset.begin(), job.depOffset.end() - 1);
    for (uint32_t t = 0; t < n; ++t)
    {
        for (uint32_t d : g.tasks[t].deps)
        {
            job.dependants[fill[d]++] = t;
        }
    }
    // the backend of every communication task, validated now
    std::array<uint32_t, TRAINING_DIMENSIONS> sendsByRing{}; // sends its backend cannot carry
    std::array<uint32_t, TRAINING_DIMENSIONS> ownTasks{};    // tasks its backend carries
    for (uint32_t t = 0; t < n; ++t)
    {
        const TrainingTask& task = g.tasks[t];
        std::string where = job.setup->name + " dimension " + ToString(task.dimension);
        if (task.kind == TrainingTaskKind::STREAM)
        {
            if (!s.wafer)
            {
                throw std::invalid_argument(where
                                            + ": weight streaming needs a wafer topology "
                                              "(wafer-mesh, fred-a..fred-d); "
                                            + TaskName(g, t) + " on topology "
                                            + s.topology->GetKind());
            }
            for (uint32_t r : task.ranks)
            {
                if (job.setup->placement[r] >= WAFER_NPUS)
                {
                    throw std::invalid_argument(
                        where + ": " + TaskName(g, t) + " streams to cluster rank "
                        + std::to_string(job.setup->placement[r]) + ", not an NPU");
                }
            }
            job.backendOf[t] = "weight-streaming";
            continue;
        }
        if (task.kind != TrainingTaskKind::COLLECTIVE && task.kind != TrainingTaskKind::SEND)
        {
            continue;
        }
        Communicator comm = CommOf(j, task);
        CollectiveRequest request = RequestOf(task, comm);
        std::string name;
        try
        {
            name = ResolveBackend(j, task.dimension, request, comm);
        }
        catch (const std::invalid_argument& e)
        {
            // auto found nothing: the option to set is the dimension's backend
            throw std::invalid_argument(ToString(task.dimension) + "-backend: " + where + ", "
                                        + TaskName(g, t) + ": " + e.what() + "; choose one of "
                                        + dlnet::JoinChoices(CollectiveRegistry::Names()));
        }
        Ptr<CollectiveBackend> backend = BackendFor(j, task.dimension, name);
        if (!backend->Implements(request.op))
        {
            throw std::invalid_argument(where + ": backend '" + name + "' does not implement "
                                        + ToString(request.op) + " (" + TaskName(g, t) + ")");
        }
        try
        {
            backend->Validate(request, *s.topology, comm);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(where + ": backend '" + name + "', " + TaskName(g, t) + ": "
                                        + e.what());
        }
        job.backendOf[t] = name;
        const std::string& configured = job.setup->dimensions[uint32_t(task.dimension)].backend;
        ++(configured != "auto" && name != configured ? sendsByRing
                                                      : ownTasks)[uint32_t(task.dimension)];
    }
    for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
    {
        if (sendsByRing[d] > 0 && ownTasks[d] == 0)
        {
            // a backend that runs none of the dimension's tasks was chosen by mistake
            const std::string dim = ToString(TrainingDimension(d));
            std::vector<std::string> withSends
                = CollectiveRegistry::Implementing(CollectiveOp::SEND_RECV);
            withSends.push_back("auto");
            throw std::invalid_argument(
                dim + "-backend: " + job.setup->name + ": got '" + job.setup->dimensions[d].backend
                + "', which has no point-to-point sends, and every communication task of the " + dim
                + " dimension is a send (" + std::to_string(sendsByRing[d]) + "); choose one of "
                + dlnet::JoinChoices(withSends));
        }
    }
}

std::vector<uint32_t>
TrainingSimulation::StreamsOf(const TrainingTask& task)
{
    std::vector<uint32_t> out;
    switch (task.kind)
    {
        case TrainingTaskKind::COMPUTE:
            for (uint32_t r : task.ranks)
            {
                out.push_back(r * STREAMS + COMPUTE_STREAM);
            }
            break;
        case TrainingTaskKind::COLLECTIVE:
        case TrainingTaskKind::STREAM:
            for (uint32_t r : task.ranks)
            {
                out.push_back(r * STREAMS
                              + StreamOf(task.kind == TrainingTaskKind::STREAM
                                             ? TrainingDimension::WS
                                             : task.dimension));
            }
            break;
        case TrainingTaskKind::SEND:
            if (task.batched)
            {
                break; // beside its batch's first send, which holds the sender's streams
            }
            if (!task.detached)
            {
                out.push_back(task.ranks.at(task.pull ? 1 : 0) * STREAMS
                              + StreamOf(task.dimension));
            }
            if (task.blocking)
            {
                // a synchronous send: the sender computes nothing until it has completed
                out.push_back(task.ranks.at(0) * STREAMS + COMPUTE_STREAM);
            }
            break;
        case TrainingTaskKind::DELAY:
            break;
    }
    return out;
}

void
TrainingSimulation::Start()
{
    State& s = *m_state;
    NS_ABORT_MSG_IF(s.started, "TrainingSimulation::Start twice");
    s.started = true;
    if (m_overlapSlowdown > 0)
    {
        s.commInFlight.assign(s.cluster.GetNRanks(), 0);
        s.computeOn.assign(s.cluster.GetNRanks(), UINT32_MAX);
    }
    for (uint32_t j = 0; j < s.jobs.size(); ++j)
    {
        State::Job& job = s.jobs[j];
        for (uint32_t t = 0; t < job.waiting.size(); ++t)
        {
            if (job.waiting[t] == 0)
            {
                job.phase[t] = 1;
                job.runs[t].ready = Simulator::Now();
            }
        }
        for (uint32_t t = 0; t < job.waiting.size(); ++t)
        {
            if (job.waiting[t] == 0)
            {
                TryStart(j, t);
            }
        }
    }
}

void
TrainingSimulation::TryStart(uint32_t j, uint32_t t)
{
    State& s = *m_state;
    State::Job& job = s.jobs[j];
    if (job.phase[t] != 1)
    {
        return;
    }
    const TrainingTask& task = job.setup->graph.tasks[t];
    for (uint32_t i = job.streamOffset[t]; i < job.streamOffset[t + 1]; ++i)
    {
        uint32_t st = job.taskStreams[i];
        if (job.heads[st] >= job.streams[st].size() || job.streams[st][job.heads[st]] != t)
        {
            return;
        }
    }
    if (m_rendezvous && task.kind == TrainingTaskKind::SEND && task.blocking
        && job.computing[task.ranks[1]] > 0)
    {
        // the receiver posts its receive when its step has computed (WorkEnd starts us)
        if (!job.inRendezvous[t])
        {
            job.inRendezvous[t] = 1;
            job.rendezvous[task.ranks[1]].push_back(t);
        }
        return;
    }
    job.phase[t] = 2;
    job.runs[t].start = Simulator::Now();
    job.runs[t].backend = job.backendOf[t];
    NS_LOG_LOGIC(job.setup->name << " starts " << TaskName(job.setup->graph, t));
    switch (task.kind)
    {
        case TrainingTaskKind::COMPUTE:
            for (uint32_t r = 0; m_rendezvous && r < task.ranks.size(); ++r)
            {
                ++job.computing[task.ranks[r]];
            }
            if (m_overlapSlowdown > 0)
            {
                StartContended(j, t);
                return;
            }
            [[fallthrough]];
        case TrainingTaskKind::DELAY:
            Simulator::Schedule(task.duration, &TrainingSimulation::WorkEnd, this, j, t);
            return;
        case TrainingTaskKind::COLLECTIVE:
        case TrainingTaskKind::SEND:
        case TrainingTaskKind::STREAM:
            if (task.kind == TrainingTaskKind::COLLECTIVE)
            {
                ++s.collectives;
            }
            if (m_free)
            {
                Simulator::ScheduleNow(&TrainingSimulation::WorkEnd, this, j, t);
                return;
            }
            break;
    }
    std::string resource;
    if (task.kind == TrainingTaskKind::STREAM)
    {
        resource = "ws";
    }
    else
    {
        auto key = BackendKey(j, task.dimension, job.backendOf[t]);
        if (s.backends.at(key).serial)
        {
            resource = job.backendOf[t]; // in-network: one collective at a time, all jobs
        }
    }
    if (!resource.empty())
    {
        auto& [busy, queue] = s.serial[resource];
        if (busy)
        {
            queue.push_back({j, t});
            return;
        }
        busy = true;
    }
    Launch(j, t);
}

void
TrainingSimulation::Launch(uint32_t j, uint32_t t)
{
    State& s = *m_state;
    State::Job& job = s.jobs[j];
    const TrainingTask& task = job.setup->graph.tasks[t];
    if (task.kind == TrainingTaskKind::STREAM)
    {
        if (!s.streaming)
        {
            s.waferDescription = std::make_unique<Wafer>(s.wafer->Describe(s.cluster));
            FredCollectives* shared = nullptr;
            if (InSwitch(s.wafer->GetVariant()))
            {
                // The wafer's one FRED engine and switch programs are fred-in-switch's
                // (one instance for every job): the streams go through them too.
                Ptr<FredBackend> fred = DynamicCast<FredBackend>(
                    BackendFor(j, TrainingDimension::WS, FRED_IN_SWITCH));
                shared = &fred->Attach(s.cluster, *s.topology);
            }
            s.streaming = std::make_unique<WeightStreaming>(*s.waferDescription, shared);
        }
        std::vector<uint32_t> receivers;
        for (uint32_t r : task.ranks)
        {
            receivers.push_back(job.setup->placement[r]);
        }
        uint64_t controllers = s.waferDescription->ioRanks.size();
        // each rank's bytes come in equal shares from every I/O controller, rounded up to
        // whole 4-byte words (FRED's switches distribute fp32 elements: another share
        // would be refused mid-run)
        uint64_t perController = (task.bytes + controllers - 1) / controllers;
        perController += (4 - perController % 4) % 4;
        s.streaming->Start(perController,
                           job.setup->dimensions[uint32_t(TrainingDimension::WS)].trafficClass,
                           receivers,
                           Callback<void, const StreamingRecord&>(
                               [this, j, t](const StreamingRecord&)
                               {
                                   Simulator::ScheduleNow(&TrainingSimulation::WorkEnd, this, j, t);
                               }));
        return;
    }
    CommunicationChange(j, t, +1);
    auto key = BackendKey(j, task.dimension, job.backendOf[t]);
    Ptr<CollectiveBackend> backend = s.backends.at(key).backend;
    Communicator comm = CommOf(j, task);
    CollectiveRequest request = RequestOf(task, comm);
    backend->Start(s.cluster,
                   *s.topology,
                   comm,
                   request,
                   CollectiveBackend::DoneCallback(
                       [this, j, t](const CollectiveRecord&)
                       {
                           Simulator::ScheduleNow(&TrainingSimulation::WorkEnd, this, j, t);
                       }));
}

void
TrainingSimulation::StartContended(uint32_t j, uint32_t t)
{
    State& s = *m_state;
    const State::Job& job = s.jobs[j];
    const TrainingTask& task = job.setup->graph.tasks[t];
    uint32_t slot;
    if (s.freeSlots.empty())
    {
        slot = s.contended.size();
        s.contended.emplace_back();
    }
    else
    {
        slot = s.freeSlots.back();
        s.freeSlots.pop_back();
    }
    State::Contended& c = s.contended[slot];
    c.job = j;
    c.task = t;
    c.remaining = static_cast<double>(task.duration.GetTimeStep());
    c.since = Simulator::Now();
    c.slowed = false;
    c.end = EventId();
    for (uint32_t r : task.ranks)
    {
        s.computeOn[job.setup->placement[r]] = slot;
    }
    Reschedule(j, t);
}

void
TrainingSimulation::CommunicationChange(uint32_t j, uint32_t t, int delta)
{
    State& s = *m_state;
    if (m_overlapSlowdown <= 0)
    {
        return;
    }
    const State::Job& job = s.jobs[j];
    const TrainingTask& task = job.setup->graph.tasks[t];
    // a send's kernels run on both GPUs (NCCL's send and receive)
    for (uint32_t r : task.ranks)
    {
        const uint32_t gpu = job.setup->placement[r];
        uint32_t& n = s.commInFlight[gpu];
        const bool before = n > 0;
        n = delta > 0 ? n + 1 : n - 1;
        if (before != (n > 0) && s.computeOn[gpu] != UINT32_MAX)
        {
            const State::Contended& c = s.contended[s.computeOn[gpu]];
            Reschedule(c.job, c.task);
        }
    }
}

void
TrainingSimulation::Reschedule(uint32_t j, uint32_t t)
{
    State& s = *m_state;
    const State::Job& job = s.jobs[j];
    const TrainingTask& task = job.setup->graph.tasks[t];
    State::Contended& c = s.contended[s.computeOn[job.setup->placement[task.ranks.at(0)]]];
    const double factor = 1 + m_overlapSlowdown;
    const Time now = Simulator::Now();
    const double elapsed = static_cast<double>((now - c.since).GetTimeStep());
    c.remaining = std::max(0.0, c.remaining - (c.slowed ? elapsed / factor : elapsed));
    c.since = now;
    // lock-step shards wait for the slowest: slowed if any of them communicates
    c.slowed = false;
    for (uint32_t r : task.ranks)
    {
        c.slowed = c.slowed || s.commInFlight[job.setup->placement[r]] > 0;
    }
    Simulator::Cancel(c.end);
    const double left = c.slowed ? c.remaining * factor : c.remaining;
    c.end = Simulator::Schedule(Time::From(static_cast<int64_t>(std::llround(left))),
                                &TrainingSimulation::WorkEnd,
                                this,
                                j,
                                t);
}

void
TrainingSimulation::WorkEnd(uint32_t j, uint32_t t)
{
    State& s = *m_state;
    State::Job& job = s.jobs[j];
    const TrainingTask& task = job.setup->graph.tasks[t];
    NS_ASSERT(job.phase[t] == 2);
    job.phase[t] = 3;
    job.runs[t].end = Simulator::Now();
    if (m_overlapSlowdown > 0)
    {
        if (task.kind == TrainingTaskKind::COMPUTE)
        {
            s.freeSlots.push_back(s.computeOn[job.setup->placement[task.ranks.at(0)]]);
            for (uint32_t r : task.ranks)
            {
                s.computeOn[job.setup->placement[r]] = UINT32_MAX;
            }
        }
        else if (!m_free && task.kind != TrainingTaskKind::DELAY
                 && task.kind != TrainingTaskKind::STREAM)
        {
            CommunicationChange(j, t, -1);
        }
    }
    // a serial resource goes to the next collective waiting for it
    if (!m_free && task.kind != TrainingTaskKind::COMPUTE && task.kind != TrainingTaskKind::DELAY)
    {
        std::string resource;
        if (task.kind == TrainingTaskKind::STREAM)
        {
            resource = "ws";
        }
        else if (s.backends.at(BackendKey(j, task.dimension, job.backendOf[t])).serial)
        {
            resource = job.backendOf[t];
        }
        if (!resource.empty())
        {
            auto& [busy, queue] = s.serial[resource];
            if (queue.empty())
            {
                busy = false;
            }
            else
            {
                State::Pending next = queue.front();
                queue.pop_front();
                Launch(next.job, next.task);
            }
        }
    }
    // free the streams: their next tasks may start
    for (uint32_t i = job.streamOffset[t]; i < job.streamOffset[t + 1]; ++i)
    {
        ++job.heads[job.taskStreams[i]];
    }
    if (m_rendezvous && task.kind == TrainingTaskKind::COMPUTE)
    {
        for (uint32_t r : task.ranks)
        {
            --job.computing[r];
        }
        // the sends waiting for these ranks to post their receives go first, before the
        // ranks' next computes take them again
        for (uint32_t r : task.ranks)
        {
            if (job.computing[r] == 0 && !job.rendezvous[r].empty())
            {
                std::vector<uint32_t> waiting;
                waiting.swap(job.rendezvous[r]);
                for (uint32_t w : waiting)
                {
                    job.inRendezvous[w] = 0;
                    TryStart(j, w);
                }
            }
        }
    }
    for (uint32_t i = job.streamOffset[t]; i < job.streamOffset[t + 1]; ++i)
    {
        uint32_t st = job.taskStreams[i];
        if (job.heads[st] < job.streams[st].size())
        {
            TryStart(j, job.streams[st][job.heads[st]]);
        }
    }
    if (task.finishDelay.IsStrictlyPositive())
    {
        Simulator::Schedule(task.finishDelay, &TrainingSimulation::Finish, this, j, t);
    }
    else
    {
        Finish(j, t);
    }
}

void
TrainingSimulation::Finish(uint32_t j, uint32_t t)
{
    State& s = *m_state;
    State::Job& job = s.jobs[j];
    job.phase[t] = 4;
    ++job.finished;
    m_taskDone(job.runs[t]);
    for (uint32_t i = job.depOffset[t]; i < job.depOffset[t + 1]; ++i)
    {
        uint32_t d = job.dependants[i];
        NS_ASSERT(job.waiting[d] > 0);
        if (--job.waiting[d] == 0)
        {
            job.phase[d] = 1;
            job.runs[d].ready = Simulator::Now();
            TryStart(j, d);
        }
    }
}

bool
TrainingSimulation::IsFinished() const
{
    for (const auto& job : m_state->jobs)
    {
        if (job.finished != job.setup->graph.tasks.size())
        {
            return false;
        }
    }
    return true;
}

std::string
TrainingSimulation::DescribeStuck() const
{
    const State& s = *m_state;
    for (const auto& job : s.jobs)
    {
        const TrainingGraph& g = job.setup->graph;
        for (uint32_t t = 0; t < g.tasks.size(); ++t)
        {
            if (job.phase[t] >= 2)
            {
                continue; // running, or done: not what blocks
            }
            std::string what = job.setup->name + " " + TaskName(g, t) + " never started: ";
            if (job.phase[t] == 0)
            {
                for (uint32_t d : g.tasks[t].deps)
                {
                    if (job.phase[d] < 3)
                    {
                        return what + "it waits for " + TaskName(g, d) + " to finish";
                    }
                }
                return what + "it waits for a dep to finish its finish delay";
            }
            for (uint32_t st : StreamsOf(g.tasks[t]))
            {
                uint32_t head = job.streams[st][job.heads[st]];
                if (head != t)
                {
                    return what + "it is ready but waits for the " + StreamName(st % STREAMS)
                           + " stream of job rank " + std::to_string(st / STREAMS)
                           + ", whose head is " + TaskName(g, head);
                }
            }
            return what
                   + "it is ready and at the head of its streams (waits for a serial "
                     "backend)";
        }
        for (uint32_t t = 0; t < g.tasks.size(); ++t)
        {
            if (job.phase[t] == 2)
            {
                return job.setup->name + " " + TaskName(g, t) + " started and never ended";
            }
        }
    }
    return IsFinished() ? "" : "a task waits for its finish delay";
}

const std::vector<TrainingJobSetup>&
TrainingSimulation::GetJobs() const
{
    return m_state->setups;
}

std::vector<TrainingJobSetup>
TrainingSimulation::ReleaseJobs()
{
    std::vector<TrainingJobSetup> jobs = std::move(m_state->setups);
    m_state->setups.clear();
    m_state->jobs.clear();
    return jobs;
}

const std::vector<TrainingTaskRun>&
TrainingSimulation::GetRuns(uint32_t job) const
{
    return m_state->jobs.at(job).runs;
}

std::vector<TrainingTaskRun>
TrainingSimulation::TakeRuns(uint32_t job)
{
    return std::move(m_state->jobs.at(job).runs);
}

uint64_t
TrainingSimulation::GetCollectives() const
{
    return m_state->collectives;
}

} // namespace ns3
