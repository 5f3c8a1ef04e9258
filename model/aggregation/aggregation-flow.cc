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
LegOver(const FlowNetwork& network, const FlowUses& uses)
{
    FlowLeg leg;
    leg.uses = uses;
    leg.memory = uses.empty();
    for (std::size_t i = 0; i < uses.size(); ++i)
    {
        const auto& [link, share] = uses[i];
        double capacity = network.GetCapacity(link);
        leg.delay += share * network.GetDelay(link);
        leg.perByte += share / capacity;
        if (i == 0)
        {
            leg.first = capacity;
            leg.perByte -= 1 / capacity; // its serialisation comes first, before the latency
        }
    }
    return leg;
}

FlowLeg
RouteLeg(FlowNetwork& network, uint32_t src, uint32_t dst)
{
    if (src == dst)
    {
        return FlowLeg{{}, 0, 0, 0, true}; // an aggregator on the worker's own host
    }
    return LegOver(network, network.Resolve(src, dst, 0, 0).uses);
}

} // namespace ns3
