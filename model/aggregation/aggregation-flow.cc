/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "aggregation-flow.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetAggregationFlow");

namespace
{

/// Stages in progress.
struct StageRun
{
    Ptr<FlowNetwork> network;
    std::vector<FlowStage> stages;
    std::size_t next{0};
    Time start;
    std::function<void()> done;
};

void
NextStage(std::shared_ptr<StageRun> run)
{
    if (run->next == run->stages.size())
    {
        std::function<void()> done = std::move(run->done);
        run->network = nullptr;
        if (done)
        {
            done();
        }
        return;
    }
    const FlowStage& stage = run->stages[run->next];
    Time at = run->start + Seconds(stage.notBefore);
    if (at > Simulator::Now())
    {
        Simulator::Schedule(at - Simulator::Now(), &NextStage, run);
        return;
    }
    auto over = [run]()
    {
        double after = run->stages[run->next].after;
        ++run->next;
        if (after > 0)
        {
            Simulator::Schedule(Seconds(after), &NextStage, run);
        }
        else
        {
            NextStage(run);
        }
    };
    if (stage.spec.bytes <= 0)
    {
        over();
        return;
    }
    run->network->StartFlow(stage.spec, Callback<void>(over));
}

} // namespace

void
RunFlowStages(Ptr<FlowNetwork> network, std::vector<FlowStage> stages, std::function<void()> done)
{
    auto run = std::make_shared<StageRun>();
    run->network = network;
    run->stages = std::move(stages);
    run->start = Simulator::Now();
    run->done = std::move(done);
    NextStage(run);
}

void
AddUses(FlowUses& uses, const FlowUses& route, double weight)
{
    if (!(weight > 0))
    {
        return; // no load
    }
    for (const auto& [link, share] : route)
    {
        bool merged = false;
        for (auto& use : uses)
        {
            if (use.first == link)
            {
                use.second += share * weight;
                merged = true;
                break;
            }
        }
        if (!merged)
        {
            uses.emplace_back(link, share * weight);
        }
    }
}

double
FlowLeg::Time(double bytes) const
{
    return memory ? 0 : bytes / first + Latency(bytes);
}

double
FlowLeg::Latency(double bytes) const
{
    return memory ? 0 : delay + perByte * bytes;
}

FlowLeg
LegOver(const FlowNetwork& network, const std::vector<uint32_t>& links)
{
    FlowLeg leg;
    leg.memory = links.empty();
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        leg.uses.emplace_back(links[i], 1.0);
        leg.delay += network.GetDelay(links[i]);
        if (i == 0)
        {
            leg.first = network.GetCapacity(links[i]);
        }
        else
        {
            leg.perByte += 1 / network.GetCapacity(links[i]);
        }
    }
    return leg;
}

FlowLeg
RouteLeg(FlowNetwork& network, uint32_t src, uint32_t dst)
{
    FlowLeg leg;
    if (src == dst)
    {
        leg.memory = true; // an aggregator on the worker's own host
        return leg;
    }
    // the route's latency is linear in the packet's size: its delays, then
    // one store and forward per hop after the first
    FlowRoute none = network.Resolve(src, dst, 0, 0);
    FlowRoute one = network.Resolve(src, dst, 0, 1);
    leg.uses = none.uses;
    leg.delay = none.latency;
    leg.perByte = one.latency - none.latency;
    leg.first = network.GetCapacity(none.uses.at(0).first);
    return leg;
}

} // namespace ns3
