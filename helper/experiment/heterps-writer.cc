/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "heterps-writer.h"

#include "plot-writer.h"
#include "result-writer.h"

#include "ns3/gnuplot.h"
#include "ns3/json-document.h"
#include "ns3/log.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetHeterpsWriter");

namespace
{

/// A field's value, or null (an empty CSV cell) where the row is infeasible.
nlohmann::json
IfFeasible(bool feasible, double value)
{
    return feasible ? nlohmann::json(value) : nlohmann::json();
}

/// Colours of the catalogue types in plan.png and of the schedulers in cost-vs-limit.png.
const std::vector<std::string>&
Colours()
{
    static const std::vector<std::string> colours = {"#377eb8",
                                                     "#e41a1c",
                                                     "#4daf4a",
                                                     "#984ea3",
                                                     "#ff7f00",
                                                     "#a65628",
                                                     "#f781bf",
                                                     "#999999",
                                                     "#000000"};
    return colours;
}

std::vector<HeterpsCurveRow>
CurveRows(const HeterpsResult& r)
{
    std::vector<HeterpsCurveRow> rows;
    for (uint32_t i = 0; i < r.rlCurve.size(); ++i)
    {
        rows.push_back({i, r.rlCurve[i]});
    }
    return rows;
}

/// Cost against the limit, one line per scheduler (feasible points only), log-log.
std::string
PlotCostVsLimit(const HeterpsResult& r, const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& row : r.sweep)
    {
        if (std::find(names.begin(), names.end(), row.scheduler) == names.end())
        {
            names.push_back(row.scheduler);
        }
    }
    Gnuplot plot;
    plot.SetLegend("throughput limit (samples/s)", "training cost (USD)");
    // limits and costs span decades; the schedulers' lines are apart by ratios
    plot.AppendExtra("set logscale xy\nset grid\nset key outside right top");
    bool any = false;
    std::string none; // schedulers without a feasible point: an empty dataset breaks the script
    for (std::size_t k = 0; k < names.size(); ++k)
    {
        Gnuplot2dDataset d(names[k]);
        d.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        d.SetExtra("lw 2 lc rgb '" + Colours()[k % Colours().size()] + "' pt "
                   + std::to_string(1 + k % 12));
        bool points = false;
        for (const auto& row : r.sweep)
        {
            if (row.scheduler == names[k] && row.feasible && row.cost > 0)
            {
                d.Add(row.limit, row.cost);
                points = true;
            }
        }
        if (points)
        {
            plot.AddDataset(d);
            any = true;
        }
        else
        {
            none += (none.empty() ? "" : ", ") + names[k];
        }
    }
    plot.SetTitle("Cost against the throughput limit, " + PlotText(r.model) + " on "
                  + PlotText(r.catalogue)
                  + (none.empty() ? "" : " (no feasible plan: " + PlotText(none) + ")"));
    std::string png = dir + "/cost-vs-limit.png";
    return any && RenderPng(plot, png) ? png : "";
}

/// The RL's mean reward per episode.
std::string
PlotRlCurve(const HeterpsResult& r, const std::string& dir)
{
    if (r.rlCurve.empty())
    {
        return "";
    }
    Gnuplot plot;
    plot.SetTitle("RL scheduler training, " + PlotText(r.model) + " on " + PlotText(r.catalogue));
    plot.SetLegend("episode", "mean reward (-cost, penalised when infeasible)");
    plot.AppendExtra("set grid\nset key off");
    Gnuplot2dDataset d("reward");
    d.SetStyle(Gnuplot2dDataset::LINES);
    d.SetExtra("lw 2 lc rgb '#377eb8'");
    for (std::size_t i = 0; i < r.rlCurve.size(); ++i)
    {
        d.Add(double(i), r.rlCurve[i]);
    }
    plot.AddDataset(d);
    std::string png = dir + "/rl-curve.png";
    return RenderPng(plot, png) ? png : "";
}

