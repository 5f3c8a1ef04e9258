/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "megatron-scaling.h"

#include "experiment-options.h"
#include "plot-writer.h"
#include "result-writer.h"
#include "simulation-scope.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MegatronScaling");

uint32_t
MegatronRow::Dp() const
{
    return gpus / (tp * pp);
}

uint32_t
MegatronRow::Microbatches() const
{
    return batch / (Dp() * microbatch);
}

uint32_t
MegatronRow::VirtualStages() const
{
    return layersPerVirtualStage == 0 ? 1 : layers / (pp * layersPerVirtualStage);
}

const std::vector<MegatronRow>&
MegatronTable()
{
    // {name, params, heads, hidden, layers, TP, PP, GPUs, batch, TFLOP/s per GPU} from Table 1;
    // {MBS, layers per virtual stage, DDP=local} from run_table_1.sh
    static const std::vector<MegatronRow> rows = {
        {"1.7B", 1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 16, 0, false},
        {"3.6B", 3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 16, 0, false},
        {"7.5B", 7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 16, 0, false},
        {"18B", 18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 8, 0, false},
        {"39B", 39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 4, 0, true},
        {"76B", 76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 2, 5, true},
        {"145B", 145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 2, 5, true},
        {"310B", 310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 1, 3, true},
        {"530B", 529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 1, 1, true},
        {"1T", 1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 1, 0, true},
    };
    return rows;
}

std::vector<MegatronRow>
ParseMegatronRows(const std::string& field, const std::string& text)
{
    std::vector<std::string> allowed = {"all"};
    for (const auto& row : MegatronTable())
    {
        allowed.push_back(row.name);
    }
    std::vector<MegatronRow> out;
    // a row twice ran twice: all with a row (two spellings of a row are ParseList's)
    auto add = [&](const MegatronRow& row)
    {
        for (const auto& r : out)
        {
            if (r.name == row.name)
            {
                throw std::invalid_argument(field + ": row " + row.name
                                            + " is listed twice (all is every row); give each "
                                              "row once");
            }
        }
        out.push_back(row);
    };
    for (const auto& item : dlnet::ParseList(field, text, allowed, true))
    {
        for (const auto& row : MegatronTable())
        {
            if (item == "all" || item == row.name)
            {
                add(row);
            }
        }
    }
    return out;
}

double
MegatronFlops(const MegatronRow& row)
{
    const double b = row.batch;
    const double s = MEGATRON_SEQUENCE;
    const double l = row.layers;
    const double h = row.hidden;
    const double v = MEGATRON_VOCABULARY;
    return 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
}

double
MegatronSettings::ParseEfficiency(const std::string& text)
{
    return dlnet::ParseReal("efficiency", text, MEGATRON_MIN_EFFICIENCY, 1);
}

double
MegatronSettings::ParseMemoryGBps(const std::string& text)
{
    return dlnet::ParseReal(
        "memory-bandwidth", text, MEGATRON_MIN_MEMORY_GBPS, MEGATRON_MAX_MEMORY_GBPS);
}

void
MegatronSettings::CheckRows(const std::vector<MegatronRow>& rows) const
{
    // what the rows have between them
    bool tp = false;
    bool pp = false;
    bool tpAndPp = false;
    bool interleaved = false;
    bool localDdp = false;
    bool pytorchDdp = false;
    for (const auto& r : rows)
    {
        tp = tp || r.tp > 1;
        pp = pp || r.pp > 1;
        tpAndPp = tpAndPp || (r.tp > 1 && r.pp > 1);
        interleaved = interleaved || r.layersPerVirtualStage > 0;
        localDdp = localDdp || r.localDdp;
        pytorchDdp = pytorchDdp || !r.localDdp;
    }
    const MegatronSettings defaults;
    auto flag = [](const std::string& field,
                   bool value,
                   bool fallback,
                   bool applies,
                   const std::string& where)
    {
        RefuseInapplicable(
            field, value, fallback, applies, where + ", and none of the rows has one");
    };
    flag("scatter-gather",
         scatterGather,
         defaults.scatterGather,
         tpAndPp,
         "to rows with both TP and PP");
    flag("blocking-sends", blockingSends, defaults.blockingSends, pp, "to rows with PP");
    flag("send-with-backward",
         sendWithBackward,
         defaults.sendWithBackward,
         interleaved,
         "to rows with the interleaved schedule");
    // (off beside blocking-sends=false is taken: both off is what the user asks for)
    flag("rendezvous", rendezvous, defaults.rendezvous, pp, "to the sends of rows with PP");
    flag("vocab-all-reduces", vocabAllReduces, defaults.vocabAllReduces, tp, "to rows with TP");
    flag("tied-embedding", tiedEmbedding, defaults.tiedEmbedding, pp, "to rows with PP");
    flag("local-ddp-copies",
         localDdpCopies,
         defaults.localDdpCopies,
         localDdp,
         "to rows with Megatron-LM's local DDP");
    flag("ddp-bucket-copies",
         ddpBucketCopies,
         defaults.ddpBucketCopies,
         pytorchDdp,
         "to rows with PyTorch DDP");
}

