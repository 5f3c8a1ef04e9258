/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-writer.h"

#include "plot-writer.h"
#include "result-writer.h"

#include "ns3/file-io.h"
#include "ns3/gnuplot.h"
#include "ns3/json-document.h"
#include "ns3/log.h"

#include <cstdio>
#include <fstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetTrainingWriter");

namespace
{

/// A throughput or utilisation the run cannot know (a workload file gives no samples or
/// FLOPs) is 0: null in the results, "-" in the table, not a figure of zero
nlohmann::json
UnknownAsNull(double value)
{
    return value == 0 ? nlohmann::json() : nlohmann::json(value);
}

/// \return value in format, or "-" where it is unknown (UnknownAsNull)
std::string
KnownCell(const char* format, double value)
{
    if (value == 0)
    {
        return "-";
    }
    char cell[32];
    std::snprintf(cell, sizeof cell, format, value);
    return cell;
}

/// The breakdown's parts, bottom to top in the bars and in the CSV columns.
struct Part
{
    std::string name;
    std::function<double(const TrainingBreakdown&)> get;
};

const std::vector<Part>&
Parts()
{
    static const std::vector<Part> parts = []()
    {
        std::vector<Part> p{{"compute",
                             [](const TrainingBreakdown& b)
                             {
                                 return b.computeSeconds;
                             }}};
        for (TrainingDimension d : {TrainingDimension::TP,
                                    TrainingDimension::EP,
                                    TrainingDimension::PP,
                                    TrainingDimension::WS,
                                    TrainingDimension::DP})
        {
            uint32_t i = static_cast<uint32_t>(d);
            p.push_back({"exposed_" + ToString(d),
                         [i](const TrainingBreakdown& b)
                         {
                             return b.exposedSeconds[i];
                         }});
        }
        p.push_back({"bubble",
                     [](const TrainingBreakdown& b)
                     {
                         return b.bubbleSeconds;
                     }});
        p.push_back({"idle",
                     [](const TrainingBreakdown& b)
                     {
                         return b.idleSeconds;
                     }});
        return p;
    }();
    return parts;
}

/// The breakdown's columns of a row type that holds one.
template <typename Row>
void
AddBreakdownFields(FieldTable<Row>& fields, TrainingBreakdown Row::*member)
{
    for (const auto& part : Parts())
    {
        fields.push_back({part.name + "_s",
                          "s",
                          [get = part.get, member](const Row& r)
                          {
                              return get(r.*member);
                          }});
    }
    for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
    {
        fields.push_back({"comm_" + TrainingDimensionNames()[d] + "_s",
                          "s",
                          [d, member](const Row& r)
                          {
                              return (r.*member).commSeconds[d];
                          }});
    }
}

} // namespace

const FieldTable<TrainingJobRow>&
TrainingJobFields()
{
    using R = TrainingJobRow;
    static const FieldTable<R> fields = []()
    {
        FieldTable<R> f = {
            {"job",
             "",
             [](const R& r)
             {
                 return r.job;
             }},
            {"mode",
             "",
             [](const R& r)
             {
                 return r.mode;
             }},
            {"workload",
             "",
             [](const R& r)
             {
                 return r.workload;
             }},
            {"ranks",
             "",
             [](const R& r)
             {
                 return r.ranks;
             }},
            {"warmup_s",
             "s",
             [](const R& r)
             {
                 return r.warmupSeconds;
             }},
            {"iteration_s",
             "s",
             [](const R& r)
             {
                 return r.iterationSeconds;
             }},
            {"samples_per_s",
             "1/s",
             [](const R& r)
             {
                 return UnknownAsNull(r.samplesPerSecond);
             }},
            {"tokens_per_s",
             "1/s",
             [](const R& r)
             {
                 return UnknownAsNull(r.tokensPerSecond);
             }},
            {"mfu",
             "fraction",
             [](const R& r)
             {
                 return UnknownAsNull(r.mfu);
             }},
            {"hfu",
             "fraction",
             [](const R& r)
             {
                 return UnknownAsNull(r.hfu);
             }},
        };
        AddBreakdownFields(f, &R::breakdown);
        f.push_back({"slowdown",
                     "",
                     [](const R& r) -> nlohmann::json
                     {
                         if (r.slowdown == 0)
                         {
                             return nullptr;
                         }
                         return r.slowdown;
                     }});
        f.push_back({"collectives",
                     "",
                     [](const R& r)
                     {
                         return r.collectives;
                     }});
        f.push_back({"sends",
                     "",
                     [](const R& r)
                     {
                         return r.sends;
                     }});
        f.push_back({"bytes",
                     "B",
                     [](const R& r)
                     {
                         return r.bytes;
                     }});
        f.push_back({"network",
                     "",
                     [](const R& r)
                     {
                         return r.network;
                     }});
        return f;
    }();
    return fields;
}

