/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "heterps-experiment.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/topology.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HeterpsExperiment");

namespace
{

/// The largest limit or sample count an option takes (a finite bound the cost stays finite under).
constexpr double MAX_RATE = 1e15;

/// Options that only the simulation reads.
const std::vector<std::string>&
SimulationOptions()
{
    static const std::vector<std::string> names = {"batches", "warmup", "run"};
    return names;
}

bool
Contains(const std::vector<std::string>& names, const std::string& name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

/// The topology kind a simulated plan runs on (its options are the ones offered).
std::string
SimulationKind()
{
    std::vector<std::string> kinds = TopologyRegistry::Names();
    return Contains(kinds, "hetero-leaf-spine") ? "hetero-leaf-spine" : "leaf-spine";
}

/// Whether an option is one of the lifted fabric options.
bool
IsTopologyOption(const std::string& name)
{
    const auto& t = TopologyOptions();
    return std::any_of(t.begin(),
                       t.end(),
                       [&](const ExperimentOption<TopologyConfig>& o)
                       {
                           return o.name == name;
                       });
}

/// \return a real number > 0 and at most MAX_RATE, or NaN (ParseReal's
/// bounds are inclusive, and its message would quote a range that has 0)
double
PositiveOrNan(const std::string& name, const std::string& text)
{
    try
    {
        const double x = dlnet::ParseReal(name, text, 0, MAX_RATE);
        return x > 0 ? x : std::numeric_limits<double>::quiet_NaN();
    }
    catch (const std::invalid_argument&)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
}

/// A real number > 0, or >= least when that is above 0 (0 is refused here by name).
ExperimentOption<HeterpsConfig>
PositiveOption(const std::string& name,
               const std::string& help,
               double HeterpsConfig::*member,
               double least = 0)
{
    return {name,
            help,
            [name, member, least](HeterpsConfig& c, const std::string& v)
            {
                const double x = PositiveOrNan(name, v);
                if (!(x > 0) || x < least)
                {
                    throw std::invalid_argument(
                        name + ": got '" + dlnet::PrintableText(v) + "'; expected a number "
                        + (least > 0 ? "from " + dlnet::ShortestText(least) + " to 1e15"
                                     : "above 0 and at most 1e15"));
                }
                c.*member = x;
            },
            [member](const HeterpsConfig& c)
            {
                return dlnet::ShortestText(c.*member);
            },
            "float"};
}

/// The limits of `sweep`: its list, or `count` spread geometrically under `reachable`.
std::vector<double>
SweepLimits(const std::string& sweep, double reachable)
{
    std::vector<double> limits;
    std::vector<std::string> items = dlnet::ParseList("sweep", sweep);
    // A count is digits alone (leading zeros too: 007 is 7 points); a limit
    // of 64 samples/s or less alone is written otherwise, e.g. 64.0.
    const std::string digits = items.size() == 1 ? items[0] : "";
    const std::string value = digits.substr(std::min(digits.find_first_not_of('0'), digits.size()));
    bool isCount = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos
                   && value.size() <= 2 && std::stoul("0" + value) <= HETERPS_MAX_SWEEP_POINTS;
    if (isCount)
    {
        uint32_t n = std::stoul("0" + value);
        // from 1% to 99% of the highest throughput found: 99% so that the top point is
        // reachable by the optimum, not only on the edge of floating-point rounding
        for (uint32_t i = 0; i < n; ++i)
        {
            double f = n == 1 ? 0.1 : 0.99 * std::pow(0.01, double(n - 1 - i) / double(n - 1));
            limits.push_back(f * reachable);
        }
        return limits;
    }
    for (const auto& item : items)
    {
        const double x = PositiveOrNan("sweep", item);
        if (!(x > 0))
        {
            throw std::invalid_argument("sweep: limit '" + dlnet::PrintableText(item)
                                        + "' is not a number above 0 and at most 1e15; expected "
                                          "a count up to "
                                        + std::to_string(HETERPS_MAX_SWEEP_POINTS)
                                        + " or a comma list of limits in samples/s above 0");
        }
        limits.push_back(x);
    }
    std::sort(limits.begin(), limits.end());
    const auto twice = std::adjacent_find(limits.begin(), limits.end());
    if (twice != limits.end())
    {
        throw std::invalid_argument("sweep: the limit " + dlnet::ShortestText(*twice)
                                    + " is listed twice (as numbers); expected distinct limits");
    }
    return limits;
}

/// Checks `sweep` without a problem (a count, or limits above 0).
void
CheckSweep(const std::string& sweep)
{
    SweepLimits(sweep, 1);
}

/// \return a copy of the problem with another limit
SchedulingProblem
AtLimit(const SchedulingProblem& problem, double limit)
{
    SchedulingProblem p = problem;
    p.throughputLimit = limit;
    return p;
}

/// The exact optimum's plan at a limit.
PlanEvaluation
Optimum(const SchedulingProblem& problem, double limit, const SchedulerOptions& options)
{
    CostModel model(AtLimit(problem, limit));
    return RunScheduler("exact", model, options).best;
}

HeterpsScheduleRow
ScheduleRowOf(const CostModel& model, const ScheduleResult& r)
{
    HeterpsScheduleRow row;
    row.scheduler = r.scheduler;
    row.feasible = r.best.feasible;
    row.throughput = r.best.throughput;
    row.hourlyPrice = r.best.hourlyPrice;
    row.cost = r.best.feasible ? r.best.cost : 0;
    row.trainingHours = r.best.trainingHours;
    row.stages = StagesText(model, r.best);
    row.evaluations = r.evaluations;
    row.wallSeconds = r.wallSeconds;
    row.reason = r.best.feasible ? "" : r.best.reason;
    return row;
}

/// Throw when the plan simulate would run misses the limit.
void
RefuseUnmetLimit(const HeterpsConfig& c, const ScheduleResult& chosen)
{
    if (!chosen.best.feasible)
    {
        throw std::invalid_argument("limit: " + dlnet::ShortestText(c.limit)
                                    + " samples/s is beyond what " + chosen.scheduler + " reaches ("
                                    + chosen.best.reason
                                    + "); simulate runs a plan that meets the limit: lower it");
    }
}

} // namespace

bool
HeterpsConfig::Applies(const std::string& name) const
{
    if (name == "batch" || name == "model")
    {
        return profile.empty();
    }
    if (name == "profile")
    {
        return !profile.empty();
    }
    if (name == "ps-type")
    {
        return sync == "ps";
    }
    if (Contains(SimulationOptions(), name))
    {
        return simulate;
    }
    if (IsTopologyOption(name))
    {
        return simulate && TopologyOptionApplies(SimulationKind(), name);
    }
    return true;
}

ResourceCatalogue
HeterpsConfig::MakeCatalogue() const
{
    std::string name = catalogue.empty() ? CataloguePresetNames().at(0) : catalogue;
    ResourceCatalogue c;
    try
    {
        c = ns3::MakeCatalogue(name);
    }
    catch (const std::invalid_argument& e)
    {
        std::string what = e.what();
        // a preset's or the file's own message names its field; say which option it came from
        throw std::invalid_argument(what.rfind("catalogue", 0) == 0 ? what : "catalogue: " + what);
    }
    c.Validate();
    return c;
}

LayerProfile
HeterpsConfig::MakeProfile(const ResourceCatalogue& c) const
{
    if (!profile.empty())
    {
        try
        {
            return ReadProfileFile(profile, c);
        }
        catch (const std::invalid_argument& e)
        {
            std::string what = e.what();
            throw std::invalid_argument(what.rfind("profile", 0) == 0 ? what : "profile: " + what);
        }
    }
    return ProfileModel(MakeSchedulingModel(model), c, batch);
}

SchedulingProblem
HeterpsConfig::MakeProblem() const
{
    SchedulingProblem p;
    p.catalogue = MakeCatalogue();
    p.profile = MakeProfile(p.catalogue);
    p.throughputLimit = limit;
    p.samples = samples;
    p.sync = ParseSyncMode("sync", sync);
    if (p.sync == SyncMode::PARAMETER_SERVER)
    {
        if (!psType.empty())
        {
            p.psType = p.catalogue.IndexOf("ps-type", psType);
        }
        else
        {
            // the servers hold embedding rows in memory: a CPU server when there is one
            p.psType = 0;
            for (uint32_t t = 0; t < p.catalogue.types.size(); ++t)
            {
                if (p.catalogue.types[t].kind == ResourceKind::CPU)
                {
                    p.psType = t;
                    break;
                }
            }
        }
    }
    p.Validate();
    return p;
}

std::vector<std::string>
HeterpsConfig::SchedulerList(const ResourceCatalogue& c) const
{
    std::vector<std::string> known = SchedulerNames(c);
    if (schedulers == "all")
    {
        known.erase(std::remove(known.begin(), known.end(), "exhaustive"), known.end());
        return known;
    }
    std::vector<std::string> allowed = known;
    allowed.push_back("all");
    std::vector<std::string> list = dlnet::ParseList("schedulers", schedulers, allowed);
    if (Contains(list, "all"))
    {
        throw std::invalid_argument("schedulers: 'all' stands alone; got '"
                                    + dlnet::PrintableText(schedulers) + "'");
    }
    return list;
}

SchedulerOptions
HeterpsConfig::MakeSchedulerOptions() const
{
    SchedulerOptions o;
    o.seed = seed;
    o.episodes = episodes;
    o.samplesPerEpisode = samplesPerEpisode;
    o.evaluations = evaluations;
    o.population = population;
    o.generations = generations;
    o.exhaustiveLimit = exhaustiveLimit;
    o.Validate();
    return o;
}

PlanSimulationConfig
HeterpsConfig::MakeSimulationConfig() const
{
    PlanSimulationConfig s;
    s.topology = topology;
    s.topology.kind = SimulationKind();
    s.batches = batches;
    s.warmup = warmup;
    s.seed = seed;
    s.run = run;
    s.ns3Attributes = ns3Attributes;
    return s;
}

void
HeterpsConfig::Validate() const
{
    for (const auto& name : given)
    {
        if (!profile.empty() && (name == "model" || name == "batch"))
        {
            throw std::invalid_argument(name
                                        + ": does not apply with profile (the file gives the "
                                          "layers, their times and its batch)");
        }
        if (sync != "ps" && name == "ps-type")
        {
            throw std::invalid_argument("ps-type: applies only with sync=ps");
        }
        if (!simulate && HeterpsSimulationOption(name))
        {
            throw std::invalid_argument(name + ": applies only with simulate");
        }
        if (simulate && IsTopologyOption(name) && !TopologyOptionApplies(SimulationKind(), name))
        {
            throw std::invalid_argument(name + ": does not shape the simulated cluster (a "
                                        + SimulationKind() + ")");
        }
    }
    ParseSyncMode("sync", sync);
    CheckSweep(sweep);
    MakeSchedulerOptions();
    SchedulingProblem p = MakeProblem();
    const std::vector<std::string> chosen = SchedulerList(p.catalogue);
    // each scheduler's own settings were taken and ignored when it was not chosen
    const HeterpsConfig defaults;
    RefuseInapplicable(
        {{"episodes", episodes, defaults.episodes, "rl"},
         {"samples-per-episode", samplesPerEpisode, defaults.samplesPerEpisode, "rl"},
         {"evaluations", evaluations, defaults.evaluations, "random"},
         {"population", population, defaults.population, "genetic"},
         {"generations", generations, defaults.generations, "genetic"},
         {"exhaustive-limit", exhaustiveLimit, defaults.exhaustiveLimit, "exhaustive"}},
        [&chosen](const std::string& scheduler)
        {
            return Contains(chosen, scheduler);
        },
        [this](const std::string& scheduler)
        {
            return "only with the " + scheduler + " scheduler, and schedulers is '"
                   + dlnet::PrintableText(schedulers) + "'";
        });
    // the deterministic schedulers draw nothing: the seed was taken and ignored with them
    RefuseInapplicable("seed",
                       seed,
                       defaults.seed,
                       simulate || Contains(chosen, "rl") || Contains(chosen, "random")
                           || Contains(chosen, "genetic"),
                       "to the randomised schedulers (rl, random, genetic) and to simulate only, "
                       "and schedulers is '"
                           + dlnet::PrintableText(schedulers) + "' without simulate");
    if (simulate)
    {
        MakeSimulationConfig().Validate();
    }
}

std::string
StagesText(const CostModel& model, const PlanEvaluation& e)
{
    const SchedulingProblem& p = model.GetProblem();
    std::string out;
    for (const auto& s : e.stages)
    {
        std::string layers = p.profile.layers[s.first].name;
        if (s.last != s.first)
        {
            layers += ".." + p.profile.layers[s.last].name;
        }
        out += (out.empty() ? "" : " | ") + layers + ":" + p.catalogue.types[s.type].name + "x"
               + std::to_string(s.instances);
    }
    return out;
}

std::string
DriverText(const CostModel& model, const PlanEvaluation& e)
{
    if (e.stages.empty() || e.bottleneck >= e.stages.size())
    {
        return "";
    }
    const SchedulingProblem& p = model.GetProblem();
    const PlanStage& s = e.stages[e.bottleneck];
    const ResourceType& type = p.catalogue.types[s.type];
    std::string where = "stage " + std::to_string(e.bottleneck) + " (" + type.name + "x"
                        + std::to_string(s.instances) + ")";
    if (s.syncSeconds >= s.computeSeconds && s.syncSeconds >= s.transferSeconds)
    {
        return where + ": gradient synchronisation (" + ToString(p.sync) + ")";
    }
    if (s.transferSeconds >= s.computeSeconds)
    {
        return where + ": activations to the next stage over "
               + dlnet::ShortestText(
                   p.catalogue.Bandwidth(
                       s.type,
                       e.stages[std::min<std::size_t>(e.bottleneck + 1, e.stages.size() - 1)].type)
                   / 1e9)
               + " Gbit/s";
    }
    // compute: the layer that takes the longest on this type, and why
    uint32_t slowest = s.first;
    for (uint32_t l = s.first; l <= s.last; ++l)
    {
        if (p.profile.layers[l].seconds[s.type] > p.profile.layers[slowest].seconds[s.type])
        {
            slowest = l;
        }
    }
    const ProfiledLayer& layer = p.profile.layers[slowest];
    if (type.kind == ResourceKind::GPU && layer.parameterBytes > type.memoryBytes)
    {
        return where + ": " + layer.name + " (" + layer.kind
               + ") from host memory over PCIe (its parameters exceed the device memory)";
    }
    return where + ": compute of " + layer.name + " (" + layer.kind + ") on " + type.name;
}

HeterpsHeadline
ComputeHeadline(const SchedulingProblem& problem,
                const std::vector<double>& limits,
                const std::vector<std::vector<ScheduleResult>>& atLimits,
                double reachable,
                const SchedulerOptions& options)
{
    HeterpsHeadline h;
    for (std::size_t i = 0; i < limits.size() && i < atLimits.size(); ++i)
    {
        const ScheduleResult* exact = nullptr;
        for (const auto& r : atLimits[i])
        {
            exact = r.scheduler == "exact" ? &r : exact;
        }
        if (!exact || !exact->best.feasible)
        {
            continue; // no plan meets this limit: nothing to compare
        }
        CostModel model(AtLimit(problem, limits[i]));
        for (const auto& r : atLimits[i])
        {
            if (r.scheduler == "exact" || r.scheduler == "exhaustive" || !r.best.feasible)
            {
                continue;
            }
            HeterpsHeadlineRow row;
            row.limit = limits[i];
            row.baseline = r.scheduler;
            row.baselineCost = r.best.cost;
            row.bestCost = exact->best.cost;
            row.costRatio = row.baselineCost / row.bestCost;
            row.lowerCostPercent = (row.costRatio - 1) * 100;
            row.baselineThroughput = r.best.throughput;
            // the optimum at the baseline's own throughput costs at most the baseline (its
            // plan is a candidate there, provisioned alike); search upwards from it
            double lo = std::min(r.best.throughput, reachable);
            double hi = reachable;
            PlanEvaluation atLo = Optimum(problem, lo, options);
            PlanEvaluation atHi = Optimum(problem, hi, options);
            if (atHi.feasible && atHi.cost <= row.baselineCost)
            {
                lo = hi;
                atLo = atHi;
            }
            else
            {
                for (uint32_t step = 0; step < HETERPS_EQUAL_COST_STEPS; ++step)
                {
                    double mid = std::sqrt(lo * hi); // limits span decades: bisect the log
                    PlanEvaluation e = Optimum(problem, mid, options);
                    if (e.feasible && e.cost <= row.baselineCost)
                    {
                        lo = mid;
                        atLo = e;
                    }
                    else
                    {
                        hi = mid;
                    }
                }
            }
            row.equalCostLimit = lo;
            row.equalCostThroughput = atLo.feasible ? atLo.throughput : 0;
            row.throughputRatio = row.equalCostThroughput / row.baselineThroughput;
            row.driver = DriverText(model, r.best);
            h.rows.push_back(row);
        }
    }
    for (const auto& row : h.rows)
    {
        auto it = std::find_if(h.summary.begin(),
                               h.summary.end(),
                               [&](const HeterpsHeadlineSummary& s)
                               {
                                   return s.baseline == row.baseline;
                               });
        if (it == h.summary.end())
        {
            HeterpsHeadlineSummary s;
            s.baseline = row.baseline;
            h.summary.push_back(s);
            it = h.summary.end() - 1;
        }
        ++it->limits;
        if (row.costRatio > it->maxCostRatio)
        {
            it->maxCostRatio = row.costRatio;
            it->maxLowerCostPercent = row.lowerCostPercent;
            it->costLimit = row.limit;
            it->driver = row.driver;
        }
        if (row.throughputRatio > it->maxThroughputRatio)
        {
            it->maxThroughputRatio = row.throughputRatio;
            it->throughputLimit = row.limit;
        }
    }
    return h;
}

HeterpsResult
RunHeterps(const HeterpsConfig& c, const HeterpsProgress& progress)
{
    auto wallStart = std::chrono::steady_clock::now();
    c.Validate();
    HeterpsResult result;
    SchedulingProblem problem = c.MakeProblem();
    SchedulerOptions options = c.MakeSchedulerOptions();
    std::vector<std::string> names = c.SchedulerList(problem.catalogue);
    result.model = c.profile.empty() ? c.model : c.profile;
    result.catalogue = problem.catalogue.name;
    result.typeNames = problem.catalogue.Names();
    result.layers = problem.profile.Size();
    result.batch = problem.profile.batch;

    // the steps: every scheduler at the limit, reachable, every scheduler (and exact, the
    // headline's reference) at each sweep limit, the simulation
    const uint32_t sweepPoints = SweepLimits(c.sweep, 1).size();
    HeterpsStep step;
    step.total
        = names.size() + 1 + sweepPoints * (names.size() + !Contains(names, "exact")) + c.simulate;
    auto stepStart = std::chrono::steady_clock::now();
    auto stepDone = [&](const std::string& what, double limit)
    {
        auto now = std::chrono::steady_clock::now();
        step.what = what;
        step.limit = limit;
        step.done++;
        step.wallSeconds = std::chrono::duration<double>(now - stepStart).count();
        stepStart = now;
        NS_LOG_INFO(what << " at " << limit << " samples/s: " << step.wallSeconds << " s");
        if (progress)
        {
            progress(step);
        }
    };

    CostModel model(problem);
    // simulate runs exact's plan when exact is listed: a limit it misses is refused before
    // the other schedulers run (after them it came only when RL had trained, 39 s for dlrm)
    std::optional<ScheduleResult> exactFirst;
    if (c.simulate && Contains(names, "exact"))
    {
        exactFirst = RunScheduler("exact", model, options);
        RefuseUnmetLimit(c, *exactFirst);
    }
    std::vector<ScheduleResult> runs;
    for (const auto& name : names)
    {
        runs.push_back(name == "exact" && exactFirst ? *exactFirst
                                                     : RunScheduler(name, model, options));
        stepDone(name, c.limit);
        result.schedules.push_back(ScheduleRowOf(model, runs.back()));
        if (name == "rl")
        {
            result.rlCurve = runs.back().curve;
            result.rlConvergedEpisode = runs.back().convergedEpisode;
        }
    }
    const ScheduleResult* best = nullptr;
    for (const auto& r : runs)
    {
        best = !best || IsBetter(r.best, best->best) ? &r : best;
    }
    result.bestScheduler = best->scheduler;
    result.best = best->best;
    for (uint32_t s = 0; s < result.best.stages.size(); ++s)
    {
        const PlanStage& st = result.best.stages[s];
        for (uint32_t l = st.first; l <= st.last; ++l)
        {
            const ProfiledLayer& layer = problem.profile.layers[l];
            result.plan.push_back({l,
                                   layer.name,
                                   layer.kind,
                                   problem.catalogue.types[st.type].name,
                                   s,
                                   st.instances});
        }
    }

    // The highest throughput found: the optimum asked for more than any plan reaches
    // returns its fastest plan; every plan found, at its best provisioning, may beat it.
    try
    {
        result.reachable = Optimum(problem, MAX_RATE, options).throughput;
    }
    catch (const std::invalid_argument& e)
    {
        // every run searches it, whatever schedulers were asked for: the profile's layers
        // (and the catalogue's types) are what a user can change
        throw std::invalid_argument("profile: " + std::to_string(problem.profile.Size())
                                    + " layers on " + std::to_string(problem.catalogue.types.size())
                                    + " catalogue types are too many for the exact search of "
                                      "the fastest plan, which every run makes whatever its "
                                      "schedulers: "
                                    + e.what());
    }
    for (const auto& r : runs)
    {
        result.reachable = std::max(result.reachable, model.BestThroughput(r.best.plan).throughput);
    }
    for (uint32_t t = 0; t < problem.catalogue.types.size(); ++t)
    {
        SchedulingPlan same(problem.profile.Size(), t);
        result.reachable = std::max(result.reachable, model.BestThroughput(same).throughput);
    }
    stepDone("reachable", 0);

    std::vector<double> limits = SweepLimits(c.sweep, result.reachable);
    std::vector<std::vector<ScheduleResult>> atLimits;
    for (double limit : limits)
    {
        CostModel at(AtLimit(problem, limit));
        std::vector<ScheduleResult> here;
        for (const auto& name : names)
        {
            here.push_back(RunScheduler(name, at, options));
            const PlanEvaluation& e = here.back().best;
            result.sweep.push_back(
                {limit, name, e.feasible, e.feasible ? e.cost : 0, e.throughput, e.hourlyPrice});
            stepDone(name, limit);
        }
        if (!Contains(names, "exact"))
        {
            here.push_back(RunScheduler("exact", at, options)); // the headline's reference
            stepDone("exact", limit);
        }
        atLimits.push_back(std::move(here));
    }
    result.headline = ComputeHeadline(problem, limits, atLimits, result.reachable, options);

    if (c.simulate)
    {
        auto exact = std::find_if(runs.begin(),
                                  runs.end(),
                                  [](const ScheduleResult& r)
                                  {
                                      return r.scheduler == "exact";
                                  });
        const ScheduleResult& chosen = exact != runs.end() ? *exact : *best;
        result.simulatedScheduler = chosen.scheduler;
        RefuseUnmetLimit(c, chosen);
        result.simulation = SimulatePlan(model, chosen.best, c.MakeSimulationConfig());
        result.simulated = true;
        stepDone("simulate", c.limit);
    }
    result.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

bool
HeterpsSimulationOption(const std::string& name)
{
    return Contains(SimulationOptions(), name) || IsTopologyOption(name);
}

const std::vector<ExperimentOption<HeterpsConfig>>&
HeterpsOptions()
{
    using C = HeterpsConfig;
    static const std::vector<ExperimentOption<C>> options = []()
    {
        std::vector<ExperimentOption<C>> o = {
            ChoiceOption<C>("model",
                            "a built-in model (CTR models first): "
                                + dlnet::JoinChoices(SchedulingModelNames()),
                            &C::model,
                            SchedulingModelNames()),
            PathOption<C>(
                "profile", "a layer profile file (CSV or JSON) instead of model", &C::profile),
            TextOption<C>("catalogue",
                          "a catalogue preset (" + dlnet::JoinChoices(CataloguePresetNames())
                              + ") or a catalogue JSON file; empty: the first preset",
                          &C::catalogue),
            UnsignedOption<C>(
                "batch", "built-in models: samples per batch", &C::batch, 1, uint64_t(1) << 24),
            PositiveOption("limit", "throughput limit the plan must meet, samples/s", &C::limit),
            // (at least one: 1e-320 samples priced every plan at 0 USD, and the least cost
            // then chose among plans that all cost nothing)
            PositiveOption("samples",
                           "samples trained, priced (default: one epoch of Criteo 1TB)",
                           &C::samples,
                           1),
            ChoiceOption<C>("sync",
                            "gradient synchronisation inside a stage: allreduce or ps "
                            "(parameter servers for embedding stages)",
                            &C::sync,
                            {"allreduce", "ps"}),
            TextOption<C>("ps-type",
                          "sync=ps: the catalogue type of the parameter servers; empty: its "
                          "first CPU type",
                          &C::psType),
            TextOption<C>("schedulers",
                          "comma list of schedulers (exact, exhaustive, rl, greedy, genetic, "
                          "random, embedding-on-cpu, all-<type>), or all (every one but "
                          "exhaustive)",
                          &C::schedulers),
            SeedOption<C>(&C::seed),
            UnsignedOption<C>("episodes",
                              "rl: training episodes (0: its default)",
                              &C::episodes,
                              0,
                              SchedulerOptions::MAX_EPISODES),
            UnsignedOption<C>("samples-per-episode",
                              "rl: plans sampled per episode (0: its default)",
                              &C::samplesPerEpisode,
                              0,
                              SchedulerOptions::MAX_SAMPLES_PER_EPISODE),
            UnsignedOption<C>("evaluations",
                              "random: plans drawn (0: as many as rl evaluates)",
                              &C::evaluations,
                              0,
                              SchedulerOptions::MAX_EVALUATIONS),
            UnsignedOption<C>("population",
                              "genetic: plans per generation (0: its default)",
                              &C::population,
                              0,
                              SchedulerOptions::MAX_POPULATION),
            UnsignedOption<C>("generations",
                              "genetic: generations (0: its default)",
                              &C::generations,
                              0,
                              SchedulerOptions::MAX_GENERATIONS),
            UnsignedOption<C>("exhaustive-limit",
                              "exhaustive: the most plans (types^layers) it enumerates",
                              &C::exhaustiveLimit,
                              1),
            CheckedTextOption<C>("sweep",
                                 "limits of the cost-against-limit sweep and the headline: a "
                                 "count up to 64 in digits alone (spread from 1% to 99% of the "
                                 "highest throughput found; 0: none) or a comma list of "
                                 "distinct samples/s (one limit of 64 or less: 64.0)",
                                 &C::sweep,
                                 CheckSweep,
                                 false),
            BoolOption<C>("simulate", "run the best plan on a simulated cluster", &C::simulate),
            // the ranges hold whatever the other option is (warmup >= 1, batches >= warmup + 2);
            // PlanSimulationConfig::Validate checks the pair
            UnsignedOption<C>("batches",
                              "simulate: batches simulated (at least warmup + 2)",
                              &C::batches,
                              3,
                              MAX_PLAN_BATCHES),
            UnsignedOption<C>("warmup",
                              "simulate: first batches left out of the steady state",
                              &C::warmup,
                              1,
                              MAX_PLAN_BATCHES - 2),
            UnsignedOption<C>("run", "simulate: random run number", &C::run),
        };
        for (auto&& t : LiftTopologyOptions<C>())
        {
            // the plan gives the hosts and their NIC rates (SimulatePlan sets host-groups
            // from the catalogue; the kind refuses link-rate)
            if (t.name != "topology" && t.name != "nodes" && t.name != "host-groups"
                && TopologyOptionApplies(SimulationKind(), t.name))
            {
                o.push_back(t);
            }
        }
        return RecordGiven(o);
    }();
    return options;
}

} // namespace ns3
