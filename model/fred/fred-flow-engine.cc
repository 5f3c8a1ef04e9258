/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-flow-engine.h"

#include "fred-header.h"

#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/reduction.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FredFlowEngine");

NS_OBJECT_ENSURE_REGISTERED(FredFlowEngine);

namespace
{

/// Header bytes of every FRED packet on the wire.
constexpr uint32_t FRED_HEADERS = FabricHeader::SERIALIZED_SIZE + FredHeader::SERIALIZED_SIZE;

/// \return wire bytes of a part's packets whose index is j mod planes
double
ClassWire(const FredPart& part, uint32_t payload, uint32_t planes, uint32_t j)
{
    // indices below x that are j mod planes
    auto below = [planes, j](uint64_t x)
    {
        return x / planes + (x % planes > j ? 1 : 0);
    };
    uint64_t first = part.firstPacket;
    uint64_t end = first + part.packets;
    uint64_t count = below(end) - below(first);
    if (count == 0)
    {
        return 0;
    }
    double wire = double(count) * (payload + FRED_HEADERS);
    if ((end - 1) % planes == j)
    {
        wire -= double(part.packets) * payload - double(part.bytes); // the last one is short
    }
    return wire;
}

/**
 * One class of packets (one part, one plane) through the switches of a
 * plan, passed on as FredSwitchProgram passes a packet: the links it crosses
 * and the latest arrival at a receiver.
 */
class TreeWalk
{
public:
    TreeWalk(FlowNetwork& network, const FredPlan& plan, double packetBytes)
        : m_network(network)
        , m_packet(packetBytes)
    {
        for (const auto& [sw, flow] : plan)
        {
            m_flows[PeekPointer(sw)] = &flow;
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                m_ports[PeekPointer(sw->GetPort(p))] = {PeekPointer(sw), p};
            }
        }
    }

    /// Follow the class from a source's device. \param target its part \param plane its plane
    void From(Ptr<FabricNetDevice> source, uint32_t target, uint32_t plane)
    {
        m_target = target;
        m_plane = plane;
        uint32_t link = m_network.GetLink(source);
        links.insert(link);
        m_path.assign(1, link);
        Enter(source->GetPeer(), false);
    }

    std::set<uint32_t> links; //!< the links it crossed (from every source followed)
    double latency{0};        //!< s: the latest arrival at a receiver

private:
    void Enter(Ptr<FabricNetDevice> ingress, bool down)
    {
        auto at = m_ports.find(PeekPointer(ingress));
        auto flow = at == m_ports.end() ? m_flows.end() : m_flows.find(at->second.first);
        if (flow == m_flows.end())
        {
            throw std::logic_error("FredFlowEngine: a job's packets reach a switch or node "
                                   "outside its plan");
        }
        FabricSwitch* sw = at->second.first;
        uint32_t in = at->second.second;
        const FredSwitchFlow& f = *flow->second;
        const bool fromParent
            = std::find(f.parents.begin(), f.parents.end(), in) != f.parents.end();
        const bool root = f.parents.empty();
        auto sendDown = [&](uint32_t except)
        {
            f.ForEachDownPort(m_target,
                              except,
                              [&](uint32_t port)
                              {
                                  Send(sw, f, port, true);
                              });
        };
        auto sendUp = [&]()
        {
            Send(sw, f, f.parents[m_plane % f.parents.size()], false);
        };
        if (down || fromParent)
        {
            sendDown(FredSwitchFlow::NONE);
        }
        else if (!f.reduce)
        {
            sendDown(in);
            if (!root)
            {
                sendUp();
            }
        }
        else if (root)
        {
            sendDown(FredSwitchFlow::NONE);
        }
        else
        {
            sendUp();
        }
    }

    void Send(FabricSwitch* sw, const FredSwitchFlow& f, uint32_t port, bool down)
    {
        Ptr<FabricNetDevice> device = sw->GetPort(port);
        uint32_t link = m_network.GetLink(device);
        links.insert(link);
        m_path.push_back(link);
        if (f.endpointAt.count(port) > 0)
        {
            // a receiver: the path's delays and store and forward, as Resolve counts them
            latency = std::max(latency, m_network.GetPathLatency(m_path, m_packet));
        }
        else
        {
            Enter(device->GetPeer(), down);
        }
        m_path.pop_back();
    }

    FlowNetwork& m_network;
    double m_packet;
    std::unordered_map<const FabricSwitch*, const FredSwitchFlow*> m_flows;
    std::unordered_map<const FabricNetDevice*, std::pair<FabricSwitch*, uint32_t>> m_ports;
    uint32_t m_target{0};
    uint32_t m_plane{0};
    std::vector<uint32_t> m_path; //!< links from the source to here
};

} // namespace

std::vector<std::pair<uint32_t, double>>
FlowTree::Uses() const
{
    std::vector<std::pair<uint32_t, double>> uses;
    for (const auto& [link, bytes] : wire)
    {
        uses.emplace_back(link, bytes / sourceWire);
    }
    return uses;
}

TypeId
FredFlowEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FredFlowEngine")
                            .SetParent<Object>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FredFlowEngine>()
                            .AddTraceSource("Done",
                                            "An in-switch collective finished",
                                            MakeTraceSourceAccessor(&FredFlowEngine::m_doneTrace),
                                            "ns3::FredFlowEngine::DoneTracedCallback");
    return tid;
}

FredFlowEngine::FredFlowEngine() = default;
FredFlowEngine::~FredFlowEngine() = default;

void
FredFlowEngine::DoDispose()
{
    m_running.clear();
    m_endpoints.clear();
    m_network = nullptr;
    Object::DoDispose();
}

