/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: the compute model and the training-plan generator (the task graphs it builds).

#include "expect-invalid.h"

#include "ns3/compute-model.h"
#include "ns3/model-zoo.h"
#include "ns3/training-plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const TransformerConfig TINY{4, 256, 8, 128, 1000};

Model
Tiny(uint32_t layers = 4)
{
    TransformerConfig c = TINY;
    c.layers = layers;
    return MakeTransformer("tiny", c);
}

/// pp 2 with two model chunks per stage, interleaved 1F1B
TrainingPlan
Interleaved(uint32_t microbatches)
{
    TrainingPlan p;
    p.pp = 2;
    p.virtualStages = 2;
    p.schedule = PipelineSchedule::INTERLEAVED;
    p.microbatches = microbatches;
    return p;
}

/// Megatron-LM's warm-up forward steps on stage k of the interleaved schedule
uint32_t
InterleavedWarmUp(const TrainingPlan& p, uint32_t k)
{
    return std::min((p.pp - k - 1) * 2 + (p.virtualStages - 1) * p.pp,
                    p.microbatches * p.virtualStages);
}

/// Generate and validate the graph.
TrainingGraph
Build(const Model& model, const TrainingPlan& plan, const std::string& device = "h100")
{
    TrainingGraph g = MakeTrainingGraph(model, MakeDevice(device), plan);
    g.Validate();
    return g;
}

/// \return the tasks matching pred
std::vector<const TrainingTask*>
Select(const TrainingGraph& g, const std::function<bool(const TrainingTask&)>& pred)
{
    std::vector<const TrainingTask*> out;
    for (const auto& t : g.tasks)
    {
        if (pred(t))
        {
            out.push_back(&t);
        }
    }
    return out;
}

bool
IsCollective(const TrainingTask& t, TrainingDimension d, CollectiveOp op)
{
    return t.kind == TrainingTaskKind::COLLECTIVE && t.dimension == d && t.op == op;
}

/// \return the graph's collectives of dimension d and operation op
std::vector<const TrainingTask*>
Collectives(const TrainingGraph& g, TrainingDimension d, CollectiveOp op)
{
    return Select(g,
                  [d, op](const TrainingTask& t)
                  {
                      return IsCollective(t, d, op);
                  });
}

/// The (pass, microbatch) sequence of a rank's forward and backward computes, one entry per
/// schedule step (consecutive tasks of the same step merged).
std::vector<std::pair<char, int32_t>>
Steps(const TrainingGraph& g, uint32_t rank)
{
    std::vector<std::pair<char, int32_t>> out;
    for (const auto& t : g.tasks)
    {
        if (t.kind != TrainingTaskKind::COMPUTE || t.ranks[0] != rank || t.iteration != 0)
        {
            continue;
        }
        char pass = t.phase == TrainingPhase::FORWARD    ? 'F'
                    : t.phase == TrainingPhase::BACKWARD ? 'B'
                                                         : '?';
        if (pass == '?')
        {
            continue;
        }
        std::pair<char, int32_t> step{pass, t.microbatch};
        if (out.empty() || out.back() != step)
        {
            out.push_back(step);
        }
    }
    return out;
}

/// Expect two graphs to hold the same tasks, in order: labels, sizes and dependencies.
void
ExpectSameTasks(const TrainingGraph& a, const TrainingGraph& b)
{
    ASSERT_EQ(a.tasks.size(), b.tasks.size());
    for (uint32_t i = 0; i < a.tasks.size(); ++i)
    {
        EXPECT_EQ(a.tasks[i].label, b.tasks[i].label);
        EXPECT_EQ(a.tasks[i].bytes, b.tasks[i].bytes);
        EXPECT_EQ(a.tasks[i].deps, b.tasks[i].deps);
    }
}

/// Expect a plan option to leave the graph of plan p as it was, task by task.
void
ExpectOptionChangesNothing(const Model& m, TrainingPlan p, bool TrainingPlan::*option)
{
    p.*option = false;
    TrainingGraph off = Build(m, p);
    p.*option = true;
    ExpectSameTasks(off, Build(m, p));
}

} // namespace

TEST(ComputeModel, PresetsByName)
{
    DeviceSpec a = MakeDevice("a100");
    EXPECT_EQ(a.PeakFlops(DataType::FP16), 312e12);
    EXPECT_EQ(a.PeakFlops(DataType::BF16), 312e12);
    EXPECT_EQ(a.PeakFlops(DataType::FP32), 19.5e12);
    EXPECT_EQ(a.memoryBandwidth, 2.0e12);
    DeviceSpec h = MakeDevice("h100");
    EXPECT_EQ(h.PeakFlops(DataType::FP16), 989e12);
    EXPECT_EQ(h.memoryBandwidth, 3.35e12);
    DeviceSpec f = MakeDevice("fred-npu");
    EXPECT_EQ(f.PeakFlops(DataType::BF16), h.PeakFlops(DataType::BF16));
    EXPECT_NEAR(f.memoryBandwidth, 4.096e12, 1e3);
    DeviceSpec c = MakeDevice("cpu");
    EXPECT_EQ(c.PeakFlops(DataType::FP16), c.PeakFlops(DataType::FP32));
    EXPECT_LT(c.efficiency, h.efficiency);
    for (const auto& name : DevicePresetNames())
    {
        EXPECT_NO_THROW(MakeDevice(name).Validate()) << name;
    }
    ExpectInvalid(
        []
        {
            MakeDevice("tpu");
        },
        {"device", "tpu", "a100", "h100", "fred-npu", "cpu"});
    DeviceSpec bad = h;
    bad.efficiency = 1.5;
    ExpectInvalid(
        [&]
        {
            bad.Validate();
        },
        {"device.efficiency"});
    bad = h;
    bad.memoryBandwidth = 0;
    ExpectInvalid(
        [&]
        {
            bad.Validate();
        },
        {"device.memoryBandwidth"});
}

TEST(ComputeModel, RooflinePicksTheLargerTerm)
{
    DeviceSpec d;
    d.name = "test";
    d.peakFp32 = d.peakFp16 = d.peakBf16 = 1e12;
    d.memoryBandwidth = 1e11;
    d.efficiency = 0.5;
    // compute bound: 1e9 FLOPs at 0.5e12 = 2 ms; 1e6 bytes at 1e11 = 10 us
    EXPECT_EQ(RooflineTime(1e9, 1e6, d, DataType::FP16), MilliSeconds(2));
    // memory bound: 1e6 FLOPs = 2 us; 1e9 bytes = 10 ms
    EXPECT_EQ(RooflineTime(1e6, 1e9, d, DataType::FP16), MilliSeconds(10));
    EXPECT_EQ(RooflineTime(0, 0, d, DataType::FP16), Time(0));
    // the fp32 peak is used for fp32 arithmetic
    d.peakFp32 = 0.25e12;
    EXPECT_EQ(RooflineTime(1e9, 0, d, DataType::FP32), MilliSeconds(8));
}

TEST(ComputeModel, LayerPassTimeScalesWithSamplesAndShards)
{
    Model m = MakeModel("gpt3-175b");
    const ModelLayer& mlp = m.layers[2];
    ASSERT_EQ(mlp.kind, LayerKind::MLP);
    DeviceSpec d = MakeDevice("a100");
    Time one = LayerPassTime(mlp, LayerPass::FORWARD, d, DataType::FP16, 1);
    // compute bound: 16·s·h² FLOPs per sample at 312e12 x 0.75
    double expect = 16.0 * 2048 * 12288.0 * 12288.0 / (312e12 * 0.75);
    EXPECT_NEAR(one.GetSeconds(), expect, 1e-9);
    Time four = LayerPassTime(mlp, LayerPass::FORWARD, d, DataType::FP16, 4, 2);
    EXPECT_NEAR(four.GetSeconds(), 2 * expect, 1e-9);
    // the first layer (embedding) has no input gradient and no weight-gradient FLOPs
    EXPECT_EQ(LayerPassTime(m.layers[0], LayerPass::INPUT_GRADIENT, d, DataType::FP16, 4), Time(0));
    // the embedding's forward is a lookup: memory time only, not zero
    EXPECT_GT(LayerPassTime(m.layers[0], LayerPass::FORWARD, d, DataType::FP16, 4), Time(0));
    ExpectInvalid(
        [&]
        {
            LayerPassTime(mlp, LayerPass::FORWARD, d, DataType::FP16, 1, 0);
        },
        {"shards"});
}

TEST(TrainingPlan, ScheduleNames)
{
    for (auto s :
         {PipelineSchedule::GPIPE, PipelineSchedule::ONE_F_ONE_B, PipelineSchedule::INTERLEAVED})
    {
        EXPECT_EQ(ParsePipelineSchedule("schedule", ToString(s)), s);
    }
    ExpectInvalid(
        []
        {
            ParsePipelineSchedule("plan.schedule", "zigzag");
        },
        {"plan.schedule", "gpipe", "1f1b", "interleaved"});
}

TEST(TrainingPlan, ValidateNamesTheField)
{
    Model bert = MakeModel("bert-large");
    auto check = [&](const std::function<void(TrainingPlan&)>& change,
                     std::initializer_list<std::string> needles,
                     const Model* model = nullptr)
    {
        TrainingPlan p;
        change(p);
        ExpectInvalid(
            [&]
            {
                p.Validate(model ? *model : bert);
            },
            needles);
    };
    check(
        [](TrainingPlan& p)
        {
            p.tp = 3;
        },
        {"tp: 3", "16 heads", "bert-large"});
    check(
        [](TrainingPlan& p)
        {
            p.pp = 25;
        },
        {"pp: 25", "24"});
    check(
        [](TrainingPlan& p)
        {
            p.dp = 0;
        },
        {"dp"});
    check(
        [](TrainingPlan& p)
        {
            p.microbatches = 0;
        },
        {"microbatches"});
    check(
        [](TrainingPlan& p)
        {
            p.microbatchSize = 0;
        },
        {"microbatch-size"});
    check(
        [](TrainingPlan& p)
        {
            p.iterations = 0;
        },
        {"iterations", "1..1000"});
    check(
        [](TrainingPlan& p)
        {
            p.iterations = 1001;
        },
        {"iterations"});
    check(
        [](TrainingPlan& p)
        {
            p.bucketBytes = 0;
        },
        {"bucket-bytes"});
    check(
        [](TrainingPlan& p)
        {
            p.zero = 4;
        },
        {"zero: 4"});
    check(
        [](TrainingPlan& p)
        {
            p.ep = 2;
        },
        {"ep: 2", "mixture-of-experts"});
    check(
        [](TrainingPlan& p)
        {
            p.virtualStages = 2;
        },
        {"virtual-stages", "interleaved"});
    check(
        [](TrainingPlan& p)
        {
            p.schedule = PipelineSchedule::INTERLEAVED;
            p.pp = 2;
            p.virtualStages = 5; // 10 does not divide 24
            p.microbatches = 2;
        },
        {"virtual-stages", "24"});
    check(
        [](TrainingPlan& p)
        {
            p.schedule = PipelineSchedule::INTERLEAVED;
            p.pp = 2;
            p.virtualStages = 2;
            p.microbatches = 3;
        },
        {"microbatches: 3", "pp"});
    check(
        [](TrainingPlan& p)
        {
            p.order = {TrainingDimension::TP, TrainingDimension::TP, TrainingDimension::DP};
        },
        {"order", "tp,tp,dp"});
    check(
        [](TrainingPlan& p)
        {
            p.order = {TrainingDimension::TP};
        },
        {"order"});
    Model resnet = MakeModel("resnet50");
    check(
        [](TrainingPlan& p)
        {
            p.tp = 2;
        },
        {"tp: 2", "resnet50"},
        &resnet);
    TrainingPlan ok;
    ok.tp = 4;
    ok.pp = 24;
    ok.dp = 2;
    EXPECT_NO_THROW(ok.Validate(bert));
    EXPECT_EQ(ok.Ranks(), 192u);
    ok.microbatches = 3;
    ok.microbatchSize = 5;
    EXPECT_EQ(ok.GlobalBatch(), 30u);
}