/// The chosen plan: a bar per layer coloured by its type, stage boundaries marked.
std::string
PlotPlan(const HeterpsResult& r, const std::string& dir)
{
    if (r.plan.empty())
    {
        return "";
    }
    Gnuplot plot;
    plot.SetTitle("Plan of " + r.bestScheduler + ", " + PlotText(r.model)
                  + " (stages: type x instances)");
    plot.SetLegend("layer", "");
    std::string extra = "set key outside right top\nset yrange [0:1.3]\nset noytics\n"
                        "set xrange [-0.6:"
                        + std::to_string(r.plan.size() - 0.4) + "]\n";
    if (r.plan.size() <= 60)
    {
        extra += "set xtics rotate by 60 right font ',8' (";
        for (std::size_t i = 0; i < r.plan.size(); ++i)
        {
            extra += (i ? ", " : "") + PlotQuoted(r.plan[i].name) + " " + std::to_string(i);
        }
        extra += ")\n";
    }
    uint32_t arrow = 1;
    for (std::size_t i = 0; i < r.plan.size(); ++i)
    {
        if (i == 0 || r.plan[i].stage != r.plan[i - 1].stage)
        {
            if (i > 0)
            {
                extra += "set arrow " + std::to_string(arrow++) + " from " + std::to_string(i)
                         + "-0.5, graph 0 to " + std::to_string(i)
                         + "-0.5, graph 1 nohead dt 2 lw 2 lc rgb '#000000'\n";
            }
            extra += "set label " + std::to_string(arrow + 1000) + " "
                     + PlotQuoted(r.plan[i].type + "x" + std::to_string(r.plan[i].instances))
                     + " at " + std::to_string(i) + "-0.4, 1.15 left font ',9'\n";
        }
    }
    plot.AppendExtra(extra);
    int width = std::max(2, std::min(40, int(480 / r.plan.size())));
    for (std::size_t t = 0; t < r.typeNames.size(); ++t)
    {
        Gnuplot2dDataset d(PlotText(r.typeNames[t]));
        d.SetStyle(Gnuplot2dDataset::IMPULSES);
        d.SetExtra("lw " + std::to_string(width) + " lc rgb '" + Colours()[t % Colours().size()]
                   + "'");
        bool used = false;
        for (std::size_t i = 0; i < r.plan.size(); ++i)
        {
            if (r.plan[i].type == r.typeNames[t])
            {
                d.Add(double(i), 1.0);
                used = true;
            }
        }
        if (used)
        {
            plot.AddDataset(d);
        }
    }
    std::string png = dir + "/plan.png";
    return RenderPng(plot, png) ? png : "";
}

} // namespace

const FieldTable<HeterpsScheduleRow>&
HeterpsScheduleFields()
{
    using R = HeterpsScheduleRow;
    static const FieldTable<R> fields = {
        {"scheduler",
         "",
         [](const R& r)
         {
             return r.scheduler;
         }},
        {"feasible",
         "",
         [](const R& r)
         {
             return r.feasible;
         }},
        {"throughput",
         "1/s",
         [](const R& r)
         {
             return r.throughput;
         }},
        {"hourly_price",
         "USD/h",
         [](const R& r)
         {
             return r.hourlyPrice;
         }},
        {"cost",
         "USD",
         [](const R& r)
         {
             return IfFeasible(r.feasible, r.cost);
         }},
        {"training_hours",
         "h",
         [](const R& r)
         {
             return IfFeasible(r.feasible, r.trainingHours);
         }},
        {"evaluations",
         "",
         [](const R& r)
         {
             return r.evaluations;
         }},
        {"stages",
         "",
         [](const R& r)
         {
             return r.stages;
         }},
        {"reason",
         "",
         [](const R& r)
         {
             return r.reason;
         }},
    };
    return fields;
}

const FieldTable<HeterpsSweepRow>&
HeterpsSweepFields()
{
    using R = HeterpsSweepRow;
    static const FieldTable<R> fields = {
        {"limit",
         "1/s",
         [](const R& r)
         {
             return r.limit;
         }},
        {"scheduler",
         "",
         [](const R& r)
         {
             return r.scheduler;
         }},
        {"feasible",
         "",
         [](const R& r)
         {
             return r.feasible;
         }},
        {"cost",
         "USD",
         [](const R& r)
         {
             return IfFeasible(r.feasible, r.cost);
         }},
        {"throughput",
         "1/s",
         [](const R& r)
         {
             return r.throughput;
         }},
        {"hourly_price",
         "USD/h",
         [](const R& r)
         {
             return r.hourlyPrice;
         }},
    };
    return fields;
}

