/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-plan.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/time-resolution.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingPlan");

namespace
{

const std::vector<std::string> g_schedules = {"gpipe", "1f1b", "interleaved"};

/// The most ranks a generated plan may have.
constexpr uint64_t MAX_PLAN_RANKS = 1u << 20;
/// The most iterations a generated plan may have.
constexpr uint32_t MAX_PLAN_ITERATIONS = 1000;

/// A half-open range [begin, end) of indices.
struct Range
{
    uint32_t begin;
    uint32_t end;
};

/// \return the position of TP, PP or DP in TrainingPlan's (tp, pp, dp) coordinates
uint32_t
Axis(TrainingDimension d)
{
    switch (d)
    {
        case TrainingDimension::TP:
            return 0;
        case TrainingDimension::PP:
            return 1;
        case TrainingDimension::DP:
            return 2;
        default:
            break;
    }
    throw std::invalid_argument("order: " + ToString(d) + " is not one of tp, pp, dp");
}

/// Throw std::invalid_argument naming "order" unless it is a permutation of tp, pp, dp.
void
ValidateOrder(const std::vector<TrainingDimension>& order)
{
    std::array<bool, 3> seen{false, false, false};
    std::string text;
    for (auto d : order)
    {
        text += (text.empty() ? "" : ",") + ToString(d);
    }
    auto fail = [&text]()
    {
        throw std::invalid_argument("order: '" + text
                                    + "' must list tp, pp and dp once each (innermost first)");
    };
    if (order.size() != 3)
    {
        fail();
    }
    for (auto d : order)
    {
        if (d != TrainingDimension::TP && d != TrainingDimension::PP && d != TrainingDimension::DP)
        {
            fail();
        }
        if (seen[Axis(d)])
        {
            fail();
        }
        seen[Axis(d)] = true;
    }
}

/**
 * The units a pipeline splits a model into: a transformer layer (an
 * attention block and the MLP after it) is one unit, the embedding joins
 * the first unit and a transformer's logits the last; any other layer is a
 * unit of its own.
 */
std::vector<Range>
PipelineUnits(const Model& model)
{
    std::vector<Range> units;
    for (uint32_t i = 0; i < model.layers.size(); ++i)
    {
        if (model.layers[i].kind == LayerKind::MLP && i > 0
            && model.layers[i - 1].kind == LayerKind::ATTENTION && !units.empty())
        {
            units.back().end = i + 1;
            continue;
        }
        units.push_back({i, i + 1});
    }
    if (model.heads > 0 && units.size() >= 3)
    {
        if (model.layers[units.front().begin].kind == LayerKind::EMBEDDING)
        {
            units[1].begin = units[0].begin;
            units.erase(units.begin());
        }
        if (model.layers[units.back().begin].kind == LayerKind::LINEAR && units.size() >= 2)
        {
            units[units.size() - 2].end = units.back().end;
            units.pop_back();
        }
    }
    return units;
}

/// \return ceil(a / b)
uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

} // namespace

std::string
ToString(PipelineSchedule s)
{
    return g_schedules.at(static_cast<uint32_t>(s));
}

PipelineSchedule
ParsePipelineSchedule(const std::string& field, const std::string& text)
{
    std::string t = dlnet::ParseChoice(field, text, g_schedules);
    for (uint32_t i = 0; i < g_schedules.size(); ++i)
    {
        if (g_schedules[i] == t)
        {
            return static_cast<PipelineSchedule>(i);
        }
    }
    return PipelineSchedule::ONE_F_ONE_B;
}

uint32_t
TrainingPlan::Ranks() const
{
    return dp * tp * pp;
}

uint64_t
TrainingPlan::GlobalBatch() const
{
    return static_cast<uint64_t>(dp) * microbatches * microbatchSize;
}

void
TrainingPlan::Validate(const Model& model) const
{
    auto fail = [](const std::string& field, const std::string& what)
    {
        throw std::invalid_argument(field + ": " + what);
    };
    auto atLeastOne = [&fail](const std::string& field, uint64_t value)
    {
        if (value == 0)
        {
            fail(field, "0 must be at least 1");
        }
    };
    const std::string m = dlnet::PrintableText(model.name);
    if (model.layers.empty())
    {
        fail("model", m + " has no layers");
    }
    atLeastOne("dp", dp);
    atLeastOne("tp", tp);
    atLeastOne("pp", pp);
    atLeastOne("ep", ep);
    atLeastOne("microbatches", microbatches);
    atLeastOne("microbatch-size", microbatchSize);
    atLeastOne("virtual-stages", virtualStages);
    atLeastOne("bucket-bytes", bucketBytes);
    if (!(optimizerFlops >= 0 && optimizerFlops < 1e6)
        || !(optimizerBytes >= 0 && optimizerBytes < 1e6))
    {
        fail("optimizer", "FLOPs and bytes per parameter must be in [0, 1e6)");
    }
    if (iterations < 1 || iterations > MAX_PLAN_ITERATIONS)
    {
        fail("iterations",
             std::to_string(iterations) + " must be in 1.." + std::to_string(MAX_PLAN_ITERATIONS));
    }
    uint64_t ranks = static_cast<uint64_t>(dp) * tp * pp;
    if (ranks > MAX_PLAN_RANKS)
    {
        fail("dp x tp x pp",
             std::to_string(ranks) + " ranks is above " + std::to_string(MAX_PLAN_RANKS));
    }
    if (zero > 3)
    {
        fail("zero", std::to_string(zero) + " must be 0, 1, 2 or 3");
    }
    ValidateOrder(order);
    if (tp > 1)
    {
        if (model.heads == 0)
        {
            fail("tp",
                 std::to_string(tp) + " > 1 needs a transformer (attention heads to split); " + m
                     + " has none");
        }
        if (model.heads % tp != 0)
        {
            fail("tp",
                 std::to_string(tp) + " does not divide the " + std::to_string(model.heads)
                     + " heads of " + m);
        }
    }
    const uint64_t units = PipelineUnits(model).size();
    if (pp > units)
    {
        fail("pp",
             std::to_string(pp) + " is above the " + std::to_string(units)
                 + " pipeline-able layers of " + m);
    }
    if (schedule == PipelineSchedule::INTERLEAVED)
    {
        if (pp < 2)
        {
            fail("schedule", "interleaved needs pp > 1 (pp is " + std::to_string(pp) + ")");
        }
        if (virtualStages < 2)
        {
            fail("virtual-stages",
                 std::to_string(virtualStages)
                     + " must be at least 2 with the interleaved schedule");
        }
        if (units % (static_cast<uint64_t>(pp) * virtualStages) != 0)
        {
            fail("virtual-stages",
                 "pp x virtualStages = " + std::to_string(pp * virtualStages)
                     + " does not divide the " + std::to_string(units) + " pipeline-able layers of "
                     + m);
        }
        if (microbatches % pp != 0)
        {
            fail("microbatches",
                 std::to_string(microbatches) + " must be a multiple of pp (" + std::to_string(pp)
                     + ") with the interleaved schedule (as Megatron-LM requires)");
        }
    }
    else if (virtualStages != 1)
    {
        fail("virtual-stages",
             std::to_string(virtualStages) + " > 1 needs the interleaved schedule (schedule is "
                 + ToString(schedule) + ")");
    }
    if (ep > 1)
    {
        bool moe = false;
        for (const auto& layer : model.layers)
        {
            moe = moe || layer.experts > 0;
            if (layer.experts > 0 && layer.experts % ep != 0)
            {
                fail("ep",
                     std::to_string(ep) + " does not divide the " + std::to_string(layer.experts)
                         + " experts of " + m + "'s " + dlnet::PrintableText(layer.name));
            }
            // the AllToAll of a microbatch's b·s·h elements splits them into ep equal blocks
            const uint64_t elements = layer.activationElements * microbatchSize;
            if (layer.experts > 0 && elements % ep != 0)
            {
                fail("ep",
                     std::to_string(ep) + " does not split the " + std::to_string(elements)
                         + " elements of a microbatch's tokens (microbatch-size x sequence x "
                           "hidden) at "
                         + m + "'s " + dlnet::PrintableText(layer.name)
                         + " into equal AllToAll blocks");
            }
        }
        if (!moe)
        {
            fail("ep",
                 std::to_string(ep) + " > 1 needs mixture-of-experts layers; " + m + " has none");
        }
        // EP groups are consecutive members of a DP group (experts are split
        // over data-parallel replicas, as in DeepSpeed-MoE and Megatron)
        if (dp % ep != 0)
        {
            fail("ep", std::to_string(ep) + " does not divide dp (" + std::to_string(dp) + ")");
        }
    }
}