TEST(TrainingPlan, GroupsFollowTheOrder)
{
    TrainingPlan p;
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    using G = std::vector<std::vector<uint32_t>>;
    // default: rank = tp + 2 (pp + 2 dp)
    EXPECT_EQ(p.Groups(TrainingDimension::TP), (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
    EXPECT_EQ(p.Groups(TrainingDimension::PP), (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
    EXPECT_EQ(p.Groups(TrainingDimension::DP), (G{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
    p.order = {TrainingDimension::DP, TrainingDimension::TP, TrainingDimension::PP};
    p.pp = 3;
    // rank = dp + 2 (tp + 2 pp)
    EXPECT_EQ(p.Groups(TrainingDimension::DP),
              (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}}));
    EXPECT_EQ(p.Groups(TrainingDimension::TP),
              (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}}));
    EXPECT_EQ(p.Groups(TrainingDimension::PP), (G{{0, 4, 8}, {1, 5, 9}, {2, 6, 10}, {3, 7, 11}}));
    p.dp = 4;
    p.ep = 2;
    EXPECT_EQ(p.Groups(TrainingDimension::EP).front(), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(p.Groups(TrainingDimension::EP)[1], (std::vector<uint32_t>{2, 3}));
}

TEST(TrainingPlan, TensorParallelCollectives)
{
    Model m = Tiny();
    TrainingPlan p;
    p.tp = 2;
    p.microbatches = 3;
    p.microbatchSize = 2;
    const uint64_t bsh2 = 2 * 2 * TINY.sequence * TINY.hidden; // 2·b·s·h at fp16
    const uint64_t perLayerMb = TINY.layers * p.microbatches;
    for (bool recompute : {false, true})
    {
        p.recompute = recompute;
        TrainingGraph g = Build(m, p);
        auto ar = Collectives(g, TrainingDimension::TP, CollectiveOp::ALL_REDUCE);
        // 2 forward + 2 backward per layer and microbatch; recomputation re-runs the forward's 2
        EXPECT_EQ(ar.size(), (recompute ? 6 : 4) * perLayerMb);
        uint64_t recomputed = 0;
        for (auto* t : ar)
        {
            EXPECT_EQ(t->bytes, bsh2);
            EXPECT_EQ(t->ranks, (std::vector<uint32_t>{0, 1}));
            EXPECT_EQ(t->group, "tp0");
            recomputed += t->phase == TrainingPhase::RECOMPUTE;
        }
        EXPECT_EQ(recomputed, recompute ? 2 * perLayerMb : 0);
    }
    p.recompute = false;
    p.sequenceParallel = true;
    TrainingGraph g = Build(m, p);
    auto rs = Collectives(g, TrainingDimension::TP, CollectiveOp::REDUCE_SCATTER);
    auto ag = Collectives(g, TrainingDimension::TP, CollectiveOp::ALL_GATHER);
    auto ar = Collectives(g, TrainingDimension::TP, CollectiveOp::ALL_REDUCE);
    EXPECT_TRUE(ar.empty());
    EXPECT_EQ(rs.size(), 4 * perLayerMb);
    EXPECT_EQ(ag.size(), 4 * perLayerMb);
    for (auto* t : rs)
    {
        EXPECT_EQ(t->bytes, bsh2);
    }
    for (auto* t : ag)
    {
        EXPECT_EQ(t->bytes, bsh2);
    }
}

TEST(TrainingPlan, PipelineSends)
{
    Model m = Tiny(8);
    TrainingPlan p;
    p.tp = 2;
    p.dp = 2;
    p.pp = 4;
    p.microbatches = 5;
    p.microbatchSize = 3;
    p.iterations = 2;
    for (auto s : {PipelineSchedule::GPIPE, PipelineSchedule::ONE_F_ONE_B})
    {
        p.schedule = s;
        TrainingGraph g = Build(m, p);
        auto sends = Select(g,
                            [](const TrainingTask& t)
                            {
                                return t.kind == TrainingTaskKind::SEND;
                            });
        const uint64_t chains = p.tp * p.dp;
        EXPECT_EQ(sends.size(), p.iterations * chains * 2 * p.microbatches * (p.pp - 1));
        auto pp = p.Groups(TrainingDimension::PP);
        for (auto* t : sends)
        {
            EXPECT_EQ(t->bytes, 3 * TINY.sequence * TINY.hidden * 2);
            EXPECT_EQ(t->dimension, TrainingDimension::PP);
            // neighbouring stages of one chain (same tp and dp index)
            bool found = false;
            for (const auto& chain : pp)
            {
                for (uint32_t k = 0; k + 1 < chain.size(); ++k)
                {
                    bool fwd = t->ranks[0] == chain[k] && t->ranks[1] == chain[k + 1];
                    bool bwd = t->ranks[0] == chain[k + 1] && t->ranks[1] == chain[k];
                    found = found || (fwd && t->phase == TrainingPhase::FORWARD)
                            || (bwd && t->phase == TrainingPhase::BACKWARD);
                }
            }
            EXPECT_TRUE(found) << t->label;
        }
        // the receiver's compute depends on every send
        for (uint32_t i = 0; i < g.tasks.size(); ++i)
        {
            if (g.tasks[i].kind != TrainingTaskKind::SEND)
            {
                continue;
            }
            bool consumed = false;
            for (uint32_t j = i + 1; j < g.tasks.size() && !consumed; ++j)
            {
                const auto& c = g.tasks[j];
                if (c.kind == TrainingTaskKind::COMPUTE && c.ranks[0] == g.tasks[i].ranks[1])
                {
                    for (uint32_t d : c.deps)
                    {
                        consumed = consumed || d == i;
                    }
                }
            }
            EXPECT_TRUE(consumed) << g.tasks[i].label;
        }
    }
}

TEST(TrainingPlan, OneFOneBAndGPipeOrder)
{
    Model m = Tiny(8);
    TrainingPlan p;
    p.pp = 4;
    for (uint32_t mbs : {2u, 6u})
    {
        p.microbatches = mbs;
        p.schedule = PipelineSchedule::ONE_F_ONE_B;
        TrainingGraph g = Build(m, p);
        for (uint32_t k = 0; k < p.pp; ++k)
        {
            auto steps = Steps(g, k); // tp = dp = 1: rank k is stage k
            ASSERT_EQ(steps.size(), 2 * mbs);
            uint32_t warm = std::min(p.pp - k - 1, mbs);
            // warm-up forwards, then a forward and a backward in turn, then the cool-down
            std::vector<std::pair<char, int32_t>> expect;
            int32_t f = 0;
            int32_t b = 0;
            for (uint32_t i = 0; i < warm; ++i)
            {
                expect.emplace_back('F', f++);
            }
            while (f < static_cast<int32_t>(mbs))
            {
                expect.emplace_back('F', f++);
                expect.emplace_back('B', b++);
            }
            while (b < static_cast<int32_t>(mbs))
            {
                expect.emplace_back('B', b++);
            }
            EXPECT_EQ(steps, expect) << "stage " << k << " microbatches " << mbs;
            uint32_t leading = 0;
            while (leading < steps.size() && steps[leading].first == 'F')
            {
                ++leading;
            }
            EXPECT_EQ(leading, std::min(p.pp - k, mbs));
        }
        p.schedule = PipelineSchedule::GPIPE;
        g = Build(m, p);
        for (uint32_t k = 0; k < p.pp; ++k)
        {
            auto steps = Steps(g, k);
            ASSERT_EQ(steps.size(), 2 * mbs);
            for (uint32_t i = 0; i < steps.size(); ++i)
            {
                EXPECT_EQ(steps[i].first, i < mbs ? 'F' : 'B');
                EXPECT_EQ(steps[i].second, static_cast<int32_t>(i % mbs));
            }
        }
    }
}

TEST(TrainingPlan, InterleavedSchedule)
{
    Model m = Tiny(8);
    TrainingPlan p = Interleaved(4);
    p.tp = 2;
    TrainingGraph g = Build(m, p);
    // 4 chunks: 3 chunk boundaries per (tp, dp) chain, each crossed forward and backward
    auto sends = Select(g,
                        [](const TrainingTask& t)
                        {
                            return t.kind == TrainingTaskKind::SEND;
                        });
    EXPECT_EQ(sends.size(), 2u * 2 * p.microbatches * 3);
    // every stage runs each microbatch forward and backward once per chunk
    auto steps = Steps(g, 0);
    uint32_t forwards = 0;
    for (const auto& s : steps)
    {
        forwards += s.first == 'F';
    }
    EXPECT_EQ(forwards, p.microbatches * p.virtualStages);

    // deeper pipelines, more chunks and microbatches (and 1F1B with fewer microbatches than
    // stages): every step of every stage is emitted, the sends match the chunk boundaries
    Model deep = Tiny(24);
    for (uint32_t pp : {2u, 4u})
    {
        for (uint32_t v : {1u, 2u, 3u})
        {
            for (uint32_t mult : {1u, 2u, 3u})
            {
                TrainingPlan q;
                q.pp = pp;
                q.virtualStages = v;
                q.schedule = v > 1 ? PipelineSchedule::INTERLEAVED : PipelineSchedule::ONE_F_ONE_B;
                q.microbatches = v > 1 ? pp * mult : mult;
                TrainingGraph h = Build(deep, q);
                uint64_t sendCount = 0;
                for (const auto& t : h.tasks)
                {
                    sendCount += t.kind == TrainingTaskKind::SEND;
                }
                EXPECT_EQ(sendCount, 2u * q.microbatches * (pp * v - 1));
                for (uint32_t k = 0; k < pp; ++k)
                {
                    uint32_t f = 0;
                    uint32_t b = 0;
                    for (const auto& st : Steps(h, k))
                    {
                        (st.first == 'F' ? f : b) += 1;
                    }
                    // one step per chunk and microbatch (consecutive steps never repeat a
                    // microbatch)
                    EXPECT_EQ(f, q.microbatches * v) << "pp " << pp << " v " << v << " stage " << k;
                    EXPECT_EQ(b, q.microbatches * v) << "pp " << pp << " v " << v << " stage " << k;
                }
            }
        }
    }
}

TEST(TrainingPlan, DataParallelBuckets)
{
    Model m = MakeModel("resnet50");
    TrainingPlan p;
    p.dp = 4;
    p.bucketBytes = 4 << 20;
    p.microbatches = 2;
    TrainingGraph g = Build(m, p);
    auto buckets = Collectives(g, TrainingDimension::DP, CollectiveOp::ALL_REDUCE);
    ASSERT_GT(buckets.size(), 3u);
    uint64_t total = 0;
    for (auto* t : buckets)
    {
        total += t->bytes;
        EXPECT_EQ(t->ranks.size(), 4u);
        if (t->bytes > p.bucketBytes)
        {
            // only a single layer larger than a bucket
            EXPECT_EQ(t->bytes, m.layers[t->layer].parameters * 4) << t->label;
        }
    }
    EXPECT_EQ(total, m.ParameterBytes());
    // overlap: the first bucket does not wait for the end of backward
    auto lastBackward = [&g](uint32_t rank)
    {
        uint32_t last = 0;
        for (uint32_t i = 0; i < g.tasks.size(); ++i)
        {
            const auto& t = g.tasks[i];
            if (t.kind == TrainingTaskKind::COMPUTE && t.ranks[0] == rank
                && t.phase == TrainingPhase::BACKWARD)
            {
                last = i;
            }
        }
        return last;
    };
    auto dependsOn = [](const TrainingTask* t, uint32_t dep)
    {
        return std::find(t->deps.begin(), t->deps.end(), dep) != t->deps.end();
    };
    EXPECT_FALSE(dependsOn(buckets.front(), lastBackward(0)));
    p.overlap = false;
    g = Build(m, p);
    buckets = Collectives(g, TrainingDimension::DP, CollectiveOp::ALL_REDUCE);
    for (auto* t : buckets)
    {
        for (uint32_t r : t->ranks)
        {
            EXPECT_TRUE(dependsOn(t, lastBackward(r))) << t->label << " rank " << r;
        }
    }

    // a pipelined transformer: the buckets of the two stages add up to the model's
    Model tiny = Tiny();
    TrainingPlan q;
    q.dp = 2;
    q.pp = 2;
    q.microbatches = 2;
    q.bucketBytes = 100000;
    g = Build(tiny, q);
    uint64_t sum = 0;
    for (const auto& t : g.tasks)
    {
        if (IsCollective(t, TrainingDimension::DP, CollectiveOp::ALL_REDUCE))
        {
            sum += t.bytes;
            EXPECT_TRUE(t.bytes <= q.bucketBytes || t.bytes == tiny.layers[t.layer].parameters * 2);
        }
    }
    EXPECT_EQ(sum, tiny.ParameterBytes());
}

TEST(TrainingPlan, ZeroStages)
{
    Model m = Tiny();
    TrainingPlan p;
    p.dp = 4;
    p.bucketBytes = 300000;
    p.microbatches = 2;
    p.zero = 2;
    TrainingGraph g = Build(m, p);
    auto rs = Collectives(g, TrainingDimension::DP, CollectiveOp::REDUCE_SCATTER);
    auto ag = Collectives(g, TrainingDimension::DP, CollectiveOp::ALL_GATHER);
    EXPECT_GT(rs.size(), 1u);
    ASSERT_EQ(rs.size(), ag.size());
    std::map<int32_t, uint64_t> rsBytes;
    for (auto* t : rs)
    {
        rsBytes[t->layer] += t->bytes;
    }
    for (auto* t : ag)
    {
        EXPECT_EQ(rsBytes[t->layer], t->bytes);
        EXPECT_EQ(t->phase, TrainingPhase::OPTIMIZER);
        ASSERT_FALSE(t->deps.empty());
        EXPECT_EQ(g.tasks[t->deps.front()].phase, TrainingPhase::OPTIMIZER);
    }
    EXPECT_TRUE(Collectives(g, TrainingDimension::DP, CollectiveOp::ALL_REDUCE).empty());
    // ZeRO-3: each layer with weights gathered before its forward and its backward
    p.zero = 3;
    g = Build(m, p);
    uint64_t weighted = 0;
    for (const auto& l : m.layers)
    {
        weighted += l.parameters > 0;
    }
    auto gathers
        = Select(g,
                 [](const TrainingTask& t)
                 {
                     return IsCollective(t, TrainingDimension::DP, CollectiveOp::ALL_GATHER)
                            && t.microbatch >= 0;
                 });
    EXPECT_EQ(gathers.size(), weighted * p.microbatches * 2);
}

TEST(TrainingPlan, WeightStreaming)
{
    Model m = Tiny();
    TrainingPlan p;
    p.dp = 2;
    p.tp = 2;
    p.microbatches = 2;
    p.weightStreaming = true;
    TrainingGraph g = Build(m, p);
    auto streams = Select(g,
                          [](const TrainingTask& t)
                          {
                              return t.kind == TrainingTaskKind::STREAM;
                          });
    uint64_t weighted = 0;
    for (const auto& l : m.layers)
    {
        weighted += l.parameters > 0;
    }
    // per layer with weights, microbatch, pass and TP shard
    EXPECT_EQ(streams.size(), weighted * p.microbatches * 2 * p.tp);
    auto dp = p.Groups(TrainingDimension::DP);
    for (auto* t : streams)
    {
        EXPECT_EQ(t->dimension, TrainingDimension::WS);
        EXPECT_EQ(t->bytes, (m.layers[t->layer].parameters + 1) / 2 * 2);
        // receivers: the DP replicas of one TP shard
        EXPECT_NE(std::find(dp.begin(), dp.end(), t->ranks), dp.end());
    }
}

TEST(TrainingPlan, IterationsChainThroughTheOptimizer)
{
    Model m = Tiny();
    TrainingPlan p;
    p.dp = 2;
    p.pp = 2;
    p.iterations = 3;
    TrainingGraph g = Build(m, p);
    EXPECT_EQ(g.iterations, 3u);
    EXPECT_EQ(g.ranks, 4u);
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        int32_t optimizer = -1;
        int32_t optimizers = 0;
        for (uint32_t i = 0; i < g.tasks.size(); ++i)
        {
            const auto& t = g.tasks[i];
            if (t.kind != TrainingTaskKind::COMPUTE || t.ranks[0] != r)
            {
                continue;
            }
            if (t.phase == TrainingPhase::OPTIMIZER)
            {
                optimizer = i;
                ++optimizers;
                EXPECT_GT(t.duration, Time(0));
            }
            else if (optimizer >= 0 && t.iteration == g.tasks[optimizer].iteration + 1)
            {
                EXPECT_NE(std::find(t.deps.begin(), t.deps.end(), optimizer), t.deps.end())
                    << t.label;
                optimizer = -1;
            }
        }
        EXPECT_EQ(optimizers, 3);
    }
}

TEST(TrainingPlan, GraphFieldsAndFlops)
{
    Model m = Tiny();
    TrainingPlan p;
    p.dp = 2;
    p.microbatches = 3;
    p.microbatchSize = 2;
    const double B = 12;
    const double s = TINY.sequence;
    const double l = TINY.layers;
    const double h = TINY.hidden;
    const double V = TINY.vocabulary;
    TrainingGraph g = Build(m, p);
    EXPECT_EQ(g.samplesPerIteration, 12u);
    EXPECT_EQ(g.tokensPerSample, TINY.sequence);
    EXPECT_EQ(g.name, "tiny");
    EXPECT_NEAR(g.flopsPerIteration
                    / (72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))),
                1,
                1e-12);
    EXPECT_EQ(g.modelFlopsPerIteration, g.flopsPerIteration);
    p.recompute = true;
    g = Build(m, p);
    EXPECT_NEAR(g.flopsPerIteration
                    / (96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))),
                1,
                1e-12);
    // model FLOPs (MFU) leave the recomputation out
    EXPECT_NEAR(g.modelFlopsPerIteration
                    / (72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))),
                1,
                1e-12);
    EXPECT_EQ(Build(MakeModel("resnet50"), TrainingPlan()).tokensPerSample, 0u);
}

