/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The baselines HeterPS compares with: PaddlePaddle's manual placement,
// greedy, a genetic algorithm and random search (definitions in
// doc/heterps-cost-model.md, "Baselines"). The single-type plans (all-<type>)
// are RunScheduler's.

#include "plan-scheduler.h"

#include "ns3/config-parse.h"
#include "ns3/interrupt.h"
#include "ns3/log.h"

#include <random>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BaselineSchedulers");

namespace
{

/// Genetic algorithm defaults
constexpr uint32_t GENETIC_POPULATION = 64;
constexpr uint32_t GENETIC_GENERATIONS = 100;

/// \return a draw in 0 .. n-1; modulo rather than std::uniform_int_distribution,
/// whose algorithm the standard leaves to the library, so that a seed gives
/// the same plans with any standard library
uint32_t
Below(std::mt19937_64& rng, uint32_t n)
{
    return static_cast<uint32_t>(rng() % n);
}

/// \return a draw in [0, 1) from the top 53 bits
double
Unit(std::mt19937_64& rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

SchedulingPlan
RandomPlan(std::mt19937_64& rng, uint32_t layers, uint32_t types)
{
    SchedulingPlan plan(layers);
    for (auto& t : plan)
    {
        t = Below(rng, types);
    }
    return plan;
}

/// The curve's value of the best evaluation so far: its cost, or minus its
/// throughput while no plan meets the limit (<= 0, so that it falls as the
/// search improves until the first feasible plan, then holds costs).
double
CurveValue(const PlanEvaluation& e)
{
    return e.feasible ? e.cost : -e.throughput;
}

ScheduleResult
RunEmbeddingOnCpu(const CostModel& model, const SchedulerOptions& options)
{
    const auto& types = model.GetProblem().catalogue.types;
    uint32_t cpu = model.Types();
    for (uint32_t t = 0; t < types.size(); ++t)
    {
        if (types[t].kind == ResourceKind::CPU
            && (cpu == model.Types() || types[t].pricePerHour < types[cpu].pricePerHour))
        {
            cpu = t;
        }
    }
    ScheduleResult result;
    bool any = false;
    for (uint32_t gpu = 0; gpu < types.size(); ++gpu)
    {
        if (types[gpu].kind != ResourceKind::GPU || cpu == model.Types())
        {
            continue;
        }
        SchedulingPlan plan(model.Layers(), gpu);
        for (uint32_t l = 0; l < plan.size(); ++l)
        {
            if (model.GetProblem().profile.layers[l].kind == "embedding")
            {
                plan[l] = cpu;
            }
        }
        PlanEvaluation e = model.Evaluate(plan);
        if (!any || IsBetter(e, result.best))
        {
            result.best = std::move(e);
            any = true;
        }
    }
    if (!any)
    {
        throw std::invalid_argument(
            "scheduler: embedding-on-cpu needs a cpu and a gpu type in the catalogue (types: "
            + dlnet::JoinChoices(model.GetProblem().catalogue.Names()) + ")");
    }
    return result;
}

ScheduleResult
RunGreedy(const CostModel& model, const SchedulerOptions& options)
{
    const auto& problem = model.GetProblem();
    SchedulingPlan plan(model.Layers(), 0);
    for (uint32_t l = 0; l < plan.size(); ++l)
    {
        const auto& seconds = problem.profile.layers[l].seconds;
        for (uint32_t t = 1; t < model.Types(); ++t)
        {
            if (seconds[t] * problem.catalogue.types[t].pricePerHour
                < seconds[plan[l]] * problem.catalogue.types[plan[l]].pricePerHour)
            {
                plan[l] = t;
            }
        }
    }
    ScheduleResult result;
    result.best = model.Evaluate(plan);
    return result;
}

struct Individual
{
    SchedulingPlan plan;
    PlanEvaluation evaluation;
};

ScheduleResult
RunGenetic(const CostModel& model, const SchedulerOptions& options)
{
    const uint32_t size = options.population ? options.population : GENETIC_POPULATION;
    const uint32_t generations = options.generations ? options.generations : GENETIC_GENERATIONS;
    const uint32_t layers = model.Layers();
    const uint32_t types = model.Types();
    std::mt19937_64 rng(options.seed);
    std::vector<Individual> population(size);
    uint32_t elite = 0;
    for (uint32_t i = 0; i < size; ++i)
    {
        population[i].plan = RandomPlan(rng, layers, types);
        population[i].evaluation = model.Evaluate(population[i].plan);
        if (IsBetter(population[i].evaluation, population[elite].evaluation))
        {
            elite = i;
        }
    }
    ScheduleResult result;
    result.curve.push_back(CurveValue(population[elite].evaluation));
    // Binary tournament: the better of two members drawn with replacement.
    auto tournament = [&]() -> const Individual&
    {
        const Individual& a = population[Below(rng, size)];
        const Individual& b = population[Below(rng, size)];
        return IsBetter(b.evaluation, a.evaluation) ? b : a;
    };
    for (uint32_t g = 0; g < generations; ++g)
    {
        dlnet::PollInterrupt(); // (Ctrl-C: a generation at a time)
        std::vector<Individual> next;
        next.reserve(size);
        next.push_back(population[elite]);
        uint32_t nextElite = 0;
        while (next.size() < size)
        {
            const Individual& a = tournament();
            const Individual& b = tournament();
            Individual child;
            child.plan.resize(layers);
            for (uint32_t l = 0; l < layers; ++l)
            {
                child.plan[l] = (rng() & 1) ? a.plan[l] : b.plan[l];
                if (types > 1 && Unit(rng) < 1.0 / layers)
                {
                    // Another type, uniformly: a mutation that keeps the gene is none.
                    child.plan[l] = (child.plan[l] + 1 + Below(rng, types - 1)) % types;
                }
            }
            child.evaluation = model.Evaluate(child.plan);
            next.push_back(std::move(child));
            if (IsBetter(next.back().evaluation, next[nextElite].evaluation))
            {
                nextElite = static_cast<uint32_t>(next.size() - 1);
            }
        }
        population = std::move(next);
        elite = nextElite;
        result.curve.push_back(CurveValue(population[elite].evaluation));
    }
    result.best = population[elite].evaluation;
    return result;
}

ScheduleResult
RunRandom(const CostModel& model, const SchedulerOptions& options)
{
    const uint32_t draws
        = options.evaluations ? options.evaluations : RL_DEFAULT_EPISODES * RL_DEFAULT_SAMPLES;
    std::mt19937_64 rng(options.seed);
    ScheduleResult result;
    for (uint32_t i = 0; i < draws; ++i)
    {
        PlanEvaluation e = model.Evaluate(RandomPlan(rng, model.Layers(), model.Types()));
        if (i == 0 || IsBetter(e, result.best))
        {
            result.best = std::move(e);
        }
    }
    return result;
}

} // namespace

static const bool g_embeddingOnCpuRegistered = SchedulerRegistry::Add(
    {"embedding-on-cpu",
     3,
     "PaddlePaddle's manual default: embedding layers on the cheapest CPU type, the rest on "
     "a GPU type (the better GPU type)",
     RunEmbeddingOnCpu});

static const bool g_greedyRegistered = SchedulerRegistry::Add(
    {"greedy", 4, "each layer on the type with the least seconds x price", RunGreedy});

static const bool g_geneticRegistered = SchedulerRegistry::Add(
    {"genetic",
     5,
     "a genetic algorithm: binary tournaments, uniform crossover, mutation 1/L, the best kept",
     RunGenetic});

static const bool g_randomRegistered = SchedulerRegistry::Add(
    {"random", 6, "uniformly random plans, as many as rl evaluates by default", RunRandom});

} // namespace ns3