std::vector<std::vector<uint32_t>>
TrainingPlan::Groups(TrainingDimension d) const
{
    ValidateOrder(order);
    const std::array<uint32_t, 3> sizes = {tp, pp, dp};
    for (uint32_t s : sizes)
    {
        if (s == 0)
        {
            throw std::invalid_argument("dp, tp, pp: each must be at least 1");
        }
    }
    std::array<uint32_t, 3> stride{};
    uint32_t s = 1;
    for (auto dim : order)
    {
        stride[Axis(dim)] = s;
        s *= sizes[Axis(dim)];
    }
    const uint32_t n = Ranks();
    if (d == TrainingDimension::EP)
    {
        if (ep == 0 || dp % ep != 0)
        {
            throw std::invalid_argument("ep: " + std::to_string(ep) + " must divide dp ("
                                        + std::to_string(dp) + ")");
        }
        std::vector<std::vector<uint32_t>> out;
        for (const auto& g : Groups(TrainingDimension::DP))
        {
            for (uint32_t i = 0; i < g.size(); i += ep)
            {
                out.emplace_back(g.begin() + i, g.begin() + i + ep);
            }
        }
        return out;
    }
    const uint32_t a = Axis(d);
    std::vector<std::vector<uint32_t>> out;
    for (uint32_t r = 0; r < n; ++r)
    {
        if ((r / stride[a]) % sizes[a] != 0)
        {
            continue;
        }
        std::vector<uint32_t> members(sizes[a]);
        for (uint32_t i = 0; i < sizes[a]; ++i)
        {
            members[i] = r + i * stride[a];
        }
        out.push_back(std::move(members));
    }
    return out;
}

namespace
{

constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

/// One step of a stage's pipeline schedule.
struct PipeOp
{
    bool backward;
    uint32_t chunk; //!< global model chunk (stage + pp x local chunk)
    uint32_t microbatch;
    /// Its pipeline send goes out after the stage's next step has computed,
    /// together with that step's (TrainingPlan::interleavedSendWithBackward).
    bool sendWithNext{false};
};

/// A DP gradient bucket of one stage.
struct Bucket
{
    std::vector<uint32_t> layers; //!< in backward order
    uint64_t bytes{0};            //!< per TP shard
    uint32_t lowest{0};           //!< the layer whose backward completes it
    bool expert{false};           //!< a mixture-of-experts layer's (reduced over replicas of
                                  //!< the same experts only)
};

/// Generates the graph (see MakeTrainingGraph).
class GraphBuilder
{
public:
    GraphBuilder(const Model& model, const DeviceSpec& device, const TrainingPlan& plan)
        : m_model(model)
        , m_device(device)
        , m_plan(plan)
        , m_type(model.dataType)
        , m_elem(ElementSize(model.dataType))
        , m_T(plan.tp)
        , m_P(plan.pp)
        , m_D(plan.dp)
        , m_V(plan.virtualStages)
        , m_C(plan.pp * plan.virtualStages)
        , m_M(plan.microbatches)
        , m_E(plan.ep)
        , m_R(plan.Ranks())
    {
    }

    TrainingGraph Build();

private:
    /// \return the parameters of layer l on one rank (its TP shard and, for a
    /// mixture of experts, its ep-th of the experts)
    uint64_t LocalParameters(uint32_t l) const
    {
        const ModelLayer& layer = m_model.layers[l];
        if (l == m_embLayer)
        {
            return CeilDiv(CeilDiv(layer.parameters, m_D), m_T); // its 1/dp of the tables
        }
        return CeilDiv(layer.parameters / (layer.experts > 0 ? m_E : 1), m_T);
    }

    /// Emit, per TP index, the AllToAll of the model-parallel embedding's lookups
    /// (forward) or their gradients (backward) over the stage's DP group; deps(r)
    /// gives what rank r's part waits for. Sets m_pendingEmb (forward) or
    /// m_pendingEmbGrad (backward) of the members.
    void EmitEmbeddingAllToAll(uint32_t k,
                               const PipeOp& op,
                               uint32_t iteration,
                               bool backward,
                               const std::function<std::vector<uint32_t>(uint32_t)>& deps);

    uint32_t EmitAllToAll(uint32_t k,
                          uint32_t t,
                          uint32_t firstD,
                          const Range& g,
                          const PipeOp& op,
                          uint32_t iteration,
                          TrainingPhase phase,
                          const std::string& what,
                          std::vector<uint32_t> deps);

    uint32_t RankOf(uint32_t t, uint32_t k, uint32_t d) const
    {
        return t * m_stride[0] + k * m_stride[1] + d * m_stride[2];
    }

    /// A compute task's ranks in a stage: TP indices [t0, t0 + shards) of DP index d.
    struct ComputeUnit
    {
        uint32_t t0;
        uint32_t shards;
        uint32_t d;
    };

    /// \return a stage's compute tasks in graph order: per (t, d), or per d with tpLockstep
    const std::vector<ComputeUnit>& ComputeUnits() const
    {
        return m_units;
    }

    void Setup();
    std::vector<PipeOp> Schedule(uint32_t k) const;
    void EmitOp(uint32_t k, const PipeOp& op, uint32_t iteration);
    /// Emit op's pipeline sends (if its chunk has a neighbour that way) and
    /// mark it done, which lets its consumer be emitted.
    /// batched: posted beside the step's own blocking send (TrainingTask::batched); the
    /// sender's next compute waits for it
    void EmitSend(uint32_t k, const PipeOp& op, uint32_t iteration, bool batched = false);
    /// Emit, per DP index, the TP AllGather that rebuilds the message op
    /// receives from its TP ranks' scattered sends (pipelineScatterGather);
    /// the send table's entries of the receivers then name the gather.
    void EmitGather(uint32_t k, const PipeOp& op, uint32_t iteration);

    /// \return whether layer l is a transformer's vocabulary-parallel embedding
    /// (the first layer) or logits (the last) and the plan reduces them under
    /// tensor parallelism (vocabParallelAllReduces)
    bool VocabularyLayer(uint32_t l) const
    {
        if (m_T < 2 || !m_plan.vocabParallelAllReduces || m_model.heads == 0
            || m_model.layers.size() < 2)
        {
            return false;
        }
        const LayerKind kind = m_model.layers[l].kind;
        return (l == 0 && kind == LayerKind::EMBEDDING)
               || (l + 1 == m_model.layers.size() && kind == LayerKind::LINEAR);
    }

    /// \return whether the last stage keeps a copy of the tied word embedding
    /// (tiedEmbeddingCopy): a model whose top layer shares the first layer's weights
    bool TiedEmbeddingCopy() const
    {
        return m_plan.tiedEmbeddingCopy && m_P > 1 && m_model.layers.size() >= 2
               && m_model.layers.back().tiedParameters > 0;
    }

    /// \return the parameters of layer l whose gradients the stage reduces over
    /// its DP group and updates: the tied logits' copy of the embedding too
    uint64_t GradientParameters(uint32_t l) const
    {
        if (l + 1 == m_model.layers.size() && TiedEmbeddingCopy())
        {
            return TiedCopyParameters();
        }
        return LocalParameters(l);
    }

    /// \return the last stage's shard of the tied embedding's copy (vocabulary-parallel)
    uint64_t TiedCopyParameters() const
    {
        return CeilDiv(m_model.layers.back().tiedParameters, m_T);
    }

    /// Emit the first and the last stage's AllReduce of the tied embedding's
    /// gradient (TiedEmbeddingCopy), after their DP reductions.
    void EmitTiedEmbeddingAllReduce(uint32_t iteration);
    /// Emit per compute unit of stage k a memory-bound task of `passes` reads and
    /// writes of its local gradients (localDdpCopies), after its reductions so far.
    void EmitGradientCopy(uint32_t k,
                          uint32_t iteration,
                          uint32_t passes,
                          const std::string& label);
    /// Add a compute task (duration, label, phase, iteration set) of stage k's
    /// unit u after each of its ranks' last compute and (afterReductions) their
    /// reductions so far, plus what perRank adds for a rank; it becomes their
    /// last compute.
    /// \return its id
    uint32_t AddUnitCompute(uint32_t k,
                            const ComputeUnit& u,
                            TrainingTask task,
                            const std::function<void(uint32_t, TrainingTask&)>& perRank = {},
                            bool afterReductions = true);
    /// Emit stage k's optimizer step (and ZeRO-1/2's gathers after it).
    void EmitOptimizer(uint32_t k, uint32_t iteration);

    /// \return the layer whose output (forward) or input gradient (backward)
    /// chunk c sends to the next (previous) chunk
    uint32_t BoundaryLayer(uint32_t c, bool backward) const
    {
        return m_chunks[backward ? c - 1 : c].end - 1;
    }

