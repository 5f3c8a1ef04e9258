/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-experiment.h"

#include "collective-experiment.h"
#include "collective-timeline.h"

#include "ns3/boolean.h"
#include "ns3/collective-backend.h"
#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/file-io.h"
#include "ns3/log.h"
#include "ns3/model-zoo.h"
#include "ns3/simulator.h"
#include "ns3/transformer-kernels.h"
#include "ns3/wafer-topology.h"
#include "ns3/workload-import.h"

#include <chrono>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingExperiment");

namespace
{

/// Options that shape a generated job: refused with a workload file.
const std::vector<std::string>&
PlanOptions()
{
    static const std::vector<std::string> names = {"model",
                                                   "layers",
                                                   "hidden",
                                                   "heads",
                                                   "sequence",
                                                   "vocabulary",
                                                   "experts",
                                                   "device",
                                                   "peak-tflops",
                                                   "memory-gbps",
                                                   "efficiency",
                                                   "compute-model",
                                                   "dp",
                                                   "tp",
                                                   "pp",
                                                   "ep",
                                                   "microbatches",
                                                   "microbatch-size",
                                                   "schedule",
                                                   "virtual-stages",
                                                   "zero",
                                                   "bucket-bytes",
                                                   "overlap",
                                                   "recompute",
                                                   "sequence-parallel",
                                                   "weight-streaming",
                                                   "tp-lockstep",
                                                   "pipeline-scatter-gather",
                                                   "blocking-pipeline-sends",
                                                   "interleaved-send-with-backward",
                                                   "vocab-parallel-all-reduces",
                                                   "tied-embedding-copy",
                                                   "local-ddp-copies",
                                                   "ddp-bucket-copies",
                                                   "order"};
    return names;
}

/// Options of a transformer given by its shape.
const std::vector<std::string>&
ShapeOptions()
{
    static const std::vector<std::string> names
        = {"layers", "hidden", "heads", "sequence", "vocabulary", "experts"};
    return names;
}

/// Options of an imported workload.
const std::vector<std::string>&
FileOptions()
{
    static const std::vector<std::string> names
        = {"workload-groups", "workload-ranks", "workload-model-parallel", "clock-ghz"};
    return names;
}

bool
Contains(const std::vector<std::string>& names, const std::string& name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

const std::vector<std::string>&
ComputeModelNames()
{
    static const std::vector<std::string> names = {"layer", "kernels"};
    return names;
}

std::vector<std::string>
ModelChoices()
{
    std::vector<std::string> names = ModelNames();
    names.push_back("transformer");
    return names;
}

std::vector<std::string>
BackendChoices()
{
    std::vector<std::string> names = CollectiveRegistry::Names();
    names.push_back("auto");
    return names;
}

/// --tp-backend and friends: one entry of the per-dimension array.
ExperimentOption<TrainingConfig>
BackendOption(TrainingDimension d)
{
    std::string dim = ToString(d);
    std::string name = dim + "-backend";
    return {
        name,
        "collective backend of the " + dim + " dimension: " + dlnet::JoinChoices(BackendChoices()),
        [name, d](TrainingConfig& c, const std::string& v)
        {
            c.backends[static_cast<uint32_t>(d)] = dlnet::ParseChoice(name, v, BackendChoices());
        },
        [d](const TrainingConfig& c)
        {
            return c.backends[static_cast<uint32_t>(d)];
        }};
}

/// --tp-class and friends.
ExperimentOption<TrainingConfig>
ClassOption(TrainingDimension d)
{
    std::string dim = ToString(d);
    std::string name = dim + "-class";
    return {name,
            "traffic class of the " + dim + " dimension (0 has the highest priority)",
            [name, d](TrainingConfig& c, const std::string& v)
            {
                c.classes[static_cast<uint32_t>(d)] = dlnet::ParseUnsigned(name, v, 0, 7);
            },
            [d](const TrainingConfig& c)
            {
                return std::to_string(c.classes[static_cast<uint32_t>(d)]);
            },
            "int"};
}

/// model=transformer takes its shape from the options, which have no default shape (0: not
/// given): the model zoo refused one left out as "transformer: layers must be positive".
void
RequireTransformerShape(const TrainingConfig& c)
{
    if (c.model != "transformer")
    {
        return;
    }
    for (const auto& [name, value] : {std::pair<const char*, uint32_t>{"layers", c.layers},
                                      {"hidden", c.hidden},
                                      {"heads", c.heads},
                                      {"sequence", c.sequence},
                                      {"vocabulary", c.vocabulary}})
    {
        if (value == 0)
        {
            throw std::invalid_argument(
                std::string(name)
                + ": not given; model=transformer needs its shape: layers, hidden, heads, "
                  "sequence and vocabulary, each a whole number from 1 (experts optional), e.g. "
                  "layers=24, hidden=2048, heads=16, sequence=2048, vocabulary=51200");
        }
    }
}

/// The kernels list Megatron-LM's fused causal softmax, which it runs only for fp16 or bf16
/// scores with 16 < s <= 2048, s a multiple of 4 and b x heads / tp a multiple of 4
/// (megatron/model/fused_softmax.py at de7dc40f88); elsewhere it runs an unfused softmax
/// in fp32 that the list does not describe: refused rather than timed as the fused one.
void
RefuseUnfusedSoftmax(const TrainingConfig& c, const TrainingPlan& p)
{
    const TransformerConfig shape
        = c.model == "transformer"
              ? TransformerConfig{0, c.hidden, c.heads, c.sequence, c.vocabulary}
              : ZooTransformer(c.model);
    const std::string fused = "; the kernels model times Megatron-LM's fused softmax, which "
                              "needs 16 < sequence <= 2048, sequence a multiple of 4, "
                              "microbatch-size x heads / tp a multiple of 4 and fp16 or bf16 "
                              "(use compute-model layer)";
    const DataType t = c.type.empty() ? DataType::FP16 : ParseDataType("type", c.type);
    if (t != DataType::FP16 && t != DataType::BF16)
    {
        throw std::invalid_argument("type: got " + c.type + fused);
    }
    if (shape.sequence <= 16 || shape.sequence > 2048 || shape.sequence % 4 != 0)
    {
        throw std::invalid_argument("sequence: got " + std::to_string(shape.sequence) + fused);
    }
    const uint64_t attentionBatch = uint64_t(p.microbatchSize) * shape.heads / p.tp;
    if (attentionBatch % 4 != 0)
    {
        throw std::invalid_argument(
            "microbatch-size: got " + std::to_string(p.microbatchSize) + ", with heads "
            + std::to_string(shape.heads) + " and tp " + std::to_string(p.tp) + " a batch of "
            + std::to_string(attentionBatch) + " attention maps per GPU" + fused);
    }
}

/// A plan's flags that shape a dimension, a schedule or a model the job does not have:
/// each would be taken and ignored.
void
RefuseAbsentPlanOptions(const TrainingConfig& c, const TrainingPlan& p, const Model& m)
{
    const TrainingConfig defaults;
    const bool tied = m.layers.size() >= 2 && m.layers.back().tiedParameters > 0;
    const std::string tpIs = "tp is " + std::to_string(p.tp);
    const std::string ppIs = "pp is " + std::to_string(p.pp);
    const std::string dpIs = "dp is " + std::to_string(p.dp);
    const std::string tpOnly = "with tensor parallelism (tp > 1) only, and " + tpIs;
    auto flag = [](const std::string& field, bool value, bool applies, const std::string& where)
    {
        RefuseInapplicable(field, value, false, applies, where);
    };
    flag("sequence-parallel", c.sequenceParallel, p.tp > 1, tpOnly);
    flag("sequence-parallel",
         c.sequenceParallel,
         c.computeModel != "kernels",
         "with compute-model layer only: the kernels are Megatron-LM's of 2021, before "
         "sequence parallelism (its layer norms and dropouts would still run whole), and "
         "compute-model is kernels");
    flag("tp-lockstep", c.tpLockstep, p.tp > 1, tpOnly);
    flag("vocab-parallel-all-reduces", c.vocabParallelAllReduces, p.tp > 1, tpOnly);
    flag("pipeline-scatter-gather",
         c.pipelineScatterGather,
         p.pp > 1 && p.tp > 1,
         "to pipeline messages between tensor-parallel groups (pp > 1 and tp > 1) only, and " + ppIs
             + ", " + tpIs);
    flag("blocking-pipeline-sends",
         c.blockingPipelineSends,
         p.pp > 1,
         "to pipeline messages (pp > 1) only, and " + ppIs);
    flag("interleaved-send-with-backward",
         c.interleavedSendWithBackward,
         p.schedule == PipelineSchedule::INTERLEAVED,
         "with the interleaved schedule only, and the schedule is " + ToString(p.schedule));
    flag("tied-embedding-copy",
         c.tiedEmbeddingCopy,
         p.pp > 1 && tied,
         "to a model whose last layer shares the word embedding (a transformer) split into "
         "pipeline stages (pp > 1) only, and "
             + (tied ? ppIs : dlnet::PrintableText(m.name) + " shares none"));
    const std::string dpOnly = "to data parallelism (dp > 1) only, and " + dpIs;
    RefuseInapplicable("zero", p.zero, defaults.zero, p.dp > 1, dpOnly);
    RefuseInapplicable("overlap", c.overlap, defaults.overlap, p.dp > 1, dpOnly);
    RefuseInapplicable("bucket-bytes", p.bucketBytes, defaults.bucketBytes, p.dp > 1, dpOnly);
    const std::string ddp = "to data parallelism (dp > 1) with overlap ";
    flag("local-ddp-copies",
         c.localDdpCopies,
         p.dp == 1 || !c.overlap,
         "to Megatron-LM's local DDP (overlap off, or dp 1, where its flatten, scale and copy "
         "back still run) only, and overlap is on");
    flag("ddp-bucket-copies",
         c.ddpBucketCopies,
         p.dp > 1 && c.overlap,
         ddp + "on only, and " + (p.dp > 1 ? "overlap is off" : dpIs));
}

/**
 * A dimension's backend where the job has no collective or send on it (a stream's is
 * always weight-streaming), its traffic class where it has no communication at all,
 * and send-rendezvous without a blocking send.
 * \return per dimension, whether the job communicates on it
 */
std::array<bool, TRAINING_DIMENSIONS>
RefuseAbsentDimensionOptions(const TrainingConfig& c, const TrainingGraph& g)
{
    std::array<bool, TRAINING_DIMENSIONS> communicates{};
    std::array<bool, TRAINING_DIMENSIONS> backend{};
    bool blockingSend = false;
    for (const auto& task : g.tasks)
    {
        const auto d = static_cast<uint32_t>(task.dimension);
        const bool message
            = task.kind == TrainingTaskKind::COLLECTIVE || task.kind == TrainingTaskKind::SEND;
        backend[d] = backend[d] || message;
        communicates[d] = communicates[d] || message || task.kind == TrainingTaskKind::STREAM;
        blockingSend = blockingSend || (task.kind == TrainingTaskKind::SEND && task.blocking);
    }
    const TrainingConfig defaults;
    for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
    {
        const std::string dim = TrainingDimensionNames()[d];
        RefuseInapplicable(
            dim + "-backend",
            c.backends[d],
            defaults.backends[d],
            backend[d],
            "to a dimension with collectives or sends, and the job has no " + dim
                + " collective or send"
                + (communicates[d] ? " (a stream's backend is weight-streaming)" : ""));
        RefuseInapplicable(dim + "-class",
                           c.classes[d],
                           defaults.classes[d],
                           communicates[d],
                           "to a dimension the job communicates on, and the job has no " + dim
                               + " collective, send or stream");
    }
    RefuseInapplicable("send-rendezvous",
                       c.sendRendezvous,
                       false,
                       blockingSend,
                       "to blocking sends only (blocking-pipeline-sends with pp > 1), and the "
                       "job has none");
    return communicates;
}

/// The first pipeline-parallel send tells a pipelined job (bubble, not idle).
bool
IsPipelined(const TrainingGraph& graph)
{
    for (const auto& t : graph.tasks)
    {
        if (t.kind == TrainingTaskKind::SEND && t.dimension == TrainingDimension::PP)
        {
            return true;
        }
    }
    return false;
}

/// What one simulation of some jobs gave.
struct Outcome
{
    std::vector<std::vector<TrainingTaskRun>> runs; //!< per job run
    uint64_t events{0};
    std::string network;                //!< the model that carried the messages
    std::vector<LinkResult> links;      //!< stats: what each link carried
    std::vector<SwitchResult> switches; //!< stats: what each switch did
    /// stats: per cluster rank, its messages to and from other ranks
    std::vector<CollectiveTimeline::RankTraffic> traffic;
};

/**
 * Run jobs together; they are moved into the simulation and back (no copy of the graphs).
 * \param stats collect the links', switches' and ranks' statistics
 */
Outcome
Simulate(const TrainingConfig& c,
         Ptr<const Topology> topology,
         std::vector<TrainingJobSetup>& jobs,
         bool stats)
{
    Outcome out;
    SimulationScope scope(c.seed, c.run, c.ns3Attributes);
    Cluster cluster = topology->Build();
    out.network = cluster.GetNetwork();
    CollectiveTimeline messages; // stats: every message between ranks
    if (stats)
    {
        messages.Connect(cluster);
    }
    Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
    // disposed before the cluster and the simulator go, even when the run throws
    struct DisposeAtExit
    {
        Ptr<TrainingSimulation> sim;
        ~DisposeAtExit()
        {
            sim->Dispose();
        }
    } disposeAtExit{sim};
    sim->SetAttribute("FreeCommunication", BooleanValue(c.freeCommunication));
    sim->SetAttribute("OverlapSlowdown", DoubleValue(c.overlapSlowdown));
    sim->SetAttribute("SendRendezvous", BooleanValue(c.sendRendezvous));
    uint32_t n = jobs.size();
    sim->Setup(cluster, topology, std::move(jobs));
    sim->Start();
    Simulator::Run();
    if (!sim->IsFinished())
    {
        throw std::runtime_error("training: the jobs did not finish: " + sim->DescribeStuck());
    }
    for (uint32_t j = 0; j < n; ++j)
    {
        out.runs.push_back(sim->TakeRuns(j)); // (millions of runs at scale: not copied)
    }
    jobs = sim->ReleaseJobs();
    out.events = Simulator::GetEventCount();
    if (stats)
    {
        // since the start of this simulation: utilisation over its makespan
        out.links = CollectLinkStats(cluster, Simulator::Now().GetSeconds());
        out.switches = CollectSwitchStats(cluster);
        out.traffic = messages.TrafficByRank(cluster.GetNRanks());
    }
    return out;
}

/**
 * \return per job rank of every job, its statistics (TrainingRankStats): compute
 *         from its compute tasks' runs, the rest from its messages (outcome.traffic)
 */
std::vector<TrainingRankStats>
RankStatsOf(const std::vector<TrainingJobSetup>& jobs, const Outcome& outcome)
{
    std::vector<TrainingRankStats> out;
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const TrainingGraph& g = jobs[j].graph;
        const std::vector<TrainingTaskRun>& runs = outcome.runs[j];
        std::vector<std::vector<std::pair<Time, Time>>> compute(g.ranks);
        std::vector<bool> communicates(g.ranks, false);
        for (uint32_t t = 0; t < g.tasks.size(); ++t)
        {
            const TrainingTask& task = g.tasks[t];
            for (uint32_t r : task.ranks)
            {
                if (task.kind == TrainingTaskKind::COMPUTE)
                {
                    compute[r].emplace_back(runs[t].start, runs[t].end);
                }
                else if (task.kind != TrainingTaskKind::DELAY)
                {
                    communicates[r] = true;
                }
            }
        }
        for (uint32_t r = 0; r < g.ranks; ++r)
        {
            TrainingRankStats s;
            s.job = jobs[j].name;
            RankResult& t = s.traffic;
            t.index = r;
            t.rank = jobs[j].placement[r];
            const CollectiveTimeline::RankTraffic& m = outcome.traffic.at(t.rank);
            t.counted = t.timed = m.known || !communicates[r];
            t.bytesSent = m.bytesSent;
            t.bytesReceived = m.bytesReceived;
            Time finish{0};
            for (const auto& span : compute[r])
            {
                finish = std::max(finish, span.second);
            }
            for (const auto& span : m.spans)
            {
                finish = std::max(finish, span.second);
            }
            t.finish = finish.GetSeconds();
            Time busy = UnionLength(compute[r]);
            s.compute = busy.GetSeconds();
            t.network = UnionLength(m.spans).GetSeconds();
            // the network spans not covered by compute: |N u C| - |C|
            std::vector<std::pair<Time, Time>> both = compute[r];
            both.insert(both.end(), m.spans.begin(), m.spans.end());
            s.exposed = (UnionLength(std::move(both)) - busy).GetSeconds();
            out.push_back(std::move(s));
        }
    }
    return out;
}

TrainingJobRow
RowOf(const TrainingConfig& c,
      const TrainingJobSetup& job,
      const Outcome& outcome,
      uint32_t index,
      const std::string& mode,
      std::vector<TrainingBreakdown>* ranks)
{
    const TrainingGraph& g = job.graph;
    const std::vector<TrainingTaskRun>& runs = outcome.runs[index];
    TrainingJobRow row;
    row.job = job.name;
    row.mode = mode;
    row.network = outcome.network;
    row.workload = g.name;
    row.ranks = g.ranks;
    std::vector<double> its = IterationSeconds(g, runs);
    row.warmupSeconds = its.empty() ? 0 : its[0];
    uint32_t first = its.size() > 1 ? 1 : 0;
    row.iterationSeconds
        = std::accumulate(its.begin() + first, its.end(), 0.0) / double(its.size() - first);
    std::vector<TrainingBreakdown> perRank = ComputeBreakdown(g, runs, IsPipelined(g), first);
    row.breakdown = MeanBreakdown(perRank);
    if (ranks)
    {
        *ranks = std::move(perRank);
    }
    if (row.iterationSeconds > 0)
    {
        row.samplesPerSecond = g.samplesPerIteration / row.iterationSeconds;
        row.tokensPerSecond = row.samplesPerSecond * g.tokensPerSample;
        if (g.flopsPerIteration > 0 && c.workloadFile.empty())
        {
            DeviceSpec device = c.MakeDevice();
            DataType type = c.MakeModel().dataType;
            double peak = row.iterationSeconds * double(g.ranks) * device.PeakFlops(type);
            row.mfu = g.modelFlopsPerIteration / peak;
            row.hfu = g.flopsPerIteration / peak;
        }
    }
    for (const auto& t : g.tasks)
    {
        if (t.kind == TrainingTaskKind::COLLECTIVE)
        {
            ++row.collectives;
        }
        if (t.kind == TrainingTaskKind::SEND)
        {
            ++row.sends;
        }
        if (t.kind != TrainingTaskKind::COMPUTE && t.kind != TrainingTaskKind::DELAY)
        {
            row.bytes += t.bytes;
        }
    }
    return row;
}

} // namespace