const FieldTable<HeterpsHeadlineRow>&
HeterpsHeadlineFields()
{
    using R = HeterpsHeadlineRow;
    static const FieldTable<R> fields = {
        {"limit",
         "1/s",
         [](const R& r)
         {
             return r.limit;
         }},
        {"baseline",
         "",
         [](const R& r)
         {
             return r.baseline;
         }},
        {"baseline_cost",
         "USD",
         [](const R& r)
         {
             return r.baselineCost;
         }},
        {"best_cost",
         "USD",
         [](const R& r)
         {
             return r.bestCost;
         }},
        {"cost_ratio",
         "",
         [](const R& r)
         {
             return r.costRatio;
         }},
        {"lower_cost_percent",
         "%",
         [](const R& r)
         {
             return r.lowerCostPercent;
         }},
        {"baseline_throughput",
         "1/s",
         [](const R& r)
         {
             return r.baselineThroughput;
         }},
        {"equal_cost_limit",
         "1/s",
         [](const R& r)
         {
             return r.equalCostLimit;
         }},
        {"equal_cost_throughput",
         "1/s",
         [](const R& r)
         {
             return r.equalCostThroughput;
         }},
        {"throughput_ratio",
         "",
         [](const R& r)
         {
             return r.throughputRatio;
         }},
        {"driver",
         "",
         [](const R& r)
         {
             return r.driver;
         }},
    };
    return fields;
}

const FieldTable<HeterpsHeadlineSummary>&
HeterpsHeadlineSummaryFields()
{
    using R = HeterpsHeadlineSummary;
    static const FieldTable<R> fields = {
        {"baseline",
         "",
         [](const R& r)
         {
             return r.baseline;
         }},
        {"limits",
         "",
         [](const R& r)
         {
             return r.limits;
         }},
        {"max_cost_ratio",
         "",
         [](const R& r)
         {
             return r.maxCostRatio;
         }},
        {"max_lower_cost_percent",
         "%",
         [](const R& r)
         {
             return r.maxLowerCostPercent;
         }},
        {"cost_limit",
         "1/s",
         [](const R& r)
         {
             return r.costLimit;
         }},
        {"max_throughput_ratio",
         "",
         [](const R& r)
         {
             return r.maxThroughputRatio;
         }},
        {"throughput_limit",
         "1/s",
         [](const R& r)
         {
             return r.throughputLimit;
         }},
        {"driver",
         "",
         [](const R& r)
         {
             return r.driver;
         }},
    };
    return fields;
}

const FieldTable<HeterpsPlanRow>&
HeterpsPlanFields()
{
    using R = HeterpsPlanRow;
    static const FieldTable<R> fields = {
        {"layer",
         "",
         [](const R& r)
         {
             return r.layer;
         }},
        {"name",
         "",
         [](const R& r)
         {
             return r.name;
         }},
        {"kind",
         "",
         [](const R& r)
         {
             return r.kind;
         }},
        {"type",
         "",
         [](const R& r)
         {
             return r.type;
         }},
        {"stage",
         "",
         [](const R& r)
         {
             return r.stage;
         }},
        {"instances",
         "",
         [](const R& r)
         {
             return r.instances;
         }},
    };
    return fields;
}

const FieldTable<SimulatedStage>&
HeterpsSimulationFields()
{
    using R = SimulatedStage;
    static const FieldTable<R> fields = {
        {"stage",
         "",
         [](const R& r)
         {
             return r.stage;
         }},
        {"type",
         "",
         [](const R& r)
         {
             return r.type;
         }},
        {"instances",
         "",
         [](const R& r)
         {
             return r.instances;
         }},
        {"ps_servers",
         "",
         [](const R& r)
         {
             return r.psServers;
         }},
        {"predicted_s",
         "s",
         [](const R& r)
         {
             return r.predictedSeconds;
         }},
        {"simulated_s",
         "s",
         [](const R& r)
         {
             return r.simulatedSeconds;
         }},
        {"compute_s",
         "s",
         [](const R& r)
         {
             return r.computeSeconds;
         }},
        {"sync_s",
         "s",
         [](const R& r)
         {
             return r.syncSeconds;
         }},
        {"transfer_s",
         "s",
         [](const R& r)
         {
             return r.transferSeconds;
         }},
        {"wait_s",
         "s",
         [](const R& r)
         {
             return r.waitSeconds;
         }},
    };
    return fields;
}

