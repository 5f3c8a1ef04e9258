/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-training.h"

#include "experiment-options.h"
#include "plot-writer.h"
#include "result-writer.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/model-zoo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetFredTraining");

namespace
{

/// The paper's end-to-end training-time speedups over the mesh (Fred-C, Fred-D).
const std::map<std::string, std::pair<double, double>> kPaper = {
    {"resnet152", {1.41, 1.76}},
    {"transformer-17b", {1.75, 1.87}},
    {"gpt3-175b", {1.34, 1.34}},
    {"transformer-1t", {1.40, 1.40}},
};

bool
IsTransformer(const std::string& workload)
{
    return workload != "resnet152";
}

/// \return the row of (workload, variant), or null
const FredTrainingRow*
Find(const std::vector<FredTrainingRow>& rows,
     const std::string& workload,
     const std::string& variant)
{
    for (const auto& r : rows)
    {
        if (r.workload == workload && r.variant == variant)
        {
            return &r;
        }
    }
    return nullptr;
}

/// A FRED variant's speedup over the mesh against the paper's: only with both
bool
HasDeviation(const FredTrainingRow& r)
{
    return r.speedup > 0 && r.paper > 0 && r.variant != "mesh";
}

} // namespace

const std::vector<std::string>&
FredTrainingWorkloads()
{
    static const std::vector<std::string> names
        = {"resnet152", "transformer-17b", "gpt3-175b", "transformer-1t"};
    return names;
}

const std::vector<std::string>&
FredTrainingVariants()
{
    static const std::vector<std::string> names = {"mesh", "fred-c", "fred-d"};
    return names;
}

void
FredTrainingConfig::Validate() const
{
    if (workloads.empty() || variants.empty())
    {
        throw std::invalid_argument(std::string(workloads.empty() ? "workloads" : "variants")
                                    + ": none; at least one");
    }
    for (const auto& w : workloads)
    {
        dlnet::ParseChoice("workloads", w, FredTrainingWorkloads());
    }
    dlnet::ParseChoice("network", network, {"packet", "flow"});
    for (const auto& v : variants)
    {
        dlnet::ParseChoice("variants", v, FredTrainingVariants());
    }
    if (layers == 1)
    {
        throw std::invalid_argument("layers: got 1; at least 2 (the pipeline has 2 stages), or 0 "
                                    "for every model's full count");
    }
    // taken and ignored: only the transformers are cut to a number of layers
    RefuseInapplicable("layers",
                       layers,
                       FredTrainingConfig().layers,
                       std::any_of(workloads.begin(), workloads.end(), IsTransformer),
                       "to the transformer workloads, and none is chosen");
    for (const auto& w : workloads)
    {
        if (IsTransformer(w) && layers > ZooTransformer(w).layers)
        {
            throw std::invalid_argument("layers: got " + std::to_string(layers) + "; " + w + " has "
                                        + std::to_string(ZooTransformer(w).layers));
        }
    }
    if (iterations < 1)
    {
        throw std::invalid_argument("iterations: got 0; at least 1");
    }
    for (const auto& w : workloads)
    {
        for (const auto& v : variants)
        {
            FredTrainingRun(*this, w, v).Validate(); // mtu and the plans
        }
    }
}

