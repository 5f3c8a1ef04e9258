/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-scheduler.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <chrono>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PlanScheduler");

void
SchedulerOptions::Validate() const
{
    auto atMost = [](const std::string& field, uint64_t value, uint64_t max)
    {
        if (value > max)
        {
            throw std::invalid_argument(field + ": " + std::to_string(value)
                                        + " must be 0 (the default) to " + std::to_string(max));
        }
    };
    atMost("episodes", episodes, MAX_EPISODES);
    atMost("samples-per-episode", samplesPerEpisode, MAX_SAMPLES_PER_EPISODE);
    atMost("evaluations", evaluations, MAX_EVALUATIONS);
    atMost("population", population, MAX_POPULATION);
    atMost("generations", generations, MAX_GENERATIONS);
    if (exhaustiveLimit < 1)
    {
        throw std::invalid_argument("exhaustive-limit: got 0; expected at least 1");
    }
}

std::vector<std::string>
SchedulerNames(const ResourceCatalogue& catalogue)
{
    std::vector<std::string> names = SchedulerRegistry::Names();
    for (const auto& t : catalogue.types)
    {
        names.push_back("all-" + t.name);
    }
    return names;
}

ScheduleResult
RunScheduler(const std::string& name, const CostModel& model, const SchedulerOptions& options)
{
    options.Validate();
    const ResourceCatalogue& catalogue = model.GetProblem().catalogue;
    const SchedulerKind* kind = SchedulerRegistry::Find(name);
    uint32_t single = model.Types();
    if (!kind)
    {
        for (uint32_t t = 0; t < catalogue.types.size(); ++t)
        {
            if (name == "all-" + catalogue.types[t].name)
            {
                single = t;
            }
        }
        if (single == model.Types())
        {
            throw std::invalid_argument("scheduler: unknown '" + dlnet::PrintableText(name)
                                        + "' (schedulers: "
                                        + dlnet::JoinChoices(SchedulerNames(catalogue)) + ")");
        }
    }
    const uint64_t before = model.GetEvaluations();
    const auto start = std::chrono::steady_clock::now();
    ScheduleResult result;
    if (kind)
    {
        result = kind->run(model, options);
    }
    else
    {
        result.best = model.Evaluate(SchedulingPlan(model.Layers(), single));
    }
    const auto stop = std::chrono::steady_clock::now();
    result.scheduler = name;
    result.evaluations = model.GetEvaluations() - before;
    result.wallSeconds = std::chrono::duration<double>(stop - start).count();
    return result;
}

bool
IsBetter(const PlanEvaluation& a, const PlanEvaluation& b)
{
    if (a.feasible != b.feasible)
    {
        return a.feasible;
    }
    if (a.feasible && a.cost != b.cost)
    {
        return a.cost < b.cost;
    }
    if (a.throughput != b.throughput)
    {
        return a.throughput > b.throughput;
    }
    // Infeasible ties fall back to the plan as feasible ones do, so that the
    // order is total and every scheduler's choice is reproducible.
    return a.plan < b.plan;
}

} // namespace ns3
