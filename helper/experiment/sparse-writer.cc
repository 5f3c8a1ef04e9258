/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "sparse-writer.h"

#include "plot-writer.h"
#include "result-writer.h"

#include "ns3/gnuplot.h"
#include "ns3/log.h"
#include "ns3/sparsity.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetSparseWriter");

namespace
{

/// Text of a rate for file names: 100Gbps -> 100Gbps, 2.5Gbps -> 2_5Gbps.
std::string
FileSafe(std::string text)
{
    for (auto& ch : text)
    {
        if (!std::isalnum(static_cast<unsigned char>(ch)))
        {
            ch = '_';
        }
    }
    return text;
}

/// A value that applies to omnireduce rows only (null, an empty cell, elsewhere).
nlohmann::json
SparseOnly(const SparseRow& r, double v)
{
    return r.algorithm == "omnireduce" ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace

const FieldTable<SparseRow>&
SparseFields()
{
    using R = SparseRow;
    using J = nlohmann::json;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<R> fields = {
        {"rate", "", [](const R& r) { return J(r.rate); }},
        {"rate_bps", "bit/s", [](const R& r) { return J(r.rateBps); }},
        {"workers", "", [](const R& r) { return J(r.workers); }},
        {"aggregators", "", [](const R& r) { return J(r.aggregators); }},
        {"aggregator_placement", "", [](const R& r) { return J(r.aggregatorPlacement); }},
        {"placement", "", [](const R& r) { return J(r.placement); }},
        {"algorithm", "", [](const R& r) { return J(r.algorithm); }},
        {"density", "fraction", [](const R& r) { return SparseOnly(r, r.density); }},
        {"union_density", "fraction", [](const R& r) { return SparseOnly(r, r.unionDensity); }},
        {"bytes", "B", [](const R& r) { return J(r.bytes); }},
        {"block_elements", "", [](const R& r) { return J(r.blockElements); }},
        {"message_blocks", "", [](const R& r) { return J(r.messageBlocks); }},
        {"loss_rate", "fraction", [](const R& r) { return J(r.lossRate); }},
        {"time_s", "s", [](const R& r) { return J(r.run.time); }},
        {"bound_s", "s", [](const R& r) { return J(r.run.bound); }},
        {"speedup_over_ring", "", [](const R& r) { return J(r.speedupOverRing); }},
        {"packets", "", [](const R& r) { return J(r.run.packets); }},
        {"retransmissions", "", [](const R& r) { return J(r.run.retransmissions); }},
        {"bytes_up_per_worker", "B", [](const R& r) { return J(r.run.bytesUp); }},
        {"bytes_down_per_worker", "B", [](const R& r) { return J(r.run.bytesDown); }},
        {"aggregator_utilisation", "fraction", [](const R& r) { return J(r.run.aggregatorUtilisation); }},
        {"checked", "", [](const R& r) { return J(r.run.checked); }},
        {"correct", "", [](const R& r) { return J(r.run.correct); }},
        {"max_error", "", [](const R& r) { return J(r.run.maxError); }},
        {"network", "", [](const R& r) { return J(r.run.network); }},
    };
    // clang-format on
    return fields;
}

nlohmann::json
ToJson(const SparseConfig& config)
{
    return ConfigJson(SparseOptions(), config);
}

nlohmann::json
ToJson(const SparseConfig& config, const SparseResult& result)
{
    return {{"config", ToJson(config)}, {"rows", RowsJson(SparseFields(), result.rows)}};
}

void
PrintSparseHeader(const SparseConfig& config)
{
    const CollectiveConfig& base = config.base;
    uint64_t bytes = config.TensorBytes();
    std::string loss
        = config.loss > 0 ? ", lossy fabric, loss rate " + ToJson(config)["loss"].get<std::string>()
                          : "";
    const uint64_t elements = bytes / 4;
    const uint64_t blocks = SparsityBlocks(bytes, base.blockElements);
    std::printf("# sparse AllReduce of a %s float32 tensor (%llu element%s, %llu block%s "
                "of %u), %s placement, aggregators on %s, %u block%s per packet, mtu %u%s, %s "
                "level\n",
                config.TensorText().c_str(),
                static_cast<unsigned long long>(elements),
                elements == 1 ? "" : "s",
                static_cast<unsigned long long>(blocks),
                blocks == 1 ? "" : "s",
                base.blockElements,
                config.placement.c_str(),
                base.aggregatorPlacement.c_str(),
                base.messageBlocks,
                base.messageBlocks == 1 ? "" : "s",
                base.topology.mtu,
                loss.c_str(),
                base.topology.network.c_str());
    std::fflush(stdout);
}

void
PrintSparseGroup(const SparseConfig& config, const std::vector<SparseRow>& group, double wall)
{
    const SparseRow& ring = group.at(0);
    const SparseRow& sml = group.at(1);
    bool lossy = config.loss > 0;
    bool checking = config.base.functional;
    std::printf("\n# %s, N = %u workers, A = %u aggregators (%s)\n",
                ring.rate.c_str(),
                ring.workers,
                ring.aggregators,
                config.base.aggregatorPlacement.c_str());
    std::printf("# ring %.3f ms (model %.3f), switchml %.3f ms (model %.3f); "
                "ring/switchml %.3f, 2(N-1)/N = %.3f\n",
                ring.run.time * 1e3,
                ring.run.bound * 1e3,
                sml.run.time * 1e3,
                sml.run.bound * 1e3,
                ring.run.time / sml.run.time,
                2.0 * (ring.workers - 1) / ring.workers);
    std::printf("#%8s %8s %15s %9s %12s %10s %12s",
                "density",
                "d_union",
                "omnireduce(ms)",
                "ring(ms)",
                "switchml(ms)",
                "x ring",
                "model(ms)");
    if (lossy)
    {
        std::printf(" %8s", "retx");
    }
    if (checking)
    {
        std::printf(" %6s", "check");
    }
    std::printf("\n");
    for (std::size_t i = 2; i < group.size(); ++i)
    {
        const SparseRow& p = group[i];
        std::printf(" %8g %8.4f %15.3f %9.3f %12.3f %10.2f %12.3f",
                    p.density,
                    p.unionDensity,
                    p.run.time * 1e3,
                    ring.run.time * 1e3,
                    sml.run.time * 1e3,
                    ring.run.time / p.run.time,
                    p.run.bound * 1e3);
        if (lossy)
        {
            std::printf(" %8llu", static_cast<unsigned long long>(p.run.retransmissions));
        }
        if (checking)
        {
            std::printf(" %6s", p.run.checked ? (p.run.correct ? "ok" : "WRONG") : "-");
        }
        std::printf("\n");
    }
    if (lossy || checking)
    {
        std::printf("# ring: %s%s; switchml: %llu retransmissions%s\n",
                    lossy ? "lossy fabric, endpoint retransmission" : "lossless",
                    checking ? (ring.run.correct ? ", check ok" : ", check WRONG") : "",
                    static_cast<unsigned long long>(sml.run.retransmissions),
                    checking ? (sml.run.correct ? ", check ok" : ", check WRONG") : "");
    }
    std::printf("# %.1f s wall\n", wall);
    std::fflush(stdout);
}

std::vector<std::string>
WriteSparseResults(const SparseConfig& config,
                   const SparseResult& result,
                   const std::string& results)
{
    MakeResultsDir(results);
    std::vector<std::string> written{results + "/sparse-allreduce.csv", results + "/result.json"};
    WriteCsv(written[0], SparseFields(), result.rows);
    WriteJson(written[1], ToJson(config, result));

    const CollectiveConfig& base = config.base;
    const std::string tensor = config.TensorText();
    const std::vector<double> ds = config.Densities();
    const std::vector<uint32_t> ns = config.Workers();
    const std::vector<std::string> rs = config.Rates();
    const SparsityPlacement where = ParseSparsityPlacement("placement", config.placement);
    // one plot per rate: time against density; omnireduce per N, ring
    // and switchml flat (they send the dense tensor)
    const char* colours[]
        = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    double dmin = *std::min_element(ds.begin(), ds.end());
    double dmax = *std::max_element(ds.begin(), ds.end());
    bool logX = dmin > 0 && dmax > dmin;
    for (const auto& rate : rs)
    {
        // switchml is flat in N: one black line when every N gives the same time
        double smlLo = INFINITY;
        double smlHi = 0;
        for (const auto& p : result.rows)
        {
            if (p.rate == rate && p.algorithm == "switchml")
            {
                smlLo = std::min(smlLo, p.run.time);
                smlHi = std::max(smlHi, p.run.time);
            }
        }
        bool oneSwitchml = ns.size() > 1 && smlHi <= smlLo * 1.005;
        Gnuplot plot;
        std::string who
            = base.aggregatorPlacement == "switch"
                  ? "aggregation in the switch"
                  : (base.aggregators ? "A = " + std::to_string(base.aggregators) : "A = N")
                        + (base.aggregatorPlacement == "servers" ? " aggregator servers"
                                                                 : " aggregators on the workers");
        plot.SetTitle("AllReduce of " + tensor + " float32, star at " + rate + ", "
                      + ToString(where) + " placement, " + who);
        plot.SetLegend("block density d (non-zero blocks per worker)", "time (ms)");
        std::string extra = "set grid\nset key outside right top\nset logscale y\n";
        if (logX)
        {
            extra += "set logscale x\nset xrange [" + ExactText(dmin / 1.25) + ":"
                     + ExactText(dmax * 1.25) + "]\n";
        }
        plot.AppendExtra(extra);
        double x0 = logX ? dmin / 1.25 : dmin;
        double x1 = logX ? dmax * 1.25 : dmax;
        for (std::size_t k = 0; k < ns.size(); ++k)
        {
            uint32_t n = ns[k];
            std::string colour = colours[k % 8];
            Gnuplot2dDataset omni("omnireduce N=" + std::to_string(n));
            omni.SetStyle(Gnuplot2dDataset::LINES_POINTS);
            omni.SetExtra("lc rgb '" + colour + "' lw 2 pt 7");
            Gnuplot2dDataset model("model N=" + std::to_string(n));
            model.SetStyle(Gnuplot2dDataset::LINES);
            model.SetExtra("lc rgb '" + colour + "' lw 1 dt 3");
            Gnuplot2dDataset ringLine("ring N=" + std::to_string(n));
            ringLine.SetStyle(Gnuplot2dDataset::LINES);
            ringLine.SetExtra("lc rgb '" + colour + "' lw 2 dt 2");
            Gnuplot2dDataset smlLine("switchml N=" + std::to_string(n));
            smlLine.SetStyle(Gnuplot2dDataset::LINES);
            smlLine.SetExtra("lc rgb '" + colour + "' lw 2 dt 4");
            std::vector<std::pair<double, double>> omniPoints;
            std::vector<std::pair<double, double>> modelPoints;
            for (const auto& p : result.rows)
            {
                if (p.rate != rate || p.workers != n)
                {
                    continue;
                }
                if (p.algorithm == "ring")
                {
                    ringLine.Add(x0, p.run.time * 1e3);
                    ringLine.Add(x1, p.run.time * 1e3);
                }
                else if (p.algorithm == "switchml")
                {
                    smlLine.Add(x0, p.run.time * 1e3);
                    smlLine.Add(x1, p.run.time * 1e3);
                }
                else
                {
                    omniPoints.emplace_back(p.density, p.run.time * 1e3);
                    modelPoints.emplace_back(p.density, p.run.bound * 1e3);
                }
            }
            std::sort(omniPoints.begin(), omniPoints.end());
            std::sort(modelPoints.begin(), modelPoints.end());
            for (const auto& [x, y] : omniPoints)
            {
                if (!logX || x > 0)
                {
                    omni.Add(x, y);
                }
            }
            for (const auto& [x, y] : modelPoints)
            {
                if (!logX || x > 0)
                {
                    model.Add(x, y);
                }
            }
            plot.AddDataset(omni);
            plot.AddDataset(model);
            plot.AddDataset(ringLine);
            if (!oneSwitchml)
            {
                plot.AddDataset(smlLine);
            }
        }
        if (oneSwitchml)
        {
            Gnuplot2dDataset smlLine("switchml, every N");
            smlLine.SetStyle(Gnuplot2dDataset::LINES);
            smlLine.SetExtra("lc rgb 'black' lw 2 dt 4");
            smlLine.Add(x0, smlHi * 1e3);
            smlLine.Add(x1, smlHi * 1e3);
            plot.AddDataset(smlLine);
        }
        std::string png = results + "/time-vs-density-" + FileSafe(rate) + ".png";
        if (RenderPng(plot, png))
        {
            written.push_back(png);
        }
    }
    return written;
}

} // namespace ns3
