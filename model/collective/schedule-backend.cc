/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "schedule-backend.h"

#include "collective-schedule.h"

#include "ns3/log.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScheduleBackend");

namespace
{
/// One engine per cluster, shared by every step-schedule backend on it: the
/// engine owns the endpoints' receive callbacks, so two engines on one
/// cluster would take them from each other (a training job runs its TP
/// collectives with ring while its DP buckets run halving-doubling).
struct SharedEngine
{
    Ptr<CollectiveEngine> engine;
    uint32_t users{0};
};

std::map<const FabricEndpointDirectory*, SharedEngine>&
SharedEngines()
{
    static std::map<const FabricEndpointDirectory*, SharedEngine> engines;
    return engines;
}
} // namespace

NS_OBJECT_ENSURE_REGISTERED(ScheduleBackend);

TypeId
ScheduleBackend::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ScheduleBackend")
                            .SetParent<CollectiveBackend>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<ScheduleBackend>();
    return tid;
}

ScheduleBackend::ScheduleBackend(CollectiveAlgorithm algorithm)
    : m_algorithm(algorithm)
{
}

std::string
ScheduleBackend::GetName() const
{
    return ToString(m_algorithm);
}

bool
ScheduleBackend::Implements(CollectiveOp op) const
{
    return ns3::Implements(m_algorithm, op);
}

std::string
ScheduleBackend::CheckTopology(const Topology& topology, const Communicator& comm) const
{
    bool hierarchical = m_algorithm == CollectiveAlgorithm::HIERARCHICAL
                        || m_algorithm == CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE;
    if (hierarchical && topology.GetGrid().dim1 == 0)
    {
        return "needs a two-dimensional topology (its grid: mesh, torus, leaf-spine, fat-tree, "
               "dragonfly, GPU servers)";
    }
    return "";
}

void
ScheduleBackend::Validate(const CollectiveRequest& request,
                          const Topology& topology,
                          const Communicator& comm) const
{
    CollectiveBackend::Validate(request, topology, comm);
    CollectiveRequest r = Resolved(request);
    r.Validate(comm.GetSize());
    CheckScheduleSize(
        r.op, m_algorithm, comm.GetSize(), r.root, r.bytes, ElementSize(r.type), r.grid, r.chunks);
}

CollectiveRequest
ScheduleBackend::Resolved(const CollectiveRequest& request) const
{
    CollectiveRequest r;
    r.op = request.op;
    r.algorithm = m_algorithm;
    r.type = request.type;
    r.bytes = request.bytes;
    r.root = request.root;
    r.chunks = request.chunks;
    r.chunksInFlight = request.chunksInFlight;
    r.grid = request.grid;
    r.staggerChunks = request.staggerChunks;
    r.chunks = CollectiveEngine::ResolvedChunks(r);
    if (r.chunksInFlight == 0)
    {
        r.chunksInFlight = r.chunks;
    }
    return r;
}

double
ScheduleBackend::Bound(const CollectiveRequest& request,
                       const Communicator& comm,
                       const NetworkModel& model) const
{
    CollectiveRequest r = Resolved(request);
    return PredictCollectiveTime(r.op, m_algorithm, comm.GetSize(), r.bytes, r.chunks, model);
}

std::vector<LinkPhase>
ScheduleBackend::Phases(const CollectiveRequest& request, const Communicator& comm) const
{
    return CollectivePhases(comm, Resolved(request));
}

double
ScheduleBackend::LibraryLatency(const CollectiveRequest& request,
                                const std::vector<LinkPhase>& phases,
                                const Topology& topology,
                                const LibraryLatencies& library) const
{
    return LibraryLatencyOfPhases(Resolved(request), phases, topology, library);
}

void
ScheduleBackend::Start(const Cluster& cluster,
                       const Topology& topology,
                       const Communicator& comm,
                       CollectiveRequest request,
                       DoneCallback done)
{
    CollectiveRequest r = Resolved(request);
    r.inputs = std::move(request.inputs);
    GetEngine(cluster, topology)->Start(comm, std::move(r), done);
}

Ptr<CollectiveEngine>
ScheduleBackend::GetEngine() const
{
    return m_engine;
}

Ptr<CollectiveEngine>
ScheduleBackend::GetEngine(const Cluster& cluster, const Topology& topology)
{
    if (!m_engine || m_directory != cluster.directory)
    {
        ReleaseEngine();
        SharedEngine& shared = SharedEngines()[PeekPointer(cluster.directory)];
        if (!shared.engine)
        {
            shared.engine = CreateObject<CollectiveEngine>();
            shared.engine->SetEndpoints(cluster.endpoints);
            std::vector<uint32_t> hosts(cluster.endpoints.size());
            for (uint32_t r = 0; r < hosts.size(); ++r)
            {
                hosts[r] = topology.GetHostOf(r);
            }
            shared.engine->SetHosts(hosts);
        }
        ++shared.users;
        m_engine = shared.engine;
        m_directory = cluster.directory;
    }
    return m_engine;
}

void
ScheduleBackend::ReleaseEngine()
{
    if (!m_engine)
    {
        return;
    }
    auto it = SharedEngines().find(PeekPointer(m_directory));
    if (it != SharedEngines().end() && --it->second.users == 0)
    {
        it->second.engine->Dispose();
        SharedEngines().erase(it);
    }
    m_engine = nullptr;
    m_directory = nullptr;
}

void
ScheduleBackend::DoDispose()
{
    ReleaseEngine();
    CollectiveBackend::DoDispose();
}

namespace
{
/// One registration per step schedule, named as the schedule is.
bool
RegisterSchedules()
{
    uint32_t order = 0;
    for (const auto& name : CollectiveAlgorithmNames())
    {
        CollectiveAlgorithm a = ParseCollectiveAlgorithm("algorithm", name);
        CollectiveRegistry::Add({name,
                                 order++,
                                 "step schedule run by the collective engine",
                                 {{"chunks", ""}, {"chunks-in-flight", ""}, {"stagger-chunks", ""}},
                                 [a]()
                                 {
                                     return Ptr<CollectiveBackend>(
                                         CreateObject<ScheduleBackend>(a));
                                 },
                                 false});
    }
    return true;
}

const bool g_registered = RegisterSchedules();
} // namespace

} // namespace ns3
