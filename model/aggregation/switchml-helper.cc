/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switchml-helper.h"

#include "aggregation-backend-util.h"
#include "switchml-flow.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <cmath>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchmlHelper");

namespace
{

Ptr<SwitchmlProgram>
ProgramOf(Ptr<FabricSwitch> sw)
{
    for (uint32_t i = 0; i < sw->GetNPrograms(); ++i)
    {
        if (Ptr<SwitchmlProgram> p = DynamicCast<SwitchmlProgram>(sw->GetProgram(i)))
        {
            return p;
        }
    }
    Ptr<SwitchmlProgram> p = CreateObject<SwitchmlProgram>();
    sw->AddProgram(p);
    return p;
}

/// Shared by the workers' callbacks until the last one is done.
struct JobProgress
{
    uint16_t job{0};
    SwitchmlJobRecord record;
    std::vector<Ptr<SwitchmlWorker>> workers;
    std::vector<Ptr<SwitchmlProgram>> programs;
    uint32_t left{0};
    SwitchmlHelper::DoneCallback done;
};

/// Give back the switches' slots and the endpoints' handlers; break the
/// cycle worker -> callback -> progress -> worker. Safe to call twice.
void
Release(JobProgress& progress)
{
    for (const auto& p : progress.programs)
    {
        p->RemoveJob(progress.job);
    }
    progress.programs.clear();
    for (auto& w : progress.workers)
    {
        w->Dispose();
    }
    progress.workers.clear();
}

} // namespace

uint32_t
SwitchmlHelper::GroupAddress(uint16_t job)
{
    return 0x80000000u | job;
}

uint32_t
SwitchmlHelper::Start(const Cluster& cluster,
                      const Topology& topology,
                      const Communicator& comm,
                      uint64_t elements,
                      const SwitchmlSettings& s,
                      const std::vector<std::vector<float>>& inputs,
                      DoneCallback done)
{
    comm.Validate(cluster.GetNRanks());
    uint32_t n = comm.GetSize();
    AggregationTree tree = topology.GetAggregationTree(comm.ranks, s.job);
    if (tree.nodes.empty() || tree.GetDepth() > 2)
    {
        throw std::invalid_argument("algorithm: switchml aggregates in a tree of at most two "
                                    "switch levels (a star's switch, a leaf-spine's leaves and "
                                    "spine); the topology is a "
                                    + topology.GetKind());
    }
    uint32_t mtu = cluster.endpoints[comm.ranks[0]]->GetDevice()->GetMtu();
    if (s.elementsPerPacket == 0
        || s.elementsPerPacket > (mtu - 24 - SwitchmlHeader::SERIALIZED_SIZE) / 4)
    {
        throw std::invalid_argument("elements-per-packet: " + std::to_string(s.elementsPerPacket)
                                    + " int32 values do not fit a packet of mtu "
                                    + std::to_string(mtu) + " bytes");
    }
    if (s.window == 0)
    {
        throw std::invalid_argument(s.windowName + ": got 0; expected at least 1 slot");
    }
    if (n > 0xffff)
    {
        throw std::invalid_argument("workers: at most 65535 per job");
    }
    if (!inputs.empty() && (inputs.size() != n))
    {
        throw std::invalid_argument("inputs: one tensor per worker");
    }
    if (elements == 0)
    {
        throw std::invalid_argument("elements: got 0; expected a tensor of at least 1 element");
    }
    for (const auto& in : inputs)
    {
        for (float x : in)
        {
            // the block exponent is 8 bits: 2^127 is the largest scale a chunk can have
            if (!std::isfinite(x) || std::fabs(x) >= 0x1p127f)
            {
                throw std::invalid_argument(
                    "inputs: switchml quantises to int32 with an 8-bit block "
                    "exponent: values must be finite and below 2^127");
            }
        }
    }
    Time timeout = s.timeout;
    uint32_t group = GroupAddress(s.job);
    uint32_t pool
        = std::min<uint64_t>(s.window, (elements + s.elementsPerPacket - 1) / s.elementsPerPacket);

    auto progress = std::make_shared<JobProgress>();
    // one job per aggregating switch: a node's children are its ranks, then
    // its child switches (whose contributions come from the job's group address)
    std::map<uint32_t, uint16_t> localIndex; // comm index by rank
    for (uint32_t i = 0; i < n; ++i)
    {
        localIndex[comm.ranks[i]] = i;
    }
    std::vector<uint16_t> indexAtParent(tree.nodes.size(), 0);
    for (const auto& node : tree.nodes)
    {
        for (uint32_t c = 0; c < node.children.size(); ++c)
        {
            indexAtParent[node.children[c]] = node.ranks.size() + c;
        }
    }
    bool flat = tree.nodes.size() == 1;
    for (uint32_t k = 0; k < tree.nodes.size(); ++k)
    {
        const AggregationTree::Node& node = tree.nodes[k];
        SwitchmlJob job;
        job.id = s.job;
        job.group = group;
        job.poolSize = pool;
        job.poolName = s.windowName;
        job.tc = comm.tc;
        for (uint32_t i = 0; i < node.ranks.size(); ++i)
        {
            job.childPorts.push_back(node.rankPorts[i]);
            job.childAddresses.push_back(node.ranks[i]);
            if (!flat)
            {
                job.localIndex[localIndex[node.ranks[i]]] = i;
            }
        }
        for (uint32_t c = 0; c < node.children.size(); ++c)
        {
            job.childPorts.push_back(node.childPorts[c]);
            job.childAddresses.push_back(group);
        }
        if (node.parent != AggregationTree::NO_PARENT)
        {
            job.parentPort = node.parentPort;
            job.indexAtParent = indexAtParent[k];
        }
        Ptr<SwitchmlProgram> p = ProgramOf(cluster.switches[node.switchIndex]);
        p->AddJob(job);
        progress->programs.push_back(p);
    }

    progress->job = s.job;
    StartJobBarrier(progress, n, done);
    if (cluster.flow)
    {
        // the flow-level twin; the programs above keep the slots, no packet reaches them
        SwitchmlFlow::Start(cluster,
                            tree,
                            comm,
                            elements,
                            s.elementsPerPacket,
                            pool,
                            comm.tc,
                            inputs,
                            DoneCallback(
                                [progress](const SwitchmlJobRecord& r)
                                {
                                    for (uint32_t i = 0; i < r.workers.size(); ++i)
                                    {
                                        WorkerDone(progress, i, r.workers[i], [](JobProgress&) {});
                                    }
                                }));
        return group;
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<SwitchmlWorker> w = CreateObject<SwitchmlWorker>();
        w->SetAttribute("Timeout", TimeValue(timeout));
        w->Setup(cluster.GetEndpoint(comm.ranks[i], "ranks"),
                 s.job,
                 group,
                 i,
                 n,
                 pool,
                 s.elementsPerPacket,
                 elements,
                 comm.tc,
                 inputs.empty() ? std::vector<float>() : inputs[i]);
        progress->workers.push_back(w);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        progress->workers[i]->Start(SwitchmlWorker::DoneCallback(
            [progress, i](const SwitchmlWorkerRecord& r)
            {
                WorkerDone(progress,
                           i,
                           r,
                           [](JobProgress& p)
                           {
                               for (const auto& program : p.programs)
                               {
                                   p.record.resultsResent += program->GetResultsResent();
                               }
                           });
            }));
    }
    return group;
}

} // namespace ns3
