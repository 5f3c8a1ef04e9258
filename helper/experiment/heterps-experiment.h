/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_HETERPS_EXPERIMENT_H
#define DLNET_HETERPS_EXPERIMENT_H

#include "experiment-options.h"
#include "plan-simulation.h"
#include "simulation-scope.h"

#include "ns3/layer-profile.h"
#include "ns3/plan-cost-model.h"
#include "ns3/plan-scheduler.h"
#include "ns3/resource-catalogue.h"
#include "ns3/topology-helper.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// Samples the cost is priced over by default: one epoch of Criteo's 1 TB click logs
/// (24 days of about 182 million samples each, 4.37e9 in all).
constexpr double HETERPS_DEFAULT_SAMPLES = 4.37e9;
/// Steps of the equal-cost binary search over the limit (the headline's throughput ratio).
constexpr uint32_t HETERPS_EQUAL_COST_STEPS = 24;
/// The largest count `sweep` takes (a larger whole number is read as one limit).
constexpr uint32_t HETERPS_MAX_SWEEP_POINTS = 64;

/**
 * \ingroup dlnet
 * \brief A HeterPS-style scheduling experiment: a model (built in, or a
 * profile file) on a resource catalogue, a throughput limit, the schedulers
 * to compare, a sweep of limits for the cost-against-limit curve and the
 * headline, and optionally the best plan run on a simulated cluster.
 */
struct HeterpsConfig
{
    std::string model{"wide-deep"}; //!< a SchedulingModelNames() name (unless profile)
    std::string profile{""};        //!< a profile file (CSV or JSON) instead of model
    std::string catalogue{""};      //!< a preset or a catalogue JSON file; empty: the first preset
    uint64_t batch{4096};           //!< built-in models: samples per batch
    double limit{3e6};              //!< samples/s the plan must reach, > 0
    double samples{HETERPS_DEFAULT_SAMPLES}; //!< samples trained (priced), > 0
    std::string sync{"ps"};                  //!< allreduce or ps (HeterPS: parameter servers)
    std::string psType{""};        //!< ps: the servers' type; empty: the catalogue's first CPU type
    std::string schedulers{"all"}; //!< comma list of SchedulerNames, or all (no exhaustive)
    uint32_t seed{1};
    uint32_t episodes{0};               //!< rl (0: its default)
    uint32_t samplesPerEpisode{0};      //!< rl (0: its default)
    uint32_t evaluations{0};            //!< random (0: as many as rl)
    uint32_t population{0};             //!< genetic (0: its default)
    uint32_t generations{0};            //!< genetic (0: its default)
    uint64_t exhaustiveLimit{10000000}; //!< exhaustive: the most plans it enumerates
    std::string sweep{"6"};  //!< a count of limits (<= 64) or a comma list of limits, samples/s
    bool simulate{false};    //!< run the best plan on a simulated cluster
    uint32_t batches{8};     //!< simulate: batches
    uint32_t warmup{2};      //!< simulate: batches left out of the steady state
    TopologyConfig topology; //!< simulate: fabric settings (its kind is replaced)
    uint64_t run{1};
    Ns3Attributes ns3Attributes;
    std::set<std::string> given;

    /// Throw std::invalid_argument naming the first bad option (files: path, line, field).
    void Validate() const;
    /// \return the catalogue (preset or file)
    ResourceCatalogue MakeCatalogue() const;
    /// \return the profile of the model or the file on the catalogue
    LayerProfile MakeProfile(const ResourceCatalogue& catalogue) const;
    /// \return the problem at `limit` (profile and catalogue built)
    SchedulingProblem MakeProblem() const;
    /// \return the schedulers to run, in order
    std::vector<std::string> SchedulerList(const ResourceCatalogue& catalogue) const;
    /// \return the scheduler settings
    SchedulerOptions MakeSchedulerOptions() const;
    /// \return the simulation settings
    PlanSimulationConfig MakeSimulationConfig() const;
    /// \return false for an option that does not apply (result.json lists those that do)
    bool Applies(const std::string& name) const;
};

/// One scheduler's outcome at the config's limit.
struct HeterpsScheduleRow
{
    std::string scheduler;
    bool feasible{false};
    double throughput{0};  //!< samples/s
    double hourlyPrice{0}; //!< USD/h
    double cost{0};        //!< USD (feasible)
    double trainingHours{0};
    std::string stages; //!< "emb:cpux12 | fc1..fc4:a100x2"
    uint64_t evaluations{0};
    double wallSeconds{0}; //!< not deterministic: terminal and result.json only
    std::string reason;    //!< why infeasible
};

/// One scheduler at one limit of the sweep.
struct HeterpsSweepRow
{
    double limit{0};
    std::string scheduler;
    bool feasible{false};
    double cost{0};
    double throughput{0};
    double hourlyPrice{0};
};

/// The best plan against one baseline at one limit (the HeterPS-style claims).
struct HeterpsHeadlineRow
{
    double limit{0};
    std::string baseline;
    double baselineCost{0};       //!< USD
    double bestCost{0};           //!< USD, the exact optimum
    double costRatio{0};          //!< baseline / best
    double lowerCostPercent{0};   //!< (baseline / best - 1) x 100
    double baselineThroughput{0}; //!< samples/s, its provisioned plan's
    double equalCostLimit{0};     //!< L': a limit the optimum meets within baselineCost (bisection)
    double equalCostThroughput{0}; //!< the optimum's throughput at L'
    double throughputRatio{0};     //!< equalCostThroughput / baselineThroughput
    std::string driver;            //!< the baseline's bottleneck stage and its largest component
};