TrainingConfig
FredTrainingRun(const FredTrainingConfig& config,
                const std::string& workload,
                const std::string& variant)
{
    std::string w = dlnet::ParseChoice("workloads", workload, FredTrainingWorkloads());
    std::string v = dlnet::ParseChoice("variants", variant, FredTrainingVariants());
    TrainingConfig c;
    c.topology.kind = v == "mesh" ? "wafer-mesh" : v;
    c.topology.mtu = config.mtu;
    c.topology.given.insert("mtu");
    c.topology.network = config.network;
    c.topology.given.insert("network");
    c.device = "fred-npu";
    c.type = "fp16"; // the paper's fp16 gradients (ResNet's zoo default is fp32)
    c.iterations = config.iterations;
    c.trace = false;
    c.microbatchSize = 16; // 16 samples per replica and iteration, split below
    if (w == "resnet152")
    {
        c.model = "resnet152";
        c.dp = 20;
    }
    else
    {
        TransformerConfig full = ZooTransformer(w);
        uint32_t layers = config.layers == 0 ? full.layers : config.layers;
        c.model = "transformer";
        c.layers = layers;
        c.hidden = full.hidden;
        c.heads = full.heads;
        c.sequence = full.sequence;
        // the embedding keeps its share: the vocabulary scales with the layers (even, so
        // that it splits over 2 tensor-parallel shards)
        uint64_t vocabulary = (full.vocabulary * layers + full.layers - 1) / full.layers;
        c.vocabulary = std::max<uint64_t>(2, vocabulary + vocabulary % 2);
        if (w == "transformer-17b")
        {
            c.tp = 2;
            c.pp = 2;
            c.dp = 5;
            c.zero = 2;
            c.microbatches = 8;
        }
        else if (w == "gpt3-175b")
        {
            c.tp = 2;
            c.pp = 2;
            c.dp = 5;
            c.weightStreaming = true;
            c.microbatches = 2;
        }
        else
        {
            c.dp = 20;
            c.weightStreaming = true;
            c.microbatches = 1;
        }
        c.microbatchSize = 16 / c.microbatches;
    }
    // MP and DP: in the switches on Fred-D; else the hierarchical schedule for the
    // wafer-wide group (2D on the mesh, two-level on Fred-C) and logical rings for subsets.
    std::string dp = v == "fred-d" ? "fred-in-switch" : c.dp == 20 ? "hierarchical" : "ring";
    std::string tp = v == "fred-d" ? "fred-in-switch" : "ring";
    // a backend only where the job communicates (elsewhere a training run refuses it)
    c.backends = {c.tp > 1 ? tp : "auto", c.pp > 1 ? "ring" : "auto", dp, "auto", "auto"};
    return c;
}

double
FredPaperSpeedup(const std::string& workload, const std::string& variant)
{
    if (variant == "mesh")
    {
        return 1;
    }
    auto it = kPaper.find(workload);
    if (it == kPaper.end())
    {
        return 0;
    }
    return variant == "fred-c" ? it->second.first : variant == "fred-d" ? it->second.second : 0;
}

const FieldTable<FredTrainingRow>&
FredTrainingFields()
{
    using R = FredTrainingRow;
    static const FieldTable<R> fields = {
        {"workload",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.workload);
         }},
        {"variant",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.variant);
         }},
        {"layers",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.layers);
         }},
        {"full_layers",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.fullLayers);
         }},
        {"mtu",
         "B",
         [](const R& r)
         {
             return nlohmann::json(r.mtu);
         }},
        {"iteration_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.iterationSeconds);
         }},
        {"compute_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.computeSeconds);
         }},
        {"exposed_tp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.exposedSeconds[size_t(TrainingDimension::TP)]);
         }},
        {"exposed_pp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.exposedSeconds[size_t(TrainingDimension::PP)]);
         }},
        {"exposed_dp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.exposedSeconds[size_t(TrainingDimension::DP)]);
         }},
        {"exposed_ws_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.exposedSeconds[size_t(TrainingDimension::WS)]);
         }},
        {"bubble_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.bubbleSeconds);
         }},
        {"busy_tp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.commSeconds[size_t(TrainingDimension::TP)]);
         }},
        {"busy_pp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.commSeconds[size_t(TrainingDimension::PP)]);
         }},
        {"busy_dp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.commSeconds[size_t(TrainingDimension::DP)]);
         }},
        {"busy_ws_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.job.breakdown.commSeconds[size_t(TrainingDimension::WS)]);
         }},
        {"speedup",
         "",
         [](const R& r)
         {
             // none without the mesh's row (0 would read as a speedup)
             return r.speedup > 0 ? nlohmann::json(r.speedup) : nlohmann::json();
         }},
        {"paper_speedup",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.paper);
         }},
        {"deviation",
         "fraction",
         [](const R& r)
         {
             // from the paper's speedup, where there are both (0 would read as a match)
             return HasDeviation(r) ? nlohmann::json(r.deviation) : nlohmann::json();
         }},
        {"collectives",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.collectives);
         }},
        {"events",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.events);
         }},
        {"network",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.job.network);
         }},
    };
    return fields;
}