const FieldTable<TrainingCommRow>&
TrainingCommFields()
{
    using R = TrainingCommRow;
    static const FieldTable<R> fields = {
        {"job",
         "",
         [](const R& r)
         {
             return r.job;
         }},
        {"task",
         "",
         [](const R& r)
         {
             return r.task;
         }},
        {"label",
         "",
         [](const R& r)
         {
             return r.label;
         }},
        {"kind",
         "",
         [](const R& r)
         {
             return r.kind;
         }},
        {"dimension",
         "",
         [](const R& r)
         {
             return r.dimension;
         }},
        {"op",
         "",
         [](const R& r)
         {
             return r.op;
         }},
        {"backend",
         "",
         [](const R& r)
         {
             return r.backend;
         }},
        {"group",
         "",
         [](const R& r)
         {
             return r.group;
         }},
        {"members",
         "",
         [](const R& r)
         {
             return r.members;
         }},
        {"bytes",
         "B",
         [](const R& r)
         {
             return r.bytes;
         }},
        {"iteration",
         "",
         [](const R& r)
         {
             return r.iteration;
         }},
        {"microbatch",
         "",
         [](const R& r) -> nlohmann::json
         {
             return r.microbatch < 0 ? nlohmann::json() : nlohmann::json(r.microbatch);
         }},
        {"layer",
         "",
         [](const R& r) -> nlohmann::json
         {
             return r.layer < 0 ? nlohmann::json() : nlohmann::json(r.layer);
         }},
        {"start_s",
         "s",
         [](const R& r)
         {
             return r.start;
         }},
        {"end_s",
         "s",
         [](const R& r)
         {
             return r.end;
         }},
        {"time_s",
         "s",
         [](const R& r)
         {
             return r.end - r.start;
         }},
    };
    return fields;
}

const FieldTable<TrainingRankRow>&
TrainingRankFields()
{
    using R = TrainingRankRow;
    static const FieldTable<R> fields = []()
    {
        FieldTable<R> f = {
            {"job",
             "",
             [](const R& r)
             {
                 return r.job;
             }},
            {"rank",
             "",
             [](const R& r)
             {
                 return r.rank;
             }},
            {"cluster_rank",
             "",
             [](const R& r)
             {
                 return r.clusterRank;
             }},
            {"iteration_s",
             "s",
             [](const R& r)
             {
                 return r.breakdown.iterationSeconds;
             }},
        };
        AddBreakdownFields(f, &R::breakdown);
        return f;
    }();
    return fields;
}

std::vector<TrainingRankRow>
RankRowsOf(const TrainingResult& result)
{
    std::vector<TrainingRankRow> rows;
    for (std::size_t j = 0; j < result.rankBreakdowns.size(); ++j)
    {
        for (uint32_t r = 0; r < result.rankBreakdowns[j].size(); ++r)
        {
            rows.push_back({result.setups[j].name,
                            r,
                            result.setups[j].placement[r],
                            result.rankBreakdowns[j][r]});
        }
    }
    return rows;
}

