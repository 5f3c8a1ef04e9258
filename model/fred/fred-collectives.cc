/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-collectives.h"

#include "fred-header.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetFredHelper");

namespace
{

[[noreturn]] void
NoInSwitchCollectives(const std::string& variant)
{
    throw std::invalid_argument("variant: " + variant
                                + " has no in-switch collectives; allowed: fred-b, fred-d");
}

} // namespace

FredCollectives::FredCollectives(Wafer& wafer, bool distributionOnly)
    : m_wafer(wafer)
    , m_reduces(wafer.InSwitch())
{
    if (!wafer.IsFred() || (!wafer.InSwitch() && !distributionOnly))
    {
        NoInSwitchCollectives(ToString(wafer.variant));
    }
    for (const auto& level : {wafer.l1, wafer.l2})
    {
        for (const auto& sw : level)
        {
            Ptr<FredSwitchProgram> program = CreateObject<FredSwitchProgram>();
            program->SetAttribute("MiddleStages", UintegerValue(wafer.middleStages));
            sw->AddProgram(program);
            m_programs[sw] = program;
        }
    }
    m_engine = CreateObject<FredEngine>();
    m_engine->SetEndpoints(wafer.cluster.endpoints);
    if (wafer.cluster.flow)
    {
        m_flowEngine = CreateObject<FredFlowEngine>();
        m_flowEngine->SetNetwork(wafer.cluster.flow, wafer.cluster.endpoints);
    }
    uint32_t mtu = wafer.cluster.endpoints[0]->GetDevice()->GetMaxPacketSize();
    uint32_t room = mtu - FabricHeader::SERIALIZED_SIZE - FredHeader::SERIALIZED_SIZE;
    m_payload = room - room % 4; // whole elements of every type
}

void
FredCollectives::SetSerialise(bool serialise)
{
    m_serialise = serialise;
}

FredCollectives::~FredCollectives()
{
    // The endpoints' handlers and the switches' programs point here: take them back.
    m_engine->Dispose();
    if (m_flowEngine)
    {
        m_flowEngine->Dispose();
    }
    for (auto& [sw, program] : m_programs)
    {
        sw->RemoveProgram(program);
    }
}

Ptr<FredSwitchProgram>
FredCollectives::GetProgram(Ptr<FabricSwitch> sw) const
{
    auto it = m_programs.find(sw);
    return it == m_programs.end() ? nullptr : it->second;
}

Ptr<FredEngine>
FredCollectives::GetEngine() const
{
    return m_engine;
}

Ptr<FredFlowEngine>
FredCollectives::GetFlowEngine() const
{
    return m_flowEngine;
}

void
FredCollectives::Run(const FredJob& job, FredEngine::DoneCallback done)
{
    auto finished = MakeCallback(&FredCollectives::Finished, this).Bind(job.id, done);
    if (m_flowEngine)
    {
        m_flowEngine->Start(job, Plan(job), finished);
    }
    else
    {
        m_engine->Start(job, finished);
    }
}

uint32_t
FredCollectives::GetPayloadBytes() const
{
    return m_payload;
}

FredPlan
FredCollectives::Plan(const FredJob& job) const
{
    const Wafer& w = m_wafer;
    const uint32_t perL1 = w.npusPerL1;
    // where a rank hangs: (L1, port)
    auto attach = [&](uint32_t rank) -> std::pair<uint32_t, uint32_t>
    {
        if (rank < w.npus)
        {
            return {rank / perL1, w.l1Npu[rank / perL1][rank % perL1]};
        }
        uint32_t io = rank - w.npus;
        return {w.ioL1[io], w.ioL1Port[io]};
    };
    std::set<uint32_t> l1s;
    std::map<uint32_t, std::vector<uint32_t>> npusAt; // NPUs taking part, by L1
    for (const auto* list : {&job.sources, &job.receivers})
    {
        for (uint32_t rank : *list)
        {
            l1s.insert(attach(rank).first);
            if (rank < w.npus)
            {
                auto& at = npusAt[rank / perL1];
                if (std::find(at.begin(), at.end(), rank) == at.end())
                {
                    at.push_back(rank);
                }
            }
        }
    }
    // planes: the local indices of the fullest L1's NPUs
    std::vector<uint32_t> planes;
    uint32_t fullest = 0;
    for (const auto& [k, at] : npusAt)
    {
        if (at.size() > fullest)
        {
            fullest = at.size();
            planes.clear();
            for (uint32_t rank : at)
            {
                planes.push_back(rank % perL1);
            }
        }
    }
    if (planes.empty())
    {
        for (uint32_t j = 0; j < w.l2.size(); ++j)
        {
            planes.push_back(j);
        }
    }
    std::sort(planes.begin(), planes.end());
    const bool rs = job.op == CollectiveOp::REDUCE_SCATTER;
    const bool single = l1s.size() == 1;

    auto newFlow = [&job](const std::string& where)
    {
        FredSwitchFlow f;
        f.job = job.id;
        f.name = job.name + "@" + where;
        f.reduce = job.Reduces();
        f.tc = job.tc;
        return f;
    };
    FredPlan plan;
    for (uint32_t k : l1s)
    {
        FredSwitchFlow f = newFlow("L1-" + std::to_string(k));
        for (uint32_t s : job.sources)
        {
            auto [l1, port] = attach(s);
            if (l1 == k)
            {
                f.inputs.push_back(port);
                f.endpointAt[port] = s;
            }
        }
        for (uint32_t r : job.receivers)
        {
            auto [l1, port] = attach(r);
            if (l1 == k)
            {
                f.outputs.push_back(port);
                f.endpointAt[port] = r;
            }
            if (rs)
            {
                f.targetPort.push_back(l1 == k ? port : FredSwitchFlow::NONE);
            }
        }
        if (!single)
        {
            for (uint32_t j : planes)
            {
                f.parents.push_back(w.l1Up[k][j]);
            }
        }
        plan.emplace_back(w.l1[k], f);
    }
    if (!single)
    {
        for (uint32_t j : planes)
        {
            FredSwitchFlow f = newFlow("L2-" + std::to_string(j));
            std::set<uint32_t> in;
            std::set<uint32_t> out;
            for (uint32_t s : job.sources)
            {
                in.insert(w.l2Down[j][attach(s).first]);
            }
            for (uint32_t r : job.receivers)
            {
                out.insert(w.l2Down[j][attach(r).first]);
                if (rs)
                {
                    f.targetPort.push_back(w.l2Down[j][attach(r).first]);
                }
            }
            f.inputs.assign(in.begin(), in.end());
            f.outputs.assign(out.begin(), out.end());
            plan.emplace_back(w.l2[j], f);
        }
    }
    return plan;
}