TEST(TrainingPlan, EveryCombinationValidates)
{
    Model m = Tiny(8);
    uint32_t built = 0;
    for (auto s :
         {PipelineSchedule::GPIPE, PipelineSchedule::ONE_F_ONE_B, PipelineSchedule::INTERLEAVED})
    {
        for (uint32_t zero = 0; zero <= 3; ++zero)
        {
            for (uint32_t flags = 0; flags < 16; ++flags)
            {
                TrainingPlan p;
                p.schedule = s;
                p.pp = 2;
                p.virtualStages = s == PipelineSchedule::INTERLEAVED ? 2 : 1;
                p.tp = 2;
                p.dp = 2;
                p.microbatches = 4;
                p.zero = zero;
                p.bucketBytes = 200000;
                p.recompute = flags & 1;
                p.sequenceParallel = flags & 2;
                p.weightStreaming = flags & 4;
                p.overlap = flags & 8;
                p.iterations = 2;
                if (flags & 1)
                {
                    p.order = {TrainingDimension::PP, TrainingDimension::DP, TrainingDimension::TP};
                }
                EXPECT_NO_THROW(Build(m, p))
                    << ToString(s) << " zero " << zero << " flags " << flags;
                ++built;
            }
        }
    }
    EXPECT_EQ(built, 3u * 4 * 16);
    TransformerConfig moe = TINY;
    moe.layers = 8;
    moe.experts = 4;
    moe.moeEvery = 2;
    for (auto s :
         {PipelineSchedule::GPIPE, PipelineSchedule::ONE_F_ONE_B, PipelineSchedule::INTERLEAVED})
    {
        for (uint32_t flags = 0; flags < 8; ++flags)
        {
            TrainingPlan p;
            p.schedule = s;
            p.pp = 2;
            p.virtualStages = s == PipelineSchedule::INTERLEAVED ? 2 : 1;
            p.tp = 2;
            p.dp = 4;
            p.ep = 2;
            p.microbatches = 2;
            p.zero = flags & 3;
            p.recompute = flags & 4;
            p.weightStreaming = flags & 1;
            EXPECT_NO_THROW(Build(MakeTransformer("moe", moe), p))
                << ToString(s) << " flags " << flags;
        }
    }
    for (const auto& name : ModelNames())
    {
        TrainingPlan p;
        p.dp = 2;
        p.pp = 2;
        p.microbatches = 2;
        EXPECT_NO_THROW(Build(MakeModel(name), p, "a100")) << name;
    }
}

TEST(TrainingPlan, Gpt3GraphBuildsQuickly)
{
    Model m = MakeModel("gpt3-175b");
    TrainingPlan p;
    p.tp = 8;
    p.pp = 2;
    p.dp = 4;
    p.microbatches = 8;
    auto start = std::chrono::steady_clock::now();
    TrainingGraph g = MakeTrainingGraph(m, MakeDevice("a100"), p);
    double seconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0);
    EXPECT_EQ(g.ranks, 64u);
    g.Validate();
    // every rank computes: forward and backward of each of its 48 layers per microbatch
    auto computes = Select(g,
                           [](const TrainingTask& t)
                           {
                               return t.kind == TrainingTaskKind::COMPUTE && t.ranks[0] == 0
                                      && t.phase == TrainingPhase::FORWARD;
                           });
    EXPECT_GE(computes.size(), 48u * 2 * p.microbatches);
}