const FieldTable<TrainingRankStats>&
TrainingRankStatsFields()
{
    using R = TrainingRankStats;
    using J = nlohmann::json;
    static const FieldTable<R> fields = []()
    {
        auto traffic = [](const R& r) -> const RankResult&
        {
            return r.traffic;
        };
        // one line per field: name, unit, getter; the message columns are the shared
        // RankFields' (null: no message of the rank was recorded), compute_s between them
        // clang-format off
        FieldTable<R> f = {
            {"job", "", [](const R& r) { return J(r.job); }},
            {"rank", "", [](const R& r) { return J(r.traffic.index); }},
            {"cluster_rank", "", [](const R& r) { return J(r.traffic.rank); }},
        };
        AppendFields(f, RankFields(), traffic, {"bytes_sent", "bytes_received", "finish_s"});
        f.push_back({"compute_s", "s", [](const R& r) { return J(r.compute); }});
        AppendFields(f, RankFields(), traffic, {"network_s"});
        f.push_back({"exposed_s", "s", [](const R& r) { return r.traffic.timed ? J(r.exposed) : J(); }});
        // clang-format on
        return f;
    }();
    return fields;
}

nlohmann::json
ToJson(const TrainingConfig& config, const TrainingResult& result)
{
    nlohmann::json j = {{"config", ConfigJson(TrainingOptions(), config)},
                        {"topology", result.topology},
                        {"network", result.network},
                        {"cluster_ranks", result.clusterRanks},
                        {"events", result.events},
                        {"jobs", RowsJson(TrainingJobFields(), result.jobs)},
                        {"ranks", RowsJson(TrainingRankFields(), RankRowsOf(result))}};
    if (config.stats)
    {
        j["link_stats"] = RowsJson(LinkFields(), result.links);
        j["switch_stats"] = RowsJson(SwitchFields(), result.switches);
        j["rank_stats"] = RowsJson(TrainingRankStatsFields(), result.rankStats);
    }
    return j;
}

void
WriteChromeTrace(const std::string& path, const TrainingResult& result)
{
    std::ofstream out = dlnet::OpenOutputFile("results", path);
    static const std::vector<std::string> threads = {"compute", "tp", "pp", "dp", "ep", "ws"};
    ChromeTraceWriter trace(out);
    for (std::size_t j = 0; j < result.setups.size() && j < result.runs.size(); ++j)
    {
        const TrainingJobSetup& job = result.setups[j];
        for (uint32_t r = 0; r < job.placement.size(); ++r)
        {
            uint32_t pid = job.placement[r];
            trace.Process(pid,
                          "rank " + std::to_string(pid) + " (" + job.name + " rank "
                              + std::to_string(r) + ")");
            for (uint32_t t = 0; t < threads.size(); ++t)
            {
                trace.Thread(pid, t, threads[t]);
            }
        }
        const std::vector<TrainingTaskRun>& runs = result.runs[j];
        for (uint32_t i = 0; i < job.graph.tasks.size() && i < runs.size(); ++i)
        {
            const TrainingTask& task = job.graph.tasks[i];
            const TrainingTaskRun& run = runs[i];
            if (task.kind == TrainingTaskKind::DELAY)
            {
                continue;
            }
            uint32_t tid = task.kind == TrainingTaskKind::COMPUTE
                               ? 0
                               : 1 + static_cast<uint32_t>(task.dimension);
            std::string args = "{\"task\":" + std::to_string(i)
                               + ",\"iteration\":" + std::to_string(task.iteration)
                               + ",\"phase\":" + dlnet::JsonText(ToString(task.phase));
            if (task.kind != TrainingTaskKind::COMPUTE)
            {
                args += ",\"bytes\":" + std::to_string(task.bytes)
                        + ",\"backend\":" + dlnet::JsonText(run.backend)
                        + ",\"group\":" + dlnet::JsonText(task.group);
            }
            args += "}";
            std::string cat = task.kind == TrainingTaskKind::COMPUTE ? ToString(task.phase)
                                                                     : ToString(task.dimension);
            std::string common = ",\"name\":" + dlnet::JsonText(task.label) + ",\"cat\":"
                                 + dlnet::JsonText(cat) + ",\"ts\":" + TraceMicroseconds(run.start)
                                 + ",\"dur\":" + TraceMicroseconds(run.end - run.start)
                                 + ",\"tid\":" + std::to_string(tid) + ",\"args\":" + args + "}";
            if (task.kind == TrainingTaskKind::SEND)
            {
                // a send shows on the rank whose stream it occupies
                uint32_t r = task.ranks[task.pull ? 1 : 0];
                trace.Event("{\"ph\":\"X\",\"pid\":" + std::to_string(job.placement[r]) + common);
                continue;
            }
            for (uint32_t r : task.ranks)
            {
                trace.Event("{\"ph\":\"X\",\"pid\":" + std::to_string(job.placement[r]) + common);
            }
        }
    }
    trace.Finish();
    dlnet::CloseOutputFile("results", path, out);
}