void
MegatronSettings::Validate() const
{
    // the command line's parsers, so that a setting from code fails as the same option would
    ParseEfficiency(dlnet::ShortestText(efficiency));
    ParseMemoryGBps(dlnet::ShortestText(memoryGBps));
    dlnet::ParseRate("nvlink-rate", nvlinkRate, MEGATRON_MIN_NVLINK_BPS);
    dlnet::ParseChoice("network", network, {"packet", "flow"});
    dlnet::ParseReal("overlap-slowdown", dlnet::ShortestText(overlapSlowdown), 0, 100);
    if (ncclLatency)
    {
        // MegatronTrainingConfig sets them after the environment's: theirs would be lost
        for (const auto& [name, value] : EnvironmentNs3Attributes())
        {
            if (name == "ns3::CollectiveEngine::LaunchLatency"
                || name == "ns3::CollectiveEngine::StepLatency"
                || name == "ns3::CollectiveEngine::NetworkStepLatency")
            {
                throw std::invalid_argument("NS_ATTRIBUTE_DEFAULT: " + name
                                            + ": nccl-latency (true) sets it to NCCL 2.8's "
                                              "latency; set nccl-latency to false to give your "
                                              "own");
            }
        }
    }
}

TrainingConfig
MegatronTrainingConfig(const MegatronRow& row, const MegatronSettings& settings)
{
    TrainingConfig c;
    c.model = "transformer";
    c.layers = row.layers;
    c.hidden = row.hidden;
    c.heads = row.heads;
    c.sequence = MEGATRON_SEQUENCE;
    c.vocabulary = MEGATRON_VOCABULARY;
    c.type = "fp16";
    c.device = "a100";
    c.efficiency = settings.efficiency;
    c.memoryGBps = settings.memoryGBps;
    c.overlapSlowdown = settings.overlapSlowdown;
    c.computeModel = "kernels";
    c.tp = row.tp;
    c.pp = row.pp;
    c.dp = row.Dp();
    c.microbatchSize = row.microbatch;
    c.microbatches = row.Microbatches();
    c.schedule = row.layersPerVirtualStage > 0 ? "interleaved" : "1f1b";
    c.virtualStages = row.VirtualStages();
    c.recompute = true;
    // each flag only where the row has what it shapes (elsewhere a training run refuses it)
    const bool tp = row.tp > 1;
    const bool pp = row.pp > 1;
    c.tpLockstep = tp; // the shards of a layer start together (scatter-gather messages)
    // pipeline messages as Megatron-LM (2021, megatron/p2p_communication.py) sends them:
    // scatter-gather over the TP ranks (on unless --no-scatter-gather-tensors-in-pipeline,
    // which the sc21 scripts do not pass) and synchronous (every request waited on, then
    // torch.cuda.synchronize())
    c.pipelineScatterGather = settings.scatterGather && pp && tp;
    c.blockingPipelineSends = settings.blockingSends && pp;
    // the interleaved steady state: forward step, backward step, then both messages
    // (send_forward_backward_recv_forward_backward in megatron/schedules.py)
    c.interleavedSendWithBackward = settings.sendWithBackward && c.schedule == "interleaved";
    // NCCL: a send completes with its receive (of the blocking sends)
    c.sendRendezvous = settings.rendezvous && c.blockingPipelineSends;
    // VocabParallelEmbedding's reduce of its output, parallel_lm_logits' of its input gradient
    c.vocabParallelAllReduces = settings.vocabAllReduces && tp;
    // with a pipeline, the last stage's copy of the word embedding for the logits
    c.tiedEmbeddingCopy = settings.tiedEmbedding && pp;
    if (row.localDdp)
    {
        // Megatron's local DDP: one all-reduce of the stage's gradients after its backward
        c.overlap = false;
        c.bucketBytes = 1ull << 40;
        // without contiguous buffers (the sc21 scripts ask for none): flatten, scale, copy back
        c.localDdpCopies = settings.localDdpCopies;
    }
    else
    {
        c.overlap = true; // PyTorch DDP: 25 MiB buckets as backward produces them
        c.bucketBytes = 25ull << 20;
        // its Reducer copies each gradient into the bucket and back (no bucket views then)
        c.ddpBucketCopies = settings.ddpBucketCopies;
    }
    // Data parallelism: NCCL's ring (one channel). Tensor parallelism inside a server:
    // NCCL's ring too when NCCL's per-step latency counts; without it halving-doubling,
    // which on the NVSwitch crossbar takes the ring's time (its bandwidth term is the
    // ring's; at 64-256 MiB they agree within 0.1% at flow level,
    // doc/megatron-validation.md) with 48 messages per AllReduce of 8 instead of 112
    if (tp)
    {
        c.backends[uint32_t(TrainingDimension::TP)]
            = settings.ncclLatency ? "ring" : "halving-doubling";
    }
    if (settings.ncclLatency)
    {
        c.ns3Attributes.emplace_back("ns3::CollectiveEngine::LaunchLatency",
                                     NCCL_RING_LAUNCH_LATENCY);
        c.ns3Attributes.emplace_back("ns3::CollectiveEngine::StepLatency",
                                     NCCL_RING_NVLINK_STEP_LATENCY);
        c.ns3Attributes.emplace_back("ns3::CollectiveEngine::NetworkStepLatency",
                                     NCCL_RING_NET_STEP_LATENCY);
    }
    c.backends[uint32_t(TrainingDimension::DP)] = "ring";
    c.iterations = 1;
    c.trace = false;
    c.comms = false; // millions of tasks at the largest rows: no per-message records
    // Selene: DGX A100 servers (8 GPUs on NVSwitch, NVLink 3 at 300 GB/s per direction per
    // GPU, one 200 Gbit/s HDR NIC per GPU), rail-optimised
    c.topology.kind = "rail-optimised";
    c.topology.servers = row.gpus / 8;
    c.topology.gpusPerServer = 8;
    c.topology.nvlinkRate = settings.nvlinkRate;
    c.topology.nicRate = "200Gbps";
    c.topology.spines = 8;
    c.topology.network = settings.network;
    return c;
}