void
FredFlowEngine::SetNetwork(Ptr<FlowNetwork> network,
                           const std::vector<Ptr<FabricEndpoint>>& endpoints)
{
    m_network = network;
    m_endpoints = endpoints;
}

uint32_t
FredFlowEngine::GetRunning() const
{
    return m_running.size();
}

std::vector<FlowTree>
FredFlowEngine::Trees(const FredJob& job, const FredPlan& plan)
{
    NS_ASSERT_MSG(m_network, "SetNetwork first");
    std::vector<FredPart> parts = FredParts(job);
    uint32_t planes = 1;
    uint64_t largest = 0;
    for (const auto& [sw, flow] : plan)
    {
        planes = std::max<uint32_t>(planes, flow.parents.size());
    }
    for (const FredPart& p : parts)
    {
        largest = std::max(largest, p.bytes);
    }
    double packet = double(std::min<uint64_t>(largest, job.payloadBytes)) + FRED_HEADERS;
    auto deviceOf = [this](uint32_t address)
    {
        return m_endpoints.at(address)->GetDevice();
    };

    // A reducing job is one tree (every source sends every class, a switch merges
    // them); a copying job one tree per source (its own part on its own tree).
    std::vector<std::vector<uint32_t>> senders; // sources (by index) per tree
    for (uint32_t s = 0; s < job.sources.size(); ++s)
    {
        if (!job.Reduces() || senders.empty())
        {
            senders.emplace_back();
        }
        senders.back().push_back(s);
    }
    std::vector<FlowTree> trees;
    for (const auto& group : senders)
    {
        FlowTree tree;
        for (uint32_t t : FredPartsSent(job, parts, group.front()))
        {
            for (uint32_t j = 0; j < planes; ++j)
            {
                double wire = ClassWire(parts[t], job.payloadBytes, planes, j);
                if (wire <= 0)
                {
                    continue;
                }
                TreeWalk walk(*m_network, plan, packet);
                for (uint32_t s : group)
                {
                    walk.From(deviceOf(job.sources[s]), t, j);
                }
                for (uint32_t link : walk.links)
                {
                    tree.wire[link] += wire;
                }
                tree.sourceWire += wire;
                tree.latency = std::max(tree.latency, walk.latency);
            }
        }
        trees.push_back(tree);
    }
    return trees;
}

void
FredFlowEngine::Start(const FredJob& job, const FredPlan& plan, FredEngine::DoneCallback done)
{
    job.Validate();
    if (m_running.count(job.id) > 0)
    {
        throw std::invalid_argument("id: job " + std::to_string(job.id)
                                    + " is running already (job '" + job.name + "')");
    }
    job.CheckEndpoints(m_endpoints.size());
    std::vector<FlowTree> trees = Trees(job, plan);
    Running& run = m_running[job.id];
    run.job = job;
    run.done = done;
    std::vector<FredPart> parts = FredParts(job);
    run.record = StartRecord(job, parts);
    for (uint32_t s = 0; s < job.sources.size(); ++s)
    {
        for (uint32_t p : FredPartsSent(job, parts, s))
        {
            run.record.bytesSent[s] += parts[p].bytes;
        }
    }
    run.pending = trees.size();
    NS_LOG_INFO("FRED job " << job.id << " '" << job.name << "' " << ToString(job.op) << " "
                            << job.bytes << " B as " << trees.size() << " flows");
    for (const FlowTree& tree : trees)
    {
        FlowNetwork::FlowSpec spec;
        spec.uses = tree.Uses();
        spec.bytes = tree.sourceWire;
        spec.priority = job.tc;
        m_network->StartFlow(spec,
                             MakeCallback(&FredFlowEngine::Sent, Ptr<FredFlowEngine>(this))
                                 .Bind(job.id, tree.latency));
    }
}

void
FredFlowEngine::Sent(uint32_t job, double latency)
{
    Simulator::Schedule(Seconds(latency), &FredFlowEngine::Arrived, Ptr<FredFlowEngine>(this), job);
}

void
FredFlowEngine::Arrived(uint32_t id)
{
    auto found = m_running.find(id);
    if (found == m_running.end() || --found->second.pending > 0)
    {
        return;
    }
    Running run = std::move(found->second);
    m_running.erase(found);
    const FredJob& job = run.job;
    FredRecord& rec = run.record;
    rec.end = Simulator::Now();
    std::vector<FredPart> parts = FredParts(job);
    // what each receiver holds now
    std::vector<uint8_t> sum;
    if (!job.inputs.empty() && job.Reduces())
    {
        sum = job.inputs[0];
        for (uint32_t s = 1; s < job.sources.size(); ++s)
        {
            ReduceSum(job.type, sum.data(), job.inputs[s].data(), job.bytes);
        }
    }
    for (uint32_t r = 0; r < job.receivers.size(); ++r)
    {
        for (uint32_t p : FredPartsReceived(job, parts, r))
        {
            const FredPart& part = parts[p];
            rec.bytesReceived[r] += part.bytes;
            if (job.inputs.empty())
            {
                continue;
            }
            // a broadcast stream starts at its own offset; its input is the stream
            const uint8_t* from = job.Reduces() ? sum.data() + part.offset
                                  : job.op == CollectiveOp::BROADCAST
                                      ? job.inputs[p].data()
                                      : job.inputs[p].data() + part.offset;
            std::copy_n(from, part.bytes, rec.outputs[r].begin() + part.offset);
        }
    }
    m_doneTrace(rec);
    if (!run.done.IsNull())
    {
        run.done(rec);
    }
}

} // namespace ns3