Model
TrainingConfig::MakeModel() const
{
    Model m;
    RequireTransformerShape(*this);
    const bool kernels
        = dlnet::ParseChoice("compute-model", computeModel, ComputeModelNames()) == "kernels";
    const std::vector<std::string>& zoo = ZooTransformerNames();
    if (model == "transformer" || (kernels && std::count(zoo.begin(), zoo.end(), model) > 0))
    {
        TransformerConfig shape;
        if (model == "transformer")
        {
            shape.layers = layers;
            shape.hidden = hidden;
            shape.heads = heads;
            shape.sequence = sequence;
            shape.vocabulary = vocabulary;
            shape.experts = experts;
            shape.moeEvery = experts > 0 ? 2 : 0; // every other layer's MLP (GShard, Switch)
        }
        else
        {
            shape = ZooTransformer(model);
        }
        shape.kernels = kernels;
        DataType t = type.empty() ? DataType::FP16 : ParseDataType("type", type);
        m = MakeTransformer(model, shape, t);
    }
    else if (kernels)
    {
        throw std::invalid_argument("compute-model: kernels applies to transformers (transformer, "
                                    + dlnet::JoinChoices(zoo) + "); " + model + " is not one");
    }
    else
    {
        m = type.empty() ? ns3::MakeModel(model)
                         : ns3::MakeModel(model, ParseDataType("type", type));
    }
    return m;
}