MegatronRowResult
RunMegatronRow(const MegatronRow& row, const MegatronSettings& settings)
{
    settings.Validate();
    TrainingConfig c = MegatronTrainingConfig(row, settings);
    TrainingResult r = RunTraining(c);
    const TrainingJobRow& job = r.jobs.at(0);
    MegatronRowResult out;
    out.row = row;
    out.settings = settings;
    out.iterationSeconds = job.iterationSeconds;
    out.flops = MegatronFlops(row);
    out.simulatorFlops = r.setups.at(0).graph.flopsPerIteration;
    out.tflopsPerGpu = out.flops / (out.iterationSeconds * row.gpus) / 1e12;
    out.deviation = out.tflopsPerGpu / row.published - 1;
    out.breakdown = job.breakdown;
    out.events = r.events;
    out.wallSeconds = r.wallSeconds;
    return out;
}

const FieldTable<MegatronRowResult>&
MegatronFields()
{
    using R = MegatronRowResult;
    static const FieldTable<R> fields = {
        {"row",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.name);
         }},
        {"parameters_b",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.parametersB);
         }},
        {"tp",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.tp);
         }},
        {"pp",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.pp);
         }},
        {"dp",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.Dp());
         }},
        {"gpus",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.gpus);
         }},
        {"batch",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.batch);
         }},
        {"microbatch_size",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.microbatch);
         }},
        {"microbatches",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.Microbatches());
         }},
        {"virtual_stages",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.row.VirtualStages());
         }},
        {"network",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.network);
         }},
        {"efficiency",
         "fraction",
         [](const R& r)
         {
             return nlohmann::json(r.settings.efficiency);
         }},
        {"memory_gbps",
         "GB/s",
         [](const R& r)
         {
             return nlohmann::json(r.settings.memoryGBps);
         }},
        {"nvlink_rate",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.nvlinkRate);
         }},
        {"overlap_slowdown",
         "fraction",
         [](const R& r)
         {
             return nlohmann::json(r.settings.overlapSlowdown);
         }},
        {"scatter_gather",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.scatterGather);
         }},
        {"blocking_sends",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.blockingSends);
         }},
        {"send_with_backward",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.sendWithBackward);
         }},
        {"rendezvous",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.rendezvous);
         }},
        {"vocab_all_reduces",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.vocabAllReduces);
         }},
        {"tied_embedding",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.tiedEmbedding);
         }},
        {"local_ddp_copies",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.localDdpCopies);
         }},
        {"ddp_bucket_copies",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.ddpBucketCopies);
         }},
        {"nccl_latency",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.settings.ncclLatency);
         }},
        {"iteration_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.iterationSeconds);
         }},
        {"flops",
         "FLOP",
         [](const R& r)
         {
             return nlohmann::json(r.flops);
         }},
        {"simulator_flops",
         "FLOP",
         [](const R& r)
         {
             return nlohmann::json(r.simulatorFlops);
         }},
        {"tflops_per_gpu",
         "TFLOP/s",
         [](const R& r)
         {
             return nlohmann::json(r.tflopsPerGpu);
         }},
        {"published_tflops_per_gpu",
         "TFLOP/s",
         [](const R& r)
         {
             return nlohmann::json(r.row.published);
         }},
        {"deviation",
         "fraction",
         [](const R& r)
         {
             return nlohmann::json(r.deviation);
         }},
        {"compute_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.breakdown.computeSeconds);
         }},
        {"exposed_tp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.breakdown.exposedSeconds[uint32_t(TrainingDimension::TP)]);
         }},
        {"exposed_pp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.breakdown.exposedSeconds[uint32_t(TrainingDimension::PP)]);
         }},
        {"exposed_dp_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.breakdown.exposedSeconds[uint32_t(TrainingDimension::DP)]);
         }},
        {"bubble_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.breakdown.bubbleSeconds);
         }},
        {"idle_s",
         "s",
         [](const R& r)
         {
             return nlohmann::json(r.breakdown.idleSeconds);
         }},
        {"events",
         "",
         [](const R& r)
         {
             return nlohmann::json(r.events);
         }},
    };
    return fields;
}

