/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "wafer-writer.h"

#include "plot-writer.h"
#include "result-writer.h"

#include "ns3/gnuplot.h"
#include "ns3/log.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetWaferWriter");

namespace
{

/// The paper's effective per-NPU bandwidths (GB/s), by (variant, group kind).
const std::map<std::pair<std::string, std::string>, double> kPaper = {
    {{"mesh", "wafer"}, 1500},
    {{"fred-a", "wafer"}, 1850},
    {{"fred-b", "wafer"}, 1500},
    {{"fred-c", "wafer"}, 3000},
    {{"fred-d", "wafer"}, 3000},
    {{"mesh", "MP"}, 750},
    {{"mesh", "PP"}, 750},
    {{"mesh", "DP"}, 750},
    {{"fred-a", "MP"}, 3000},
    {{"fred-a", "PP"}, 3000},
    {{"fred-a", "DP"}, 375},
    {{"fred-b", "MP"}, 3000},
    {{"fred-b", "PP"}, 3000},
    {{"fred-c", "MP"}, 3000},
    {{"fred-c", "PP"}, 3000},
    {{"fred-d", "MP"}, 3000},
    {{"fred-d", "PP"}, 3000},
};

std::string
PaperText(const WaferRow& r)
{
    auto it = kPaper.find({r.variant, r.group});
    if (it == kPaper.end())
    {
        return "     -          -";
    }
    char buf[64];
    std::snprintf(
        buf, sizeof buf, "%6.0f  %+8.1f%%", it->second, 100.0 * (r.effectiveGBps / it->second - 1));
    return buf;
}

const WaferRow*
Find(const std::vector<WaferRow>& rows,
     const std::string& variant,
     const std::string& scenario,
     const std::string& group)
{
    for (const auto& r : rows)
    {
        if (r.variant == variant && r.scenario == scenario && r.group == group)
        {
            return &r;
        }
    }
    return nullptr;
}

void
PrintBandwidthTable(const std::vector<WaferRow>& rows, const std::string& scenario)
{
    std::printf("%-7s %-5s %-21s %6s %11s %10s %9s %6s %9s %12s %11s %s\n",
                "variant",
                "group",
                "algorithm",
                "groups",
                "time(us)",
                "inj/NPU MB",
                "eff GB/s",
                "paper",
                "diff",
                "NPU-link MB",
                "upper MB",
                "check");
    for (const auto& r : rows)
    {
        if (r.scenario != scenario)
        {
            continue;
        }
        std::printf("%-7s %-5s %-21s %6u %11.2f %10.3f %9.1f %s %12.1f %11.1f %s\n",
                    r.variant.c_str(),
                    r.group.c_str(),
                    r.algorithm.c_str(),
                    r.groups,
                    r.timeUs,
                    r.injectedPerNpu / 1e6,
                    r.effectiveGBps,
                    PaperText(r).c_str(),
                    r.npuLinkBytes / 1e6,
                    r.upperLinkBytes / 1e6,
                    r.checked ? "exact" : "-");
    }
}

/// In-switch against endpoint traffic: B against A, D against C.
void
PrintTrafficComparison(const std::vector<WaferRow>& rows,
                       const std::string& scenario,
                       const std::string& group)
{
    for (auto [inSwitch, endpoint] :
         {std::pair<std::string, std::string>{"fred-b", "fred-a"}, {"fred-d", "fred-c"}})
    {
        const WaferRow* s = Find(rows, inSwitch, scenario, group);
        const WaferRow* e = Find(rows, endpoint, scenario, group);
        if (s && e)
        {
            double sb = s->npuLinkBytes + s->upperLinkBytes;
            double eb = e->npuLinkBytes + e->upperLinkBytes;
            std::printf("  %s %s: bytes on links %s / %s = %.3f; injected per NPU %.3f "
                        "(%.1f%% lower)\n",
                        group.c_str(),
                        scenario.c_str(),
                        inSwitch.c_str(),
                        endpoint.c_str(),
                        sb / eb,
                        s->injectedPerNpu / e->injectedPerNpu,
                        100.0 * (1 - s->injectedPerNpu / e->injectedPerNpu));
        }
    }
}

/// Bars of effective bandwidth: one cluster per group kind, one bar per variant.
bool
WriteBarChart(const std::vector<WaferRow>& rows,
              const std::vector<std::string>& variants,
              const std::string& path)
{
    const std::vector<std::pair<std::string, std::string>> kinds
        = {{"allreduce", "wafer"}, {"groups", "MP"}, {"groups", "PP"}, {"groups", "DP"}};
    Gnuplot plot;
    plot.SetTitle("Effective per-NPU bandwidth (bars: simulated; points: FRED paper)");
    plot.SetLegend("", "GB/s");
    std::string xtics = "set xtics (";
    for (std::size_t k = 0; k < kinds.size(); ++k)
    {
        xtics += (k ? ", " : "") + std::string("\"")
                 + (kinds[k].second == "wafer" ? "wafer AllReduce" : kinds[k].second) + "\" "
                 + std::to_string(k);
    }
    plot.AppendExtra(xtics + ")");
    plot.AppendExtra("set xrange [-0.6:" + std::to_string(kinds.size() - 0.4) + "]");
    double top = 0;
    for (const auto& r : rows)
    {
        top = std::max(top, r.effectiveGBps);
    }
    for (const auto& [key, value] : kPaper)
    {
        top = std::max(top, value);
    }
    // room above the tallest bar or point, so that none sits on the frame
    plot.AppendExtra("set yrange [0:" + std::to_string(1.1 * top) + "]");
    plot.AppendExtra("set key top left");
    plot.AppendExtra("set grid ytics");
    double width = 0.8 / variants.size();
    bool any = false;
    Gnuplot2dDataset paper("paper");
    paper.SetStyle(Gnuplot2dDataset::POINTS);
    paper.SetExtra("pt 7 ps 1.2 lc rgb 'black'");
    for (std::size_t v = 0; v < variants.size(); ++v)
    {
        Gnuplot2dDataset bars(variants[v]);
        bars.SetStyle(Gnuplot2dDataset::IMPULSES);
        bars.SetExtra("lw 14");
        for (std::size_t k = 0; k < kinds.size(); ++k)
        {
            double x = k - 0.4 + width * (v + 0.5);
            if (const WaferRow* r = Find(rows, variants[v], kinds[k].first, kinds[k].second))
            {
                bars.Add(x, r->effectiveGBps);
                any = true;
                auto p = kPaper.find({variants[v], kinds[k].second});
                if (p != kPaper.end())
                {
                    paper.Add(x, p->second);
                }
            }
        }
        plot.AddDataset(bars);
    }
    plot.AddDataset(paper);
    return any && RenderPng(plot, path);
}

/// The columns of a statistics table: the simulation's (variant, scenario, group), the item's.
template <typename Item>
FieldTable<WaferStatsRow<Item>>
WaferStatsFields(const FieldTable<Item>& items)
{
    using R = WaferStatsRow<Item>;
    using J = nlohmann::json;
    // clang-format off
    FieldTable<R> fields = {
        {"variant", "", [](const R& r) { return J(r.run.variant); }},
        {"scenario", "", [](const R& r) { return J(r.run.scenario); }},
        {"group", "", [](const R& r) { return J(r.run.group); }},
    };
    // clang-format on
    AppendFields(fields,
                 items,
                 [](const R& r) -> const Item&
                 {
                     return r.item;
                 });
    return fields;
}

/// \return every simulation's items of one kind (links, switches or ranks), run by run
template <typename Item>
std::vector<WaferStatsRow<Item>>
StatsRows(const WaferResult& result, std::vector<Item> WaferRunStats::*items)
{
    std::vector<WaferStatsRow<Item>> rows;
    for (const auto& run : result.runs)
    {
        for (const auto& item : run.*items)
        {
            rows.push_back({run, item});
        }
    }
    return rows;
}

} // namespace

