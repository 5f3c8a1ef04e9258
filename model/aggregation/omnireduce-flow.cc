/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "omnireduce-flow.h"

#include "aggregation-flow.h"
#include "omnireduce-header.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OmniReduceFlow");

namespace
{

constexpr uint32_t NONE = OmniReduceHeader::NONE;

/// The rounds of a slot that one stage carries.
struct Part
{
    double rounds{0};
    double down{0};                //!< result wire bytes each worker receives
    double contributions{0};       //!< packets the aggregator takes
    std::vector<double> up;        //!< per worker: wire bytes sent
    std::vector<double> upPackets; //!< per worker: packets sent
};

/// A mean round of a part, alone on the network.
struct RoundTime
{
    double roundTrip{0}; //!< s: the first contribution leaves .. the last result arrives
    double cycle{0};     //!< s: one round to the next when they follow each other
    double busiest{0};   //!< s: the round's bytes on its busiest link
};

/// The bytes a mean round of `p` puts on each link, per worker's way.
void
LoadOfRound(std::map<uint32_t, double>& load,
            const std::vector<FlowLeg>& legs,
            const std::vector<double>& bytes)
{
    for (std::size_t w = 0; w < legs.size(); ++w)
    {
        for (const auto& [link, share] : legs[w].uses)
        {
            load[link] += share * bytes[w];
        }
    }
}

/**
 * A round: every sender's packet up its way, the round's packets in a train
 * on the busiest link up (the aggregator's, where they meet), each taking the
 * aggregator's packet time, then the results down, in a train on the busiest
 * link down (the aggregator's).
 *
 * Rounds that follow each other overlap those trains: a worker sends its next
 * packet as soon as its own result is back, while the aggregator still sends
 * the others theirs, so the next round's train up runs beside this round's
 * train down, and the processor takes each packet as it comes. One round to
 * the next is one packet's way around plus the longest of the three trains
 * (less its one packet, counted in the way around). Measured on 8 workers and
 * one slot of 8 aggregator servers (1 MiB, 1024 rounds): 3.14, 3.34 and 10.54
 * us a round at packet level with packet times of 0, 100 ns and 1 us; the
 * trains one after another gave 3.74, 4.54 and 11.75 us.
 */
RoundTime
TimeOfRound(const FlowNetwork& network,
            const std::vector<FlowLeg>& ups,
            const std::vector<FlowLeg>& downs,
            const Part& p,
            double packetTime)
{
    uint32_t n = ups.size();
    double result = p.down / p.rounds;
    std::vector<double> upBytes(n), downBytes(n, result);
    double upTime = 0;
    double downTime = 0;
    double upOne = 0;   // one packet's serialisation on its first link up, the longest
    double downOne = 0; // the same down
    // contributions per round from workers whose way up is memory (a colocated aggregator's
    // own worker): the processor takes them while the others' results and packets travel
    double localContributions = 0;
    for (uint32_t w = 0; w < n; ++w)
    {
        upBytes[w] = p.up[w] / p.rounds;
        if (p.upPackets[w] > 0 && !ups[w].memory)
        {
            double packet = p.up[w] / p.upPackets[w];
            upTime = std::max(upTime, ups[w].Time(packet));
            upOne = std::max(upOne, packet / ups[w].first);
        }
        else if (ups[w].memory)
        {
            localContributions += p.upPackets[w] / p.rounds;
        }
        if (!downs[w].memory)
        {
            downTime = std::max(downTime, downs[w].Time(result));
            downOne = std::max(downOne, result / downs[w].first);
        }
    }
    std::map<uint32_t, double> up, down, both;
    LoadOfRound(up, ups, upBytes);
    LoadOfRound(down, downs, downBytes);
    LoadOfRound(both, ups, upBytes);
    LoadOfRound(both, downs, downBytes);
    auto busiest = [&network](const std::map<uint32_t, double>& load)
    {
        double t = 0;
        for (const auto& [link, bytes] : load)
        {
            t = std::max(t, bytes / network.GetCapacity(link));
        }
        return t;
    };
    const double trainUp = std::max(0.0, busiest(up) - upOne);
    const double trainDown = std::max(0.0, busiest(down) - downOne);
    const double contributions = p.contributions / p.rounds;
    const double processing = packetTime * contributions;
    RoundTime t;
    t.roundTrip = upTime + trainUp + processing + downTime + trainDown;
    // the way around, then the longest train on a link (the last packet's processing between)
    // or the processor's work (less what it takes from memory while the others travel)
    const double around = upTime + downTime;
    t.cycle = around + (contributions > 0 ? packetTime : 0) + std::max(trainUp, trainDown);
    t.cycle = std::max(t.cycle,
                       around + processing - std::min(around, packetTime * localContributions));
    // (the last round's flow also loads the processor, one of its links)
    t.busiest = std::max(busiest(both), processing);
    return t;
}

/// What the job's slots share until the last is over.
struct Job
{
    OmniReduceJobRecord record;
    uint32_t left{0};
    OmniReduceHelper::DoneCallback done;
};

} // namespace