TEST(TrainingPlan, ExpertParallelAllToAll)
{
    TransformerConfig c = TINY;
    c.experts = 4;
    c.moeEvery = 2;
    Model m = MakeTransformer("tiny-moe", c);
    uint32_t moeLayers = 0;
    for (const auto& l : m.layers)
    {
        moeLayers += l.experts > 0;
    }
    ASSERT_EQ(moeLayers, 2u);
    TrainingPlan p;
    p.dp = 4;
    p.ep = 2;
    p.microbatches = 2;
    p.microbatchSize = 2;
    TrainingGraph g = Build(m, p);
    auto a2a = Collectives(g, TrainingDimension::EP, CollectiveOp::ALL_TO_ALL);
    // dispatch + combine in forward and in backward, per MoE layer, microbatch and EP group
    EXPECT_EQ(a2a.size(), moeLayers * p.microbatches * 4 * (p.dp / p.ep));
    auto ep = p.Groups(TrainingDimension::EP);
    for (auto* t : a2a)
    {
        EXPECT_EQ(t->bytes, 2 * TINY.sequence * TINY.hidden * 2);
        EXPECT_NE(std::find(ep.begin(), ep.end(), t->ranks), ep.end());
    }
    // expert gradients: reduced over the replicas of the same experts (dp / ep ranks),
    // each rank holding experts / ep of them
    uint32_t expertBuckets = 0;
    for (const auto& t : g.tasks)
    {
        if (IsCollective(t, TrainingDimension::DP, CollectiveOp::ALL_REDUCE)
            && m.layers[t.layer].experts > 0)
        {
            ++expertBuckets;
            EXPECT_EQ(t.ranks.size(), 2u);
            EXPECT_EQ(t.bytes, m.layers[t.layer].parameters / 2 * 2);
        }
    }
    EXPECT_EQ(expertBuckets, moeLayers * p.ep);
    p.ep = 3;
    ExpectInvalid(
        [&]
        {
            p.Validate(m);
        },
        {"ep: 3", "4 experts"});
    p.ep = 4;
    p.dp = 2;
    ExpectInvalid(
        [&]
        {
            p.Validate(m);
        },
        {"ep: 4", "dp (2)"});
    c.moeEvery = 0;
    ExpectInvalid(
        [&]
        {
            MakeTransformer("bad", c);
        },
        {"experts", "moeEvery"});
}

TEST(TrainingPlan, DlrmEmbeddingsAreModelParallel)
{
    Model m = MakeModel("dlrm");
    ASSERT_EQ(m.layers[0].kind, LayerKind::EMBEDDING);
    const uint64_t elem = ElementSize(m.dataType);
    uint64_t denseBytes = 0;
    uint32_t interaction = 0;
    for (uint32_t l = 1; l < m.layers.size(); ++l)
    {
        denseBytes += m.layers[l].parameters * elem;
        if (m.layers[l].kind == LayerKind::INTERACTION)
        {
            interaction = l;
        }
    }
    ASSERT_GT(interaction, 0u);
    TrainingPlan p;
    p.dp = 4;
    p.microbatches = 2;
    p.microbatchSize = 2;
    p.iterations = 2;
    TrainingGraph g = Build(m, p);
    // the DP buckets carry the dense layers' gradients only
    std::map<uint32_t, uint64_t> reduced;
    for (const auto& t : g.tasks)
    {
        if (IsCollective(t, TrainingDimension::DP, CollectiveOp::ALL_REDUCE))
        {
            reduced[t.iteration] += t.bytes;
            EXPECT_NE(t.layer, 0u);
        }
    }
    ASSERT_EQ(reduced.size(), p.iterations);
    for (const auto& [it, bytes] : reduced)
    {
        EXPECT_EQ(bytes, denseBytes) << "iteration " << it;
    }
    // one AllToAll of the lookups (forward) and one of their gradients (backward) per
    // microbatch and iteration, over the DP group: each rank's buffer is its b x (tables x
    // dim) elements (looked up in its 1/dp of the tables for the group's b x dp samples)
    const uint64_t bytes = p.microbatchSize * m.layers[0].activationElements * elem;
    const std::vector<uint32_t> group = {0, 1, 2, 3};
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>> perMb;
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
    {
        const auto& t = g.tasks[i];
        if (t.kind == TrainingTaskKind::COLLECTIVE && t.op == CollectiveOp::ALL_TO_ALL)
        {
            EXPECT_EQ(t.dimension, TrainingDimension::EP);
            EXPECT_EQ(t.bytes, bytes);
            EXPECT_EQ(t.ranks, group);
            EXPECT_EQ(t.group, "emb0");
            EXPECT_EQ(t.layer, 0u);
            auto& n = perMb[{t.iteration, static_cast<uint32_t>(t.microbatch)}];
            (t.phase == TrainingPhase::FORWARD ? n.first : n.second)++;
            // forward: the interaction waits for it; backward: the embedding's compute
            bool used = false;
            for (const auto& u : g.tasks)
            {
                if (u.kind == TrainingTaskKind::COMPUTE && u.microbatch == t.microbatch
                    && u.iteration == t.iteration && u.phase == t.phase
                    && std::find(u.deps.begin(), u.deps.end(), i) != u.deps.end())
                {
                    EXPECT_EQ(u.layer, t.phase == TrainingPhase::FORWARD ? interaction : 0u);
                    used = true;
                }
            }
            EXPECT_TRUE(used) << t.label;
        }
    }
    EXPECT_EQ(perMb.size(), p.iterations * p.microbatches);
    for (const auto& [key, n] : perMb)
    {
        EXPECT_EQ(n.first, 1u);
        EXPECT_EQ(n.second, 1u);
    }
    // dp = 1: the tables are whole on the one replica, nothing to exchange
    p.dp = 1;
    g = Build(m, p);
    EXPECT_TRUE(Select(g,
                       [](const TrainingTask& t)
                       {
                           return t.kind == TrainingTaskKind::COLLECTIVE
                                  && t.op == CollectiveOp::ALL_TO_ALL;
                       })
                    .empty());
    // other placements still validate (pipelines, ZeRO, recomputation, weight streaming,
    // no overlap, a dp whose blocks need padding)
    for (uint32_t zero : {0u, 1u, 3u})
    {
        for (uint32_t flags = 0; flags < 16; ++flags)
        {
            TrainingPlan q;
            q.dp = 3;
            q.pp = 2;
            q.microbatches = 3;
            q.iterations = 2;
            q.zero = zero;
            q.recompute = flags & 1;
            q.overlap = flags & 2;
            q.weightStreaming = flags & 4;
            q.schedule = flags & 8 ? PipelineSchedule::GPIPE : PipelineSchedule::ONE_F_ONE_B;
            EXPECT_NO_THROW(Build(m, q)) << "zero " << zero << " flags " << flags;
        }
    }
}

TEST(TrainingPlan, GraphsAboveTheTaskCapAreRefusedBeforeTheyAreBuilt)
{
    TrainingPlan p;
    p.dp = 64;
    p.microbatches = 100000;
    p.iterations = 1000;
    ExpectInvalid(
        [&]()
        {
            MakeTrainingGraph(MakeModel("bert-large"), MakeDevice("a100"), p);
        },
        {"microbatches", "at most"});
}

namespace
{

/// \return the sum of a field over a layer's kernels of one pass
double
KernelSum(const ModelLayer& layer, LayerPass pass, double LayerKernel::*field)
{
    double sum = 0;
    for (const auto& k : layer.kernels)
    {
        sum += k.pass == pass ? k.*field : 0;
    }
    return sum;
}

} // namespace

TEST(ComputeModel, MegatronKernelsAddUpToTheLayersFlops)
{
    TransformerConfig c{2, 1024, 16, 512, 5000};
    c.kernels = true;
    Model m = MakeTransformer("k", c);
    Model plain = MakeTransformer("k", TransformerConfig{2, 1024, 16, 512, 5000});
    ASSERT_EQ(m.layers.size(), plain.layers.size());
    const double s = 512;
    const double h = 1024;
    for (uint32_t i = 0; i < m.layers.size(); ++i)
    {
        const ModelLayer& layer = m.layers[i];
        EXPECT_FALSE(layer.kernels.empty()) << layer.name;
        // the same FLOPs as the layer without kernels (Megatron's count)
        EXPECT_DOUBLE_EQ(KernelSum(layer, LayerPass::FORWARD, &LayerKernel::flops),
                         plain.layers[i].forwardFlops)
            << layer.name;
        EXPECT_DOUBLE_EQ(KernelSum(layer, LayerPass::INPUT_GRADIENT, &LayerKernel::flops),
                         plain.layers[i].inputGradientFlops)
            << layer.name;
        EXPECT_DOUBLE_EQ(KernelSum(layer, LayerPass::WEIGHT_GRADIENT, &LayerKernel::flops),
                         plain.layers[i].weightGradientFlops)
            << layer.name;
    }
    // written out: attention 8sh² + 4s²h forward; the MLP 16sh²
    EXPECT_DOUBLE_EQ(KernelSum(m.layers[1], LayerPass::FORWARD, &LayerKernel::flops),
                     8 * s * h * h + 4 * s * s * h);
    EXPECT_DOUBLE_EQ(KernelSum(m.layers[2], LayerPass::FORWARD, &LayerKernel::flops),
                     16 * s * h * h);
    // the attention block's forward moves, per sample: the causal softmax reads the scores
    // on and below the diagonal and writes them all; dropout 2 at 2 bytes and a 1-byte mask;
    // the scores GEMM writes them, the context GEMM reads them; the QKV bias add reads and
    // writes 3T
    const double scores = 16 * s * s;
    const double causal = 16 * s * (s + 1) / 2;
    const double t = s * h;
    EXPECT_DOUBLE_EQ(KernelSum(m.layers[1], LayerPass::FORWARD, &LayerKernel::shardedBytes),
                     (3 * t + 6 * t + 2 * t + scores) * 2 + (causal + scores) * 2 + 2 * scores * 2
                         + scores + (scores + 2 * t) * 2 + 2 * t * 2 + t * 2);
    // a model with experts has no kernel description
    TransformerConfig moe = c;
    moe.experts = 4;
    moe.moeEvery = 2;
    ExpectInvalid(
        [&]
        {
            MakeTransformer("moe", moe);
        },
        {"kernels", "experts"});
}

namespace
{

/// \return the layer's kernel of that pass and name; a test failure and nullptr if none
const LayerKernel*
FindKernel(const ModelLayer& layer, LayerPass pass, const std::string& name)
{
    for (const auto& k : layer.kernels)
    {
        if (k.pass == pass && k.name == name)
        {
            return &k;
        }
    }
    ADD_FAILURE() << layer.name << " has no kernel " << name;
    return nullptr;
}

/// \return the weight bytes of the layer's kernels that accumulate gradients
double
AccumulatedBytes(const ModelLayer& layer)
{
    double sum = 0;
    for (const auto& k : layer.kernels)
    {
        if (k.accumulatesGradient)
        {
            EXPECT_EQ(k.pass, LayerPass::WEIGHT_GRADIENT) << layer.name << " " << k.name;
            sum += k.weightBytes;
        }
    }
    return sum;
}

} // namespace

