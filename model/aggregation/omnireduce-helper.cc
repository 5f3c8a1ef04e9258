/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "omnireduce-helper.h"

#include "aggregation-backend-util.h"
#include "omnireduce-flow.h"

#include "ns3/collective-backend.h"
#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <memory>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OmniReduceHelper");

namespace
{

/// Shared by the callbacks until the last worker is done.
struct Progress
{
    OmniReduceJobRecord record;
    std::vector<Ptr<OmniReduceWorker>> workers;
    std::vector<Ptr<OmniReduceAggregator>> aggregators;
    std::vector<Ptr<FabricEndpoint>> endpoints; //!< whose handler we took
    Ptr<FabricSwitch> sw;                       //!< switch placement: the switch
    Ptr<OmniReduceProgram> program;             //!< switch placement: its program
    uint32_t switchIndex{0};                    //!< switch placement: the switch's index
    uint32_t left{0};
    OmniReduceHelper::DoneCallback done;
};

/// Give back the handlers and the switch program; break the cycles endpoint
/// -> handler -> worker/aggregator -> callback -> progress. Safe to call twice.
void
Release(Progress& progress)
{
    for (auto& ep : progress.endpoints)
    {
        ep->SetProtocolHandler(OmniReduceHeader::PROTOCOL, FabricEndpoint::RawCallback());
    }
    progress.endpoints.clear();
    if (progress.sw)
    {
        progress.sw->RemoveProgram(progress.program);
        progress.program->Dispose();
        progress.sw = nullptr;
        progress.program = nullptr;
    }
    for (auto& w : progress.workers)
    {
        w->Dispose();
    }
    progress.workers.clear();
    progress.aggregators.clear();
}

/// Aggregator addresses for the placement.
std::vector<uint32_t>
AggregatorAddresses(const OmniReduceSettings& s,
                    const Topology& t,
                    const Communicator& comm,
                    uint32_t clusterRanks)
{
    uint32_t n = comm.GetSize();
    uint32_t a = s.aggregators ? s.aggregators : (s.placement == "switch" ? 1 : n);
    std::vector<uint32_t> out;
    if (s.placement == "switch")
    {
        out.push_back(0x90000000u | s.job);
        return out;
    }
    if (s.placement == "colocated")
    {
        for (uint32_t i = 0; i < a; ++i)
        {
            out.push_back(comm.ranks[i % n]);
        }
        return out;
    }
    std::set<uint32_t> workers(comm.ranks.begin(), comm.ranks.end());
    for (uint32_t r = 0; r < clusterRanks && out.size() < a; ++r)
    {
        if (!workers.count(r))
        {
            out.push_back(r);
        }
    }
    if (out.size() < a)
    {
        throw NotApplicable("aggregators: " + std::to_string(a) + " dedicated servers need "
                            + std::to_string(a) + " ranks outside the communicator; the "
                            + t.GetKind() + " has " + std::to_string(out.size())
                            + " (add hosts; or, where the experiment has the option, "
                              "aggregator-placement=colocated "
                              "puts them on the workers)");
    }
    return out;
}

} // namespace

const std::vector<std::string>&
OmniReduceHelper::Placements()
{
    static const std::vector<std::string> placements = {"servers", "colocated", "switch"};
    return placements;
}