std::vector<std::string>
WriteTrainingResults(const TrainingConfig& config,
                     const TrainingResult& result,
                     const std::string& dir)
{
    MakeResultsDir(dir);
    std::vector<std::string> written{
        dir + "/training.csv", dir + "/comms.csv", dir + "/ranks.csv", dir + "/result.json"};
    WriteCsv(written[0], TrainingJobFields(), result.jobs);
    WriteCsv(written[1], TrainingCommFields(), result.comms);
    WriteCsv(written[2], TrainingRankFields(), RankRowsOf(result));
    WriteJson(written[3], ToJson(config, result));
    if (config.stats)
    {
        written.push_back(dir + "/links.csv");
        WriteCsv(written.back(), LinkFields(), result.links);
        written.push_back(dir + "/switches.csv");
        WriteCsv(written.back(), SwitchFields(), result.switches);
        written.push_back(dir + "/rank-stats.csv");
        WriteCsv(written.back(), TrainingRankStatsFields(), result.rankStats);
    }
    if (!result.runs.empty())
    {
        written.push_back(dir + "/trace.json");
        WriteChromeTrace(written.back(), result);
    }
    return written;
}

std::string
PlotTrainingBreakdown(const std::vector<std::string>& labels,
                      const std::vector<TrainingResult>& results,
                      const std::string& dir)
{
    Gnuplot plot;
    plot.SetTitle("Where an iteration's time goes (mean rank, first job)");
    plot.SetLegend("", "seconds per iteration");
    std::string xtics = "set xtics (";
    double top = 0;
    std::vector<std::vector<double>> cumulative; // per configuration, per part
    for (std::size_t k = 0; k < results.size(); ++k)
    {
        xtics += (k ? ", " : "") + PlotQuoted(labels[k]) + " " + std::to_string(k);
        std::vector<double> sums;
        double sum = 0;
        for (const auto& part : Parts())
        {
            sum += results[k].jobs.empty() ? 0 : part.get(results[k].jobs[0].breakdown);
            sums.push_back(sum);
        }
        top = std::max(top, sum);
        cumulative.push_back(sums);
    }
    plot.AppendExtra(xtics + ")");
    plot.AppendExtra("set xrange [-0.6:" + std::to_string(results.size() - 0.4) + "]");
    // %g, not std::to_string: an iteration below a microsecond is not [0:0.000000]
    char yrange[64];
    std::snprintf(yrange, sizeof yrange, "set yrange [0:%.6g]", top > 0 ? 1.1 * top : 1.0);
    plot.AppendExtra(yrange);
    plot.AppendExtra("set key off");
    plot.AppendExtra("set rmargin 16");
    plot.AppendExtra("set grid ytics");
    // one colour per part, named beside the plot in that colour (a key would show
    // the thick impulses as misplaced swatches)
    static const std::vector<std::string> colours
        = {"#000000", "#e41a1c", "#984ea3", "#ff7f00", "#a65628", "#377eb8", "#4daf4a", "#bbbbbb"};
    for (std::size_t p = 0; p < Parts().size(); ++p)
    {
        plot.AppendExtra("set label " + std::to_string(p + 1) + " " + PlotQuoted(Parts()[p].name)
                         + " at graph 1.03, graph " + std::to_string(0.05 + 0.1 * p)
                         + " textcolor rgb '" + colours[p % colours.size()] + "'");
    }
    // stacked by drawing each part's top edge as a thick bar from 0, tallest first, so that
    // every lower part paints over the one above it
    int width = std::max(8, std::min(60, int(240 / std::max<std::size_t>(1, results.size()))));
    for (std::size_t p = Parts().size(); p-- > 0;)
    {
        Gnuplot2dDataset bars(Parts()[p].name);
        bars.SetStyle(Gnuplot2dDataset::IMPULSES);
        bars.SetExtra("lw " + std::to_string(width) + " lc rgb '" + colours[p % colours.size()]
                      + "'");
        for (std::size_t k = 0; k < results.size(); ++k)
        {
            bars.Add(k, cumulative[k][p]);
        }
        plot.AddDataset(bars);
    }
    std::string png = dir + "/breakdown.png";
    MakeResultsDir(dir);
    return !results.empty() && RenderPng(plot, png) ? png : "";
}