// What Megatron-LM's code runs (commit de7dc40f88 of its repository, doc/megatron-validation.md)
// beside the GEMMs, written out for one sample in fp16.
TEST(ComputeModel, MegatronKernelsFollowTheCode)
{
    TransformerConfig c{2, 1024, 16, 512, 5000};
    c.kernels = true;
    const Model m = MakeTransformer("k", c);
    const double s = 512;
    const double h = 1024;
    const double v = 5000;
    const double t = s * h;
    const double scores = 16 * s * s;
    const double causal = 16 * s * (s + 1) / 2;
    const ModelLayer& embedding = m.layers[0];
    const ModelLayer& attention = m.layers[1];
    const ModelLayer& mlp = m.layers[2];
    const ModelLayer& logits = m.layers.back();
    const auto fwd = LayerPass::FORWARD;
    const auto dgrad = LayerPass::INPUT_GRADIENT;
    const auto wgrad = LayerPass::WEIGHT_GRADIENT;
    auto sharded = [](const LayerKernel* k)
    {
        return k ? k->shardedBytes : -1;
    };
    auto whole = [](const LayerKernel* k)
    {
        return k ? k->wholeBytes : -1;
    };
    // the fused causal softmax reads the lower triangle and writes every score; its
    // backward reads the output and its gradient there
    EXPECT_DOUBLE_EQ(sharded(FindKernel(attention, fwd, "softmax")), (causal + scores) * 2);
    EXPECT_DOUBLE_EQ(sharded(FindKernel(attention, dgrad, "softmax-bwd")),
                     (2 * causal + scores) * 2);
    // the QKV bias is added by its own kernel (add_ on 3T) and split again in backward
    EXPECT_DOUBLE_EQ(sharded(FindKernel(attention, fwd, "qkv-bias-add")), 6 * t * 2);
    EXPECT_DOUBLE_EQ(sharded(FindKernel(attention, dgrad, "qkv-split-bwd")), 6 * t * 2);
    EXPECT_DOUBLE_EQ(sharded(FindKernel(attention, dgrad, "scores-bwd-alpha")), 4 * t * 2);
    for (const auto& k : attention.kernels)
    {
        EXPECT_NE(k.name, "context-copy-bwd"); // a view's backward: no kernel
    }
    // both layer norms' gamma and beta gradients, replicated over the TP shards
    EXPECT_DOUBLE_EQ(whole(FindKernel(attention, dgrad, "layernorm-bwd-gamma-beta")), 2 * t * 2);
    EXPECT_DOUBLE_EQ(whole(FindKernel(mlp, dgrad, "layernorm-bwd-gamma-beta")), 2 * t * 2);
    // the first stage's transpose to [s, b, h] and the last stage's back with the final norm
    EXPECT_DOUBLE_EQ(whole(FindKernel(embedding, fwd, "transpose")), 2 * t * 2);
    EXPECT_DOUBLE_EQ(whole(FindKernel(embedding, fwd, "position-lookup")), 2 * t * 2);
    EXPECT_DOUBLE_EQ(whole(FindKernel(logits, fwd, "transpose")), 2 * t * 2);
    EXPECT_DOUBLE_EQ(whole(FindKernel(logits, fwd, "final-layernorm")), 2 * t * 2);
    EXPECT_DOUBLE_EQ(whole(FindKernel(logits, dgrad, "final-layernorm-bwd")), 3 * t * 2);
    EXPECT_DOUBLE_EQ(whole(FindKernel(logits, dgrad, "final-layernorm-bwd-gamma-beta")), 2 * t * 2);
    // the bias: add_ reads it, its gradient is written with the QKV weights'
    const LayerKernel* biasAdd = FindKernel(attention, fwd, "qkv-bias-add");
    const LayerKernel* qkvWgrad = FindKernel(attention, wgrad, "qkv-wgrad");
    ASSERT_NE(biasAdd, nullptr);
    ASSERT_NE(qkvWgrad, nullptr);
    EXPECT_DOUBLE_EQ(biasAdd->weightBytes, 3 * h * 2);
    EXPECT_DOUBLE_EQ(qkvWgrad->weightBytes, (3 * h * h + 3 * h) * 2);
    // the accumulation into each parameter's gradient reads both and writes one: attention
    // 4h² + 6h parameters (QKV, projection, layer norm), MLP 8h² + 7h, the position table
    // s·h, the tied word table V·h and the final norm's 2h at the logits; the embedding's
    // sum of its two word gradients runs every microbatch
    EXPECT_DOUBLE_EQ(AccumulatedBytes(attention), 3 * (4 * h * h + 6 * h) * 2);
    EXPECT_DOUBLE_EQ(AccumulatedBytes(attention), 3 * attention.parameters * 2);
    EXPECT_DOUBLE_EQ(AccumulatedBytes(mlp), 3 * (8 * h * h + 7 * h) * 2);
    EXPECT_DOUBLE_EQ(AccumulatedBytes(mlp), 3 * mlp.parameters * 2);
    EXPECT_DOUBLE_EQ(AccumulatedBytes(embedding), 3 * s * h * 2);
    EXPECT_DOUBLE_EQ(AccumulatedBytes(logits), 3 * (v * h + 2 * h) * 2);
    const LayerKernel* word = FindKernel(embedding, wgrad, "word-grad-accumulate");
    ASSERT_NE(word, nullptr);
    EXPECT_FALSE(word->accumulatesGradient);
    EXPECT_TRUE(word->sumsTiedGradients);
    EXPECT_DOUBLE_EQ(word->weightBytes, 3 * v * h * 2);
}

TEST(ComputeModel, GradientAccumulationTimeIsTheFlaggedKernelsMemoryTime)
{
    TransformerConfig c{2, 1024, 16, 512, 5000};
    c.kernels = true;
    const Model m = MakeTransformer("k", c);
    const DeviceSpec d = MakeDevice("a100");
    const double h = 1024;
    const double bytes = 3 * (8 * h * h + 7 * h) * 2; // the MLP's parameters, fp16
    for (uint32_t shards : {1u, 4u})
    {
        for (double samples : {1.0, 8.0})
        {
            // weights only: the same for any microbatch size, divided over the shards
            EXPECT_NEAR(GradientAccumulationTime(m.layers[2], d, DataType::FP16, samples, shards)
                            .GetSeconds(),
                        bytes / shards / d.memoryBandwidth,
                        1.0 / Seconds(1).GetTimeStep()); // rounded to the time step
        }
    }
    // the embedding: the position table's accumulation; with the tied uses on different
    // stages the word table's too
    const double s = 512;
    const double v = 5000;
    EXPECT_NEAR(GradientAccumulationTime(m.layers[0], d, DataType::FP16, 1).GetSeconds(),
                3 * s * h * 2 / d.memoryBandwidth,
                1.0 / Seconds(1).GetTimeStep());
    EXPECT_NEAR(GradientAccumulationTime(m.layers[0], d, DataType::FP16, 1, 2, true).GetSeconds(),
                (3 * s * h * 2 + 3 * v * h * 2) / 2 / d.memoryBandwidth,
                2.0 / Seconds(1).GetTimeStep());
    // a layer without kernels has no separate accumulation
    const Model plain = MakeTransformer("p", TransformerConfig{2, 1024, 16, 512, 5000});
    EXPECT_TRUE(GradientAccumulationTime(plain.layers[2], d, DataType::FP16, 1).IsZero());
    ExpectInvalid(
        [&]
        {
            GradientAccumulationTime(m.layers[2], d, DataType::FP16, 1, 0);
        },
        {"shards"});
}

// After zero_grad(set_to_none=True) the first microbatch's backward of an iteration takes
// its gradients over as the parameters' gradients: each stage's first backward is shorter
// by the time of reading two and writing one copy of the gradients.
TEST(TrainingPlan, FirstMicrobatchBackwardSkipsTheGradientAccumulation)
{
    TransformerConfig c{2, 1024, 16, 512, 5000};
    c.kernels = true;
    const Model m = MakeTransformer("k", c);
    TrainingPlan p;
    p.microbatches = 3;
    p.iterations = 2;
    const TrainingGraph g = Build(m, p, "a100");
    const DeviceSpec d = MakeDevice("a100");
    const double h = 1024;
    // two layers of 12h² + 13h, the position table, the tied word table once (at the
    // logits: the embedding's sum of the two word gradients runs every microbatch), the
    // final layer norm
    const double parameters = 2 * (12 * h * h + 13 * h) + 512 * h + 5000 * h + 2 * h;
    const double expected = 3 * parameters * 2 / d.memoryBandwidth;
    std::map<std::pair<uint32_t, int32_t>, double> backward; // (iteration, microbatch) -> s
    for (const auto& task : g.tasks)
    {
        if (task.kind == TrainingTaskKind::COMPUTE && task.phase == TrainingPhase::BACKWARD)
        {
            backward[{task.iteration, task.microbatch}] += task.duration.GetSeconds();
        }
    }
    ASSERT_EQ(backward.size(), 6u);
    for (uint32_t it = 0; it < 2; ++it)
    {
        const double first = backward.at(std::make_pair(it, 0));
        const double second = backward.at(std::make_pair(it, 1));
        const double third = backward.at(std::make_pair(it, 2));
        // rounded to the time step once per accumulation kernel: 6 of them
        EXPECT_NEAR(second - first, expected, 6.0 / Seconds(1).GetTimeStep()) << it;
        EXPECT_DOUBLE_EQ(second, third) << it;
    }
}

// The same with 2 stages of 2 chunks each, interleaved, with recomputation: each chunk's
// first backward of the iteration, whichever microbatch it is, skips its chunk's
// accumulation, and the stages together skip every parameter's once.
TEST(TrainingPlan, FirstBackwardOfEachChunkSkipsTheAccumulationWhenInterleaved)
{
    TransformerConfig c{4, 1024, 16, 512, 5000};
    c.kernels = true;
    const Model m = MakeTransformer("k", c);
    TrainingPlan p = Interleaved(4);
    p.recompute = true;
    p.iterations = 2;
    const TrainingGraph g = Build(m, p, "a100");
    const DeviceSpec d = MakeDevice("a100");
    const double h = 1024;
    // at two stages the first holds the lookup and the last the logits, each accumulating
    // its own copy of the tied word table's gradient: the table counts twice
    const double parameters = 4 * (12 * h * h + 13 * h) + 512 * h + 2 * 5000 * h + 2 * h;
    // (rank, iteration, layer) -> backward durations in the order the rank runs them
    std::map<std::tuple<uint32_t, uint32_t, int32_t>, std::vector<double>> backward;
    for (const auto& task : g.tasks)
    {
        if (task.kind == TrainingTaskKind::COMPUTE && task.phase == TrainingPhase::BACKWARD)
        {
            ASSERT_EQ(task.ranks.size(), 1u);
            backward[{task.ranks[0], task.iteration, task.layer}].push_back(
                task.duration.GetSeconds());
        }
    }
    std::map<uint32_t, double> skipped; // per iteration
    for (const auto& [key, durations] : backward)
    {
        ASSERT_EQ(durations.size(), 4u); // one per microbatch
        for (size_t i = 2; i < durations.size(); ++i)
        {
            EXPECT_DOUBLE_EQ(durations[i], durations[1]);
        }
        EXPECT_LE(durations[0], durations[1]);
        skipped[std::get<1>(key)] += durations[1] - durations[0];
    }
    ASSERT_EQ(skipped.size(), 2u);
    for (const auto& [iteration, seconds] : skipped)
    {
        EXPECT_NEAR(
            seconds, 3 * parameters * 2 / d.memoryBandwidth, 12.0 / Seconds(1).GetTimeStep())
            << iteration;
    }
}