DeviceSpec
TrainingConfig::MakeDevice() const
{
    DeviceSpec d = ns3::MakeDevice(device);
    if (peakTflops > 0)
    {
        DataType t = MakeModel().dataType;
        double peak = peakTflops * 1e12;
        (t == DataType::FP16 ? d.peakFp16 : t == DataType::BF16 ? d.peakBf16 : d.peakFp32) = peak;
    }
    if (memoryGBps > 0)
    {
        d.memoryBandwidth = memoryGBps * 1e9;
    }
    if (efficiency > 0)
    {
        d.efficiency = efficiency;
    }
    d.Validate();
    return d;
}

TrainingPlan
TrainingConfig::MakePlan() const
{
    TrainingPlan p;
    p.dp = dp;
    p.tp = tp;
    p.pp = pp;
    p.ep = ep;
    p.microbatches = microbatches;
    p.microbatchSize = microbatchSize;
    p.schedule = ParsePipelineSchedule("schedule", schedule);
    p.virtualStages = virtualStages;
    p.zero = zero;
    p.bucketBytes = bucketBytes;
    p.overlap = overlap;
    p.recompute = recompute;
    p.sequenceParallel = sequenceParallel;
    p.weightStreaming = weightStreaming;
    p.tpLockstep = tpLockstep;
    p.pipelineScatterGather = pipelineScatterGather;
    p.pipelineSendsBlock = blockingPipelineSends;
    p.interleavedSendWithBackward = interleavedSendWithBackward;
    p.vocabParallelAllReduces = vocabParallelAllReduces;
    p.tiedEmbeddingCopy = tiedEmbeddingCopy;
    p.localDdpCopies = localDdpCopies;
    p.ddpBucketCopies = ddpBucketCopies;
    p.order.clear();
    for (const auto& d : dlnet::ParseList("order", order, {"tp", "pp", "dp"}))
    {
        p.order.push_back(ParseTrainingDimension("order", d));
    }
    if (p.order.size() != 3)
    {
        throw std::invalid_argument("order: '" + dlnet::PrintableText(order)
                                    + "' must list tp, pp and dp, each once, innermost first");
    }
    p.iterations = iterations;
    if (computeModel == "kernels")
    {
        p.optimizerBytes = MEGATRON_ADAM_BYTES_PER_PARAMETER;
    }
    return p;
}