const FieldTable<WaferLinkRow>&
WaferLinkFields()
{
    static const auto fields = WaferStatsFields(LinkFields());
    return fields;
}

const FieldTable<WaferSwitchRow>&
WaferSwitchFields()
{
    static const auto fields = WaferStatsFields(SwitchFields());
    return fields;
}

const FieldTable<WaferRankRow>&
WaferRankFields()
{
    static const auto fields = WaferStatsFields(RankFields());
    return fields;
}

std::optional<double>
PaperGBps(const std::string& variant, const std::string& group)
{
    auto it = kPaper.find({variant, group});
    if (it == kPaper.end())
    {
        return std::nullopt;
    }
    return it->second;
}

const FieldTable<WaferRow>&
WaferFields()
{
    using R = WaferRow;
    using J = nlohmann::json;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<R> fields = {
        {"variant", "", [](const R& r) { return J(r.variant); }},
        {"scenario", "", [](const R& r) { return J(r.scenario); }},
        {"group", "", [](const R& r) { return J(r.group); }},
        {"algorithm", "", [](const R& r) { return J(r.algorithm); }},
        {"groups", "", [](const R& r) { return J(r.groups); }},
        {"members", "", [](const R& r) { return J(r.members); }},
        {"time_us", "us", [](const R& r) { return J(r.timeUs); }},
        {"injected_per_npu_bytes", "B", [](const R& r) { return J(r.injectedPerNpu); }},
        {"effective_GBps", "GB/s", [](const R& r) { return J(r.effectiveGBps); }},
        {"paper_GBps",
         "GB/s",
         [](const R& r)
         {
             auto paper = PaperGBps(r.variant, r.group);
             return paper ? J(*paper) : J(nullptr);
         }},
        {"npu_link_bytes", "B", [](const R& r) { return J(r.npuLinkBytes); }},
        {"upper_link_bytes", "B", [](const R& r) { return J(r.upperLinkBytes); }},
        {"io_link_bytes", "B", [](const R& r) { return J(r.ioLinkBytes); }},
        {"io_fraction", "fraction", [](const R& r) { return J(r.ioFraction); }},
        {"checked", "", [](const R& r) { return J(r.checked); }},
        // columns after "checked" were added to fred-vs-mesh.csv with the field table
        {"time_s", "s", [](const R& r) { return J(r.time); }},
        {"network", "", [](const R& r) { return J(r.network); }},
    };
    // clang-format on
    return fields;
}