    /// \return the index into m_fwdSend / m_bwdSend of what chunk c sent for microbatch mb
    /// to rank r
    static uint64_t Slot(uint32_t c, uint32_t mb, uint32_t r, uint32_t M, uint32_t R)
    {
        return (static_cast<uint64_t>(c) * M + mb) * R + r;
    }
    void EmitPass(uint32_t k, const PipeOp& op, uint32_t iteration, TrainingPhase phase);
    void EmitBucket(uint32_t k, const Bucket& b, uint32_t index, uint32_t iteration);
    /// Emit per compute unit of stage k the copy of bucket b's gradients into it
    /// (ddpBucketCopies) after the unit's last compute, which the bucket's reduction waits for.
    void EmitBucketCopy(uint32_t k, const Bucket& b, uint32_t index, uint32_t iteration);
    /// \return the communicators (members, name) that reduce bucket b of stage k
    std::vector<std::pair<std::vector<uint32_t>, std::string>> BucketGroups(uint32_t k,
                                                                            const Bucket& b) const;
    void EmitStageEnd(uint32_t k, uint32_t iteration);
    std::string Layers(const Range& g) const;
    void Collective(TrainingTask& task,
                    const std::vector<uint32_t>& ranks,
                    CollectiveOp op,
                    uint64_t bytes,
                    TrainingDimension dim,
                    const std::string& group);

    const Model& m_model;
    const DeviceSpec& m_device;
    const TrainingPlan& m_plan;
    DataType m_type;
    uint64_t m_elem;
    uint32_t m_T, m_P, m_D, m_V, m_C, m_M, m_E, m_R;
    std::array<uint32_t, 3> m_stride{};
    std::vector<uint32_t> m_tpGroup, m_ppGroup, m_dpGroup, m_epGroup; //!< group of each rank
    std::vector<Range> m_chunks;                                      //!< layers of each chunk
    std::vector<std::vector<Range>> m_groups; //!< compute groups of each chunk
    /// per group id: fwd, bwd, recompute, and bwd of an iteration's first microbatch (without
    /// the gradient accumulation: GradientAccumulationTime)
    std::vector<std::array<Time, 4>> m_groupTime;
    std::vector<std::vector<uint32_t>> m_groupId; //!< [chunk][i] -> id into m_groupTime
    std::vector<std::vector<Bucket>> m_buckets;   //!< per stage, in launch order
    std::vector<uint64_t> m_stageParams;          //!< per stage, per TP shard
    bool m_perLayerFetch{false};
    uint32_t m_embLayer{std::numeric_limits<uint32_t>::max()};    //!< model-parallel embedding
    uint32_t m_embConsumer{std::numeric_limits<uint32_t>::max()}; //!< first layer using its lookups
    std::vector<uint64_t> m_stageEmbParams; //!< per stage: the embedding shard's parameters
    std::vector<ComputeUnit> m_units;       //!< see ComputeUnits