TEST(ComputeModel, KernelsAreSummedRooflinesAndShardAsTheySay)
{
    DeviceSpec d = MakeDevice("a100");
    d.efficiency = 0.5;
    ModelLayer layer;
    layer.name = "two kernels";
    // a GEMM: 1e12 FLOPs per sample (compute bound), and a replicated element-wise kernel of
    // 1e9 bytes per sample (memory bound)
    layer.kernels.push_back({"gemm", LayerPass::FORWARD, 1e12, 1e6, 0, 0});
    layer.kernels.push_back({"norm", LayerPass::FORWARD, 0, 0, 1e9, 0});
    layer.kernels.push_back({"wgrad", LayerPass::WEIGHT_GRADIENT, 0, 0, 0, 4e9});
    const double gemm = 1e12 / (312e12 * 0.5);
    const double norm = 1e9 / 2.0e12;
    // (each kernel's time is rounded to the simulator's resolution: a nanosecond here)
    EXPECT_NEAR(LayerPassTime(layer, LayerPass::FORWARD, d, DataType::FP16, 1).GetSeconds(),
                gemm + norm,
                1e-9);
    // 4 samples on 8 shards: the GEMM's FLOPs divide, the replicated kernel's bytes do not
    EXPECT_NEAR(LayerPassTime(layer, LayerPass::FORWARD, d, DataType::FP16, 4, 8).GetSeconds(),
                gemm * 4 / 8 + norm * 4,
                1e-9);
    // per-pass weights: not per sample, divided over the shards
    EXPECT_NEAR(
        LayerPassTime(layer, LayerPass::WEIGHT_GRADIENT, d, DataType::FP16, 16, 2).GetSeconds(),
        4e9 / 2 / 2.0e12,
        1e-9);
    EXPECT_EQ(LayerPassTime(layer, LayerPass::INPUT_GRADIENT, d, DataType::FP16, 4), Time(0));
}

TEST(TrainingPlan, TpLockstepMakesOneComputeTaskPerTpGroup)
{
    Model m = Tiny();
    TrainingPlan p;
    p.tp = 4;
    p.pp = 2;
    p.dp = 2;
    p.microbatches = 4;
    p.recompute = true;
    TrainingGraph each = Build(m, p);
    p.tpLockstep = true;
    TrainingGraph lock = Build(m, p);
    auto computes = [](const TrainingGraph& g)
    {
        return Select(g,
                      [](const TrainingTask& t)
                      {
                          return t.kind == TrainingTaskKind::COMPUTE;
                      });
    };
    auto a = computes(each);
    auto b = computes(lock);
    EXPECT_EQ(a.size(), 4 * b.size());
    double da = 0;
    double db = 0;
    for (const auto* t : a)
    {
        da += t->duration.GetSeconds();
    }
    for (const auto* t : b)
    {
        EXPECT_EQ(t->ranks.size(), 4u);
        db += t->duration.GetSeconds() * t->ranks.size();
    }
    EXPECT_NEAR(da, db, 1e-12); // the same compute on every rank
    // the communication is the same
    EXPECT_EQ(each.tasks.size() - a.size(), lock.tasks.size() - b.size());
}

TEST(TrainingPlan, OptimizerTakesThePlansFlopsAndBytes)
{
    Model m = Tiny(1);
    TrainingPlan p;
    p.optimizerFlops = 0;
    p.optimizerBytes = 60;
    TrainingGraph g = Build(m, p, "a100");
    auto opt = Select(g,
                      [](const TrainingTask& t)
                      {
                          return t.phase == TrainingPhase::OPTIMIZER;
                      });
    ASSERT_EQ(opt.size(), 1u);
    EXPECT_NEAR(opt[0]->duration.GetSeconds(), 60.0 * m.TotalParameters() / 2.0e12, 1e-12);
}

TEST(TrainingPlan, PipelineScatterGatherSendsAPartAndGathersIt)
{
    Model m = Tiny(8);
    TrainingPlan p;
    p.tp = 4;
    p.pp = 2;
    p.dp = 2;
    p.microbatches = 3;
    p.microbatchSize = 3;
    p.iterations = 2;
    p.recompute = true;
    TrainingGraph whole = Build(m, p);
    p.pipelineScatterGather = true;
    TrainingGraph scattered = Build(m, p);
    auto isSend = [](const TrainingTask& t)
    {
        return t.kind == TrainingTaskKind::SEND;
    };
    auto isGather = [](const TrainingTask& t)
    {
        return t.label.rfind("AG recv", 0) == 0;
    };
    const uint64_t activation = 3 * TINY.sequence * TINY.hidden * 2; // b·s·h fp16 bytes
    EXPECT_EQ(Select(scattered, isSend).size(), Select(whole, isSend).size());
    for (const auto* s : Select(whole, isSend))
    {
        EXPECT_EQ(s->bytes, activation) << s->label;
    }
    for (const auto* s : Select(scattered, isSend))
    {
        EXPECT_EQ(s->bytes, activation / 4) << s->label; // 1/tp of the elements
    }
    EXPECT_TRUE(Select(whole, isGather).empty());
    // one gather per receiving TP group, microbatch and direction
    const uint64_t gathers = p.iterations * p.dp * 2 * p.microbatches * (p.pp - 1);
    EXPECT_EQ(Select(scattered, isGather).size(), gathers);
    EXPECT_EQ(scattered.tasks.size(), whole.tasks.size() + gathers);
    auto tp = p.Groups(TrainingDimension::TP);
    std::vector<uint32_t> consumers(scattered.tasks.size(), 0); // computes waiting on a task
    for (const auto& t : scattered.tasks)
    {
        for (uint32_t d : t.deps)
        {
            consumers[d] += t.kind == TrainingTaskKind::COMPUTE;
        }
    }
    for (uint32_t i = 0; i < scattered.tasks.size(); ++i)
    {
        const TrainingTask& a = scattered.tasks[i];
        if (a.kind == TrainingTaskKind::SEND)
        {
            EXPECT_EQ(consumers[i], 0u) << a.label << ": computes wait for the gather instead";
        }
        if (!isGather(a))
        {
            continue;
        }
        EXPECT_TRUE(IsCollective(a, TrainingDimension::TP, CollectiveOp::ALL_GATHER)) << a.label;
        EXPECT_EQ(a.bytes, activation) << "the whole activation: " << a.label;
        EXPECT_NE(std::find(tp.begin(), tp.end(), a.ranks), tp.end()) << "a TP group";
        // it waits for the tp sends to its members, of its microbatch and direction
        ASSERT_EQ(a.deps.size(), 4u) << a.label;
        for (uint32_t k = 0; k < 4; ++k)
        {
            const TrainingTask& s = scattered.tasks[a.deps[k]];
            EXPECT_EQ(s.kind, TrainingTaskKind::SEND) << a.label;
            EXPECT_EQ(s.ranks[1], a.ranks[k]) << a.label;
            EXPECT_EQ(s.microbatch, a.microbatch) << a.label;
            EXPECT_EQ(s.phase, a.phase) << a.label;
            EXPECT_EQ(s.iteration, a.iteration) << a.label;
        }
        EXPECT_EQ(consumers[i], 4u) << "each member's first compute of the step: " << a.label;
    }
    // with tp = 1 the option changes nothing
    p.tp = 1;
    ExpectOptionChangesNothing(m, p, &TrainingPlan::pipelineScatterGather);
}

TEST(TrainingPlan, BlockingPipelineSends)
{
    Model m = Tiny(8);
    TrainingPlan p;
    p.tp = 2;
    p.pp = 4;
    p.microbatches = 4;
    p.recompute = true;
    TrainingGraph async = Build(m, p);
    p.pipelineSendsBlock = true;
    TrainingGraph sync = Build(m, p);
    ASSERT_EQ(async.tasks.size(), sync.tasks.size());
    uint32_t sends = 0;
    uint32_t recomputes = 0;
    for (uint32_t i = 0; i < sync.tasks.size(); ++i)
    {
        const TrainingTask& t = sync.tasks[i];
        EXPECT_EQ(t.blocking, t.kind == TrainingTaskKind::SEND) << t.label;
        EXPECT_FALSE(async.tasks[i].blocking) << t.label;
        sends += t.kind == TrainingTaskKind::SEND;
        // a backward step's recomputation waits for the incoming gradient (synchronous
        // receive), and only then
        bool waitsForGrad = false;
        for (uint32_t d : t.deps)
        {
            waitsForGrad = waitsForGrad
                           || (sync.tasks[d].kind == TrainingTaskKind::SEND
                               && sync.tasks[d].phase == TrainingPhase::BACKWARD);
        }
        if (t.phase == TrainingPhase::RECOMPUTE && t.kind == TrainingTaskKind::COMPUTE
            && waitsForGrad)
        {
            ++recomputes;
        }
    }
    EXPECT_EQ(sends, 2u * p.tp * p.microbatches * (p.pp - 1));
    // the first recompute of each backward step of every stage but the last, per TP rank
    EXPECT_EQ(recomputes, p.tp * p.microbatches * (p.pp - 1));
}

TEST(TrainingPlan, InterleavedSendWithBackward)
{
    // Megatron-LM's interleaved steady state (megatron/schedules.py): forward step,
    // backward step, then both messages; the warm-up forwards send at once
    Model m = Tiny(8);
    TrainingPlan p = Interleaved(8);
    TrainingGraph early = Build(m, p);
    p.interleavedSendWithBackward = true;
    TrainingGraph late = Build(m, p);
    ASSERT_EQ(early.tasks.size(), late.tasks.size());
    // the steady-state forward steps with a next chunk, per Megatron's warm-up count
    // (p - k - 1) x 2 + (v - 1) x p on stage k: 12 on stage 0, 6 on stage 1
    uint32_t expected = 0;
    const uint32_t total = p.microbatches * p.virtualStages;
    for (uint32_t k = 0; k < p.pp; ++k)
    {
        const uint32_t warm = InterleavedWarmUp(p, k);
        for (uint32_t i = warm; i < total; ++i)
        {
            const uint32_t chunk = (i / p.pp) % p.virtualStages * p.pp + k;
            expected += chunk + 1 < p.pp * p.virtualStages;
        }
    }
    ASSERT_EQ(expected, 18u);
    auto computeDep = [](const TrainingGraph& g, const TrainingTask& s)
    {
        for (uint32_t d : s.deps)
        {
            if (g.tasks[d].kind == TrainingTaskKind::COMPUTE)
            {
                return d;
            }
        }
        return static_cast<uint32_t>(g.tasks.size());
    };
    uint32_t afterBackward = 0;
    uint32_t fwdSends = 0;
    for (uint32_t i = 0; i < late.tasks.size(); ++i)
    {
        const TrainingTask& s = late.tasks[i];
        if (s.kind != TrainingTaskKind::SEND || s.phase != TrainingPhase::FORWARD)
        {
            continue;
        }
        ++fwdSends;
        const uint32_t d = computeDep(late, s);
        ASSERT_LT(d, late.tasks.size()) << s.label;
        EXPECT_EQ(late.tasks[d].ranks[0], s.ranks[0]) << s.label;
        if (late.tasks[d].phase == TrainingPhase::BACKWARD)
        {
            ++afterBackward;
            // added after that step's compute and its own message, if it sends one
            EXPECT_GT(i, d) << s.label;
            if (i > 0 && late.tasks[i - 1].kind == TrainingTaskKind::SEND)
            {
                EXPECT_EQ(late.tasks[i - 1].phase, TrainingPhase::BACKWARD) << s.label;
            }
        }
        else
        {
            EXPECT_EQ(late.tasks[d].phase, TrainingPhase::FORWARD) << s.label;
        }
    }
    EXPECT_EQ(fwdSends, p.microbatches * (p.pp * p.virtualStages - 1));
    EXPECT_EQ(afterBackward, expected);
    for (const auto& s : early.tasks)
    {
        if (s.kind == TrainingTaskKind::SEND && s.phase == TrainingPhase::FORWARD)
        {
            EXPECT_EQ(early.tasks[computeDep(early, s)].phase, TrainingPhase::FORWARD) << s.label;
        }
    }
    // every depth, chunk count and microbatch count still builds (no emission deadlock);
    // 1F1B without interleaving is unchanged
    Model deep = Tiny(24);
    for (uint32_t pp : {2u, 3u, 4u})
    {
        for (uint32_t v : {1u, 2u, 3u})
        {
            for (uint32_t mult : {1u, 2u, 3u})
            {
                TrainingPlan q;
                q.pp = pp;
                q.virtualStages = v;
                q.schedule = v > 1 ? PipelineSchedule::INTERLEAVED : PipelineSchedule::ONE_F_ONE_B;
                q.microbatches = v > 1 ? pp * mult : mult;
                q.pipelineSendsBlock = true;
                if (24 % (pp * v) != 0)
                {
                    continue;
                }
                TrainingGraph a = Build(deep, q);
                q.interleavedSendWithBackward = true;
                TrainingGraph b = Build(deep, q);
                ASSERT_EQ(a.tasks.size(), b.tasks.size()) << "pp " << pp << " v " << v;
                if (v == 1)
                {
                    ExpectSameTasks(a, b);
                }
            }
        }
    }
}