void
PrintTrainingTable(const std::vector<std::string>& labels,
                   const std::vector<TrainingResult>& results)
{
    std::printf("\n%-22s %-5s %-8s %10s %10s %6s %6s %9s %9s %9s %9s %9s %9s %9s %8s\n",
                "configuration",
                "job",
                "mode",
                "iter (s)",
                "samples/s",
                "MFU",
                "HFU",
                "compute",
                "exp. TP",
                "exp. PP",
                "exp. DP",
                "exp. EP+WS",
                "bubble",
                "idle",
                "x alone");
    for (std::size_t k = 0; k < results.size(); ++k)
    {
        for (const auto& row : results[k].jobs)
        {
            const TrainingBreakdown& b = row.breakdown;
            auto e = [&](TrainingDimension d)
            {
                return b.exposedSeconds[static_cast<uint32_t>(d)];
            };
            char slowdown[16] = "-";
            if (row.slowdown > 0)
            {
                std::snprintf(slowdown, sizeof slowdown, "%.4f", row.slowdown);
            }
            std::printf("%-22s %-5s %-8s %10.4g %10s %6s %6s "
                        "%9.3g %9.3g %9.3g %9.3g %9.3g %9.3g %9.3g %8s\n",
                        labels[k].c_str(),
                        row.job.c_str(),
                        row.mode.c_str(),
                        row.iterationSeconds,
                        KnownCell("%.4g", row.samplesPerSecond).c_str(),
                        KnownCell("%.1f%%", 100 * row.mfu).c_str(),
                        KnownCell("%.1f%%", 100 * row.hfu).c_str(),
                        b.computeSeconds,
                        e(TrainingDimension::TP),
                        e(TrainingDimension::PP),
                        e(TrainingDimension::DP),
                        e(TrainingDimension::EP) + e(TrainingDimension::WS),
                        b.bubbleSeconds,
                        b.idleSeconds,
                        slowdown);
        }
    }
    std::string networks;
    for (const auto& r : results)
    {
        networks += networks.find(r.network) == std::string::npos
                        ? (networks.empty() ? "" : ", ") + r.network
                        : "";
    }
    std::printf("(breakdown columns: seconds per iteration, mean over the job's ranks; "
                "exp. = communication not hidden behind compute; x alone = iteration together / "
                "alone; MFU: the model's FLOPs, HFU: with the recomputed forward passes; "
                "network: %s level)\n",
                networks.c_str());
}

} // namespace ns3