TrainingGraph
TrainingConfig::MakeGraph() const
{
    if (!workloadFile.empty())
    {
        WorkloadImportOptions o;
        o.ranks = workloadRanks;
        o.modelParallel = workloadModelParallel;
        o.clockHz = clockGHz * 1e9;
        o.iterations = iterations;
        o.type = type.empty() ? DataType::FP16 : ParseDataType("type", type);
        TrainingGraph g;
        if (!workloadGroups.empty())
        {
            const std::string text = dlnet::ReadInputFile("workload-file", workloadFile);
            if (!IsChakraJson(text))
            {
                // (it was read as JSON whatever it held: "not valid JSON" for a text workload)
                throw std::invalid_argument(
                    "workload-groups: applies to a Chakra JSON workload only; '"
                    + dlnet::PrintablePath(workloadFile)
                    + "' is not JSON (an ASTRA-sim or SimAI text workload's groups follow from "
                      "its parallelism): leave workload-groups empty");
            }
            const std::string groups = dlnet::ReadInputFile("workload-groups", workloadGroups);
            if (groups.find_first_not_of(" \t\r\n") == std::string::npos)
            {
                // (an empty text is the importer's "no groups": the error came later, and
                // named no file)
                throw std::invalid_argument("workload-groups: '"
                                            + dlnet::PrintablePath(workloadGroups)
                                            + "' is empty; expected a JSON object of groups, "
                                              "e.g. {\"tp0\": [0, 1]}");
            }
            g = ImportChakraJson(text, workloadFile, groups, o, workloadGroups);
        }
        else
        {
            g = ImportWorkloadFile(workloadFile, o);
        }
        g.Validate();
        return g;
    }
    Model m = MakeModel();
    TrainingGraph g = MakeTrainingGraph(m, MakeDevice(), MakePlan());
    g.Validate();
    return g;
}