const FieldTable<HeterpsCurveRow>&
HeterpsCurveFields()
{
    using R = HeterpsCurveRow;
    static const FieldTable<R> fields = {
        {"episode",
         "",
         [](const R& r)
         {
             return r.episode;
         }},
        {"mean_reward",
         "",
         [](const R& r)
         {
             return r.reward;
         }},
    };
    return fields;
}

nlohmann::json
ToJson(const HeterpsConfig& config, const HeterpsResult& r)
{
    nlohmann::json j = {
        {"config", ConfigJson(HeterpsOptions(), config)},
        {"model", r.model},
        {"catalogue", r.catalogue},
        {"types", r.typeNames},
        {"layers", r.layers},
        {"batch", r.batch},
        {"reachable", r.reachable},
        {"schedules", RowsJson(HeterpsScheduleFields(), r.schedules)},
        {"best_scheduler", r.bestScheduler},
        {"plan", RowsJson(HeterpsPlanFields(), r.plan)},
        {"sweep", RowsJson(HeterpsSweepFields(), r.sweep)},
        {"headline", RowsJson(HeterpsHeadlineFields(), r.headline.rows)},
        {"headline_summary", RowsJson(HeterpsHeadlineSummaryFields(), r.headline.summary)},
        {"rl_curve", r.rlCurve},
        {"rl_converged_episode", r.rlConvergedEpisode},
        {"simulation", nullptr},
    };
    if (r.simulated)
    {
        const PlanSimulationResult& s = r.simulation;
        j["simulation"] = {{"scheduler", r.simulatedScheduler},
                           {"predicted_throughput", s.predictedThroughput},
                           {"simulated_throughput", s.simulatedThroughput},
                           {"difference", s.difference},
                           {"ranks", s.ranks},
                           {"network", s.network},
                           {"simulated_seconds", s.simulatedSeconds},
                           {"events", s.events},
                           {"explanation", s.explanation},
                           {"stages", RowsJson(HeterpsSimulationFields(), s.stages)}};
    }
    return j;
}

std::vector<std::string>
WriteHeterpsResults(const HeterpsConfig& config, const HeterpsResult& r, const std::string& dir)
{
    MakeResultsDir(dir);
    std::vector<std::string> written;
    auto csv = [&](const std::string& name, const auto& fields, const auto& rows)
    {
        written.push_back(dir + "/" + name);
        WriteCsv(written.back(), fields, rows);
    };
    csv("schedules.csv", HeterpsScheduleFields(), r.schedules);
    csv("sweep.csv", HeterpsSweepFields(), r.sweep);
    csv("headline.csv", HeterpsHeadlineFields(), r.headline.rows);
    csv("rl-curve.csv", HeterpsCurveFields(), CurveRows(r));
    csv("plan.csv", HeterpsPlanFields(), r.plan);
    if (r.simulated)
    {
        csv("simulation.csv", HeterpsSimulationFields(), r.simulation.stages);
    }
    written.push_back(dir + "/result.json");
    WriteJson(written.back(), ToJson(config, r));
    for (const auto& png : {PlotCostVsLimit(r, dir), PlotRlCurve(r, dir), PlotPlan(r, dir)})
    {
        if (!png.empty())
        {
            written.push_back(png);
        }
    }
    return written;
}

