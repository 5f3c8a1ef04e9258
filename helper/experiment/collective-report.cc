/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-report.h"

#include "plot-writer.h"
#include "result-writer.h"

#include "ns3/log.h"
#include "ns3/topology.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetCollectiveReport");

const FieldTable<CollectiveSweepRow>&
CollectiveRowFields()
{
    using R = CollectiveSweepRow;
    using J = nlohmann::json;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<R> fields = {
        {"op", "", [](const R& r) { return J(r.sweep.op); }},
        {"algorithm", "", [](const R& r) { return J(r.row.algorithm); }},
        {"ranks", "", [](const R& r) { return J(r.sweep.ranks); }},
        {"bytes", "B", [](const R& r) { return J(r.row.bytes); }},
        {"count", "", [](const R& r) { return J(r.row.count); }},
        {"type", "", [](const R& r) { return J(r.row.type); }},
        {"redop", "", [](const R& r) { return J(r.row.redop); }},
        {"time_s", "s", [](const R& r) { return J(r.row.time); }},
        {"algbw_Bps", "B/s", [](const R& r) { return J(r.row.algbw); }},
        {"busbw_Bps", "B/s", [](const R& r) { return J(r.row.busbw); }},
        {"bound_s", "s", [](const R& r) { return J(r.row.bound); }},
        {"checked", "", [](const R& r) { return J(r.row.checked); }},
        {"correct", "", [](const R& r) { return J(r.row.correct); }},
        // columns after "correct" were added to collective.csv with the field table
        {"max_error", "", [](const R& r) { return J(r.row.maxError); }},
        {"packets", "", [](const R& r) { return J(r.row.packets); }},
        {"retransmissions", "", [](const R& r) { return J(r.row.retransmissions); }},
        {"bytes_up_per_worker", "B", [](const R& r) { return J(r.row.bytesUp); }},
        {"bytes_down_per_worker", "B", [](const R& r) { return J(r.row.bytesDown); }},
        {"aggregator_utilisation", "fraction", [](const R& r) { return J(r.row.aggregatorUtilisation); }},
        {"events", "", [](const R& r) { return J(r.row.events); }},
        {"estimate_s", "s", [](const R& r) { return r.row.estimate < 0 ? J() : J(r.row.estimate); }},
        {"busiest_link", "", [](const R& r) { return J(r.row.busiestLink); }},
        {"network", "", [](const R& r) { return J(r.row.network); }},
    };
    // clang-format on
    return fields;
}

const FieldTable<CollectiveLinkRow>&
CollectiveLinkFields()
{
    using R = CollectiveLinkRow;
    using J = nlohmann::json;
    static const FieldTable<R> fields = []()
    {
        FieldTable<R> f = {
            {"algorithm",
             "",
             [](const R& r)
             {
                 return J(r.row.algorithm);
             }},
            {"bytes",
             "B",
             [](const R& r)
             {
                 return J(r.row.bytes);
             }},
        };
        AppendFields(f,
                     LinkFields(),
                     [](const R& r) -> const LinkResult&
                     {
                         return r.link;
                     });
        return f;
    }();
    return fields;
}

const FieldTable<CollectiveRankRow>&
CollectiveRankFields()
{
    using R = CollectiveRankRow;
    using J = nlohmann::json;
    static const FieldTable<R> fields = []()
    {
        // clang-format off
        FieldTable<R> f = {
            {"algorithm", "", [](const R& r) { return J(r.row.algorithm); }},
            {"bytes", "B", [](const R& r) { return J(r.row.bytes); }},
            {"index", "", [](const R& r) { return J(r.rank.index); }},
        };
        // clang-format on
        AppendFields(f,
                     RankFields(),
                     [](const R& r) -> const RankResult&
                     {
                         return r.rank;
                     });
        return f;
    }();
    return fields;
}

const FieldTable<CollectiveSwitchRow>&
CollectiveSwitchFields()
{
    using R = CollectiveSwitchRow;
    using J = nlohmann::json;
    static const FieldTable<R> fields = []()
    {
        // clang-format off
        FieldTable<R> f = {
            {"algorithm", "", [](const R& r) { return J(r.row.algorithm); }},
            {"bytes", "B", [](const R& r) { return J(r.row.bytes); }},
        };
        // clang-format on
        AppendFields(f,
                     SwitchFields(),
                     [](const R& r) -> const SwitchResult&
                     {
                         return r.sw;
                     });
        return f;
    }();
    return fields;
}