std::vector<std::vector<uint32_t>>
TrainingConfig::Placements(uint32_t jobRanks, uint32_t clusterRanks) const
{
    std::vector<std::vector<uint32_t>> out;
    if (placement.empty())
    {
        if (uint64_t(jobs) * jobRanks > clusterRanks)
        {
            // (no placement was given: the topology is what is too small, and with a list of
            // topologies the message says which)
            throw std::invalid_argument(
                "topology: the " + topology.kind + " has " + std::to_string(clusterRanks)
                + " ranks; " + std::to_string(jobs) + " job(s) of " + std::to_string(jobRanks)
                + " ranks need " + std::to_string(uint64_t(jobs) * jobRanks)
                + ": expected a larger topology (its size options) or fewer ranks per job"
                + (jobs > 1 ? " or fewer jobs" : ""));
        }
        for (uint32_t j = 0; j < jobs; ++j)
        {
            std::vector<uint32_t> ranks(jobRanks);
            std::iota(ranks.begin(), ranks.end(), j * jobRanks);
            out.push_back(ranks);
        }
        return out;
    }
    std::vector<std::string> parts;
    std::string rest = placement;
    for (std::size_t semi; (semi = rest.find(';')) != std::string::npos;)
    {
        parts.push_back(rest.substr(0, semi));
        rest = rest.substr(semi + 1);
    }
    parts.push_back(rest);
    if (parts.size() != jobs)
    {
        throw std::invalid_argument("placement: lists " + std::to_string(parts.size())
                                    + " job(s) (';' between them); jobs is "
                                    + std::to_string(jobs));
    }
    for (const auto& part : parts)
    {
        Communicator comm;
        try
        {
            comm = ParseCommunicator(part, clusterRanks);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("placement: '" + dlnet::PrintableText(part)
                                        + "': " + e.what());
        }
        if (comm.GetSize() != jobRanks)
        {
            throw std::invalid_argument("placement: '" + dlnet::PrintableText(part) + "' holds "
                                        + std::to_string(comm.GetSize()) + " ranks; the job has "
                                        + std::to_string(jobRanks));
        }
        out.push_back(comm.ranks);
    }
    return out;
}

void
TrainingConfig::Validate() const
{
    ValidatedGraph();
}