nlohmann::json
ToJson(const WaferExperimentConfig& config)
{
    return ConfigJson(WaferOptions(), config);
}

nlohmann::json
ToJson(const WaferExperimentConfig& config, const WaferResult& result)
{
    nlohmann::json j = {{"config", ToJson(config)}, {"rows", RowsJson(WaferFields(), result.rows)}};
    if (config.stats)
    {
        j["links"] = RowsJson(WaferLinkFields(), StatsRows(result, &WaferRunStats::links));
        j["switches"] = RowsJson(WaferSwitchFields(), StatsRows(result, &WaferRunStats::switches));
        j["ranks"] = RowsJson(WaferRankFields(), StatsRows(result, &WaferRunStats::ranks));
    }
    return j;
}

void
PrintWaferTables(const WaferExperimentConfig& config, const WaferResult& result)
{
    const std::vector<WaferRow>& rows = result.rows;
    auto has = [&](const std::string& s)
    {
        return std::find(config.scenarios.begin(), config.scenarios.end(), s)
               != config.scenarios.end();
    };
    std::printf("\n# network: %s level\n", config.wafer.network.c_str());
    if (has("allreduce"))
    {
        std::printf("\n# Wafer-wide AllReduce, %s per NPU\n", SizeLabel(config.bytes).c_str());
        PrintBandwidthTable(rows, "allreduce");
        PrintTrafficComparison(rows, "allreduce", "wafer");
    }
    if (has("group"))
    {
        std::printf("\n# All-reduce of %s on the group %s\n",
                    SizeLabel(config.bytes).c_str(),
                    config.ranks.empty() ? "of all NPUs" : config.ranks.c_str());
        PrintBandwidthTable(rows, "group");
    }
    if (has("groups"))
    {
        std::printf("\n# MP(%u)-DP(%u)-PP(%u) group collectives, %s per NPU (one kind at "
                    "a time, all its groups at once)\n",
                    config.mp,
                    config.dp,
                    config.pp,
                    SizeLabel(config.bytes).c_str());
        PrintBandwidthTable(rows, "groups");
        PrintTrafficComparison(rows, "groups", "DP");
    }
    if (has("mix"))
    {
        std::printf("\n# The same job with every MP, PP and DP collective at once (MP "
                    "class 0 > PP 1 > DP 2)\n");
        PrintBandwidthTable(rows, "mix");
    }
    if (has("io"))
    {
        std::printf("\n# Weight streaming: every I/O controller sends %s to every NPU\n",
                    SizeLabel(config.ioBytes).c_str());
        std::printf("%-7s %-20s %8s %11s %12s %12s\n",
                    "variant",
                    "how",
                    "streams",
                    "time(us)",
                    "GB/s/stream",
                    "x I/O rate");
        for (const auto& r : rows)
        {
            if (r.scenario == "io")
            {
                std::printf("%-7s %-20s %8u %11.2f %12.2f %12.3f\n",
                            r.variant.c_str(),
                            r.algorithm.c_str(),
                            r.groups,
                            r.timeUs,
                            r.effectiveGBps,
                            r.ioFraction);
            }
        }
    }
    if (has("priority"))
    {
        std::printf("\n# Priority: MP all-reduce (%s, class 0) and DP all-reduce (%s, "
                    "class 2) sharing NPU 0\n",
                    SizeLabel(config.bytes / 4).c_str(),
                    SizeLabel(config.bytes).c_str());
        std::printf("%-7s %14s %14s %9s %14s %14s %9s\n",
                    "variant",
                    "MP alone(us)",
                    "MP w/ DP(us)",
                    "MP ratio",
                    "DP alone(us)",
                    "DP w/ MP(us)",
                    "DP ratio");
        for (const auto& v : config.variants)
        {
            const WaferRow* ma = Find(rows, v, "priority", "MP-alone");
            const WaferRow* mw = Find(rows, v, "priority", "MP-with-DP");
            const WaferRow* da = Find(rows, v, "priority", "DP-alone");
            const WaferRow* dw = Find(rows, v, "priority", "DP-with-MP");
            if (ma && mw && da && dw)
            {
                std::printf("%-7s %14.2f %14.2f %9.4f %14.2f %14.2f %9.4f\n",
                            v.c_str(),
                            ma->timeUs,
                            mw->timeUs,
                            mw->timeUs / ma->timeUs,
                            da->timeUs,
                            dw->timeUs,
                            dw->timeUs / da->timeUs);
            }
        }
    }
}

std::vector<std::string>
WriteWaferResults(const WaferExperimentConfig& config,
                  const WaferResult& result,
                  const std::string& dir)
{
    MakeResultsDir(dir);
    std::vector<std::string> written{dir + "/fred-vs-mesh.csv", dir + "/result.json"};
    WriteCsv(written[0], WaferFields(), result.rows);
    WriteJson(written[1], ToJson(config, result));
    if (config.stats)
    {
        written.push_back(dir + "/links.csv");
        WriteCsv(written.back(), WaferLinkFields(), StatsRows(result, &WaferRunStats::links));
        written.push_back(dir + "/switches.csv");
        WriteCsv(written.back(), WaferSwitchFields(), StatsRows(result, &WaferRunStats::switches));
        written.push_back(dir + "/ranks.csv");
        WriteCsv(written.back(), WaferRankFields(), StatsRows(result, &WaferRunStats::ranks));
    }
    if (WriteBarChart(result.rows, config.variants, dir + "/fred-vs-mesh.png"))
    {
        written.push_back(dir + "/fred-vs-mesh.png");
    }
    return written;
}

} // namespace ns3
