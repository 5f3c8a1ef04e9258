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

nlohmann::json
ToJson(const CollectiveConfig& config)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& o : CollectiveOptions())
    {
        if (TopologyOptionApplies(config.topology.kind, o.name))
        {
            j[o.name] = o.get(config);
        }
    }
    return j;
}

nlohmann::json
ToJson(const CollectiveResult& r)
{
    nlohmann::json j;
    j["topology"] = r.topology;
    j["op"] = r.op;
    j["ranks"] = r.ranks;
    j["model"] = {{"alpha_s", r.model.alpha},
                  {"bandwidth_Bps", r.model.bandwidth},
                  {"alpha2_s", r.model.alpha2},
                  {"dim1_bandwidth_Bps", r.model.dim1Bandwidth},
                  {"dim2_bandwidth_Bps", r.model.dim2Bandwidth},
                  {"grid", {r.model.grid.dim1, r.model.grid.dim2}},
                  {"bidirectional", r.model.grid.bidirectional}};
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows)
    {
        rows.push_back({{"bytes", row.bytes},
                        {"count", row.count},
                        {"type", row.type},
                        {"redop", row.redop},
                        {"algorithm", row.algorithm},
                        {"time_s", row.time},
                        {"algbw_Bps", row.algbw},
                        {"busbw_Bps", row.busbw},
                        {"predicted_s", row.predicted},
                        {"checked", row.checked},
                        {"correct", row.correct},
                        {"max_error", row.maxError},
                        {"packets", row.packets},
                        {"retransmissions", row.retransmissions},
                        {"bytes_up_per_worker", row.bytesUp},
                        {"bytes_down_per_worker", row.bytesDown},
                        {"aggregator_utilisation", row.aggregatorUtilisation},
                        {"events", row.events}});
    }
    j["rows"] = rows;
    return j;
}

void
PrintCollectiveTable(const CollectiveConfig& config, const std::vector<CollectiveResult>& sweeps)
{
    for (const auto& s : sweeps)
    {
        std::printf("\n# %s on %s, %u ranks%s\n",
                    s.op.c_str(),
                    s.topology.c_str(),
                    s.ranks,
                    config.functional ? " (functional: every rank's result checked)" : "");
        std::printf("#%12s %12s %6s %6s %-20s %12s %11s %11s %13s %6s\n",
                    "size",
                    "count",
                    "type",
                    "redop",
                    "algorithm",
                    "time(us)",
                    "algbw(GB/s)",
                    "busbw(GB/s)",
                    "predicted(us)",
                    "check");
        for (const auto& row : s.rows)
        {
            std::printf(" %12llu %12llu %6s %6s %-20s %12.2f %11.2f %11.2f %13.2f %6s\n",
                        static_cast<unsigned long long>(row.bytes),
                        static_cast<unsigned long long>(row.count),
                        row.type.c_str(),
                        row.redop.c_str(),
                        row.algorithm.c_str(),
                        row.time * 1e6,
                        row.algbw / 1e9,
                        row.busbw / 1e9,
                        row.predicted * 1e6,
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
    std::ofstream csv(dir + "/collective.csv");
    if (!csv)
    {
        throw std::runtime_error("cannot write " + dir + "/collective.csv");
    }
    csv << "op,algorithm,ranks,bytes,count,type,redop,time_s,algbw_Bps,busbw_Bps,predicted_s,"
           "checked,correct\n";
    nlohmann::json all = nlohmann::json::array();
    for (const auto& s : sweeps)
    {
        for (const auto& row : s.rows)
        {
            csv << s.op << ',' << row.algorithm << ',' << s.ranks << ',' << row.bytes << ','
                << row.count << ',' << row.type << ',' << row.redop << ',' << ExactText(row.time)
                << ',' << ExactText(row.algbw) << ',' << ExactText(row.busbw) << ','
                << ExactText(row.predicted) << ',' << row.checked << ',' << row.correct << '\n';
        }
        all.push_back(ToJson(s));
    }
    std::ofstream json(dir + "/result.json");
    if (!json)
    {
        throw std::runtime_error("cannot write " + dir + "/result.json");
    }
    nlohmann::json j;
    j["config"] = ToJson(config);
    j["sweeps"] = all;
    json << j.dump(2) << '\n';
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
        Gnuplot2dDataset predicted(name + " model");
        predicted.SetStyle(Gnuplot2dDataset::LINES);
        for (const auto& row : s.rows)
        {
            busData.Add(double(row.bytes), row.busbw / 1e9);
            measured.Add(double(row.bytes), row.time * 1e6);
            predicted.Add(double(row.bytes), row.predicted * 1e6);
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
