/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FRED against the 2D mesh it replaces on a 20-NPU wafer (Rashidi et al.,
// ISCA 2025): the micro-benchmarks of the paper's evaluation.
//
//  - allreduce: a wafer-wide AllReduce of --bytes per NPU. Mesh: hierarchical
//    2D (rows and columns, two chunks starting in different dimensions);
//    Fred-A/C: hierarchical two-level ring (pipelined chunks); Fred-B/D:
//    in-switch.
//  - groups: the collectives of an MP x DP x PP job (default 2 x 5 x 2, MP on
//    consecutive NPUs, then PP, then DP): every MP group all-reduces, every PP
//    stage sends to the next, every DP group all-reduces; one kind at a time.
//  - mix: the same collectives all at once, each kind on its own class.
//  - io: every I/O controller streams --io-bytes of weights to every NPU.
//  - group: one all-reduce on the NPUs of --ranks (not run by default).
//  - priority: an MP all-reduce and a DP all-reduce sharing NPU 0's ports,
//    alone and together (MP on the highest-priority class).
//
// Effective per-NPU bandwidth is, as in the paper, the bytes an NPU injects
// during the collective divided by the collective's time. Prints one table
// per scenario, writes fred-vs-mesh.csv and fred-vs-mesh.png (a bar chart of
// effective bandwidth per group kind and variant) under --results.
//
//   ./dlnet run fred-vs-mesh
//   ./dlnet run fred-vs-mesh -- --scenarios=allreduce --bytes=256MiB
//   ./dlnet run fred-vs-mesh -- --variants=mesh,fred-d --scenarios=groups --functional --bytes=1MiB

#include "ns3/dlnet-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

using namespace ns3;

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

void
WriteCsv(const std::vector<WaferRow>& rows, const std::string& path)
{
    std::ofstream out(path);
    out << "variant,scenario,group,algorithm,groups,members,time_us,injected_per_npu_bytes,"
           "effective_GBps,paper_GBps,npu_link_bytes,upper_link_bytes,io_link_bytes,io_fraction,"
           "checked\n";
    for (const auto& r : rows)
    {
        auto paper = kPaper.find({r.variant, r.group});
        out << r.variant << ',' << r.scenario << ',' << r.group << ',' << r.algorithm << ','
            << r.groups << ',' << r.members << ',' << ExactText(r.timeUs) << ','
            << ExactText(r.injectedPerNpu) << ',' << ExactText(r.effectiveGBps) << ','
            << (paper == kPaper.end() ? "" : ExactText(paper->second)) << ',' << r.npuLinkBytes
            << ',' << r.upperLinkBytes << ',' << r.ioLinkBytes << ',' << ExactText(r.ioFraction)
            << ',' << (r.checked ? 1 : 0) << '\n';
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

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            auto wallStart = std::chrono::steady_clock::now();
            WaferExperimentConfig config;
            std::string results = "results/fred-vs-mesh";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(WaferOptions(), config, {});
            cmd.AddValue("results", "folder for fred-vs-mesh.csv and fred-vs-mesh.png", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results); // before the simulation, not after
            config.Validate();

            std::vector<WaferRow> rows = RunWaferExperiment(config);

            auto has = [&](const std::string& s)
            {
                return std::find(config.scenarios.begin(), config.scenarios.end(), s)
                       != config.scenarios.end();
            };
            if (has("allreduce"))
            {
                std::printf("\n# Wafer-wide AllReduce, %s per NPU\n",
                            SizeLabel(config.bytes).c_str());
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

            MakeResultsDir(results);
            WriteCsv(rows, results + "/fred-vs-mesh.csv");
            std::printf("\nwrote %s/fred-vs-mesh.csv", results.c_str());
            if (WriteBarChart(rows, config.variants, results + "/fred-vs-mesh.png"))
            {
                std::printf(" and %s/fred-vs-mesh.png", results.c_str());
            }
            double wall
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart)
                      .count();
            std::printf(" (%.1f s wall)\n", wall);
            return 0;
        });
}