/// Per baseline: the largest ratios over the limits.
struct HeterpsHeadlineSummary
{
    std::string baseline;
    uint32_t limits{0}; //!< limits at which it was feasible
    double maxCostRatio{0};
    double maxLowerCostPercent{0};
    double costLimit{0}; //!< the limit of the largest cost ratio
    double maxThroughputRatio{0};
    double throughputLimit{0}; //!< the limit of the largest throughput ratio
    std::string driver;        //!< at the largest cost ratio
};

/// One layer of the chosen plan.
struct HeterpsPlanRow
{
    uint32_t layer{0};
    std::string name;
    std::string kind;
    std::string type;
    uint32_t stage{0};
    uint32_t instances{0};
};

/// The headline over some limits.
struct HeterpsHeadline
{
    std::vector<HeterpsHeadlineRow> rows;
    std::vector<HeterpsHeadlineSummary> summary;
};

/// What a HeterPS-style experiment found.
struct HeterpsResult
{
    std::string model;     //!< the model or the profile file
    std::string catalogue; //!< its name
    std::vector<std::string> typeNames;
    uint32_t layers{0};
    uint64_t batch{0};
    double reachable{0}; //!< the highest throughput any plan reaches (samples/s)
    std::vector<HeterpsScheduleRow> schedules;
    std::vector<HeterpsSweepRow> sweep;
    HeterpsHeadline headline;
    std::vector<double> rlCurve; //!< mean reward per episode (rl run)
    uint32_t rlConvergedEpisode{0};
    std::string bestScheduler; //!< whose plan is `plan`
    PlanEvaluation best;
    std::vector<HeterpsPlanRow> plan;
    bool simulated{false};
    std::string simulatedScheduler; //!< exact when it ran, else bestScheduler
    PlanSimulationResult simulation;
    double wallSeconds{0}; //!< not deterministic
};

/// \return the options of a HeterPS-style experiment (fabric options included)
const std::vector<ExperimentOption<HeterpsConfig>>& HeterpsOptions();

/**
 * \return whether an option of HeterpsOptions is read by the simulation of the plan alone
 * (batches, warmup, run and the fabric's options): without simulate it is refused, and
 * Python's dlnet.schedule does not list it
 */
bool HeterpsSimulationOption(const std::string& name);

/**
 * \return the plan's stages as text, "emb:cpux12 | fc1..fc4:a100x2" (layer
 * names, a range first..last, type x instances)
 */
std::string StagesText(const CostModel& model, const PlanEvaluation& evaluation);

/**
 * \return what drives a baseline's cost: its bottleneck stage and that
 * stage's largest component (compute, naming the slowest layer and whether
 * it streams from host memory; gradient synchronisation; the transfer to
 * the next stage)
 */
std::string DriverText(const CostModel& model, const PlanEvaluation& evaluation);

/**
 * The HeterPS-style headline at each limit: (a) the exact optimum's cost
 * against each baseline's, (b) a limit L' at which the optimum costs no
 * more than the baseline, found by bisection on the log of the limit
 * (HETERPS_EQUAL_COST_STEPS steps between the baseline's throughput and
 * `reachable`; the optimum's cost is not monotone in the limit, so a higher
 * limit may meet it too), and the optimum's throughput there against the
 * baseline's.
 * Baselines infeasible at a limit give no row there; neither does a limit
 * the optimum cannot meet.
 * \param problem the problem (its limit is replaced by each limit)
 * \param limits the limits, samples/s
 * \param atLimits per limit, every scheduler's result there, exact's included
 * (exact and exhaustive are not baselines)
 * \param reachable the highest throughput found (the search's upper end)
 * \param options the exact scheduler's settings
 */
HeterpsHeadline ComputeHeadline(const SchedulingProblem& problem,
                                const std::vector<double>& limits,
                                const std::vector<std::vector<ScheduleResult>>& atLimits,
                                double reachable,
                                const SchedulerOptions& options);

/// One step of RunHeterps done: a scheduler at a limit, reachable's search, or the simulation.
struct HeterpsStep
{
    std::string what;      //!< a scheduler's name, "reachable" or "simulate"
    double limit{0};       //!< samples/s the step ran at (reachable: 0)
    uint32_t done{0};      //!< steps done, this one included
    uint32_t total{0};     //!< steps of the whole run
    double wallSeconds{0}; //!< this step's wall time
};

/// Called after each step (RL trains at every limit: a default run takes minutes).
using HeterpsProgress = std::function<void(const HeterpsStep& step)>;

/**
 * Validate, schedule, sweep, compute the headline and (simulate) run the best plan.
 * \param config the run
 * \param progress called after each step (optional)
 */
HeterpsResult RunHeterps(const HeterpsConfig& config, const HeterpsProgress& progress = nullptr);

} // namespace ns3

#endif /* DLNET_HETERPS_EXPERIMENT_H */