void
OmniReduceHelper::Validate(const OmniReduceSettings& s,
                           const Topology& topology,
                           const Communicator& comm,
                           uint64_t elements,
                           uint32_t mtu)
{
    const Topology& t = topology;
    dlnet::ParseChoice("aggregator-placement", s.placement, Placements());
    if (s.blockElements == 0)
    {
        throw std::invalid_argument("block-elements: got 0; expected at least 1 element per block");
    }
    if (elements % s.blockElements != 0)
    {
        throw std::invalid_argument("block-elements: " + std::to_string(s.blockElements)
                                    + " does not divide the tensor of " + std::to_string(elements)
                                    + " elements");
    }
    if (elements / s.blockElements >= OmniReduceHeader::NONE)
    {
        throw std::invalid_argument("block-elements: the tensor would have 2^32 blocks or more; "
                                    "use larger blocks");
    }
    if (s.messageBlocks == 0 || s.messageBlocks > 32)
    {
        throw std::invalid_argument("message-blocks: got " + std::to_string(s.messageBlocks)
                                    + "; expected 1 to 32 blocks per packet");
    }
    // (1ull: 1 + blockElements in 32 bits wrapped to 0 at 2^32 - 1, and the packet fitted)
    const uint64_t headers = FabricHeader::SERIALIZED_SIZE + OmniReduceHeader::FIXED_SIZE;
    uint64_t packet = headers + 4ull * s.messageBlocks * (1ull + s.blockElements);
    if (packet > mtu)
    {
        // one block too large is block-elements' fault; several, message-blocks'
        const uint64_t room = mtu > headers ? (mtu - headers) / 4 : 0;
        const uint64_t largest = room / s.messageBlocks;
        throw std::invalid_argument(
            std::string(s.messageBlocks == 1 ? "block-elements" : "message-blocks") + ": "
            + std::to_string(s.messageBlocks) + " block" + (s.messageBlocks == 1 ? "" : "s")
            + " of " + std::to_string(s.blockElements) + " elements make a "
            + std::to_string(packet) + "-byte packet; the mtu is " + std::to_string(mtu)
            + (largest > 1 ? " (at most " + std::to_string(largest - 1) + " elements per block at "
                                 + std::to_string(s.messageBlocks) + " per packet)"
                           : ""));
    }
    if (s.slots == 0)
    {
        throw std::invalid_argument("slots: got 0; expected at least 1");
    }
    if (comm.GetSize() > 0xffff)
    {
        throw std::invalid_argument("ranks: at most 65535 workers per job");
    }
    if (s.placement == "switch" && t.GetAggregationTree(comm.ranks, s.job).nodes.size() != 1)
    {
        throw NotApplicable("aggregator-placement: switch aggregates in a star's switch; "
                            "the topology is a "
                            + t.GetKind()
                            + " (the placement needs one switch that every worker "
                              "reaches first)");
    }
    if (s.aggregators > 0xffff)
    {
        // one address each, as workers: more would only exhaust memory
        throw std::invalid_argument("aggregators: got " + std::to_string(s.aggregators)
                                    + "; expected 0 to 65535");
    }
    if (s.placement == "switch" && s.aggregators > 1)
    {
        throw std::invalid_argument("aggregators: a star has one switch to aggregate in");
    }
    Time timeout = s.timeout;
    dlnet::CheckTime("aggregation-timeout",
                     timeout,
                     dlnet::MIN_POSITIVE_TIME_SECONDS,
                     dlnet::MAX_TIMEOUT_SECONDS);
    Time packetTime = s.packetTime;
    dlnet::CheckTime("aggregator-packet-time", packetTime, 0, dlnet::MAX_DELAY_SECONDS);
    // Each worker keeps `slots` packets outstanding and resends each one at
    // the latest every max(timeout, 100ms) (the timeout's ceiling): an
    // aggregator that takes longer for all of them never catches up, and
    // the resent packets queue without bound. (Flow level resends nothing.)
    double ceiling = std::max(timeout.GetSeconds(), 0.1);
    double backlog = packetTime.GetSeconds() * comm.GetSize() * s.slots;
    if (s.placement != "switch" && backlog >= ceiling && t.GetConfig().network != "flow")
    {
        throw std::invalid_argument(
            "aggregator-packet-time: got '" + dlnet::TimeText(packetTime.GetSeconds())
            + "'; expected below " + dlnet::TimeText(ceiling / (double(comm.GetSize()) * s.slots))
            + ": an aggregator must process the " + std::to_string(comm.GetSize()) + " workers x "
            + std::to_string(s.slots)
            + " pool-slots outstanding packets within the largest aggregation timeout (the "
              "larger of 100ms and aggregation-timeout), else resent packets queue without end");
    }
    if (s.placement == "switch" && !s.packetTime.IsZero())
    {
        throw std::invalid_argument("aggregator-packet-time: the switch aggregates at line rate; "
                                    "a packet time applies to servers and colocated aggregators");
    }
    if (!(s.threshold >= 0))
    {
        throw std::invalid_argument("threshold: expected a number of at least 0");
    }
    AggregatorAddresses(s, t, comm, t.GetNRanks());
}