    TrainingGraph m_graph;
    // per iteration state
    std::vector<uint32_t> m_fwdSend, m_bwdSend;    //!< [(c x M + mb) x R + rank]
    std::vector<char> m_doneF, m_doneB;            //!< [c x M + mb]
    std::vector<std::optional<PipeOp>> m_heldSend; //!< per stage: a step whose send waits
    std::vector<uint32_t> m_bwdCount;              //!< backward ops done per chunk
    std::vector<uint32_t> m_lastBwdTask;           //!< [layer x R + rank], last microbatch
    std::vector<uint32_t> m_lastCompute;           //!< per rank
    std::vector<uint32_t> m_pendingTp;      //!< per rank: TP collective the next compute needs
    std::vector<uint32_t> m_pendingEmb;     //!< per rank: embedding AllToAll (forward) not yet used
    std::vector<uint32_t> m_pendingEmbGrad; //!< per rank: embedding-gradient AllToAll (backward)
    /// per rank: what its next compute waits for besides its streams (the iteration's start,
    /// a batched pipeline send)
    std::vector<std::vector<uint32_t>> m_startDeps;
    std::vector<std::vector<uint32_t>> m_reduceTasks; //!< per rank: DP bucket reductions
    /// TiedEmbeddingCopy: the first or the last stage has reduced and waits for the other
    std::vector<bool> m_tiedStageReduced;
    std::vector<std::vector<uint32_t>> m_histLast;   //!< [k x T + t]: last compute over d
    std::vector<std::vector<uint32_t>> m_histBefore; //!< [k x T + t]: the one before
};

void
GraphBuilder::Setup()
{
    for (uint32_t t = 0; t < m_T && !m_plan.tpLockstep; ++t)
    {
        for (uint32_t d = 0; d < m_D; ++d)
        {
            m_units.push_back({t, 1, d});
        }
    }
    for (uint32_t d = 0; d < m_D && m_plan.tpLockstep; ++d)
    {
        m_units.push_back({0, m_T, d});
    }
    uint32_t s = 1;
    const std::array<uint32_t, 3> sizes = {m_T, m_P, m_D};
    for (auto dim : m_plan.order)
    {
        m_stride[Axis(dim)] = s;
        s *= sizes[Axis(dim)];
    }
    auto index = [this](TrainingDimension d, std::vector<uint32_t>& of)
    {
        of.assign(m_R, 0);
        auto groups = m_plan.Groups(d);
        for (uint32_t g = 0; g < groups.size(); ++g)
        {
            for (uint32_t r : groups[g])
            {
                of[r] = g;
            }
        }
    };
    index(TrainingDimension::TP, m_tpGroup);
    index(TrainingDimension::PP, m_ppGroup);
    index(TrainingDimension::DP, m_dpGroup);
    index(TrainingDimension::EP, m_epGroup);

    // DLRM: the embedding tables of a non-transformer are placed model
    // parallel over the DP group (see MakeTrainingGraph)
    if (m_model.heads == 0 && m_D > 1)
    {
        for (uint32_t l = 0; l < m_model.layers.size(); ++l)
        {
            if (m_model.layers[l].kind == LayerKind::EMBEDDING)
            {
                m_embLayer = l;
                break;
            }
        }
        if (m_embLayer != NONE)
        {
            m_embConsumer = m_embLayer + 1; // the next layer, unless an interaction follows
            for (uint32_t l = m_embLayer + 1; l < m_model.layers.size(); ++l)
            {
                if (m_model.layers[l].kind == LayerKind::INTERACTION)
                {
                    m_embConsumer = l;
                    break;
                }
            }
        }
    }

    // chunks: contiguous units balancing training FLOPs (unit counts if there are none)
    auto units = PipelineUnits(m_model);
    std::vector<double> prefix(units.size() + 1, 0);
    for (uint32_t u = 0; u < units.size(); ++u)
    {
        double f = 0;
        for (uint32_t l = units[u].begin; l < units[u].end; ++l)
        {
            f += m_model.layers[l].TrainingFlops();
        }
        prefix[u + 1] = prefix[u] + f;
    }
    if (prefix.back() == 0)
    {
        for (uint32_t u = 0; u <= units.size(); ++u)
        {
            prefix[u] = u;
        }
    }
    const uint32_t n = units.size();
    std::vector<uint32_t> cut(m_C + 1, 0);
    cut[m_C] = n;
    const bool equal = m_plan.schedule == PipelineSchedule::INTERLEAVED;
    for (uint32_t b = 1; b < m_C; ++b)
    {
        if (equal)
        {
            cut[b] = n / m_C * b; // Validate: pp x virtualStages divides the units
            continue;
        }
        double target = prefix[n] * b / m_C;
        uint32_t best = cut[b - 1] + 1;
        for (uint32_t j = best; j <= n - (m_C - b); ++j)
        {
            if (std::abs(prefix[j] - target) < std::abs(prefix[best] - target))
            {
                best = j;
            }
        }
        cut[b] = best;
    }
    m_chunks.resize(m_C);
    for (uint32_t c = 0; c < m_C; ++c)
    {
        m_chunks[c] = {units[cut[c]].begin, units[cut[c + 1] - 1].end};
    }

    // DP buckets per stage: each chunk's layers in reverse order (backward order),
    // closed before the next layer would exceed bucketBytes
    m_perLayerFetch = m_plan.weightStreaming || (m_plan.zero == 3 && m_D > 1);
    std::vector<int32_t> bucketOf(m_model.layers.size(), -1);
    m_buckets.assign(m_P, {});
    m_stageParams.assign(m_P, 0);
    m_stageEmbParams.assign(m_P, 0);
    for (uint32_t k = 0; k < m_P; ++k)
    {
        for (uint32_t j = m_V; j-- > 0;)
        {
            const Range& ch = m_chunks[j * m_P + k];
            Bucket cur;
            for (uint32_t l = ch.end; l-- > ch.begin;)
            {
                uint64_t params = GradientParameters(l);
                if (l == m_embLayer)
                {
                    m_stageEmbParams[k] += params; // a local gradient: no bucket
                    continue;
                }
                m_stageParams[k] += params;
                uint64_t bytes = params * m_elem;
                if (bytes == 0)
                {
                    continue;
                }
                const bool expert = m_model.layers[l].experts > 0;
                if (!cur.layers.empty()
                    && (cur.bytes + bytes > m_plan.bucketBytes || expert || cur.expert))
                {
                    m_buckets[k].push_back(cur);
                    cur = Bucket();
                }
                cur.layers.push_back(l);
                cur.bytes += bytes;
                cur.lowest = l;
                cur.expert = expert;
                bucketOf[l] = static_cast<int32_t>(m_buckets[k].size());
            }
            if (!cur.layers.empty())
            {
                m_buckets[k].push_back(cur);
            }
        }
    }

    // compute groups: consecutive layers of a chunk with no communication between them
    const uint32_t b = m_plan.microbatchSize;
    m_groups.assign(m_C, {});
    m_groupId.assign(m_C, {});
    for (uint32_t c = 0; c < m_C; ++c)
    {
        const Range& ch = m_chunks[c];
        uint32_t begin = ch.begin;
        for (uint32_t l = ch.begin; l < ch.end; ++l)
        {
            LayerKind kind = m_model.layers[l].kind;
            bool boundary
                = l + 1 == ch.end || m_perLayerFetch
                  || (m_T > 1 && (kind == LayerKind::ATTENTION || kind == LayerKind::MLP))
                  || VocabularyLayer(l) || (m_D > 1 && bucketOf[l] != bucketOf[l + 1])
                  || (m_E > 1
                      && (m_model.layers[l].experts > 0 || m_model.layers[l + 1].experts > 0))
                  || (m_embLayer != NONE
                      && (l == m_embLayer || l + 1 == m_embLayer || l + 1 == m_embConsumer));
            if (!boundary)
            {
                continue;
            }
            Range g{begin, l + 1};
            std::array<Time, 4> t{};
            for (uint32_t i = g.begin; i < g.end; ++i)
            {
                ModelLayer layer = m_model.layers[i];
                layer.parameters = LocalParameters(i) * m_T; // EP: this rank's experts
                Time f = LayerPassTime(layer, LayerPass::FORWARD, m_device, m_type, b, m_T);
                t[0] += f;
                const Time backward
                    = LayerPassTime(layer, LayerPass::INPUT_GRADIENT, m_device, m_type, b, m_T)
                      + LayerPassTime(layer, LayerPass::WEIGHT_GRADIENT, m_device, m_type, b, m_T);
                t[1] += backward;
                // with a pipeline the tied embedding and logits are on the first and the last
                // stage, each accumulating its own copy's gradient
                t[3] += backward
                        - GradientAccumulationTime(layer, m_device, m_type, b, m_T, m_P > 1);
                if (layer.recomputable)
                {
                    t[2] += f;
                }
            }
            m_groups[c].push_back(g);
            m_groupId[c].push_back(m_groupTime.size());
            m_groupTime.push_back(t);
            begin = l + 1;
        }
    }
}

std::vector<PipeOp>
GraphBuilder::Schedule(uint32_t k) const
{
    std::vector<PipeOp> ops;
    ops.reserve(2 * m_M * m_V);
    if (m_plan.schedule == PipelineSchedule::GPIPE)
    {
        for (uint32_t mb = 0; mb < m_M; ++mb)
        {
            ops.push_back({false, k, mb});
        }
        for (uint32_t mb = 0; mb < m_M; ++mb)
        {
            ops.push_back({true, k, mb});
        }
        return ops;
    }
    // 1F1B is the interleaved schedule with one chunk per stage. Megatron-LM's
    // virtual microbatch i: local chunk (i / pp) mod v (reversed in backward),
    // microbatch (i / (pp v)) pp + i mod pp.
    const uint32_t total = m_M * m_V;
    uint32_t warm = m_V == 1 ? std::min(m_P - k - 1, m_M)
                             : std::min((m_P - k - 1) * 2 + (m_V - 1) * m_P, total);
    auto op = [this, k](uint32_t i, bool backward)
    {
        uint32_t j = (i / m_P) % m_V;
        if (backward)
        {
            j = m_V - 1 - j;
        }
        uint32_t mb = m_V == 1 ? i : (i / (m_P * m_V)) * m_P + i % m_P;
        return PipeOp{backward, j * m_P + k, mb, false};
    };
    for (uint32_t i = 0; i < warm; ++i)
    {
        ops.push_back(op(i, false));
    }
    // Megatron-LM's interleaved steady state computes a forward and a backward
    // step, then exchanges both steps' messages in one call
    // (send_forward_backward_recv_forward_backward); its 1F1B without
    // interleaving sends each forward's output at once
    const bool late = m_V > 1 && m_plan.interleavedSendWithBackward;
    for (uint32_t i = 0; i + warm < total; ++i)
    {
        ops.push_back(op(warm + i, false));
        ops.back().sendWithNext = late;
        ops.push_back(op(i, true));
    }
    for (uint32_t i = total - warm; i < total; ++i)
    {
        ops.push_back(op(i, true));
    }
    return ops;
}

std::string
GraphBuilder::Layers(const Range& g) const
{
    return g.end - g.begin == 1 ? "L" + std::to_string(g.begin)
                                : "L" + std::to_string(g.begin) + "-" + std::to_string(g.end - 1);
}

void
GraphBuilder::Collective(TrainingTask& task,
                         const std::vector<uint32_t>& ranks,
                         CollectiveOp op,
                         uint64_t bytes,
                         TrainingDimension dim,
                         const std::string& group)
{
    task.kind = TrainingTaskKind::COLLECTIVE;
    task.ranks = ranks;
    task.op = op;
    task.type = m_type;
    task.bytes = bytes;
    task.dimension = dim;
    task.group = group;
}

void
GraphBuilder::EmitPass(uint32_t k, const PipeOp& op, uint32_t iteration, TrainingPhase phase)
{
    const uint32_t c = op.chunk;
    const uint32_t mb = op.microbatch;
    const bool backward = phase == TrainingPhase::BACKWARD;
    const bool recompute = phase == TrainingPhase::RECOMPUTE;
    const std::string mbText = " mb" + std::to_string(mb);
    const std::string passText = backward ? "B " : (recompute ? "R " : "F ");
    const auto& groups = m_groups[c];
    const bool lastMb = backward && m_bwdCount[c] + 1 == m_M;
    bool first = true;
    for (uint32_t gi = 0; gi < groups.size(); ++gi)
    {
        const uint32_t idx = backward ? groups.size() - 1 - gi : gi;
        const Range& g = groups[idx];
        const auto& times = m_groupTime[m_groupId[c][idx]];
        const bool firstMb = backward && m_bwdCount[c] == 0;
        const Time duration = backward ? times[firstMb ? 3 : 1] : (recompute ? times[2] : times[0]);
        if (recompute && duration.IsZero())
        {
            continue; // nothing recomputable in this group
        }
        const ModelLayer& top = m_model.layers[g.end - 1];
        // weights: streamed (WS) or gathered (ZeRO-3), prefetching one layer ahead:
        // the fetch of a layer waits for the compute two layers back to finish
        std::vector<uint32_t> fetch(m_T, NONE);
        if (m_perLayerFetch && !recompute)
        {
            // (the tied logits fetch their copy of the embedding, tiedEmbeddingCopy)
            uint64_t bytes = GradientParameters(g.begin) * m_elem;
            for (uint32_t t = 0; bytes > 0 && t < m_T; ++t)
            {
                std::vector<uint32_t> members(m_D);
                for (uint32_t d = 0; d < m_D; ++d)
                {
                    members[d] = RankOf(t, k, d);
                }
                std::vector<uint32_t> before;
                for (uint32_t id : m_histBefore[k * m_T + t])
                {
                    if (id != NONE)
                    {
                        before.push_back(id);
                    }
                }
                if (m_plan.weightStreaming)
                {
                    TrainingTask s;
                    s.kind = TrainingTaskKind::STREAM;
                    s.ranks = members;
                    s.dimension = TrainingDimension::WS;
                    s.bytes = bytes;
                    s.label = "ws " + Layers(g) + mbText + (backward ? " B" : " F");
                    s.group = "ws" + std::to_string(m_dpGroup[members[0]]);
                    s.phase = phase;
                    s.layer = g.begin;
                    s.microbatch = mb;
                    s.iteration = iteration;
                    s.deps = before;
                    fetch[t] = m_graph.Add(std::move(s));
                }
                if (m_plan.zero == 3 && m_D > 1 && g.begin != m_embLayer)
                {
                    TrainingTask a;
                    Collective(a,
                               members,
                               CollectiveOp::ALL_GATHER,
                               bytes,
                               TrainingDimension::DP,
                               "dp" + std::to_string(m_dpGroup[members[0]]));
                    a.label = "AG " + Layers(g) + mbText + (backward ? " B" : " F");
                    a.phase = phase;
                    a.layer = g.begin;
                    a.microbatch = mb;
                    a.iteration = iteration;
                    a.deps = before;
                    if (fetch[t] != NONE)
                    {
                        a.deps.push_back(fetch[t]);
                    }
                    fetch[t] = m_graph.Add(std::move(a));
                }
            }
        }
        // mixture of experts: the tokens are dispatched to their experts before
        // the layer and combined after it, an AllToAll of b·s·h elements over
        // each EP group, in every pass
        const bool moe = m_E > 1 && top.experts > 0;
        const std::string passTag = backward ? " B" : (recompute ? " R" : " F");
        std::vector<uint32_t> dispatch;
        if (moe)
        {
            dispatch.assign(m_R, NONE);
            for (uint32_t t = 0; t < m_T; ++t)
            {
                for (uint32_t e = 0; e < m_D; e += m_E)
                {
                    std::vector<uint32_t> deps;
                    for (uint32_t d = e; d < e + m_E; ++d)
                    {
                        const uint32_t r = RankOf(t, k, d);
                        for (uint32_t dep : {m_lastCompute[r], m_pendingTp[r]})
                        {
                            if (dep != NONE)
                            {
                                deps.push_back(dep);
                            }
                        }
                    }
                    uint32_t id = EmitAllToAll(
                        k, t, e, g, op, iteration, phase, "dispatch" + passTag, deps);
                    for (uint32_t d = e; d < e + m_E; ++d)
                    {
                        dispatch[RankOf(t, k, d)] = id;
                    }
                }
            }
        }
        // model-parallel embedding, backward: its gradients come back with an
        // AllToAll before its weight-gradient compute; launched here when the
        // layer using its lookups is in another chunk (otherwise right after
        // that layer's backward, below)
        const bool embHere = m_embLayer >= g.begin && m_embLayer < g.end;
        const Range& chunk = m_chunks[c];
        const bool consumerHere = m_embConsumer >= chunk.begin && m_embConsumer < chunk.end;
        if (backward && embHere && !consumerHere)
        {
            EmitEmbeddingAllToAll(
                k,
                op,
                iteration,
                true,
                [&](uint32_t r)
                {
                    std::vector<uint32_t> deps = {m_lastCompute[r], m_pendingTp[r]};
                    if (first && c + 1 < m_C)
                    {
                        deps.push_back(m_bwdSend[Slot(c + 1, mb, r, m_M, m_R)]);
                    }
                    return deps;
                });
        }
        // compute on every rank of the stage (with tpLockstep one task per TP group)
        for (uint32_t t = 0; t < m_T; ++t)
        {
            m_histBefore[k * m_T + t] = m_histLast[k * m_T + t];
        }
        // the deps of rank r's compute (its pending state is consumed)
        auto depsOf = [&](uint32_t r, uint32_t t, std::vector<uint32_t>& deps)
        {
            // the incoming message (its gather with scatter-gather); a recomputation
            // waits for it only when the messages are synchronous (Megatron receives
            // before the backward step, which recomputes)
            if (first && (!recompute || m_plan.pipelineSendsBlock))
            {
                const auto& sends = op.backward ? m_bwdSend : m_fwdSend;
                uint32_t from = op.backward ? c + 1 : c - 1;
                if ((op.backward && c + 1 < m_C) || (!op.backward && c > 0))
                {
                    deps.push_back(sends[Slot(from, mb, r, m_M, m_R)]);
                }
            }
            if (!m_startDeps[r].empty())
            {
                deps.insert(deps.end(), m_startDeps[r].begin(), m_startDeps[r].end());
                m_startDeps[r].clear();
            }
            if (m_pendingTp[r] != NONE)
            {
                deps.push_back(m_pendingTp[r]);
                m_pendingTp[r] = NONE;
            }
            if (fetch[t] != NONE)
            {
                deps.push_back(fetch[t]);
            }
            if (!dispatch.empty())
            {
                deps.push_back(dispatch[r]);
            }
            // the looked-up embeddings (forward) or their gradients (backward)
            if (m_pendingEmb[r] != NONE && (backward || g.end > m_embConsumer))
            {
                deps.push_back(m_pendingEmb[r]);
                m_pendingEmb[r] = NONE;
            }
            if (backward && embHere && m_pendingEmbGrad[r] != NONE)
            {
                deps.push_back(m_pendingEmbGrad[r]);
                m_pendingEmbGrad[r] = NONE;
            }
        };
        for (const auto& [t0, lockstep, d] : ComputeUnits())
        {
            TrainingTask task;
            task.kind = TrainingTaskKind::COMPUTE;
            task.duration = duration;
            task.label = passText + Layers(g) + mbText;
            task.phase = phase;
            task.layer = g.begin;
            task.microbatch = mb;
            task.iteration = iteration;
            for (uint32_t t = t0; t < t0 + lockstep; ++t)
            {
                const uint32_t r = RankOf(t, k, d);
                task.ranks.push_back(r);
                depsOf(r, t, task.deps);
            }
            if (lockstep > 1)
            {
                std::sort(task.deps.begin(), task.deps.end());
                task.deps.erase(std::unique(task.deps.begin(), task.deps.end()), task.deps.end());
            }
            uint32_t id = m_graph.Add(std::move(task));
            for (uint32_t t = t0; t < t0 + lockstep; ++t)
            {
                const uint32_t r = RankOf(t, k, d);
                m_lastCompute[r] = id;
                m_histLast[k * m_T + t][d] = id;
                if (lastMb)
                {
                    for (uint32_t l = g.begin; l < g.end; ++l)
                    {
                        m_lastBwdTask[static_cast<uint64_t>(l) * m_R + r] = id;
                    }
                }
            }
        }
        first = false;
        // model-parallel embedding: forward, the AllToAll of the lookups after
        // the embedding's compute (the layers before its consumer overlap it);
        // backward, the AllToAll of their gradients after the consumer's
        // backward (the layers between overlap it). Recomputation exchanges
        // nothing (the exchanged lookups are kept).
        if (m_embLayer != NONE
            && ((phase == TrainingPhase::FORWARD && embHere)
                || (backward && consumerHere && m_embLayer >= chunk.begin && m_embLayer < chunk.end
                    && m_embConsumer >= g.begin && m_embConsumer < g.end)))
        {
            EmitEmbeddingAllToAll(k,
                                  op,
                                  iteration,
                                  backward,
                                  [this](uint32_t r)
                                  {
                                      return std::vector<uint32_t>{m_lastCompute[r]};
                                  });
        }
        if (moe)
        {
            for (uint32_t t = 0; t < m_T; ++t)
            {
                for (uint32_t e = 0; e < m_D; e += m_E)
                {
                    std::vector<uint32_t> deps;
                    for (uint32_t d = e; d < e + m_E; ++d)
                    {
                        deps.push_back(m_lastCompute[RankOf(t, k, d)]);
                    }
                    uint32_t id
                        = EmitAllToAll(k, t, e, g, op, iteration, phase, "combine" + passTag, deps);
                    for (uint32_t d = e; d < e + m_E; ++d)
                    {
                        m_pendingTp[RankOf(t, k, d)] = id;
                    }
                }
            }
        }
        // Megatron TP: an AllReduce (or ReduceScatter + AllGather) after each
        // attention and MLP block, in forward (of the output) and backward (of
        // the input gradient); after the vocabulary-parallel embedding's forward
        // (of its output) and the logits' backward (of their input gradient)
        const bool vocabulary
            = VocabularyLayer(g.end - 1)
              && (top.kind == LayerKind::EMBEDDING ? !backward && !recompute : backward);
        if (vocabulary
            || (m_T > 1 && (top.kind == LayerKind::ATTENTION || top.kind == LayerKind::MLP)))
        {
            // the logits' input is the layer below's output
            const ModelLayer& reduced
                = vocabulary && top.kind != LayerKind::EMBEDDING ? m_model.layers[g.end - 2] : top;
            const uint64_t bytes = reduced.activationElements * m_plan.microbatchSize * m_elem;
            for (uint32_t d = 0; d < m_D; ++d)
            {
                std::vector<uint32_t> members(m_T);
                for (uint32_t t = 0; t < m_T; ++t)
                {
                    members[t] = RankOf(t, k, d);
                }
                const std::string name = "tp" + std::to_string(m_tpGroup[members[0]]);
                std::vector<CollectiveOp> ops = {CollectiveOp::ALL_REDUCE};
                if (m_plan.sequenceParallel)
                {
                    ops = {CollectiveOp::REDUCE_SCATTER, CollectiveOp::ALL_GATHER};
                }
                uint32_t prev = NONE;
                for (auto cop : ops)
                {
                    TrainingTask a;
                    Collective(a, members, cop, bytes, TrainingDimension::TP, name);
                    a.label
                        = std::string(cop == CollectiveOp::ALL_REDUCE
                                          ? "AR "
                                          : (cop == CollectiveOp::REDUCE_SCATTER ? "RS " : "AG "))
                          + Layers(g) + mbText + (backward ? " B" : (recompute ? " R" : " F"));
                    a.phase = phase;
                    a.layer = g.end - 1;
                    a.microbatch = mb;
                    a.iteration = iteration;
                    if (prev != NONE)
                    {
                        a.deps.push_back(prev);
                    }
                    else
                    {
                        for (uint32_t r : members)
                        {
                            a.deps.push_back(m_lastCompute[r]);
                            if (m_pendingTp[r] != NONE)
                            {
                                a.deps.push_back(m_pendingTp[r]); // a MoE combine
                            }
                        }
                        std::sort(a.deps.begin(), a.deps.end());
                        a.deps.erase(std::unique(a.deps.begin(), a.deps.end()), a.deps.end());
                    }
                    prev = m_graph.Add(std::move(a));
                }
                for (uint32_t r : members)
                {
                    m_pendingTp[r] = prev;
                }
            }
        }
        // DP buckets completed by this group's last-microbatch backward
        if (lastMb && m_D > 1 && m_plan.overlap)
        {
            const auto& buckets = m_buckets[k];
            for (uint32_t bi = 0; bi < buckets.size(); ++bi)
            {
                if (buckets[bi].lowest >= g.begin && buckets[bi].lowest < g.end)
                {
                    if (m_plan.ddpBucketCopies)
                    {
                        EmitBucketCopy(k, buckets[bi], bi, iteration);
                    }
                    EmitBucket(k, buckets[bi], bi, iteration);
                }
            }
        }
    }
}

void
GraphBuilder::EmitEmbeddingAllToAll(uint32_t k,
                                    const PipeOp& op,
                                    uint32_t iteration,
                                    bool backward,
                                    const std::function<std::vector<uint32_t>(uint32_t)>& deps)
{
    // every rank looks its tables (1/dp of them) up for the whole DP group's
    // microbatch (b x dp samples) and sends each member its samples' rows: a
    // per-rank buffer of b x activationElements elements (the EP AllToAll's
    // convention, nccl-tests' S), padded to dp equal blocks
    const ModelLayer& layer = m_model.layers[m_embLayer];
    const uint64_t elements = CeilDiv(layer.activationElements * m_plan.microbatchSize, m_D) * m_D;
    for (uint32_t t = 0; t < m_T; ++t)
    {
        std::vector<uint32_t> members(m_D);
        std::vector<uint32_t> d;
        for (uint32_t i = 0; i < m_D; ++i)
        {
            members[i] = RankOf(t, k, i);
            for (uint32_t dep : deps(members[i]))
            {
                if (dep != NONE)
                {
                    d.push_back(dep);
                }
            }
        }
        TrainingTask a;
        Collective(a,
                   members,
                   CollectiveOp::ALL_TO_ALL,
                   elements * m_elem,
                   TrainingDimension::EP,
                   "emb" + std::to_string(m_dpGroup[members[0]]));
        a.label = std::string("A2A emb") + (backward ? " grad" : "") + " L"
                  + std::to_string(m_embLayer) + " mb" + std::to_string(op.microbatch)
                  + (backward ? " B" : " F");
        a.phase = backward ? TrainingPhase::BACKWARD : TrainingPhase::FORWARD;
        a.layer = m_embLayer;
        a.microbatch = op.microbatch;
        a.iteration = iteration;
        std::sort(d.begin(), d.end());
        d.erase(std::unique(d.begin(), d.end()), d.end());
        a.deps = std::move(d);
        const uint32_t id = m_graph.Add(std::move(a));
        for (uint32_t r : members)
        {
            (backward ? m_pendingEmbGrad : m_pendingEmb)[r] = id;
        }
    }
}

uint32_t
GraphBuilder::EmitAllToAll(uint32_t k,
                           uint32_t t,
                           uint32_t firstD,
                           const Range& g,
                           const PipeOp& op,
                           uint32_t iteration,
                           TrainingPhase phase,
                           const std::string& what,
                           std::vector<uint32_t> deps)
{
    std::vector<uint32_t> members(m_E);
    for (uint32_t i = 0; i < m_E; ++i)
    {
        members[i] = RankOf(t, k, firstD + i);
    }
    const ModelLayer& layer = m_model.layers[g.end - 1];
    TrainingTask a;
    Collective(a,
               members,
               CollectiveOp::ALL_TO_ALL,
               layer.activationElements * m_plan.microbatchSize * m_elem,
               TrainingDimension::EP,
               "ep" + std::to_string(m_epGroup[members[0]]));
    a.label = "A2A " + what + " " + Layers(g) + " mb" + std::to_string(op.microbatch);
    a.phase = phase;
    a.layer = g.end - 1;
    a.microbatch = op.microbatch;
    a.iteration = iteration;
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    a.deps = std::move(deps);
    return m_graph.Add(std::move(a));
}

std::vector<std::pair<std::vector<uint32_t>, std::string>>
GraphBuilder::BucketGroups(uint32_t k, const Bucket& b) const
{
    std::vector<std::pair<std::vector<uint32_t>, std::string>> out;
    for (uint32_t t = 0; t < m_T; ++t)
    {
        if (b.expert && m_E > 1)
        {
            // expert gradients: over the replicas of the same experts (the same
            // position in every EP group of the DP group)
            for (uint32_t e = 0; e < m_E && m_D / m_E > 1; ++e)
            {
                std::vector<uint32_t> members;
                for (uint32_t d = e; d < m_D; d += m_E)
                {
                    members.push_back(RankOf(t, k, d));
                }
                out.emplace_back(members, "edp" + std::to_string(m_dpGroup[members[0]] * m_E + e));
            }
            continue;
        }
        std::vector<uint32_t> members(m_D);
        for (uint32_t d = 0; d < m_D; ++d)
        {
            members[d] = RankOf(t, k, d);
        }
        out.emplace_back(members, "dp" + std::to_string(m_dpGroup[members[0]]));
    }
    return out;
}

void
GraphBuilder::EmitBucket(uint32_t k, const Bucket& b, uint32_t index, uint32_t iteration)
{
    for (const auto& [members, name] : BucketGroups(k, b))
    {
        TrainingTask a;
        CollectiveOp op
            = m_plan.zero == 0 ? CollectiveOp::ALL_REDUCE : CollectiveOp::REDUCE_SCATTER;
        Collective(a, members, op, b.bytes, TrainingDimension::DP, name);
        a.label = std::string(op == CollectiveOp::ALL_REDUCE ? "AR" : "RS") + " bucket"
                  + std::to_string(index);
        a.phase = TrainingPhase::BACKWARD;
        a.layer = b.lowest;
        a.iteration = iteration;
        for (uint32_t r : members)
        {
            if (m_plan.overlap && m_plan.ddpBucketCopies)
            {
                a.deps.push_back(m_lastCompute[r]); // the copy into the bucket
            }
            else if (m_plan.overlap)
            {
                for (uint32_t l : b.layers)
                {
                    a.deps.push_back(m_lastBwdTask[static_cast<uint64_t>(l) * m_R + r]);
                }
            }
            else
            {
                a.deps.push_back(m_lastCompute[r]);
            }
        }
        std::sort(a.deps.begin(), a.deps.end());
        a.deps.erase(std::unique(a.deps.begin(), a.deps.end()), a.deps.end());
        uint32_t id = m_graph.Add(std::move(a));
        for (uint32_t r : members)
        {
            m_reduceTasks[r].push_back(id);
        }
    }
}

void
GraphBuilder::EmitStageEnd(uint32_t k, uint32_t iteration)
{
    if (m_D > 1 && !m_plan.overlap)
    {
        if (m_plan.localDdpCopies)
        {
            EmitGradientCopy(k, iteration, 2, "flatten grads"); // flatten, then scale by 1/dp
        }
        for (uint32_t bi = 0; bi < m_buckets[k].size(); ++bi)
        {
            EmitBucket(k, m_buckets[k][bi], bi, iteration);
        }
        if (m_plan.localDdpCopies)
        {
            EmitGradientCopy(k, iteration, 1, "copy back grads");
        }
    }
    if (m_D == 1 && m_plan.localDdpCopies)
    {
        // Megatron-LM's train_step calls local DDP's allreduce_gradients whatever the
        // data-parallel size: the flatten, the scale (by 1) and the copy back still run
        EmitGradientCopy(k, iteration, 2, "flatten grads");
        EmitGradientCopy(k, iteration, 1, "copy back grads");
    }
    if (m_D > 1 && m_plan.overlap && m_plan.ddpBucketCopies)
    {
        EmitGradientCopy(k, iteration, 1, "copy back grads");
    }
    if (TiedEmbeddingCopy() && (k == 0 || k + 1 == m_P))
    {
        const uint32_t other = k == 0 ? m_P - 1 : 0;
        if (!m_tiedStageReduced[other])
        {
            m_tiedStageReduced[k] = true; // its optimizer waits for the other stage's reduction
            return;
        }
        m_tiedStageReduced[other] = false;
        EmitTiedEmbeddingAllReduce(iteration);
        EmitOptimizer(other, iteration);
    }
    EmitOptimizer(k, iteration);
}

void
GraphBuilder::EmitGradientCopy(uint32_t k,
                               uint32_t iteration,
                               uint32_t passes,
                               const std::string& label)
{
    // each pass reads and writes every local gradient once
    const double bytes = 2.0 * passes * m_elem * static_cast<double>(m_stageParams[k]);
    const Time duration = RooflineTime(0, bytes, m_device, m_type);
    for (const ComputeUnit& u : ComputeUnits())
    {
        TrainingTask task;
        task.duration = duration;
        task.label = label;
        task.phase = TrainingPhase::BACKWARD;
        task.iteration = iteration;
        AddUnitCompute(k, u, std::move(task));
    }
}

void
GraphBuilder::EmitBucketCopy(uint32_t k, const Bucket& b, uint32_t index, uint32_t iteration)
{
    // one pass: read each gradient, write it scaled into the bucket (b.bytes per rank)
    const Time duration = RooflineTime(0, 2.0 * static_cast<double>(b.bytes), m_device, m_type);
    for (const ComputeUnit& u : ComputeUnits())
    {
        TrainingTask task;
        task.duration = duration;
        task.label = "copy to bucket" + std::to_string(index);
        task.phase = TrainingPhase::BACKWARD;
        task.layer = b.lowest;
        task.iteration = iteration;
        AddUnitCompute(k, u, std::move(task), {}, false); // the reductions overlap it
    }
}

uint32_t
GraphBuilder::AddUnitCompute(uint32_t k,
                             const ComputeUnit& u,
                             TrainingTask task,
                             const std::function<void(uint32_t, TrainingTask&)>& perRank,
                             bool afterReductions)
{
    task.kind = TrainingTaskKind::COMPUTE;
    for (uint32_t t = u.t0; t < u.t0 + u.shards; ++t)
    {
        const uint32_t r = RankOf(t, k, u.d);
        task.ranks.push_back(r);
        if (afterReductions)
        {
            task.deps.insert(task.deps.end(), m_reduceTasks[r].begin(), m_reduceTasks[r].end());
        }
        task.deps.push_back(m_lastCompute[r]);
        if (perRank)
        {
            perRank(r, task);
        }
    }
    if (u.shards > 1)
    {
        std::sort(task.deps.begin(), task.deps.end());
        task.deps.erase(std::unique(task.deps.begin(), task.deps.end()), task.deps.end());
    }
    const uint32_t id = m_graph.Add(std::move(task));
    for (uint32_t t = u.t0; t < u.t0 + u.shards; ++t)
    {
        m_lastCompute[RankOf(t, k, u.d)] = id;
    }
    return id;
}

void
GraphBuilder::EmitTiedEmbeddingAllReduce(uint32_t iteration)
{
    for (uint32_t d = 0; d < m_D; ++d)
    {
        for (uint32_t t = 0; t < m_T; ++t)
        {
            const std::vector<uint32_t> members{RankOf(t, 0, d), RankOf(t, m_P - 1, d)};
            TrainingTask a;
            Collective(a,
                       members,
                       CollectiveOp::ALL_REDUCE,
                       TiedCopyParameters() * m_elem,
                       TrainingDimension::DP,
                       "emb" + std::to_string(d * m_T + t));
            a.label = "AR embedding";
            a.phase = TrainingPhase::BACKWARD;
            a.layer = 0;
            a.iteration = iteration;
            for (uint32_t r : members)
            {
                a.deps.insert(a.deps.end(), m_reduceTasks[r].begin(), m_reduceTasks[r].end());
                a.deps.push_back(m_lastCompute[r]);
            }
            std::sort(a.deps.begin(), a.deps.end());
            a.deps.erase(std::unique(a.deps.begin(), a.deps.end()), a.deps.end());
            const uint32_t id = m_graph.Add(std::move(a));
            for (uint32_t r : members)
            {
                m_reduceTasks[r].push_back(id);
            }
        }
    }
}

void
GraphBuilder::EmitOptimizer(uint32_t k, uint32_t iteration)
{
    // the optimizer step: the plan's FLOPs (at the fp32 rate) and memory
    // traffic per local parameter (mixed-precision Adam: about 12 FLOPs and
    // 16 bytes: fp32 master weight, two moments, the gradient); ZeRO (any
    // stage) shards the optimizer states over the DP group; the
    // model-parallel embedding's shard is already 1/dp
    const double local = static_cast<double>(m_stageParams[k]) / (m_plan.zero >= 1 ? m_D : 1)
                         + static_cast<double>(m_stageEmbParams[k]);
    const Time optimizer = RooflineTime(
        m_plan.optimizerFlops * local, m_plan.optimizerBytes * local, m_device, DataType::FP32);
    std::vector<uint32_t> optimizerTask(m_R, NONE);
    for (const ComputeUnit& u : ComputeUnits())
    {
        TrainingTask task;
        task.duration = optimizer;
        task.label = "optimizer";
        task.phase = TrainingPhase::OPTIMIZER;
        task.iteration = iteration;
        const uint32_t id = AddUnitCompute(
            k,
            u,
            std::move(task),
            [this](uint32_t r, TrainingTask& t)
            {
                m_reduceTasks[r].clear();
                for (auto* pending : {&m_pendingEmb, &m_pendingEmbGrad, &m_pendingTp})
                {
                    if ((*pending)[r] != NONE)
                    {
                        t.deps.push_back((*pending)[r]);
                        (*pending)[r] = NONE;
                    }
                }
            });
        for (uint32_t t = u.t0; t < u.t0 + u.shards; ++t)
        {
            const uint32_t r = RankOf(t, k, u.d);
            optimizerTask[r] = id;
            m_startDeps[r] = {id};
        }
    }
    // ZeRO-1/2: the updated parameter shards are gathered again, per bucket
    if (m_D > 1 && (m_plan.zero == 1 || m_plan.zero == 2))
    {
        for (uint32_t bi = 0; bi < m_buckets[k].size(); ++bi)
        {
            for (const auto& [members, name] : BucketGroups(k, m_buckets[k][bi]))
            {
                TrainingTask a;
                Collective(a,
                           members,
                           CollectiveOp::ALL_GATHER,
                           m_buckets[k][bi].bytes,
                           TrainingDimension::DP,
                           name);
                a.label = "AG bucket" + std::to_string(bi);
                a.phase = TrainingPhase::OPTIMIZER;
                a.layer = m_buckets[k][bi].lowest;
                a.iteration = iteration;
                for (uint32_t r : members)
                {
                    a.deps.push_back(optimizerTask[r]);
                }
                uint32_t id = m_graph.Add(std::move(a));
                for (uint32_t r : members)
                {
                    m_startDeps[r].push_back(id);
                }
            }
        }
    }
}

void
GraphBuilder::EmitOp(uint32_t k, const PipeOp& op, uint32_t iteration)
{
    const uint32_t c = op.chunk;
    const bool scatter = m_plan.pipelineScatterGather && m_T > 1;
    if (scatter && (op.backward ? c + 1 < m_C : c > 0))
    {
        EmitGather(k, op, iteration); // received and gathered before the step computes
    }
    if (op.backward && m_plan.recompute)
    {
        EmitPass(k, op, iteration, TrainingPhase::RECOMPUTE);
    }
    EmitPass(k, op, iteration, op.backward ? TrainingPhase::BACKWARD : TrainingPhase::FORWARD);
    if (op.backward)
    {
        ++m_bwdCount[c];
    }
    const std::optional<PipeOp> held = std::exchange(m_heldSend[k], std::nullopt);
    if (op.sendWithNext)
    {
        m_heldSend[k] = op;
    }
    else
    {
        EmitSend(k, op, iteration);
    }
    if (held)
    {
        // after this step's compute; Megatron posts both messages in one batch_isend_irecv,
        // so with synchronous sends the two go out together
        const bool ownSend = !op.sendWithNext && (op.backward ? c > 0 : c + 1 < m_C);
        EmitSend(k, *held, iteration, m_plan.pipelineSendsBlock && ownSend);
    }
}

void
GraphBuilder::EmitSend(uint32_t k, const PipeOp& op, uint32_t iteration, bool batched)
{
    const uint32_t c = op.chunk;
    const uint32_t mb = op.microbatch;
    const bool scatter = m_plan.pipelineScatterGather && m_T > 1;
    // the pipeline send: the activation forward to the next chunk's stage, its
    // gradient backward to the previous chunk's stage (same TP and DP index);
    // every TP rank sends the whole b·s·h activation, or with scatter-gather
    // its 1/tp of it (whole elements, Megatron's split_tensor_into_1d_equal_chunks)
    const bool sends = op.backward ? c > 0 : c + 1 < m_C;
    if (sends)
    {
        const uint32_t to = op.backward ? c - 1 : c + 1;
        const uint64_t elements = m_model.layers[BoundaryLayer(c, op.backward)].activationElements
                                  * m_plan.microbatchSize;
        const uint64_t bytes = (scatter ? CeilDiv(elements, m_T) : elements) * m_elem;
        auto& table = op.backward ? m_bwdSend : m_fwdSend;
        for (uint32_t t = 0; t < m_T; ++t)
        {
            for (uint32_t d = 0; d < m_D; ++d)
            {
                const uint32_t r = RankOf(t, k, d);
                TrainingTask s;
                s.kind = TrainingTaskKind::SEND;
                s.ranks = {r, RankOf(t, to % m_P, d)};
                s.dimension = TrainingDimension::PP;
                s.type = m_type;
                s.bytes = bytes;
                s.label = std::string(op.backward ? "send grad c" : "send act c")
                          + std::to_string(c) + " mb" + std::to_string(mb);
                s.group = "pp" + std::to_string(m_ppGroup[r]);
                s.phase = op.backward ? TrainingPhase::BACKWARD : TrainingPhase::FORWARD;
                s.layer = BoundaryLayer(c, op.backward);
                s.microbatch = mb;
                s.iteration = iteration;
                s.blocking = m_plan.pipelineSendsBlock;
                s.batched = batched;
                s.deps.push_back(m_lastCompute[r]);
                if (m_pendingTp[r] != NONE)
                {
                    s.deps.push_back(m_pendingTp[r]);
                }
                if (!op.backward && m_pendingEmb[r] != NONE)
                {
                    // the lookups' consumer is on a later stage
                    s.deps.push_back(m_pendingEmb[r]);
                    m_pendingEmb[r] = NONE;
                }
                const uint32_t receiver = s.ranks[1];
                const uint32_t id = m_graph.Add(std::move(s));
                table[Slot(c, mb, receiver, m_M, m_R)] = id;
                if (batched)
                {
                    m_startDeps[r].push_back(id); // no stream orders it before that compute
                }
            }
        }
    }
    (op.backward ? m_doneB : m_doneF)[c * m_M + mb] = 1; // its consumer can be emitted
}

void
GraphBuilder::EmitGather(uint32_t k, const PipeOp& op, uint32_t iteration)
{
    // Megatron's gather_split_1d_tensor: the TP group all-gathers the message's
    // 1/tp parts into the whole b·s·h tensor (the AllGather's buffer S)
    const uint32_t c = op.chunk;
    const uint32_t mb = op.microbatch;
    const uint32_t from = op.backward ? c + 1 : c - 1;
    const uint32_t layer = BoundaryLayer(from, op.backward);
    const uint64_t bytes
        = m_model.layers[layer].activationElements * m_plan.microbatchSize * m_elem;
    auto& table = op.backward ? m_bwdSend : m_fwdSend;
    for (uint32_t d = 0; d < m_D; ++d)
    {
        std::vector<uint32_t> members(m_T);
        for (uint32_t t = 0; t < m_T; ++t)
        {
            members[t] = RankOf(t, k, d);
        }
        TrainingTask a;
        Collective(a,
                   members,
                   CollectiveOp::ALL_GATHER,
                   bytes,
                   TrainingDimension::TP,
                   "tp" + std::to_string(m_tpGroup[members[0]]));
        a.label = std::string(op.backward ? "AG recv grad c" : "AG recv act c") + std::to_string(c)
                  + " mb" + std::to_string(mb);
        a.phase = op.backward ? TrainingPhase::BACKWARD : TrainingPhase::FORWARD;
        a.layer = layer;
        a.microbatch = mb;
        a.iteration = iteration;
        for (uint32_t r : members)
        {
            a.deps.push_back(table[Slot(from, mb, r, m_M, m_R)]);
        }
        std::sort(a.deps.begin(), a.deps.end());
        const uint32_t id = m_graph.Add(std::move(a));
        for (uint32_t r : members)
        {
            table[Slot(from, mb, r, m_M, m_R)] = id;
        }
    }
}

TrainingGraph
GraphBuilder::Build()
{
    Setup();
    m_graph.name = m_model.name;
    m_graph.ranks = m_R;
    m_graph.iterations = m_plan.iterations;
    m_graph.samplesPerIteration = m_plan.GlobalBatch();
    m_graph.tokensPerSample = m_model.sequence;
    m_graph.flopsPerIteration = m_model.FlopsPerIteration(m_plan.GlobalBatch(), m_plan.recompute);
    m_graph.modelFlopsPerIteration = m_model.FlopsPerIteration(m_plan.GlobalBatch(), false);

    std::vector<std::vector<PipeOp>> schedules(m_P);
    uint64_t groupsPerRank = 0;
    for (uint32_t k = 0; k < m_P; ++k)
    {
        schedules[k] = Schedule(k);
    }
    for (uint32_t c = 0; c < m_C; ++c)
    {
        groupsPerRank = std::max<uint64_t>(groupsPerRank, m_groups[c].size());
    }
    // per pass of a microbatch's chunk: the compute tasks (one per rank, or per TP group in
    // lock step), the pipeline sends, the TP collectives and the per-layer weight fetches
    const uint64_t passes = m_plan.recompute ? 2 : 1;
    const uint64_t computeUnits = m_plan.tpLockstep ? m_R / m_T : m_R;
    uint64_t perPass = computeUnits * groupsPerRank * passes + m_R;
    if (m_T > 1)
    {
        perPass += m_R / m_T * groupsPerRank * passes;
    }
    if (m_perLayerFetch)
    {
        perPass += static_cast<uint64_t>(m_R) * groupsPerRank;
    }
    if (m_plan.pipelineScatterGather && m_T > 1)
    {
        perPass += m_R / m_T; // the gather of each pass's incoming message
    }
    uint64_t estimate = static_cast<uint64_t>(m_plan.iterations) * m_M * m_V * 2 * perPass;
    // refused before anything is built when far above the cap (the estimate is rough)
    if (estimate > 4ull * MAX_TRAINING_TASKS)
    {
        throw std::invalid_argument(
            "microbatches: the plan (" + std::to_string(m_R) + " ranks, " + std::to_string(m_M)
            + " microbatches, " + std::to_string(m_plan.iterations) + " iterations) makes about "
            + std::to_string(estimate) + " tasks; a training graph holds at most "
            + std::to_string(MAX_TRAINING_TASKS)
            + " (fewer ranks, microbatches, layers or iterations)");
    }
    m_graph.tasks.reserve(std::min<uint64_t>(estimate, MAX_TRAINING_TASKS));

    m_lastCompute.assign(m_R, NONE);
    m_pendingTp.assign(m_R, NONE);
    m_pendingEmb.assign(m_R, NONE);
    m_pendingEmbGrad.assign(m_R, NONE);
    m_startDeps.assign(m_R, {});
    m_reduceTasks.assign(m_R, {});
    m_tiedStageReduced.assign(m_P, false);
    m_histLast.assign(static_cast<uint64_t>(m_P) * m_T, {});
    m_histBefore.assign(static_cast<uint64_t>(m_P) * m_T, {});
    m_lastBwdTask.assign(static_cast<uint64_t>(m_model.layers.size()) * m_R, NONE);
    for (uint32_t it = 0; it < m_plan.iterations; ++it)
    {
        const uint64_t slots = static_cast<uint64_t>(m_C) * m_M;
        m_fwdSend.assign(slots * m_R, NONE);
        m_bwdSend.assign(slots * m_R, NONE);
        m_doneF.assign(slots, 0);
        m_heldSend.assign(m_P, std::nullopt);
        m_doneB.assign(slots, 0);
        m_bwdCount.assign(m_C, 0);
        for (auto& h : m_histLast)
        {
            h.clear();
        }
        for (auto& h : m_histBefore)
        {
            h.clear();
        }
        for (auto& h : m_histLast)
        {
            h.assign(m_D, NONE);
        }
        // emit the stages' schedules in an order that respects the
        // cross-stage dependencies, so every dep is an earlier task
        std::vector<uint32_t> next(m_P, 0);
        uint64_t remaining = 0;
        for (const auto& s : schedules)
        {
            remaining += s.size();
        }
        while (remaining > 0)
        {
            bool progress = false;
            for (uint32_t k = 0; k < m_P; ++k)
            {
                while (next[k] < schedules[k].size())
                {
                    const PipeOp& op = schedules[k][next[k]];
                    bool ready = op.backward ? (op.chunk + 1 == m_C
                                                || m_doneB[(op.chunk + 1) * m_M + op.microbatch])
                                             : (op.chunk == 0
                                                || m_doneF[(op.chunk - 1) * m_M + op.microbatch]);
                    if (!ready)
                    {
                        break;
                    }
                    EmitOp(k, op, it);
                    ++next[k];
                    --remaining;
                    progress = true;
                    if (next[k] == schedules[k].size())
                    {
                        EmitStageEnd(k, it);
                    }
                }
            }
            if (!progress)
            {
                throw std::logic_error("training plan: the pipeline schedule deadlocks (a bug)");
            }
        }
    }
    return std::move(m_graph);
}

} // namespace

TrainingGraph
MakeTrainingGraph(const Model& model, const DeviceSpec& device, const TrainingPlan& plan)
{
    // every task holds Times: picoseconds first, as the clusters use them (a Time made
    // before the switch is rounded to ns, and ns-3 tracks each one until then)
    dlnet::UsePicoseconds();
    plan.Validate(model);
    device.Validate();
    GraphBuilder builder(model, device, plan);
    return builder.Build();
}

} // namespace ns3