void
PrintHeterpsTable(const HeterpsConfig& config, const HeterpsResult& r)
{
    std::string types;
    for (const auto& n : r.typeNames)
    {
        types += (types.empty() ? "" : ", ") + n;
    }
    std::printf("\n%s on %s (%s), %u layers, batch %llu, limit %.6g samples/s, %.4g samples "
                "priced; the fastest plan found reaches %.6g samples/s\n",
                r.model.c_str(),
                r.catalogue.c_str(),
                types.c_str(),
                r.layers,
                static_cast<unsigned long long>(r.batch),
                config.limit,
                config.samples,
                r.reachable);
    std::printf("%-18s %-8s %12s %10s %12s %8s %9s  %s\n",
                "scheduler",
                "feasible",
                "samples/s",
                "USD/h",
                "cost (USD)",
                "evals",
                "wall (s)",
                "stages (type x instances)");
    for (const auto& row : r.schedules)
    {
        char cost[32] = "-";
        if (row.feasible)
        {
            std::snprintf(cost, sizeof cost, "%.6g", row.cost);
        }
        std::printf("%-18s %-8s %12.6g %10.4g %12s %8llu %9.3f  %s%s\n",
                    row.scheduler.c_str(),
                    row.feasible ? "yes" : "no",
                    row.throughput,
                    row.hourlyPrice,
                    cost,
                    static_cast<unsigned long long>(row.evaluations),
                    row.wallSeconds,
                    row.stages.c_str(),
                    row.feasible ? "" : ("  [" + row.reason + "]").c_str());
    }
    std::printf("best: %s\n", r.bestScheduler.c_str());
    if (!r.rlCurve.empty())
    {
        std::printf("rl: %zu episodes, mean reward %.6g first, %.6g last; its best plan last "
                    "changed at episode %u\n",
                    r.rlCurve.size(),
                    r.rlCurve.front(),
                    r.rlCurve.back(),
                    r.rlConvergedEpisode);
    }
    if (!r.headline.summary.empty())
    {
        std::printf("\nHeterPS-style headline (ours: the exact optimum of our cost model; paper: "
                    "up to 14.5x throughput, 312.3%% lower cost)\n");
        std::printf("%-18s %6s %11s %12s %11s %12s %11s  %s\n",
                    "baseline",
                    "limits",
                    "max cost x",
                    "% lower cost",
                    "at limit",
                    "max thr. x",
                    "at limit",
                    "what drives the ratio (baseline's bottleneck stage)");
        for (const auto& s : r.headline.summary)
        {
            std::printf("%-18s %6u %11.4g %11.4g%% %11.4g %12.4g %11.4g  %s\n",
                        s.baseline.c_str(),
                        s.limits,
                        s.maxCostRatio,
                        s.maxLowerCostPercent,
                        s.costLimit,
                        s.maxThroughputRatio,
                        s.throughputLimit,
                        s.driver.c_str());
        }
        std::printf("(cost x = baseline cost / optimum cost at the same limit; %% lower cost = "
                    "(cost x - 1) x 100; thr. x = the optimum's throughput at a limit it meets "
                    "for the baseline's cost, found by bisection / the baseline's throughput)\n");
    }
    if (r.simulated)
    {
        const PlanSimulationResult& s = r.simulation;
        std::printf("\nsimulated plan of %s: predicted %.6g samples/s, simulated %.6g samples/s "
                    "(%+.2f%%), %u ranks, %s level, %.6g simulated s, %llu events\n",
                    r.simulatedScheduler.c_str(),
                    s.predictedThroughput,
                    s.simulatedThroughput,
                    100 * s.difference,
                    s.ranks,
                    s.network.c_str(),
                    s.simulatedSeconds,
                    static_cast<unsigned long long>(s.events));
        std::printf("%-5s %-10s %9s %12s %12s %12s %12s %12s %12s\n",
                    "stage",
                    "type",
                    "instances",
                    "predicted s",
                    "simulated s",
                    "compute s",
                    "sync s",
                    "transfer s",
                    "wait s");
        for (const auto& st : s.stages)
        {
            std::printf("%-5u %-10s %9u %12.4g %12.4g %12.4g %12.4g %12.4g %12.4g\n",
                        st.stage,
                        st.type.c_str(),
                        st.instances,
                        st.predictedSeconds,
                        st.simulatedSeconds,
                        st.computeSeconds,
                        st.syncSeconds,
                        st.transferSeconds,
                        st.waitSeconds);
        }
        std::printf("%s\n", s.explanation.c_str());
    }
}

} // namespace ns3