uint32_t
FredCollectives::Launch(FredJob job, FredEngine::DoneCallback done)
{
    job.id = m_nextJob++;
    job.payloadBytes = m_payload;
    job.Validate();
    uint32_t classes = m_wafer.cluster.endpoints[0]->GetDevice()->GetTrafficClasses();
    if (job.tc >= classes)
    {
        throw std::invalid_argument("tc: got " + std::to_string(job.tc) + " (job '" + job.name
                                    + "'); the wafer has traffic classes 0 to "
                                    + std::to_string(classes - 1));
    }
    if (!TryInstall(job))
    {
        if (!m_serialise || m_installed.empty())
        {
            TryInstall(job, true); // throws the conflict
        }
        // it runs once the jobs in its way have finished
        NS_LOG_INFO("FRED job " << job.id << " '" << job.name << "' waits for a conflicting one");
        m_waiting.emplace_back(job, done);
        return job.id;
    }
    Run(job, done);
    return job.id;
}

bool
FredCollectives::TryInstall(const FredJob& job, bool rethrow)
{
    auto plan = Plan(job);
    std::vector<Ptr<FabricSwitch>> installed;
    try
    {
        for (auto& [sw, flow] : plan)
        {
            m_programs.at(sw)->InstallFlow(flow);
            installed.push_back(sw);
        }
    }
    catch (const std::invalid_argument&)
    {
        for (auto& sw : installed)
        {
            m_programs.at(sw)->RemoveFlow(job.id);
        }
        if (rethrow)
        {
            throw;
        }
        return false;
    }
    m_installed[job.id] = installed;
    return true;
}

void
FredCollectives::Finished(uint32_t job, FredEngine::DoneCallback done, const FredRecord& record)
{
    for (auto& sw : m_installed[job])
    {
        m_programs.at(sw)->RemoveFlow(job);
    }
    m_installed.erase(job);
    // waiting jobs whose flows fit now start, in the order they came
    for (auto it = m_waiting.begin(); it != m_waiting.end();)
    {
        if (TryInstall(it->first))
        {
            auto [next, nextDone] = *it;
            it = m_waiting.erase(it);
            Run(next, nextDone);
        }
        else
        {
            ++it;
        }
    }
    if (!done.IsNull())
    {
        done(record);
    }
}

uint32_t
FredCollectives::Start(const Communicator& comm,
                       CollectiveOp op,
                       DataType type,
                       uint64_t bytes,
                       const std::vector<std::vector<uint8_t>>& inputs,
                       FredEngine::DoneCallback done)
{
    if (!m_reduces)
    {
        NoInSwitchCollectives(ToString(m_wafer.variant));
    }
    comm.Validate(m_wafer.npus);
    FredJob job;
    job.name = comm.name;
    job.op = op;
    job.type = type;
    job.bytes = bytes;
    job.tc = comm.tc;
    job.sources = comm.ranks;
    job.receivers = comm.ranks;
    job.inputs = inputs;
    return Launch(job, done);
}

uint32_t
FredCollectives::StartBroadcast(const std::string& name,
                                const std::vector<uint32_t>& sources,
                                const std::vector<uint32_t>& receivers,
                                uint64_t bytes,
                                uint8_t tc,
                                FredEngine::DoneCallback done)
{
    FredJob job;
    job.name = name;
    job.op = CollectiveOp::BROADCAST;
    job.type = DataType::FP32;
    job.bytes = bytes;
    job.tc = tc;
    job.sources = sources;
    job.receivers = receivers;
    uint32_t ranks = m_wafer.cluster.GetNRanks();
    for (uint32_t r : sources)
    {
        if (r >= ranks)
        {
            throw std::invalid_argument("sources: rank " + std::to_string(r)
                                        + " is not on the wafer");
        }
    }
    for (uint32_t r : receivers)
    {
        if (r >= m_wafer.npus)
        {
            throw std::invalid_argument("receivers: rank " + std::to_string(r)
                                        + " is not one of the wafer's "
                                        + std::to_string(m_wafer.npus) + " NPUs");
        }
    }
    return Launch(job, done);
}

} // namespace ns3