std::string
PlotMegatronScaling(const std::vector<MegatronRowResult>& results, const std::string& dir)
{
    Gnuplot plot;
    plot.SetTitle("Megatron-LM weak scaling (SC'21 Table 1): TFLOP/s per GPU");
    plot.SetLegend("", "TFLOP/s per GPU");
    std::string xtics = "set xtics (";
    double top = 0;
    for (std::size_t k = 0; k < results.size(); ++k)
    {
        xtics += (k ? ", " : "") + std::string("\"") + results[k].row.name + "\" "
                 + std::to_string(k);
        top = std::max({top, results[k].tflopsPerGpu, results[k].row.published});
    }
    plot.AppendExtra(xtics + ")");
    plot.AppendExtra("set xrange [-0.6:" + std::to_string(results.size() - 0.4) + "]");
    plot.AppendExtra("set yrange [0:" + std::to_string(1.15 * std::max(top, 1.0)) + "]");
    plot.AppendExtra("set grid ytics");
    plot.AppendExtra("set key top left");
    int width = std::max(4, std::min(30, int(120 / std::max<std::size_t>(1, results.size()))));
    Gnuplot2dDataset published("published");
    published.SetStyle(Gnuplot2dDataset::IMPULSES);
    published.SetExtra("lw " + std::to_string(width) + " lc rgb '#999999'");
    Gnuplot2dDataset simulated("simulated");
    simulated.SetStyle(Gnuplot2dDataset::IMPULSES);
    simulated.SetExtra("lw " + std::to_string(width) + " lc rgb '#377eb8'");
    for (std::size_t k = 0; k < results.size(); ++k)
    {
        published.Add(k - 0.18, results[k].row.published);
        simulated.Add(k + 0.18, results[k].tflopsPerGpu);
    }
    plot.AddDataset(published);
    plot.AddDataset(simulated);
    std::string png = dir + "/megatron.png";
    MakeResultsDir(dir);
    return !results.empty() && RenderPng(plot, png) ? png : "";
}

} // namespace ns3