const FieldTable<CollectiveResult>&
CollectiveSummaryFields()
{
    using R = CollectiveResult;
    using J = nlohmann::json;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<R> fields = {
        {"topology", "", [](const R& r) { return J(r.topology); }},
        {"network", "", [](const R& r) { return J(r.network); }},
        {"op", "", [](const R& r) { return J(r.op); }},
        {"ranks", "", [](const R& r) { return J(r.ranks); }},
        {"model", "", [](const R& r) { return J{{"alpha_s", r.model.alpha},
                      {"bandwidth_Bps", r.model.bandwidth},
                      {"alpha1_s", r.model.alpha1},
                      {"alpha2_s", r.model.alpha2},
                      {"packet_bytes", r.model.packetBytes},
                      {"alpha_without_packet_s", r.model.alphaBase},
                      {"send_alpha_s", r.model.sendAlpha},
                      {"dim1_bandwidth_Bps", r.model.dim1Bandwidth},
                      {"dim2_bandwidth_Bps", r.model.dim2Bandwidth},
                      {"launch_latency_s", r.model.launch},
                      {"library_step_latency_s", r.model.libraryStep},
                      {"grid", {r.model.grid.dim1, r.model.grid.dim2}},
                      {"bidirectional", r.model.grid.bidirectional}}; }},
    };
    // clang-format on
    return fields;
}

nlohmann::json
ToJson(const CollectiveConfig& config)
{
    return ConfigJson(CollectiveOptions(), config);
}

nlohmann::json
ToJson(const CollectiveResult& r)
{
    nlohmann::json j = RowJson(CollectiveSummaryFields(), r);
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows)
    {
        rows.push_back(RowJson(CollectiveRowFields(), CollectiveSweepRow{r, row}));
    }
    j["rows"] = rows;
    nlohmann::json links = nlohmann::json::array();
    nlohmann::json ranks = nlohmann::json::array();
    nlohmann::json switches = nlohmann::json::array();
    bool stats = false;
    for (const auto& row : r.rows)
    {
        stats = stats || !row.links.empty() || !row.ranks.empty();
        for (const auto& l : row.links)
        {
            links.push_back(RowJson(CollectiveLinkFields(), CollectiveLinkRow{row, l}));
        }
        for (const auto& k : row.ranks)
        {
            ranks.push_back(RowJson(CollectiveRankFields(), CollectiveRankRow{row, k}));
        }
        for (const auto& w : row.switches)
        {
            switches.push_back(RowJson(CollectiveSwitchFields(), CollectiveSwitchRow{row, w}));
        }
    }
    if (stats)
    {
        // ("ranks" is the summary's rank count)
        j["link_stats"] = links;
        j["rank_stats"] = ranks;
        j["switch_stats"] = switches;
    }
    return j;
}

void
PrintCollectiveTable(const CollectiveConfig& config, const std::vector<CollectiveResult>& sweeps)
{
    for (const auto& s : sweeps)
    {
        std::printf("\n# %s on %s, %u ranks, %s level%s\n",
                    s.op.c_str(),
                    s.topology.c_str(),
                    s.ranks,
                    s.network.c_str(),
                    config.functional ? " (functional: every rank's result checked)" : "");
        std::printf("#%12s %12s %6s %6s %-20s %12s %11s %11s %10s %12s %6s\n",
                    "size",
                    "count",
                    "type",
                    "redop",
                    "algorithm",
                    "time(us)",
                    "algbw(GB/s)",
                    "busbw(GB/s)",
                    "bound(us)",
                    "estimate(us)",
                    "check");
        for (const auto& row : s.rows)
        {
            char estimate[32] = "-";
            if (row.estimate >= 0)
            {
                std::snprintf(estimate, sizeof(estimate), "%.2f", row.estimate * 1e6);
            }
            std::printf(" %12llu %12llu %6s %6s %-20s %12.2f %11.2f %11.2f %10.2f %12s %6s\n",
                        static_cast<unsigned long long>(row.bytes),
                        static_cast<unsigned long long>(row.count),
                        row.type.c_str(),
                        row.redop.c_str(),
                        row.algorithm.c_str(),
                        row.time * 1e6,
                        row.algbw / 1e9,
                        row.busbw / 1e9,
                        row.bound * 1e6,
                        estimate,
                        row.checked ? (row.correct ? "ok" : "WRONG") : "-");
        }
        uint64_t events = 0;
        double wall = 0;
        for (const auto& row : s.rows)
        {
            events += row.events;
            wall += row.wallSeconds;
        }
        std::printf("# simulated %llu events in %.2f s wall (%.2f M events/s)\n",
                    static_cast<unsigned long long>(events),
                    wall,
                    wall > 0 ? events / wall / 1e6 : 0.0);
    }
}