TrainingGraph
TrainingConfig::ValidatedGraph() const
{
    // the run sets them on its TrainingSimulation from these options (a plan simulation
    // leaves them to the defaults)
    RefuseSetByOptions(ns3Attributes,
                       {{"ns3::TrainingSimulation::FreeCommunication", "free-communication"},
                        {"ns3::TrainingSimulation::OverlapSlowdown", "overlap-slowdown"},
                        {"ns3::TrainingSimulation::SendRendezvous", "send-rendezvous"}});
    // taken and ignored: with free communication nothing is in flight beside compute
    RefuseInapplicable("overlap-slowdown",
                       overlapSlowdown,
                       0,
                       !freeCommunication,
                       "beside communication in flight only, and free-communication makes it "
                       "take no time");
    Ptr<const Topology> t = MakeTopology(topology);
    if (weightStreaming && !dynamic_cast<const WaferScaleTopology*>(PeekPointer(t)))
    {
        // (the simulation refused it naming its own stream tasks: "job0 dimension ws")
        throw std::invalid_argument("weight-streaming: the weights stream from a wafer's I/O "
                                    "controllers; expected a wafer topology (wafer-mesh, "
                                    "fred-a .. fred-d), not "
                                    + t->GetKind());
    }
    for (const auto& name : given)
    {
        if (!workloadFile.empty() && Contains(PlanOptions(), name))
        {
            throw std::invalid_argument(name
                                        + ": does not apply with workload-file (the file "
                                          "gives the model, its compute and its parallelism)");
        }
        if (workloadFile.empty() && Contains(FileOptions(), name))
        {
            throw std::invalid_argument(name + ": applies only with workload-file");
        }
        if (model != "transformer" && Contains(ShapeOptions(), name))
        {
            throw std::invalid_argument(name + ": applies only with model=transformer (the zoo's "
                                        + model + " has its own shape)");
        }
    }
    if (!type.empty())
    {
        dlnet::ParseChoice("type", type, {"fp32", "fp16", "bf16"});
    }
    if (workloadFile.empty())
    {
        MakeDevice();
        TrainingPlan plan = MakePlan();
        Model m = MakeModel();
        plan.Validate(m);
        if (recompute
            && std::none_of(m.layers.begin(),
                            m.layers.end(),
                            [](const ModelLayer& l)
                            {
                                return l.recomputable;
                            }))
        {
            // taken and ignored: the zoo's convolutional models have no transformer layer
            throw std::invalid_argument("recompute: " + m.name
                                        + " has no layer that recomputation applies to (it "
                                          "recomputes transformer layers, as Megatron-LM "
                                          "does); expected false");
        }
        RefuseAbsentPlanOptions(*this, plan, m);
        if (computeModel == "kernels")
        {
            RefuseUnfusedSoftmax(*this, plan);
        }
        // the ranks against the cluster before the graph (up to MAX_TRAINING_TASKS) is built
        Placements(plan.Ranks(), t->GetNRanks());
    }
    TrainingGraph g = MakeGraph();
    const auto communicates = RefuseAbsentDimensionOptions(*this, g);
    // the simulated time is 64-bit picoseconds (about 9.2e6 s): the tasks' time, all of it
    // run one after another, stays well inside, so no timestamp wraps
    double seconds = 0;
    for (const auto& task : g.tasks)
    {
        seconds += task.duration.GetSeconds() + task.finishDelay.GetSeconds();
    }
    if (seconds > 4e6)
    {
        throw std::invalid_argument(
            std::string(workloadFile.empty() ? "device" : "workload-file")
            + ": the tasks' compute and delays sum to " + dlnet::ShortestText(seconds)
            + " s, more than the 4e6 s the simulator's clock holds safely; "
            + (workloadFile.empty() ? "a faster device (peak-tflops, memory-gbps, efficiency), "
                                      "fewer microbatches or a smaller microbatch-size"
                                    : "fewer iterations or shorter tasks (clock-ghz)"));
    }
    // every job holds its own copy of the graph: the cap is on all of them together
    if (uint64_t(jobs) * g.tasks.size() > MAX_TRAINING_TASKS)
    {
        throw std::invalid_argument("jobs: " + std::to_string(jobs) + " copies of a graph of "
                                    + std::to_string(g.tasks.size()) + " tasks hold "
                                    + std::to_string(uint64_t(jobs) * g.tasks.size())
                                    + "; the jobs together hold at most "
                                    + std::to_string(MAX_TRAINING_TASKS)
                                    + " (fewer jobs, ranks, microbatches, layers or iterations)");
    }
    std::vector<std::vector<uint32_t>> places = Placements(g.ranks, t->GetNRanks());
    std::set<uint32_t> used;
    for (const auto& p : places)
    {
        for (uint32_t r : p)
        {
            if (!used.insert(r).second)
            {
                throw std::invalid_argument("placement: rank " + std::to_string(r)
                                            + " is in two jobs");
            }
        }
    }
    for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
    {
        std::string field = TrainingDimensionNames()[d] + "-class";
        // a dimension without traffic keeps its default class, whatever traffic-classes is
        if (communicates[d] && classes[d] >= topology.trafficClasses)
        {
            throw std::invalid_argument(field + ": " + std::to_string(classes[d])
                                        + " is not below traffic-classes ("
                                        + std::to_string(topology.trafficClasses) + ")");
        }
    }
    return g;
}