void
OmniReduceFlow::Start(const Cluster& cluster,
                      const Topology& topology,
                      const Communicator& comm,
                      const OmniReduceJob& job,
                      const OmniReduceSettings& settings,
                      const std::vector<std::vector<bool>>& nonZero,
                      const std::vector<std::vector<float>>& inputs,
                      OmniReduceHelper::DoneCallback done)
{
    Ptr<FlowNetwork> network = cluster.flow;
    NS_ASSERT(network);
    uint32_t n = job.workers.size();
    uint32_t a = job.aggregators.size();
    uint32_t f = job.lanes;
    uint64_t stride = job.Stride();
    uint64_t blocks = job.Blocks();
    bool functional = !inputs.empty();
    std::vector<std::vector<bool>> derived;
    if (functional)
    {
        for (const auto& in : inputs)
        {
            derived.push_back(OmniReduceWorker::NonZeroBlocks(job, in, settings.threshold));
        }
    }
    const std::vector<std::vector<bool>>& nz = functional ? derived : nonZero;

    // per aggregator a slot uses (slot j: j % a; by index in job.aggregators): every
    // worker's way there and back, one copy per address (workers x used aggregators, not
    // x all: a small tensor on thousands of colocated aggregators uses few)
    const uint32_t used = std::min<uint32_t>(a, job.UsedSlots());
    std::vector<std::vector<FlowLeg>> upsOf, downsOf; // by distinct address used
    std::vector<uint32_t> legsOf(a, NONE);            // aggregator -> its ways in upsOf, downsOf
    std::vector<int64_t> processor(a, -1);            // the aggregator's processor as a link
    std::vector<uint32_t> distinct(a); // index of its address among the distinct ones
    std::set<uint32_t> addresses(job.aggregators.begin(), job.aggregators.end());
    if (settings.placement == "switch")
    {
        AggregationTree tree = topology.GetAggregationTree(comm.ranks, settings.job);
        const AggregationTree::Node& node = tree.nodes.at(0);
        Ptr<FabricSwitch> sw = cluster.switches[node.switchIndex];
        std::map<uint32_t, uint32_t> portOf;
        for (uint32_t i = 0; i < node.ranks.size(); ++i)
        {
            portOf[node.ranks[i]] = node.rankPorts[i];
        }
        upsOf.emplace_back();
        downsOf.emplace_back();
        legsOf[0] = 0;
        for (uint32_t w = 0; w < n; ++w)
        {
            uint32_t rank = job.workers[w];
            uint32_t up = network->GetLink(cluster.endpoints[rank]->GetDevice());
            uint32_t down = network->GetLink(sw->GetPort(portOf.at(rank)));
            upsOf[0].push_back(LegOver(*network, {{up, 1.0}}));
            downsOf[0].push_back(LegOver(*network, {{down, 1.0}}));
        }
    }
    else
    {
        std::map<uint32_t, uint32_t> first; // address -> its first aggregator index
        std::map<uint32_t, int64_t> cpu;    // address -> its processor link
        for (uint32_t i = 0; i < used; ++i)
        {
            uint32_t address = job.aggregators[i];
            if (first.count(address))
            {
                legsOf[i] = legsOf[first[address]];
                processor[i] = cpu[address];
                continue;
            }
            first[address] = i;
            legsOf[i] = upsOf.size();
            upsOf.emplace_back();
            downsOf.emplace_back();
            for (uint32_t w = 0; w < n; ++w)
            {
                upsOf.back().push_back(RouteLeg(*network, job.workers[w], address));
                downsOf.back().push_back(RouteLeg(*network, address, job.workers[w]));
            }
            if (settings.packetTime.IsStrictlyPositive())
            {
                // one packet at a time: a processor of 1 / time packets per second
                processor[i] = network->AddLink(1 / settings.packetTime.GetSeconds());
            }
            cpu[address] = processor[i];
        }
    }
    for (uint32_t i = 0; i < a; ++i)
    {
        distinct[i] = std::distance(addresses.begin(), addresses.find(job.aggregators[i]));
    }

    auto state = std::make_shared<Job>();
    state->record.start = Simulator::Now();
    state->record.aggregators = job.aggregators;
    state->record.aggregatorBytes.assign(addresses.size(), 0);
    state->record.workers.resize(n);
    for (auto& w : state->record.workers)
    {
        w.start = state->record.start;
    }
    state->done = done;
    std::vector<float> sum;
    if (functional)
    {
        sum.assign(job.elements, 0.0f);
    }

    const double fixed = FabricHeader::SERIALIZED_SIZE + OmniReduceHeader::FIXED_SIZE + 4.0 * f;
    const double packetTime = settings.packetTime.GetSeconds();
    std::vector<std::vector<FlowStage>> slots;
    for (uint32_t j = 0; j < job.UsedSlots(); ++j)
    {
        uint32_t agg = j % a;
        const std::vector<FlowLeg>& ups = upsOf[legsOf[agg]];
        const std::vector<FlowLeg>& downs = downsOf[legsOf[agg]];
        // each lane's first block, then the blocks of the union of the workers' patterns
        std::vector<uint32_t> firstBlock(f);
        std::vector<std::vector<uint32_t>> lane(f);
        std::size_t longest = 0;
        for (uint32_t l = 0; l < f; ++l)
        {
            firstBlock[l] = job.FirstBlock(j, l);
            if (firstBlock[l] == NONE)
            {
                continue;
            }
            for (uint64_t b = firstBlock[l] + stride; b < blocks; b += stride)
            {
                for (uint32_t w = 0; w < n; ++w)
                {
                    if (nz[w][b])
                    {
                        lane[l].push_back(uint32_t(b));
                        break;
                    }
                }
            }
            longest = std::max(longest, lane[l].size());
        }
        uint32_t rounds = 1 + longest;
        Part parts[3]; // round 0 (every worker sends); the rounds after it; the last
        for (auto& p : parts)
        {
            p.up.assign(n, 0);
            p.upPackets.assign(n, 0);
        }
        std::vector<uint32_t> current(f);
        for (uint32_t r = 0; r < rounds; ++r)
        {
            Part& p = parts[r + 1 == rounds ? 2 : (r == 0 ? 0 : 1)];
            double values = 0;
            for (uint32_t l = 0; l < f; ++l)
            {
                current[l]
                    = r == 0 ? firstBlock[l] : (r - 1 < lane[l].size() ? lane[l][r - 1] : NONE);
                if (current[l] != NONE)
                {
                    values += 4.0 * job.BlockSize(current[l]);
                }
            }
            p.rounds += 1;
            p.down += fixed + values;
            for (uint32_t w = 0; w < n; ++w)
            {
                OmniReduceWorkerRecord& rec = state->record.workers[w];
                rec.bytesDown += uint64_t(values);
                double sent = 0;
                bool any = false;
                for (uint32_t l = 0; l < f; ++l)
                {
                    uint32_t b = current[l];
                    if (b == NONE || (r > 0 && !nz[w][b]))
                    {
                        continue; // round 0 sends every lane's first block, zero or not
                    }
                    any = true;
                    sent += 4.0 * job.BlockSize(b);
                    if (functional)
                    {
                        uint64_t e0 = uint64_t(b) * job.blockElements;
                        for (uint64_t e = e0; e < e0 + job.BlockSize(b); ++e)
                        {
                            sum[e] += inputs[w][e];
                        }
                    }
                }
                if (!any)
                {
                    continue; // a worker without the requested blocks stays silent
                }
                p.up[w] += fixed + sent;
                p.upPackets[w] += 1;
                p.contributions += 1;
                ++rec.packetsSent;
                rec.bytesUp += uint64_t(sent);
            }
            state->record.aggregatorBytes[distinct[agg]] += uint64_t(values) * n;
        }

        // every round but the last, capped at one round per cycle (round 0,
        // where every worker sends, apart); the last one, then the rest of its
        // round trip
        std::vector<FlowStage> stages(3);
        for (uint32_t s = 0; s < 3; ++s)
        {
            const Part& p = parts[s];
            FlowStage& stage = stages[s];
            stage.spec.priority = job.tc;
            if (p.rounds == 0)
            {
                continue; // a slot of one round
            }
            stage.spec.bytes = p.down;
            for (uint32_t w = 0; w < n; ++w)
            {
                AddUses(stage.spec.uses, ups[w].uses, p.up[w] / p.down);
                AddUses(stage.spec.uses, downs[w].uses, 1.0);
            }
            RoundTime t = TimeOfRound(*network, ups, downs, p, packetTime);
            if (processor[agg] >= 0)
            {
                stage.spec.uses.emplace_back(uint32_t(processor[agg]), p.contributions / p.down);
            }
            if (s < 2)
            {
                stage.spec.cap = t.cycle > 0 ? p.down / p.rounds / t.cycle : MaxMinSolver::NO_CAP;
            }
            else
            {
                // the flow's own time is the round's busiest link; the rest follows it
                stage.after = std::max(0.0, t.roundTrip - t.busiest);
            }
        }
        slots.push_back(std::move(stages));
    }
    for (auto& w : state->record.workers)
    {
        w.output = sum;
    }
    NS_LOG_INFO("omnireduce at flow level: " << n << " workers, " << a << " aggregators, "
                                             << slots.size() << " slots");
    state->left = slots.size();
    for (auto& stages : slots)
    {
        RunFlowStages(network,
                      std::move(stages),
                      [state]()
                      {
                          if (--state->left > 0)
                          {
                              return;
                          }
                          state->record.end = Simulator::Now();
                          for (auto& w : state->record.workers)
                          {
                              w.end = state->record.end;
                          }
                          if (!state->done.IsNull())
                          {
                              state->done(state->record);
                          }
                      });
    }
}

} // namespace ns3