void
PrintCollectiveComparison(const std::vector<CollectiveResult>& sweeps)
{
    if (sweeps.size() < 2 || sweeps[0].rows.empty())
    {
        return;
    }
    std::printf("\n# busbw (GB/s) by size\n#%12s", "size");
    for (const auto& s : sweeps)
    {
        std::printf(" %19s", s.rows[0].algorithm.c_str());
    }
    std::printf("\n");
    for (std::size_t i = 0; i < sweeps[0].rows.size(); ++i)
    {
        std::printf(" %12llu", static_cast<unsigned long long>(sweeps[0].rows[i].bytes));
        double best = 0;
        for (const auto& s : sweeps)
        {
            best = std::max(best, i < s.rows.size() ? s.rows[i].busbw : 0.0);
        }
        for (const auto& s : sweeps)
        {
            if (i >= s.rows.size())
            {
                std::printf(" %19s", "-");
                continue;
            }
            std::printf(" %18.2f%s", s.rows[i].busbw / 1e9, s.rows[i].busbw == best ? "*" : " ");
        }
        std::printf("\n");
    }
    std::printf("# * fastest at that size\n");
}

void
WriteCollectiveResults(const CollectiveConfig& config,
                       const std::vector<CollectiveResult>& sweeps,
                       const std::string& dir)
{
    MakeResultsDir(dir);
    const auto& fields = CollectiveRowFields();
    std::string csv = CsvHeader(fields) + "\n";
    nlohmann::json all = nlohmann::json::array();
    for (const auto& s : sweeps)
    {
        for (const auto& row : s.rows)
        {
            csv += CsvLine(fields, CollectiveSweepRow{s, row}) + "\n";
        }
        all.push_back(ToJson(s));
    }
    WriteTextFile(dir + "/collective.csv", csv);
    if (config.stats)
    {
        std::string links = CsvHeader(CollectiveLinkFields()) + "\n";
        std::string ranks = CsvHeader(CollectiveRankFields()) + "\n";
        std::string switches = CsvHeader(CollectiveSwitchFields()) + "\n";
        for (const auto& s : sweeps)
        {
            for (const auto& row : s.rows)
            {
                for (const auto& l : row.links)
                {
                    links += CsvLine(CollectiveLinkFields(), CollectiveLinkRow{row, l}) + "\n";
                }
                for (const auto& k : row.ranks)
                {
                    ranks += CsvLine(CollectiveRankFields(), CollectiveRankRow{row, k}) + "\n";
                }
                for (const auto& w : row.switches)
                {
                    switches
                        += CsvLine(CollectiveSwitchFields(), CollectiveSwitchRow{row, w}) + "\n";
                }
            }
        }
        WriteTextFile(dir + "/links.csv", links);
        WriteTextFile(dir + "/ranks.csv", ranks);
        WriteTextFile(dir + "/switches.csv", switches);
    }
    WriteJson(dir + "/result.json", {{"config", ToJson(config)}, {"sweeps", all}});
}

std::vector<std::string>
PlotCollective(const std::vector<CollectiveResult>& sweeps, const std::string& dir)
{
    MakeResultsDir(dir);
    std::vector<std::string> written;
    if (sweeps.empty())
    {
        return written;
    }
    std::string title = sweeps[0].op + " on " + sweeps[0].topology + ", "
                        + std::to_string(sweeps[0].ranks) + " ranks";
    Gnuplot bus;
    bus.SetTitle("Bus bandwidth, " + title);
    bus.SetLegend("buffer size (bytes)", "busbw (GB/s)");
    // Sizes in binary units, at the sizes that were run.
    std::string tics = "set xtics (";
    for (std::size_t i = 0; i < sweeps[0].rows.size(); ++i)
    {
        tics += (i ? ", \"" : "\"") + SizeLabel(sweeps[0].rows[i].bytes) + "\" "
                + std::to_string(sweeps[0].rows[i].bytes);
    }
    tics += ")";
    bus.AppendExtra("set logscale x 2\nset grid\nset key top left\n" + tics);
    Gnuplot time;
    time.SetTitle("Time, simulated (points) and alpha-beta model (lines), " + title);
    time.SetLegend("buffer size (bytes)", "time (us)");
    time.AppendExtra("set logscale xy\nset grid\nset key top left\n" + tics);
    for (const auto& s : sweeps)
    {
        std::string name = s.rows.empty() ? "?" : s.rows[0].algorithm;
        Gnuplot2dDataset busData(name);
        busData.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        Gnuplot2dDataset measured(name + " simulated");
        measured.SetStyle(Gnuplot2dDataset::POINTS);
        Gnuplot2dDataset predicted(name + " bound");
        predicted.SetStyle(Gnuplot2dDataset::LINES);
        for (const auto& row : s.rows)
        {
            busData.Add(double(row.bytes), row.busbw / 1e9);
            measured.Add(double(row.bytes), row.time * 1e6);
            predicted.Add(double(row.bytes), row.bound * 1e6);
        }
        bus.AddDataset(busData);
        time.AddDataset(measured);
        time.AddDataset(predicted);
    }
    if (RenderPng(bus, dir + "/busbw.png"))
    {
        written.push_back(dir + "/busbw.png");
    }
    if (RenderPng(time, dir + "/time.png"))
    {
        written.push_back(dir + "/time.png");
    }
    return written;
}

} // namespace ns3