std::vector<FredTrainingRow>
RunFredTraining(const FredTrainingConfig& config, const FredTrainingProgress& progress)
{
    config.Validate();
    std::vector<FredTrainingRow> rows;
    for (const auto& w : config.workloads)
    {
        for (const auto& v : config.variants)
        {
            TrainingConfig c = FredTrainingRun(config, w, v);
            TrainingResult result = RunTraining(c);
            FredTrainingRow row;
            row.workload = w;
            row.variant = v;
            row.layers = IsTransformer(w) ? c.layers : 0;
            row.fullLayers = IsTransformer(w) ? ZooTransformer(w).layers : 0;
            row.mtu = config.mtu;
            row.job = result.jobs.at(0);
            row.paper = FredPaperSpeedup(w, v);
            row.collectives = row.job.collectives;
            row.events = result.events;
            row.wallSeconds = result.wallSeconds;
            NS_LOG_INFO(w << " on " << v << ": " << row.job.iterationSeconds << " s per iteration, "
                          << result.wallSeconds << " s of wall time");
            rows.push_back(row);
            if (progress)
            {
                progress(row);
            }
        }
    }
    for (auto& r : rows)
    {
        const FredTrainingRow* mesh = Find(rows, r.workload, "mesh");
        if (mesh && r.job.iterationSeconds > 0)
        {
            r.speedup = mesh->job.iterationSeconds / r.job.iterationSeconds;
            r.deviation = r.paper > 0 ? r.speedup / r.paper - 1 : 0;
        }
    }
    return rows;
}

void
PrintFredTrainingTable(const std::vector<FredTrainingRow>& rows)
{
    std::printf("FRED end-to-end training (per iteration, mean rank; exposed communication per "
                "dimension; %s level)\n",
                rows.empty() ? "-" : rows[0].job.network.c_str());
    std::printf("%-16s %-7s %6s %11s %10s %9s %9s %9s %9s %9s %8s %6s %7s\n",
                "workload",
                "variant",
                "layers",
                "iteration_s",
                "compute_s",
                "tp_s",
                "pp_s",
                "dp_s",
                "ws_s",
                "bubble_s",
                "speedup",
                "paper",
                "dev_%");
    for (const auto& r : rows)
    {
        const TrainingBreakdown& b = r.job.breakdown;
        std::string layers
            = r.layers ? std::to_string(r.layers) + "/" + std::to_string(r.fullLayers) : "all";
        std::string speedup
            = r.speedup > 0 ? dlnet::ShortestText(std::round(r.speedup * 1000) / 1000) : "-";
        char paper[16] = "-";
        char dev[16] = "-";
        if (r.paper > 0 && r.variant != "mesh")
        {
            std::snprintf(paper, sizeof(paper), "%.2f", r.paper);
        }
        if (HasDeviation(r))
        {
            std::snprintf(dev, sizeof(dev), "%+.1f", 100 * r.deviation);
        }
        std::printf("%-16s %-7s %6s %11.5f %10.5f %9.5f %9.5f %9.5f %9.5f %9.5f %8s %6s %7s\n",
                    r.workload.c_str(),
                    r.variant.c_str(),
                    layers.c_str(),
                    r.job.iterationSeconds,
                    b.computeSeconds,
                    b.exposedSeconds[size_t(TrainingDimension::TP)],
                    b.exposedSeconds[size_t(TrainingDimension::PP)],
                    b.exposedSeconds[size_t(TrainingDimension::DP)],
                    b.exposedSeconds[size_t(TrainingDimension::WS)],
                    b.bubbleSeconds,
                    speedup.c_str(),
                    paper,
                    dev);
    }
    // Fred-D against Fred-C (the same links): the in-switch collectives' share of the NPU links
    for (const auto& r : rows)
    {
        const FredTrainingRow* c = Find(rows, r.workload, "fred-c");
        double busy = c ? c->job.breakdown.commSeconds[size_t(TrainingDimension::DP)] : 0;
        if (r.variant == "fred-d" && c && busy > 0 && c->job.iterationSeconds > 0)
        {
            std::printf("%s: fred-d / fred-c: iteration %.4f, DP communication busy %.3f\n",
                        r.workload.c_str(),
                        r.job.iterationSeconds / c->job.iterationSeconds,
                        r.job.breakdown.commSeconds[size_t(TrainingDimension::DP)] / busy);
        }
    }
}