TEST(TrainingPlan, InterleavedSendsGoOutInOneBatch)
{
    // send_forward_backward_recv_forward_backward posts a steady-state step's two messages
    // in one batch_isend_irecv: with synchronous sends the held forward send is batched
    // beside the backward step's own, and the stage's next compute waits for it
    Model m = Tiny(8);
    TrainingPlan p = Interleaved(8);
    p.interleavedSendWithBackward = true;
    TrainingGraph async = Build(m, p);
    for (const auto& t : async.tasks)
    {
        EXPECT_FALSE(t.batched) << t.label << ": asynchronous sends are never batched";
    }
    p.pipelineSendsBlock = true;
    TrainingGraph g = Build(m, p);
    // the steady-state pairs whose forward has a next chunk and whose backward a previous
    // one, from Megatron's warm-up count and chunk order
    const uint32_t total = p.microbatches * p.virtualStages;
    const uint32_t chunks = p.pp * p.virtualStages;
    uint32_t expected = 0;
    for (uint32_t k = 0; k < p.pp; ++k)
    {
        const uint32_t warm = InterleavedWarmUp(p, k);
        for (uint32_t i = 0; i + warm < total; ++i)
        {
            const uint32_t fwd = ((warm + i) / p.pp) % p.virtualStages * p.pp + k;
            const uint32_t bwd = (p.virtualStages - 1 - (i / p.pp) % p.virtualStages) * p.pp + k;
            expected += fwd + 1 < chunks && bwd > 0;
        }
    }
    ASSERT_EQ(expected, 12u); // 6 on each stage, counted by hand
    uint32_t batched = 0;
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
    {
        const TrainingTask& s = g.tasks[i];
        if (!s.batched)
        {
            continue;
        }
        ++batched;
        ASSERT_GT(i, 0u);
        const TrainingTask& own = g.tasks[i - 1];
        EXPECT_EQ(s.kind, TrainingTaskKind::SEND) << s.label;
        EXPECT_TRUE(s.blocking) << s.label;
        EXPECT_EQ(s.phase, TrainingPhase::FORWARD) << s.label;
        // beside the backward step's own send, after the same compute
        EXPECT_EQ(own.kind, TrainingTaskKind::SEND) << s.label;
        EXPECT_EQ(own.phase, TrainingPhase::BACKWARD) << s.label;
        EXPECT_FALSE(own.batched) << s.label;
        EXPECT_EQ(own.ranks[0], s.ranks[0]) << s.label;
        EXPECT_EQ(own.deps, s.deps) << s.label;
        // the sender's next compute lists it
        uint32_t next = i + 1;
        while (next < g.tasks.size()
               && !(g.tasks[next].kind == TrainingTaskKind::COMPUTE
                    && g.tasks[next].ranks[0] == s.ranks[0]))
        {
            ++next;
        }
        ASSERT_LT(next, g.tasks.size()) << s.label;
        const auto& deps = g.tasks[next].deps;
        EXPECT_NE(std::find(deps.begin(), deps.end(), i), deps.end())
            << s.label << ": " << g.tasks[next].label << " waits for it";
    }
    EXPECT_EQ(batched, expected);
    // 1F1B without interleaving sends each step's message at once: nothing batched
    p.virtualStages = 1;
    p.schedule = PipelineSchedule::ONE_F_ONE_B;
    for (const auto& t : Build(m, p).tasks)
    {
        EXPECT_FALSE(t.batched) << t.label;
    }
}

TEST(TrainingPlan, VocabParallelAllReduces)
{
    // Megatron-LM's vocabulary-parallel embedding reduces its output in forward, and the
    // logits (parallel_lm_logits) their input gradient in backward: one b·s·h AllReduce each
    // per microbatch, on the first and the last stage; nothing else changes
    Model m = Tiny(4);
    TrainingPlan p;
    p.tp = 2;
    p.pp = 2;
    p.microbatches = 3;
    p.microbatchSize = 2;
    p.recompute = true;
    const uint64_t bsh2 = 2 * 2 * TINY.sequence * TINY.hidden; // 2·b·s·h at fp16
    TrainingGraph without = Build(m, p);
    p.vocabParallelAllReduces = true;
    TrainingGraph with = Build(m, p);
    const auto before = Collectives(without, TrainingDimension::TP, CollectiveOp::ALL_REDUCE);
    const auto after = Collectives(with, TrainingDimension::TP, CollectiveOp::ALL_REDUCE);
    ASSERT_EQ(after.size(), before.size() + 2 * p.microbatches);
    const uint32_t last = m.layers.size() - 1;
    uint32_t embedding = 0;
    uint32_t logits = 0;
    for (const TrainingTask* t : after)
    {
        EXPECT_EQ(t->bytes, bsh2) << t->label;
        if (t->layer == 0)
        {
            ++embedding;
            EXPECT_EQ(t->phase, TrainingPhase::FORWARD) << t->label;
            EXPECT_EQ(t->ranks, (std::vector<uint32_t>{0, 1})) << "stage 0's TP group";
        }
        if (t->layer == static_cast<int32_t>(last))
        {
            ++logits;
            EXPECT_EQ(t->phase, TrainingPhase::BACKWARD) << t->label;
            EXPECT_EQ(t->ranks, (std::vector<uint32_t>{2, 3})) << "stage 1's TP group";
        }
    }
    EXPECT_EQ(embedding, p.microbatches);
    EXPECT_EQ(logits, p.microbatches);
    // the first attention's forward waits for the embedding's reduction
    for (uint32_t i = 0; i < with.tasks.size(); ++i)
    {
        const TrainingTask& t = with.tasks[i];
        if (IsCollective(t, TrainingDimension::TP, CollectiveOp::ALL_REDUCE) && t.layer == 0)
        {
            bool consumed = false;
            for (const auto& u : with.tasks)
            {
                consumed = consumed
                           || (u.kind == TrainingTaskKind::COMPUTE && u.layer == 1
                               && u.phase == TrainingPhase::FORWARD && u.microbatch == t.microbatch
                               && std::find(u.deps.begin(), u.deps.end(), i) != u.deps.end());
            }
            EXPECT_TRUE(consumed) << t.label;
        }
    }
    // without tensor parallelism, or for a model that is not a transformer, nothing
    p.tp = 1;
    p.vocabParallelAllReduces = false;
    const size_t one = Build(m, p).tasks.size();
    p.vocabParallelAllReduces = true;
    EXPECT_EQ(Build(m, p).tasks.size(), one);
}

TEST(TrainingPlan, TiedEmbeddingCopy)
{
    // Megatron-LM with pp > 1: the last stage keeps a copy of the tied word embedding for
    // its logits; its gradient joins that stage's data-parallel all-reduce and optimizer, and
    // after the DP all-reduce the first and the last stage all-reduce it (train_step)
    Model m = Tiny(3);
    TrainingPlan p;
    p.tp = 2;
    p.pp = 3;
    p.dp = 2;
    p.microbatches = 3;
    p.overlap = false; // Megatron's local DDP: one all-reduce after the stage's backward
    p.bucketBytes = 1ull << 40;
    const uint64_t shard = TINY.vocabulary * TINY.hidden / p.tp * 2; // V·h/tp at fp16
    TrainingGraph without = Build(m, p);
    p.tiedEmbeddingCopy = true;
    TrainingGraph with = Build(m, p);
    auto stage = [&p](uint32_t rank)
    {
        return rank / p.tp % p.pp; // order tp, pp, dp (innermost first)
    };
    // DP all-reduce bytes per stage: the last stage's grow by the shard per TP index
    auto dpBytes = [&](const TrainingGraph& g, bool embedding)
    {
        std::vector<uint64_t> bytes(p.pp, 0);
        for (const TrainingTask* t :
             Collectives(g, TrainingDimension::DP, CollectiveOp::ALL_REDUCE))
        {
            if ((t->label == "AR embedding") == embedding)
            {
                bytes[stage(t->ranks[0])] += t->bytes;
            }
        }
        return bytes;
    };
    const std::vector<uint64_t> before = dpBytes(without, false);
    const std::vector<uint64_t> after = dpBytes(with, false);
    EXPECT_EQ(after[0], before[0]);
    EXPECT_EQ(after[1], before[1]);
    EXPECT_EQ(after[2], before[2] + p.tp * shard);
    EXPECT_EQ(dpBytes(without, true), (std::vector<uint64_t>{0, 0, 0}));
    // one first-last all-reduce of the shard per (TP, DP) index, after both stages' DP
    // all-reduces, and the optimizer steps of both stages wait for it
    std::vector<uint32_t> embeddingTasks;
    for (uint32_t i = 0; i < with.tasks.size(); ++i)
    {
        const TrainingTask& t = with.tasks[i];
        if (t.label != "AR embedding")
        {
            continue;
        }
        embeddingTasks.push_back(i);
        EXPECT_EQ(t.op, CollectiveOp::ALL_REDUCE);
        EXPECT_EQ(t.bytes, shard);
        ASSERT_EQ(t.ranks.size(), 2u);
        EXPECT_EQ(stage(t.ranks[0]), 0u);
        EXPECT_EQ(stage(t.ranks[1]), p.pp - 1);
        EXPECT_EQ(t.ranks[1] - t.ranks[0], (p.pp - 1) * p.tp) << "same TP and DP index";
        for (uint32_t r : t.ranks)
        {
            bool afterDp = false;
            for (uint32_t dep : t.deps)
            {
                const TrainingTask& d = with.tasks[dep];
                afterDp = afterDp
                          || (IsCollective(d, TrainingDimension::DP, CollectiveOp::ALL_REDUCE)
                              && std::find(d.ranks.begin(), d.ranks.end(), r) != d.ranks.end());
            }
            EXPECT_TRUE(afterDp) << "rank " << r << "'s DP all-reduce comes first";
            bool optimizerWaits = false;
            for (const auto& u : with.tasks)
            {
                optimizerWaits
                    = optimizerWaits
                      || (u.label == "optimizer"
                          && std::find(u.ranks.begin(), u.ranks.end(), r) != u.ranks.end()
                          && std::find(u.deps.begin(), u.deps.end(), embeddingTasks.back())
                                 != u.deps.end());
            }
            EXPECT_TRUE(optimizerWaits) << "rank " << r << "'s optimizer waits for it";
        }
    }
    EXPECT_EQ(embeddingTasks.size(), p.tp * p.dp);
    // the last stage's optimizer updates the copy too; the first and middle ones are unchanged
    auto optimizerTime = [&](const TrainingGraph& g, uint32_t k)
    {
        for (const auto& t : g.tasks)
        {
            if (t.label == "optimizer" && stage(t.ranks[0]) == k)
            {
                return t.duration;
            }
        }
        return Time();
    };
    EXPECT_EQ(optimizerTime(with, 0), optimizerTime(without, 0));
    EXPECT_EQ(optimizerTime(with, 1), optimizerTime(without, 1));
    EXPECT_GT(optimizerTime(with, 2), optimizerTime(without, 2));
    // ZeRO-3 gathers the copy's weights for the logits, as every layer's, per microbatch
    // and pass; without the copy the logits gather nothing
    const uint32_t logits = m.layers.size() - 1;
    auto logitsGathers = [&](const TrainingGraph& g)
    {
        std::vector<uint64_t> bytes;
        for (const TrainingTask* t :
             Collectives(g, TrainingDimension::DP, CollectiveOp::ALL_GATHER))
        {
            if (t->layer == static_cast<int32_t>(logits))
            {
                bytes.push_back(t->bytes);
            }
        }
        return bytes;
    };
    p.zero = 3;
    p.tiedEmbeddingCopy = false;
    EXPECT_TRUE(logitsGathers(Build(m, p)).empty());
    p.tiedEmbeddingCopy = true;
    const std::vector<uint64_t> gathers = logitsGathers(Build(m, p));
    EXPECT_FALSE(gathers.empty());
    for (uint64_t b : gathers)
    {
        EXPECT_EQ(b, shard);
    }
    p.zero = 0;
    // one stage: the embedding and the logits share one copy, nothing changes
    p.pp = 1;
    ExpectOptionChangesNothing(m, p, &TrainingPlan::tiedEmbeddingCopy);
}