void
OmniReduceHelper::Start(const Cluster& cluster,
                        const Topology& topology,
                        const Communicator& comm,
                        uint64_t elements,
                        const OmniReduceSettings& s,
                        const std::vector<std::vector<bool>>& nonZero,
                        const std::vector<std::vector<float>>& inputs,
                        DoneCallback done)
{
    comm.Validate(cluster.GetNRanks());
    Validate(s, topology, comm, elements, cluster.endpoints[comm.ranks[0]]->GetDevice()->GetMtu());
    const Topology& t = topology;
    uint32_t n = comm.GetSize();
    if (inputs.empty() && nonZero.size() != n)
    {
        throw std::invalid_argument("sparsity: one block pattern per worker");
    }
    OmniReduceJob job;
    job.workers = comm.ranks;
    job.aggregators = AggregatorAddresses(s, t, comm, cluster.GetNRanks());
    job.blockElements = s.blockElements;
    job.lanes = s.messageBlocks;
    job.slots = s.slots;
    job.elements = elements;
    job.tc = comm.tc;
    job.functional = !inputs.empty();
    Time timeout = s.timeout;

    auto progress = std::make_shared<Progress>();
    progress->record.aggregators = job.aggregators;
    if (cluster.flow)
    {
        // the flow-level twin: no workers, aggregators or handlers to install
        StartJobBarrier(progress, n, done);
        OmniReduceFlow::Start(cluster,
                              topology,
                              comm,
                              job,
                              s,
                              nonZero,
                              inputs,
                              DoneCallback(
                                  [progress](const OmniReduceJobRecord& r)
                                  {
                                      progress->record.aggregatorBytes = r.aggregatorBytes;
                                      for (uint32_t i = 0; i < r.workers.size(); ++i)
                                      {
                                          WorkerDone(progress, i, r.workers[i], [](Progress&) {});
                                      }
                                  }));
        return;
    }
    std::map<uint32_t, Ptr<OmniReduceAggregator>> aggregatorAt; // endpoint address -> aggregator
    std::map<uint32_t, Ptr<OmniReduceWorker>> workerAt;
    auto sendFrom = [&cluster, &job](uint32_t address)
    {
        Ptr<FabricEndpoint> ep = cluster.GetEndpoint(address, "ranks");
        uint8_t tc = job.tc;
        return [ep, tc](uint32_t dst, Ptr<Packet> p)
        {
            ep->SendRaw(p, dst, OmniReduceHeader::PROTOCOL, tc);
        };
    };
    if (s.placement == "switch")
    {
        Ptr<OmniReduceProgram> program = CreateObject<OmniReduceProgram>();
        uint32_t switchIndex = t.GetAggregationTree(comm.ranks, s.job).nodes[0].switchIndex;
        Ptr<FabricSwitch> sw = cluster.switches[switchIndex];
        sw->AddProgram(program);
        program->Setup(job, job.aggregators[0]);
        progress->sw = sw;
        progress->switchIndex = switchIndex;
        progress->program = program;
        progress->aggregators.push_back(program->GetAggregator());
    }
    else
    {
        for (uint32_t address : std::set<uint32_t>(job.aggregators.begin(), job.aggregators.end()))
        {
            Ptr<OmniReduceAggregator> a = CreateObject<OmniReduceAggregator>();
            a->SetAttribute("PacketTime", TimeValue(s.packetTime));
            a->Setup(job, address, sendFrom(address));
            aggregatorAt[address] = a;
            progress->aggregators.push_back(a);
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<OmniReduceWorker> w = CreateObject<OmniReduceWorker>();
        w->SetAttribute("Timeout", TimeValue(timeout));
        w->SetAttribute("Threshold", DoubleValue(s.threshold));
        w->Setup(job,
                 i,
                 inputs.empty() ? nonZero[i] : std::vector<bool>(),
                 inputs.empty() ? std::vector<float>() : inputs[i],
                 sendFrom(comm.ranks[i]));
        workerAt[comm.ranks[i]] = w;
        progress->workers.push_back(w);
    }
    // one protocol handler per endpoint: contributions to its aggregator, results to its worker
    std::set<uint32_t> hosts(comm.ranks.begin(), comm.ranks.end());
    for (const auto& [address, a] : aggregatorAt)
    {
        hosts.insert(address);
    }
    for (uint32_t address : hosts)
    {
        Ptr<FabricEndpoint> ep = cluster.GetEndpoint(address, "ranks");
        Ptr<OmniReduceAggregator> a = aggregatorAt.count(address) ? aggregatorAt[address] : nullptr;
        Ptr<OmniReduceWorker> w = workerAt.count(address) ? workerAt[address] : nullptr;
        ep->SetProtocolHandler(OmniReduceHeader::PROTOCOL,
                               FabricEndpoint::RawCallback(
                                   [a, w](Ptr<Packet> p, const FabricHeader&)
                                   {
                                       OmniReduceHeader h;
                                       p->RemoveHeader(h);
                                       if (h.m_kind == OmniReduceHeader::CONTRIBUTION && a)
                                       {
                                           a->Contribution(h, p);
                                       }
                                       else if (h.m_kind == OmniReduceHeader::RESULT && w)
                                       {
                                           w->Result(h, p);
                                       }
                                   }));
        progress->endpoints.push_back(ep);
    }

    StartJobBarrier(progress, n, done);
    for (uint32_t i = 0; i < n; ++i)
    {
        progress->workers[i]->Start(OmniReduceWorker::DoneCallback(
            [progress, i](const OmniReduceWorkerRecord& r)
            {
                WorkerDone(progress,
                           i,
                           r,
                           [](Progress& p)
                           {
                               for (const auto& a : p.aggregators)
                               {
                                   p.record.aggregatorBytes.push_back(a->GetResultBytes());
                                   p.record.resultsResent += a->GetResultsResent();
                               }
                               if (p.program) // (Release then takes it off the switch)
                               {
                                   p.record.switchPeakSlots[p.switchIndex]
                                       = p.program->GetAggregator()->GetPeakSlotsOccupied();
                               }
                           });
            }));
    }
}

} // namespace ns3