std::vector<std::string>
WriteFredTrainingResults(const FredTrainingConfig& config,
                         const std::vector<FredTrainingRow>& rows,
                         const std::string& dir)
{
    MakeResultsDir(dir);
    std::vector<std::string> written{dir + "/fred-training.csv", dir + "/result.json"};
    WriteCsv(written[0], FredTrainingFields(), rows);
    nlohmann::json j;
    j["config"] = {{"workloads", config.workloads},
                   {"variants", config.variants},
                   {"layers", config.layers},
                   {"mtu", config.mtu},
                   {"iterations", config.iterations},
                   {"network", config.network}};
    j["fields"] = FieldsJson(FredTrainingFields());
    j["rows"] = RowsJson(FredTrainingFields(), rows);
    WriteJson(written[1], j);

    // bars: simulated speedup per workload and FRED variant; points: the paper's
    std::vector<std::string> variants;
    for (const auto& v : config.variants)
    {
        if (v != "mesh")
        {
            variants.push_back(v);
        }
    }
    Gnuplot plot;
    plot.SetTitle("Training-time speedup over the 2D mesh (bars: simulated; points: FRED paper)");
    plot.SetLegend("", "speedup over mesh");
    std::string xtics = "set xtics (";
    double top = 2;
    for (std::size_t k = 0; k < config.workloads.size(); ++k)
    {
        xtics += (k ? ", " : "") + std::string("\"") + config.workloads[k] + "\" "
                 + std::to_string(k);
    }
    plot.AppendExtra(xtics + ")");
    plot.AppendExtra("set xrange [-0.6:" + std::to_string(config.workloads.size() - 0.4) + "]");
    for (const auto& r : rows)
    {
        top = std::max(top, std::max(r.speedup, r.paper));
    }
    plot.AppendExtra("set yrange [0:" + std::to_string(1.25 * top) + "]");
    plot.AppendExtra("set key top center horizontal");
    plot.AppendExtra("set grid ytics");
    Gnuplot2dDataset paper("paper");
    paper.SetStyle(Gnuplot2dDataset::POINTS);
    paper.SetExtra("pt 7 ps 1.2 lc rgb 'black'");
    bool any = false;
    double width = 0.8 / std::max<std::size_t>(1, variants.size());
    for (std::size_t v = 0; v < variants.size(); ++v)
    {
        Gnuplot2dDataset bars(variants[v]);
        bars.SetStyle(Gnuplot2dDataset::IMPULSES);
        bars.SetExtra("lw 20");
        for (std::size_t k = 0; k < config.workloads.size(); ++k)
        {
            double x = k - 0.4 + width * (v + 0.5);
            const FredTrainingRow* r = Find(rows, config.workloads[k], variants[v]);
            if (r && r->speedup > 0)
            {
                bars.Add(x, r->speedup);
                paper.Add(x, r->paper);
                any = true;
            }
        }
        plot.AddDataset(bars);
    }
    plot.AddDataset(paper);
    std::string png = dir + "/fred-training.png";
    if (any && RenderPng(plot, png))
    {
        written.push_back(png);
    }
    return written;
}

} // namespace ns3