TEST(TrainingPlan, LocalDdpCopies)
{
    // Megatron-LM's local DDP without contiguous buffers: flatten the gradients into one
    // buffer and scale it by 1/dp before the all-reduce, copy it back after; each pass
    // reads and writes every fp16 gradient once (4 bytes per parameter)
    Model m = Tiny(4);
    TrainingPlan p;
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    p.microbatches = 2;
    p.overlap = false;
    p.bucketBytes = 1ull << 40;
    TrainingGraph without = Build(m, p);
    p.localDdpCopies = true;
    TrainingGraph with = Build(m, p);
    const double bandwidth = MakeDevice("h100").memoryBandwidth;
    uint32_t flattens = 0;
    uint32_t copies = 0;
    for (uint32_t i = 0; i < with.tasks.size(); ++i)
    {
        const TrainingTask& t = with.tasks[i];
        if (t.label != "flatten grads" && t.label != "copy back grads")
        {
            continue;
        }
        ASSERT_EQ(t.ranks.size(), 1u);
        const uint32_t r = t.ranks[0];
        // the rank's one bucket: its stage's gradients, 2 bytes per parameter
        const TrainingTask* bucket = nullptr;
        uint32_t bucketId = 0;
        for (uint32_t j = 0; j < with.tasks.size(); ++j)
        {
            const TrainingTask& u = with.tasks[j];
            if (IsCollective(u, TrainingDimension::DP, CollectiveOp::ALL_REDUCE)
                && u.iteration == t.iteration
                && std::find(u.ranks.begin(), u.ranks.end(), r) != u.ranks.end())
            {
                bucket = &u;
                bucketId = j;
            }
        }
        ASSERT_NE(bucket, nullptr);
        const bool flatten = t.label == "flatten grads";
        const double passes = flatten ? 2 : 1;
        EXPECT_NEAR(t.duration.GetSeconds(), passes * 2 * double(bucket->bytes) / bandwidth, 1e-12)
            << t.label;
        if (flatten)
        {
            ++flattens;
            EXPECT_NE(std::find(bucket->deps.begin(), bucket->deps.end(), i), bucket->deps.end())
                << "the all-reduce waits for the flatten";
        }
        else
        {
            ++copies;
            EXPECT_NE(std::find(t.deps.begin(), t.deps.end(), bucketId), t.deps.end())
                << "the copy back waits for the all-reduce";
            bool optimizerWaits = false;
            for (const auto& u : with.tasks)
            {
                optimizerWaits = optimizerWaits
                                 || (u.label == "optimizer" && u.ranks == t.ranks
                                     && std::find(u.deps.begin(), u.deps.end(), i) != u.deps.end());
            }
            EXPECT_TRUE(optimizerWaits) << "rank " << r;
        }
    }
    const uint32_t ranks = p.tp * p.pp * p.dp;
    EXPECT_EQ(flattens, ranks * p.iterations);
    EXPECT_EQ(copies, ranks * p.iterations);
    EXPECT_EQ(with.tasks.size(), without.tasks.size() + 2 * ranks * p.iterations);
    // without data parallelism Megatron-LM still flattens, scales and copies back (its
    // train_step calls allreduce_gradients whatever the data-parallel size): the same two
    // tasks per rank, of the same durations, the copy back after the flatten
    p.dp = 1;
    p.overlap = true; // (the only value a config takes at dp 1)
    p.localDdpCopies = false;
    TrainingGraph alone = Build(m, p);
    p.localDdpCopies = true;
    TrainingGraph aloneWith = Build(m, p);
    EXPECT_EQ(aloneWith.tasks.size(), alone.tasks.size() + 2 * p.tp * p.pp * p.iterations);
    std::map<std::string, std::set<double>> durations; // by label, at dp 2 (a stage's own)
    for (const auto& t : with.tasks)
    {
        if (t.label == "flatten grads" || t.label == "copy back grads")
        {
            durations[t.label].insert(t.duration.GetSeconds());
        }
    }
    uint32_t aloneCopies = 0;
    for (uint32_t i = 0; i < aloneWith.tasks.size(); ++i)
    {
        const TrainingTask& t = aloneWith.tasks[i];
        if (t.label != "flatten grads" && t.label != "copy back grads")
        {
            continue;
        }
        ++aloneCopies;
        EXPECT_EQ(durations[t.label].count(t.duration.GetSeconds()), 1u) << t.label;
        if (t.label == "copy back grads")
        {
            const bool afterFlatten
                = std::any_of(t.deps.begin(),
                              t.deps.end(),
                              [&](uint32_t d)
                              {
                                  return aloneWith.tasks[d].label == "flatten grads"
                                         && aloneWith.tasks[d].ranks == t.ranks;
                              });
            EXPECT_TRUE(afterFlatten) << "the copy back follows the rank's flatten";
            bool optimizerWaits = false;
            for (const auto& u : aloneWith.tasks)
            {
                optimizerWaits = optimizerWaits
                                 || (u.label == "optimizer" && u.ranks == t.ranks
                                     && std::find(u.deps.begin(), u.deps.end(), i) != u.deps.end());
            }
            EXPECT_TRUE(optimizerWaits) << "the optimizer waits for the copy back";
        }
    }
    EXPECT_EQ(aloneCopies, 2 * p.tp * p.pp * p.iterations);
    // PyTorch DDP's buckets as backward produces them: nothing
    p.dp = 2;
    p.overlap = true;
    ExpectOptionChangesNothing(m, p, &TrainingPlan::localDdpCopies);
}

TEST(TrainingPlan, DdpBucketCopies)
{
    // PyTorch DDP without gradient_as_bucket_view: each bucket's gradients are copied
    // (scaled by 1/dp) into it before its all-reduce, and all copied back after: one pass
    // each, a read and a write of every fp16 gradient (4 bytes per parameter per pass)
    Model m = Tiny(4);
    TrainingPlan p;
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    p.microbatches = 2;
    p.overlap = true;
    p.bucketBytes = 1; // a bucket per layer
    TrainingGraph without = Build(m, p);
    p.ddpBucketCopies = true;
    TrainingGraph with = Build(m, p);
    const double bandwidth = MakeDevice("h100").memoryBandwidth;
    uint32_t toBucket = 0;
    uint32_t back = 0;
    uint32_t buckets = 0;
    for (uint32_t i = 0; i < with.tasks.size(); ++i)
    {
        const TrainingTask& t = with.tasks[i];
        if (IsCollective(t, TrainingDimension::DP, CollectiveOp::ALL_REDUCE))
        {
            ++buckets;
            // each rank's reduction waits for its copy into this bucket, of its bytes
            for (uint32_t r : t.ranks)
            {
                bool found = false;
                for (uint32_t d : t.deps)
                {
                    const TrainingTask& c = with.tasks[d];
                    if (c.label.rfind("copy to bucket", 0) == 0
                        && std::find(c.ranks.begin(), c.ranks.end(), r) != c.ranks.end())
                    {
                        found = true;
                        EXPECT_NEAR(
                            c.duration.GetSeconds(), 2 * double(t.bytes) / bandwidth, 1e-12);
                        EXPECT_EQ(c.layer, t.layer) << "the bucket's lowest layer";
                    }
                }
                EXPECT_TRUE(found) << t.label << " rank " << r;
            }
        }
        if (t.label.rfind("copy to bucket", 0) == 0)
        {
            ++toBucket;
            // it follows the backward step that completed the bucket, not the reductions
            ASSERT_EQ(t.deps.size(), 1u);
            const TrainingTask& before = with.tasks[t.deps[0]];
            EXPECT_EQ(before.kind, TrainingTaskKind::COMPUTE) << before.label;
        }
        if (t.label == "copy back grads")
        {
            ++back;
            ASSERT_EQ(t.ranks.size(), 1u);
            // after every reduction of the rank in the iteration, before its optimizer
            for (uint32_t j = 0; j < with.tasks.size(); ++j)
            {
                const TrainingTask& u = with.tasks[j];
                if (IsCollective(u, TrainingDimension::DP, CollectiveOp::ALL_REDUCE)
                    && u.iteration == t.iteration
                    && std::find(u.ranks.begin(), u.ranks.end(), t.ranks[0]) != u.ranks.end())
                {
                    EXPECT_NE(std::find(t.deps.begin(), t.deps.end(), j), t.deps.end());
                }
                if (u.label == "optimizer" && u.ranks == t.ranks && u.iteration == t.iteration)
                {
                    EXPECT_NE(std::find(u.deps.begin(), u.deps.end(), i), u.deps.end());
                }
            }
        }
    }
    const uint32_t ranks = p.tp * p.pp * p.dp;
    // a copy per rank and bucket it is in (each all-reduce has dp members)
    EXPECT_EQ(toBucket, buckets * p.dp);
    EXPECT_EQ(back, ranks * p.iterations);
    EXPECT_EQ(with.tasks.size(), without.tasks.size() + toBucket + back);
    EXPECT_GT(toBucket, ranks * p.iterations) << "several buckets per stage";
    // Megatron's local DDP (overlap off), or no data parallelism: nothing
    for (auto [overlap, dp] : {std::pair<bool, uint32_t>{false, 2}, {true, 1}})
    {
        p.overlap = overlap;
        p.dp = dp;
        ExpectOptionChangesNothing(m, p, &TrainingPlan::ddpBucketCopies);
    }
}