TrainingResult
RunTraining(const TrainingConfig& c)
{
    auto wallStart = std::chrono::steady_clock::now();
    TrainingGraph graph = c.ValidatedGraph(); // built (or imported) once
    TrainingResult result;
    Ptr<const Topology> topology = MakeTopology(c.topology);
    result.topology = c.topology.kind;
    result.clusterRanks = topology->GetNRanks();
    std::vector<std::vector<uint32_t>> places = c.Placements(graph.ranks, result.clusterRanks);
    for (uint32_t j = 0; j < c.jobs; ++j)
    {
        TrainingJobSetup job;
        job.name = "job" + std::to_string(j);
        job.graph = j + 1 == c.jobs ? std::move(graph) : graph;
        job.placement = places[j];
        for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
        {
            job.dimensions[d].backend = c.backends[d];
            job.dimensions[d].trafficClass = c.classes[d];
        }
        result.setups.push_back(std::move(job));
    }

    Outcome together = Simulate(c, topology, result.setups, c.stats);
    result.events = together.events;
    result.network = together.network;
    result.links = std::move(together.links);
    result.switches = std::move(together.switches);
    if (c.stats)
    {
        result.rankStats = RankStatsOf(result.setups, together);
        together.traffic.clear();
    }
    result.rankBreakdowns.resize(c.jobs);
    for (uint32_t j = 0; j < c.jobs; ++j)
    {
        result.jobs.push_back(
            RowOf(c, result.setups[j], together, j, "together", &result.rankBreakdowns[j]));
        if (!(result.jobs[j].iterationSeconds > 0))
        {
            // throughput, MFU and the slowdown would divide by 0
            throw std::invalid_argument(
                (c.workloadFile.empty() ? std::string("model") : std::string("workload-file"))
                + ": an iteration of " + result.setups[j].name
                + " takes 0 s (no compute time, and no communication or free-communication); "
                  "there is nothing to measure");
        }
        const TrainingGraph& g = result.setups[j].graph;
        for (uint32_t i = 0; c.comms && i < g.tasks.size(); ++i)
        {
            const TrainingTask& t = g.tasks[i];
            if (t.kind == TrainingTaskKind::COMPUTE || t.kind == TrainingTaskKind::DELAY)
            {
                continue;
            }
            const TrainingTaskRun& r = together.runs[j][i];
            TrainingCommRow row;
            row.job = result.setups[j].name;
            row.task = i;
            row.label = t.label;
            row.kind = ToString(t.kind);
            row.dimension = ToString(t.dimension);
            row.op = t.kind == TrainingTaskKind::COLLECTIVE ? ToString(t.op)
                     : t.kind == TrainingTaskKind::SEND     ? "sendrecv"
                                                            : "stream";
            row.backend = r.backend;
            row.group = t.group;
            row.members = t.ranks.size();
            row.bytes = t.bytes;
            row.iteration = t.iteration;
            row.microbatch = t.microbatch;
            row.layer = t.layer;
            row.start = r.start.GetSeconds();
            row.end = r.end.GetSeconds();
            result.comms.push_back(std::move(row));
        }
    }
    if (c.jobs > 1)
    {
        for (uint32_t j = 0; j < c.jobs; ++j)
        {
            std::vector<TrainingJobSetup> one = {result.setups[j]};
            Outcome alone = Simulate(c, topology, one, false);
            TrainingJobRow row = RowOf(c, result.setups[j], alone, 0, "alone", nullptr);
            // an iteration of 0 s alone (no compute, free communication) has no slowdown
            if (row.iterationSeconds > 0)
            {
                result.jobs[j].slowdown = result.jobs[j].iterationSeconds / row.iterationSeconds;
            }
            result.jobs.push_back(row);
        }
    }
    if (c.trace)
    {
        result.runs = std::move(together.runs);
    }
    result.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

const std::vector<ExperimentOption<TrainingConfig>>&
TrainingOptions()
{
    using C = TrainingConfig;
    static const std::vector<ExperimentOption<C>> options = []()
    {
        std::vector<ExperimentOption<C>> o = {
            ChoiceOption<C>("model",
                            "a zoo model, or transformer (its shape from layers, hidden, heads, "
                            "sequence, vocabulary): "
                                + dlnet::JoinChoices(ModelChoices()),
                            &C::model,
                            ModelChoices()),
            UnsignedOption<C>("layers", "transformer: layers l", &C::layers, 1, 100000),
            UnsignedOption<C>("hidden", "transformer: hidden size h", &C::hidden, 1, 1u << 20),
            UnsignedOption<C>("heads", "transformer: attention heads a", &C::heads, 1, 1u << 16),
            UnsignedOption<C>(
                "sequence", "transformer: sequence length s", &C::sequence, 1, 1u << 24),
            UnsignedOption<C>(
                "vocabulary", "transformer: vocabulary V", &C::vocabulary, 1, 1u << 24),
            UnsignedOption<C>("experts",
                              "transformer: experts of every other layer's MLP (mixture of "
                              "experts; 0: dense)",
                              &C::experts,
                              0,
                              1u << 16),
            CheckedTextOption<C>(
                "type",
                "fp32, fp16 or bf16 (weights, gradients, activations); empty: the model's usual; "
                "with workload-file, the element of its collectives (their bytes must be whole "
                "elements; the time depends on the bytes alone)",
                &C::type,
                [](const std::string& v)
                {
                    dlnet::ParseChoice("type", v, {"fp32", "fp16", "bf16"});
                },
                true),
            ChoiceOption<C>("device",
                            "compute device preset: " + dlnet::JoinChoices(DevicePresetNames()),
                            &C::device,
                            DevicePresetNames()),
            RealOption<C>("peak-tflops",
                          "override the device's peak TFLOP/s for the model's type (0: preset)",
                          &C::peakTflops,
                          0,
                          1e6),
            RealOption<C>("memory-gbps",
                          "override the device's memory bandwidth, GB/s (0: preset)",
                          &C::memoryGBps,
                          0,
                          1e6),
            RealOption<C>("efficiency",
                          "override the achieved fraction of peak, in (0, 1] (0: preset)",
                          &C::efficiency,
                          0,
                          1),
            ChoiceOption<C>("compute-model",
                            "layer: one roofline per layer pass; kernels: a transformer's "
                            "layers as Megatron-LM's kernels (GEMMs, softmax, dropout, layer "
                            "norms, cross entropy, each its own roofline) and its optimizer step",
                            &C::computeModel,
                            ComputeModelNames()),
            UnsignedOption<C>("dp", "data-parallel degree", &C::dp, 1, 65536),
            UnsignedOption<C>("tp", "tensor (model) parallel degree", &C::tp, 1, 65536),
            UnsignedOption<C>("pp", "pipeline stages", &C::pp, 1, 65536),
            UnsignedOption<C>("ep", "expert-parallel group (MoE models)", &C::ep, 1, 65536),
            UnsignedOption<C>("microbatches",
                              "microbatches per iteration per replica",
                              &C::microbatches,
                              1,
                              100000),
            UnsignedOption<C>(
                "microbatch-size", "samples per microbatch", &C::microbatchSize, 1, 1u << 20),
            ChoiceOption<C>("schedule",
                            "pipeline schedule: gpipe, 1f1b or interleaved",
                            &C::schedule,
                            {"gpipe", "1f1b", "interleaved"}),
            UnsignedOption<C>(
                "virtual-stages", "interleaved: model chunks per stage", &C::virtualStages, 1, 64),
            UnsignedOption<C>("zero", "ZeRO stage 0..3", &C::zero, 0, 3),
            BytesOption<C>("bucket-bytes",
                           "data-parallel gradient bucket (PyTorch DDP: 25MiB)",
                           &C::bucketBytes,
                           1,
                           1ull << 40),
            BoolOption<C>("overlap", "gradient buckets start during backward", &C::overlap),
            BoolOption<C>("recompute", "full activation recomputation", &C::recompute),
            BoolOption<C>("sequence-parallel",
                          "tensor-parallel ReduceScatter + AllGather instead of AllReduce",
                          &C::sequenceParallel),
            BoolOption<C>("weight-streaming",
                          "stream layer weights from the wafer's I/O controllers",
                          &C::weightStreaming),
            BoolOption<C>("tp-lockstep",
                          "one compute task per tensor-parallel group (its shards in lock "
                          "step): tp times fewer compute tasks",
                          &C::tpLockstep),
            BoolOption<C>("pipeline-scatter-gather",
                          "pipeline messages as Megatron-LM's scatter-gather: each tensor-parallel "
                          "rank sends 1/tp of the activation, the receiving stage all-gathers it",
                          &C::pipelineScatterGather),
            BoolOption<C>("blocking-pipeline-sends",
                          "synchronous pipeline messages (Megatron-LM's): a send holds the "
                          "sender's compute, a step (recomputation too) waits for its message",
                          &C::blockingPipelineSends),
            BoolOption<C>("interleaved-send-with-backward",
                          "the interleaved schedule's steady state as Megatron-LM's: a forward "
                          "step's message leaves with the next backward step's, after both",
                          &C::interleavedSendWithBackward),
            BoolOption<C>("vocab-parallel-all-reduces",
                          "a transformer's vocabulary-parallel embedding and logits as "
                          "Megatron-LM's: a TP all-reduce of the embedding output (forward) and "
                          "of the logits' input gradient (backward)",
                          &C::vocabParallelAllReduces),
            BoolOption<C>("tied-embedding-copy",
                          "a transformer's tied word embedding under pipeline parallelism as "
                          "Megatron-LM's: the last stage's copy joins its data-parallel "
                          "all-reduce and optimizer, and the first and last stages all-reduce "
                          "its gradient",
                          &C::tiedEmbeddingCopy),
            BoolOption<C>("local-ddp-copies",
                          "Megatron-LM's local DDP: with overlap off, the gradients are "
                          "flattened and scaled before the data-parallel all-reduce and copied "
                          "back after it, on the compute stream",
                          &C::localDdpCopies),
            BoolOption<C>("ddp-bucket-copies",
                          "PyTorch DDP's copies: with overlap on, each bucket's gradients are "
                          "copied (scaled) into it before its data-parallel all-reduce, and "
                          "back after them all, on the compute stream",
                          &C::ddpBucketCopies),
            TextOption<C>("order",
                          "placement of the dimensions, innermost first: a permutation "
                          "of tp,pp,dp",
                          &C::order),
            UnsignedOption<C>("iterations",
                              "iterations simulated (the first is the warm-up)",
                              &C::iterations,
                              1,
                              1000),
            PathOption<C>("workload-file",
                          "ASTRA-sim 1.0 text, SimAI/AICB or Chakra JSON workload instead of a "
                          "model",
                          &C::workloadFile),
            PathOption<C>(
                "workload-groups", "Chakra: communicator groups JSON file", &C::workloadGroups),
            UnsignedOption<C>("workload-ranks",
                              "ASTRA-sim text: NPUs (the file does not say); SimAI, Chakra: "
                              "0 (the file's count) or that count",
                              &C::workloadRanks,
                              0,
                              65536),
            UnsignedOption<C>("workload-model-parallel",
                              "ASTRA-sim text: NPUs per MODEL group of HYBRID_DATA_MODEL, "
                              "HYBRID_MODEL_DATA and HYBRID_CUSTOMIZED (the file does not say); "
                              "0: the file's model_parallel_NPU_group",
                              &C::workloadModelParallel,
                              0,
                              65536),
            RealOption<C>("clock-ghz", "ASTRA-sim text: cycles per ns", &C::clockGHz, 1e-3, 1e3),
            UnsignedOption<C>("jobs", "copies of the job sharing the cluster", &C::jobs, 1, 64),
            TextOption<C>("placement",
                          "cluster ranks of each job, ';' between jobs (e.g. 0-15;16-31); "
                          "empty: consecutive blocks",
                          &C::placement),
            BoolOption<C>("free-communication",
                          "communication takes no time (the compute-only ideal)",
                          &C::freeCommunication),
            RealOption<C>("overlap-slowdown",
                          "contention: compute beside a collective or send of its GPU takes "
                          "1 + this times as long while it is in flight (NCCL's kernels take "
                          "SMs and memory bandwidth); 0: none",
                          &C::overlapSlowdown,
                          0,
                          100),
            BoolOption<C>("send-rendezvous",
                          "a blocking send starts only when its receiver is not computing "
                          "(NCCL's send waits for the matching receive, which a synchronous "
                          "pipeline posts between steps)",
                          &C::sendRendezvous),
            BoolOption<C>("trace", "keep the timeline (trace.json)", &C::trace),
            BoolOption<C>("stats",
                          "statistics of the run with every job: per link, switch and rank "
                          "(links.csv, switches.csv, rank-stats.csv; doc/statistics.md)",
                          &C::stats),
            BoolOption<C>("comms",
                          "keep a row per collective, send and stream (comms.csv; false: an "
                          "empty table, for runs of millions of tasks)",
                          &C::comms),
            SeedOption<C>(&C::seed),
            UnsignedOption<C>("run", "random run number", &C::run),
        };
        for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
        {
            o.push_back(BackendOption(static_cast<TrainingDimension>(d)));
        }
        for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
        {
            o.push_back(ClassOption(static_cast<TrainingDimension>(d)));
        }
        for (auto&& t : LiftTopologyOptions<C>())
        {
            o.push_back(t);
        }
        return RecordGiven(o);
    }();
    return options;
}

bool
TrainingConfig::Applies(const std::string& option) const
{
    // off: left out of the config (result files as without the option)
    if (option == "stats")
    {
        return stats;
    }
    // as ValidatedGraph takes them: a returned config with a zoo model's heads = 0 (its
    // own shape) was refused when run again
    if (!workloadFile.empty() ? Contains(PlanOptions(), option) : Contains(FileOptions(), option))
    {
        return false;
    }
    if (model != "transformer" && Contains(ShapeOptions(), option))
    {
        return false;
    }
    return TopologyOptionApplies(topology, option);
}

} // namespace ns3
