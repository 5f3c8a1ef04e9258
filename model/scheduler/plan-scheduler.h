/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_PLAN_SCHEDULER_H
#define DLNET_PLAN_SCHEDULER_H

#include "plan-cost-model.h"

#include "ns3/named-registry.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// rl: training episodes by default
constexpr uint32_t RL_DEFAULT_EPISODES = 400;
/// rl: plans sampled per episode by default (random search draws as many plans in all)
constexpr uint32_t RL_DEFAULT_SAMPLES = 16;

/// \ingroup dlnet Settings of the schedulers (each reads those it uses).
struct SchedulerOptions
{
    uint64_t seed{1};              //!< rl, genetic, random: same seed, same plan and curve
    uint32_t episodes{0};          //!< rl: training episodes; 0: its default
    uint32_t samplesPerEpisode{0}; //!< rl: plans sampled per episode; 0: its default
    uint32_t evaluations{0}; //!< random: plans drawn; 0: what rl would evaluate with its defaults
    uint32_t population{0};  //!< genetic: plans per generation; 0: its default
    uint32_t generations{0}; //!< genetic: 0: its default
    /// exhaustive: the most plans (|T|^L) it will enumerate
    uint64_t exhaustiveLimit{10000000};

    /// The largest value of each count (0 is each one's default)
    static constexpr uint32_t MAX_EPISODES = 100000;
    static constexpr uint32_t MAX_SAMPLES_PER_EPISODE = 4096;
    static constexpr uint32_t MAX_EVALUATIONS = 10000000;
    static constexpr uint32_t MAX_POPULATION = 10000;
    static constexpr uint32_t MAX_GENERATIONS = 100000;

    /// Throw std::invalid_argument naming a field that is out of its range.
    void Validate() const;
};

/**
 * \ingroup dlnet
 * \brief What a scheduler returns: its best plan (provisioned and priced,
 * or the best throughput it reached when none meets the limit) and how it
 * got there.
 */
struct ScheduleResult
{
    std::string scheduler;        //!< its name
    PlanEvaluation best;          //!< the cheapest feasible plan found (else the fastest)
    uint64_t evaluations{0};      //!< plans evaluated (CostModel::Evaluate calls)
    double wallSeconds{0};        //!< its run time (not deterministic; never in results compared
                                  //!< byte for byte)
    std::vector<double> curve;    //!< rl: mean reward per episode; genetic: best cost per
                                  //!< generation; empty for the others
    uint32_t convergedEpisode{0}; //!< rl: first episode after which its best plan never changed
};

/**
 * \ingroup dlnet
 * \brief A scheduler kind: name, help and how it runs. Fixed-plan
 * baselines over one type are not registered: `all-<type>` names them.
 */
struct SchedulerKind
{
    std::string name;
    uint32_t order{0};
    std::string help;
    std::function<ScheduleResult(const CostModel&, const SchedulerOptions&)> run;
};

/// \ingroup dlnet Scheduler kinds by name (exact, exhaustive, rl, greedy, genetic, random,
/// embedding-on-cpu).
using SchedulerRegistry = dlnet::NamedRegistry<SchedulerKind>;

/// \return the registered names, then all-<type> for each catalogue type
std::vector<std::string> SchedulerNames(const ResourceCatalogue& catalogue);

/**
 * Run a scheduler by name (a registered one or all-<type>); std::invalid_argument
 * naming "scheduler" and SchedulerNames for an unknown one. Sets wallSeconds and evaluations.
 */
ScheduleResult RunScheduler(const std::string& name,
                            const CostModel& model,
                            const SchedulerOptions& options);

/**
 * \return which of two evaluations a scheduler keeps: a feasible one over
 * an infeasible one; of two feasible ones the cheaper (then the faster,
 * then the lexicographically smaller plan); of two infeasible ones the faster
 */
bool IsBetter(const PlanEvaluation& a, const PlanEvaluation& b);

} // namespace ns3

#endif /* DLNET_PLAN_SCHEDULER_H */
