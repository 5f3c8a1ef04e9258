/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The workload importers: the graph of each ASTRA-sim 1.0 policy, SimAI's
 * pipeline, Chakra JSON, the example files and the error messages. The
 * expected tasks follow ASTRA-sim 1.0's training loop (Workload.cc), worked
 * out by hand for each small inline file.
 */
#include "expect-invalid.h"

#include "ns3/model-zoo.h"
#include "ns3/workload-import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>

using namespace ns3;

namespace
{

WorkloadImportOptions
Opts(uint32_t ranks, uint32_t iterations = 1)
{
    WorkloadImportOptions o;
    o.ranks = ranks;
    o.iterations = iterations;
    return o;
}

/// The task labelled so that runs on rank (compute) or includes rank (collective); -1 if none.
int
Find(const TrainingGraph& g, const std::string& label, uint32_t rank = 0)
{
    int found = -1;
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
    {
        const TrainingTask& t = g.tasks[i];
        bool on = t.kind == TrainingTaskKind::SEND
                      ? t.ranks[0] == rank // a send belongs to its sender
                      : std::find(t.ranks.begin(), t.ranks.end(), rank) != t.ranks.end();
        if (t.label == label && on)
        {
            EXPECT_EQ(found, -1) << "two tasks labelled " << label << " on rank " << rank;
            found = i;
        }
    }
    return found;
}

bool
DependsOn(const TrainingGraph& g, int task, int dep)
{
    if (task < 0 || dep < 0)
    {
        return false;
    }
    const auto& d = g.tasks[task].deps;
    return std::find(d.begin(), d.end(), static_cast<uint32_t>(dep)) != d.end();
}

uint32_t
Count(const TrainingGraph& g, TrainingTaskKind kind)
{
    return std::count_if(g.tasks.begin(),
                         g.tasks.end(),
                         [&](const TrainingTask& t)
                         {
                             return t.kind == kind;
                         });
}

std::vector<std::vector<uint32_t>>
CollectiveGroups(const TrainingGraph& g, const std::string& label)
{
    std::vector<std::vector<uint32_t>> v;
    for (const auto& t : g.tasks)
    {
        if (t.kind == TrainingTaskKind::COLLECTIVE && t.label == label)
        {
            v.push_back(t.ranks);
        }
    }
    return v;
}

void
ExpectError(const std::string& text,
            const WorkloadImportOptions& o,
            std::initializer_list<std::string> parts)
{
    try
    {
        ImportAstraSimText(text, "f.txt", o);
        ADD_FAILURE() << "no error for:\n" << text;
    }
    catch (const std::invalid_argument& e)
    {
        std::string m = e.what();
        for (const auto& p : parts)
        {
            EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
        }
    }
}

void
ExpectChakraError(const std::string& text,
                  const std::string& groups,
                  uint32_t ranks,
                  std::initializer_list<std::string> parts)
{
    try
    {
        ImportChakraJson(text, "c.json", groups, Opts(ranks));
        ADD_FAILURE() << "no error for:\n" << text;
    }
    catch (const std::invalid_argument& e)
    {
        std::string m = e.what();
        for (const auto& p : parts)
        {
            EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
        }
    }
}

std::string
Source(const std::string& name)
{
    return std::string(DLNET_SOURCE_DIR) + "/workloads/" + name;
}

std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(WorkloadImport, DataLoop)
{
    const std::string text = "DATA\n2\n"
                             "a -1 100 NONE 0 200 NONE 0 300 ALLREDUCE 1000 7\n"
                             "b -1 10 ALLREDUCE 5 20 ALLGATHER 6 30 ALLREDUCE 2000 9\n";
    TrainingGraph g = ImportAstraSimText(text, "d.txt", Opts(4, 2));
    g.Validate();
    EXPECT_EQ(g.name, "d.txt");
    EXPECT_EQ(g.ranks, 4u);
    EXPECT_EQ(g.iterations, 2u);
    // Per iteration and rank: fwd a, fwd b, wg b, ig b, wg a (DATA never runs
    // layer 0's input gradient and issues no forward/input-gradient collective);
    // one weight-gradient AllReduce per layer over all ranks.
    EXPECT_EQ(Count(g, TrainingTaskKind::COMPUTE), 2u * 4 * 5);
    EXPECT_EQ(Count(g, TrainingTaskKind::COLLECTIVE), 2u * 2);
    EXPECT_EQ(g.tasks.size(), 2u * (4 * 5 + 2));
    EXPECT_EQ(Find(g, "L0 a ig it0"), -1);
    for (uint32_t it = 0; it < 2; ++it)
    {
        std::string s = " it" + std::to_string(it);
        int wgb = Find(g, "L1 b wg comm" + s);
        ASSERT_GE(wgb, 0);
        const TrainingTask& c = g.tasks[wgb];
        EXPECT_EQ(c.ranks, (std::vector<uint32_t>{0, 1, 2, 3}));
        EXPECT_EQ(c.bytes, 2000u);
        EXPECT_EQ(c.op, CollectiveOp::ALL_REDUCE);
        EXPECT_EQ(c.dimension, TrainingDimension::DP);
        EXPECT_EQ(c.finishDelay, NanoSeconds(9));
        EXPECT_EQ(c.phase, TrainingPhase::BACKWARD);
        EXPECT_EQ(c.iteration, it);
        for (uint32_t r = 0; r < 4; ++r)
        {
            EXPECT_TRUE(DependsOn(g, wgb, Find(g, "L1 b wg" + s, r)));
            // non-blocking: the input gradient after it does not wait for it
            int ig = Find(g, "L1 b ig" + s, r);
            EXPECT_FALSE(DependsOn(g, ig, wgb));
            EXPECT_TRUE(DependsOn(g, ig, Find(g, "L1 b wg" + s, r)));
            EXPECT_EQ(g.tasks[ig].duration, NanoSeconds(20));
        }
        EXPECT_EQ(g.tasks[Find(g, "L0 a wg comm" + s)].finishDelay, NanoSeconds(7));
        EXPECT_EQ(g.tasks[Find(g, "L0 a fwd" + s, 2)].duration, NanoSeconds(100));
        EXPECT_EQ(g.tasks[Find(g, "L0 a fwd" + s, 2)].phase, TrainingPhase::FORWARD);
    }
    // Iteration 1's forward of each layer waits for iteration 0's wg collective of that layer.
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_TRUE(DependsOn(g, Find(g, "L0 a fwd it1", r), Find(g, "L0 a wg comm it0")));
        EXPECT_TRUE(DependsOn(g, Find(g, "L1 b fwd it1", r), Find(g, "L1 b wg comm it0")));
        EXPECT_FALSE(DependsOn(g, Find(g, "L0 a fwd it1", r), Find(g, "L1 b wg comm it0")));
    }
}

TEST(WorkloadImport, ClockScalesCycles)
{
    const std::string text = "DATA\n1\na -1 100 NONE 0 0 NONE 0 300 ALLREDUCE 8 40\n";
    WorkloadImportOptions o = Opts(2);
    o.clockHz = 2e9;
    TrainingGraph g = ImportAstraSimText(text, "d.txt", o);
    EXPECT_EQ(g.tasks[Find(g, "L0 a fwd it0")].duration, NanoSeconds(50));
    EXPECT_EQ(g.tasks[Find(g, "L0 a wg it0")].duration, NanoSeconds(150));
    EXPECT_EQ(g.tasks[Find(g, "L0 a wg comm it0")].finishDelay, NanoSeconds(20));
}

TEST(WorkloadImport, TransformerLoop)
{
    const std::string text = "HYBRID_TRANSFORMER model_parallel_NPU_group: 4\n2\n"
                             "a -1 100 ALLREDUCE 64 200 ALLREDUCE 64 300 ALLREDUCE 128 5\n"
                             "b -1 100 ALLREDUCE 64 200 NONE 0 300 REDUCESCATTER 128 5\n";
    TrainingGraph g = ImportAstraSimText(text, "t.txt", Opts(8, 2));
    // fwd: (8 + 2) x 2; backward b: 8 ig + 8 wg + 4 wg comms; a: 8 ig + 2 ig comms + 8 wg + 4.
    EXPECT_EQ(g.tasks.size(), 2u * (20 + 20 + 22));
    auto mp = std::vector<std::vector<uint32_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}};
    auto dp = std::vector<std::vector<uint32_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}};
    EXPECT_EQ(CollectiveGroups(g, "L0 a fwd comm it0"), mp);
    EXPECT_EQ(CollectiveGroups(g, "L0 a ig comm it0"), mp); // layer 0 too in the transformer loop
    EXPECT_EQ(CollectiveGroups(g, "L1 b wg comm it1"), dp);
    EXPECT_TRUE(CollectiveGroups(g, "L1 b ig comm it0").empty());
    int fa = Find(g, "L0 a fwd comm it0", 5);
    EXPECT_EQ(g.tasks[fa].dimension, TrainingDimension::TP);
    EXPECT_EQ(g.tasks[Find(g, "L1 b wg comm it0", 5)].dimension, TrainingDimension::DP);
    EXPECT_EQ(g.tasks[Find(g, "L1 b wg comm it0", 5)].op, CollectiveOp::REDUCE_SCATTER);
    // forward collectives block: b's forward waits for a's on its group only
    EXPECT_TRUE(DependsOn(g, Find(g, "L1 b fwd it0", 5), fa));
    EXPECT_FALSE(DependsOn(g, Find(g, "L1 b fwd it0", 1), fa));
    // a's ig comm is non-blocking for a's wg compute, but the layer waits for it
    int iga = Find(g, "L0 a ig comm it0", 1);
    EXPECT_FALSE(DependsOn(g, Find(g, "L0 a wg it0", 1), iga));
    EXPECT_TRUE(DependsOn(g, Find(g, "L0 a fwd it1", 1), iga));
    EXPECT_TRUE(DependsOn(g, Find(g, "L0 a fwd it1", 1), Find(g, "L0 a wg comm it0", 1)));
    // backward order: b's ig, b's wg, then a's ig (b's wg comm is non-blocking)
    EXPECT_FALSE(DependsOn(g, Find(g, "L0 a ig it0", 1), Find(g, "L1 b wg comm it0", 1)));
    EXPECT_TRUE(DependsOn(g, Find(g, "L0 a ig it0", 1), Find(g, "L1 b wg it0", 1)));
    g.Validate();
}

TEST(WorkloadImport, ModelLoop)
{
    const std::string text = "MODEL\n2\n"
                             "a -1 100 ALLGATHER 64 200 REDUCESCATTER 64 300 ALLREDUCE 128 0\n"
                             "b -1 100 ALLGATHER 64 200 REDUCESCATTER 64 300 ALLREDUCE 128 0\n";
    TrainingGraph g = ImportAstraSimText(text, "m.txt", Opts(4, 1));
    // fwd: 4+1, 4+1; backward b: ig 4 + ig comm 1 + wg 4; a: ig 4 (run in MODEL) + wg 4.
    EXPECT_EQ(g.tasks.size(), 10u + 9 + 8);
    EXPECT_EQ(CollectiveGroups(g, "L1 b ig comm it0"),
              (std::vector<std::vector<uint32_t>>{{0, 1, 2, 3}}));
    EXPECT_TRUE(CollectiveGroups(g, "L0 a ig comm it0").empty());
    EXPECT_TRUE(CollectiveGroups(g, "L0 a wg comm it0").empty());
    EXPECT_EQ(g.tasks[Find(g, "L0 a fwd comm it0")].op, CollectiveOp::ALL_GATHER);
    EXPECT_EQ(g.tasks[Find(g, "L0 a fwd comm it0")].dimension, TrainingDimension::TP);
    int ig = Find(g, "L1 b ig comm it0", 3);
    EXPECT_FALSE(DependsOn(g, Find(g, "L1 b wg it0", 3), ig));
    EXPECT_TRUE(DependsOn(g, Find(g, "L0 a ig it0", 3), ig));
}

TEST(WorkloadImport, HybridDataModelAndModelData)
{
    const std::string body = "2\n"
                             "a -1 1 ALLREDUCE 64 2 ALLREDUCE 64 3 ALLREDUCE 128 0\n"
                             "b -1 1 ALLREDUCE 64 2 ALLREDUCE 64 3 ALLREDUCE 128 0\n";
    WorkloadImportOptions o = Opts(4);
    o.modelParallel = 2;
    TrainingGraph dm = ImportAstraSimText("HYBRID_DATA_MODEL\n" + body, "dm.txt", o);
    auto blocks = std::vector<std::vector<uint32_t>>{{0, 1}, {2, 3}};
    auto strided = std::vector<std::vector<uint32_t>>{{0, 2}, {1, 3}};
    EXPECT_EQ(CollectiveGroups(dm, "L0 a fwd comm it0"), blocks);
    EXPECT_EQ(CollectiveGroups(dm, "L1 b ig comm it0"), blocks);
    EXPECT_TRUE(CollectiveGroups(dm, "L0 a ig comm it0").empty()); // not for layer 0
    EXPECT_EQ(CollectiveGroups(dm, "L0 a wg comm it0"), strided);
    TrainingGraph md = ImportAstraSimText("HYBRID_MODEL_DATA\n" + body, "md.txt", o);
    EXPECT_EQ(CollectiveGroups(md, "L0 a fwd comm it0"), strided);
    EXPECT_EQ(CollectiveGroups(md, "L0 a wg comm it0"), blocks);
    EXPECT_EQ(md.tasks[Find(md, "L0 a fwd comm it0")].dimension, TrainingDimension::TP);
    EXPECT_EQ(md.tasks[Find(md, "L0 a wg comm it0")].dimension, TrainingDimension::DP);
    // a group of 1 has no collective
    o.modelParallel = 4;
    TrainingGraph one = ImportAstraSimText("HYBRID_DATA_MODEL\n" + body, "dm.txt", o);
    EXPECT_EQ(Count(one, TrainingTaskKind::COLLECTIVE), 3u); // fwd a, fwd b, ig b on {0..3}
    ExpectError(
        "HYBRID_DATA_MODEL\n" + body, Opts(4), {"f.txt:1:", "workload-model-parallel", "is 0"});
    o.modelParallel = 3;
    ExpectError("HYBRID_DATA_MODEL\n" + body,
                o,
                {"f.txt:1:", "workload-model-parallel", "3 does not divide ranks 4"});
    // a policy without MODEL groups took the option and ignored it
    o.modelParallel = 2;
    ExpectError("DATA\n" + body,
                o,
                {"f.txt:1:", "workload-model-parallel: got 2; this file's policy has no MODEL"});
    o.ranks = 2;
    ExpectInvalid(
        [&o]
        {
            ImportChakraJson(R"({"workload_graph": [{"Id": 1, "NodeType": 4}]})", "c.json", "", o);
        },
        {"c.json", "workload-model-parallel: got 2; a Chakra trace names its groups itself"});
}

TEST(WorkloadImport, DlrmLoop)
{
    const std::string text = "HYBRID_DLRM 1\n3\n"
                             "emb -1 10 ALLTOALL 100 20 ALLTOALL 100 30 NONE 0 3\n"
                             "bot -1 10 ALLREDUCE 7 20 NONE 0 30 ALLREDUCE 50 4\n"
                             "top -1 10 NONE 0 20 NONE 0 30 ALLREDUCE 60 5\n";
    TrainingGraph g = ImportAstraSimText(text, "r.txt", Opts(4, 2));
    // per iteration: computes 3 fwd + 3 wg + 2 ig per rank; collectives: emb fwd
    // AllToAll, emb ig AllToAll, bot and top wg AllReduce (bot's forward AllReduce
    // is not issued: DATA-like layers have no forward collective).
    EXPECT_EQ(Count(g, TrainingTaskKind::COMPUTE), 2u * 4 * 8);
    EXPECT_EQ(Count(g, TrainingTaskKind::COLLECTIVE), 2u * 4);
    int a2a = Find(g, "L0 emb fwd comm it0");
    EXPECT_EQ(g.tasks[a2a].op, CollectiveOp::ALL_TO_ALL);
    EXPECT_EQ(g.tasks[a2a].dimension, TrainingDimension::EP);
    EXPECT_EQ(g.tasks[a2a].ranks.size(), 4u);
    EXPECT_EQ(g.tasks[a2a].finishDelay, NanoSeconds(3));
    // non-blocking until the last bottom layer: bot's forward runs, top's waits
    EXPECT_FALSE(DependsOn(g, Find(g, "L1 bot fwd it0", 2), a2a));
    EXPECT_TRUE(DependsOn(g, Find(g, "L2 top fwd it0", 2), a2a));
    // the embedding's ig AllToAll is issued after top's ig compute (layer last_bottom + 1)
    int ig = Find(g, "L0 emb ig comm it0");
    EXPECT_TRUE(DependsOn(g, ig, Find(g, "L2 top ig it0", 2)));
    EXPECT_FALSE(DependsOn(g, Find(g, "L1 bot wg it0", 2), ig));
    EXPECT_TRUE(DependsOn(g, Find(g, "L0 emb fwd it1", 2), ig));
    EXPECT_TRUE(DependsOn(g, Find(g, "L1 bot fwd it1", 2), Find(g, "L1 bot wg comm it0")));
    g.Validate();
}

TEST(WorkloadImport, CustomizedAndMicro)
{
    const std::string text = "HYBRID_CUSTOMIZED\n2\n"
                             "a -1 10 ALLREDUCE 8 10 ALLREDUCE 8 10 ALLREDUCE 8 1 DATA\n"
                             "b -1 10 ALLREDUCE 8 10 ALLREDUCE 8 10 ALLREDUCE 8 1 MODEL\n";
    TrainingGraph g = ImportAstraSimText(text, "c.txt", Opts(4));
    EXPECT_EQ(Count(g, TrainingTaskKind::COLLECTIVE), 3u);
    EXPECT_GE(Find(g, "L0 a wg comm it0"), 0);
    EXPECT_GE(Find(g, "L1 b fwd comm it0"), 0);
    EXPECT_GE(Find(g, "L1 b ig comm it0"), 0);
    ExpectError("HYBRID_CUSTOMIZED\n1\na -1 1 NONE 0 1 NONE 0 1 NONE 0 0 SOMETHING\n",
                Opts(4),
                {"f.txt:3:", "layer_policy", "'SOMETHING'"});
    TrainingGraph m = ImportAstraSimText(
        "MICRO\n1\nm -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 1024 0\n", "m.txt", Opts(4, 3));
    EXPECT_EQ(m.tasks.size(), 3u);
    EXPECT_EQ(Count(m, TrainingTaskKind::COLLECTIVE), 3u);
    for (const auto& t : m.tasks)
    {
        EXPECT_TRUE(t.deps.empty());
        EXPECT_EQ(t.bytes, 1024u);
    }
}

TEST(WorkloadImport, FwdInBckwdRecomputes)
{
    const std::string text
        = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 0 "
          "checkpoint_initiates: 1 2\n3\n"
          "a -1 10 ALLREDUCE 8 10 NONE 0 10 NONE 0 0\n"
          "b -1 10 ALLREDUCE 8 10 NONE 0 10 NONE 0 0\n"
          "c -1 10 ALLREDUCE 8 10 NONE 0 10 NONE 0 0\n";
    TrainingGraph g = ImportAstraSimText(text, "f.txt", Opts(2));
    uint32_t rec = std::count_if(g.tasks.begin(),
                                 g.tasks.end(),
                                 [](const TrainingTask& t)
                                 {
                                     return t.phase == TrainingPhase::RECOMPUTE;
                                 });
    EXPECT_EQ(rec, 2u * 2 + 2); // layers 0 and 1 on both ranks, their forward collectives
    EXPECT_TRUE(DependsOn(g, Find(g, "L2 c ig it0", 1), Find(g, "L1 b fwd comm recompute it0", 1)));
    ExpectError("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 2 "
                "checkpoint_initiates: 1 1\n3\n"
                "a -1 1 NONE 0 1 NONE 0 1 NONE 0 0\nb -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n"
                "c -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
                Opts(2),
                {"f.txt:1:", "checkpoint_initiates", "no checkpoint below"});
    // a checkpoint list's count and its layer indices have ranges of their own, said apart
    ExpectError(
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 "
        "100000 checkpoint_initiates: 0\n1\na -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
        Opts(2),
        {"checkpoints layer index: '100000' is too large", "a whole number from 0 to 99999"});
    ExpectError("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 100001 "
                "0 checkpoint_initiates: 0\n1\na -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
                Opts(2),
                {"checkpoints count: '100001' is too large", "a whole number from 0 to 100000"});
    // reserved takes -1 beside its range
    ExpectError("DATA\n1\na -2 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
                Opts(2),
                {"reserved: '-2' is negative", "-1 or a whole number from 0 to 100000"});
}

// SimAI's compute is in nanoseconds: a clock would be taken and ignored
TEST(WorkloadImport, SimaiRefusesAClock)
{
    WorkloadImportOptions o = Opts(0);
    o.clockHz = 2e9;
    ExpectError("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 "
                "ga: 1 all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0\n1\n"
                "x -1 100 ALLREDUCE 10 200 ALLREDUCE 10 300 ALLREDUCE 20 0\n",
                o,
                {"clock-ghz: got 2", "ASTRA-sim 1.0 cycles only", "SimAI"});
}

TEST(WorkloadImport, SimaiPipeline)
{
    const std::string text
        = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 2 vpp: 1 ga: 2 "
          "all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 1000\n2\n"
          "x -1 100 ALLREDUCE 10 200 ALLREDUCE 10 300 ALLREDUCE 20 0\n"
          "y -1 100 ALLREDUCE 10 200 ALLREDUCE 10 300 ALLREDUCE 20 0\n";
    WorkloadImportOptions o = Opts(0);
    TrainingGraph g = ImportAstraSimText(text, "s.txt", o);
    EXPECT_EQ(g.ranks, 8u);
    // rank = tp + 2 (pp + 2 dp): stage 0 = {0, 1, 4, 5}, stage 1 = {2, 3, 6, 7}
    EXPECT_EQ(CollectiveGroups(g, "L0 x fwd comm mb1 it0"),
              (std::vector<std::vector<uint32_t>>{{0, 1}, {4, 5}}));
    EXPECT_EQ(CollectiveGroups(g, "L1 y wg comm mb0 it0"),
              (std::vector<std::vector<uint32_t>>{{2, 6}, {3, 7}}));
    EXPECT_EQ(Count(g, TrainingTaskKind::SEND),
              2u * 2 * 4); // 2 microbatches x 2 directions x 4 pairs
    EXPECT_EQ(Count(g, TrainingTaskKind::COLLECTIVE), 8u + 8 + 4);
    EXPECT_EQ(Count(g, TrainingTaskKind::COMPUTE), 2u * 3 * 8);
    EXPECT_EQ(g.tasks[Find(g, "L0 x fwd mb0 it0", 4)].duration, NanoSeconds(100));
    int send = -1;
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
    {
        if (g.tasks[i].kind == TrainingTaskKind::SEND
            && g.tasks[i].ranks == std::vector<uint32_t>{4, 6} && g.tasks[i].microbatch == 0
            && g.tasks[i].phase == TrainingPhase::FORWARD)
        {
            send = i;
        }
    }
    ASSERT_GE(send, 0);
    EXPECT_EQ(g.tasks[send].bytes, 1000u);
    EXPECT_EQ(g.tasks[send].dimension, TrainingDimension::PP);
    EXPECT_TRUE(DependsOn(g, send, Find(g, "L0 x fwd comm mb0 it0", 4)));
    EXPECT_TRUE(DependsOn(g, Find(g, "L1 y fwd mb0 it0", 6), send));
    EXPECT_FALSE(DependsOn(g, Find(g, "L1 y fwd mb0 it0", 7), send));
    g.Validate();
    // expert groups: ep 2 over DP 2
    const std::string ep
        = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 vpp: 1 ga: 1 "
          "all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n1\n"
          "moe -1 1 ALLTOALL_EP 64 1 NONE 0 1 ALLREDUCE_DP_EP 8 0\n";
    TrainingGraph e = ImportAstraSimText(ep, "e.txt", Opts(0));
    EXPECT_EQ(CollectiveGroups(e, "L0 moe fwd comm mb0 it0"),
              (std::vector<std::vector<uint32_t>>{{0, 2}, {1, 3}}));
    EXPECT_EQ(e.tasks[Find(e, "L0 moe fwd comm mb0 it0")].dimension, TrainingDimension::EP);
    EXPECT_TRUE(CollectiveGroups(e, "L0 moe wg comm mb0 it0").empty()); // expert-data groups of 1
    ExpectError(text, Opts(16), {"f.txt:1:", "all_gpus", "disagrees with workload-ranks 16"});
    // AICB writes "pp_comm BYTES" without a colon; keys in another order
    std::string aicb = text;
    aicb.replace(aicb.find("pp_comm: 1000"), 13, "pp_comm 1000");
    aicb.replace(aicb.find("ep: 1 pp: 2"), 11, "pp: 2 ep: 1");
    TrainingGraph a = ImportAstraSimText(aicb, "a.txt", Opts(0));
    EXPECT_EQ(a.tasks.size(), g.tasks.size());
    EXPECT_EQ(Count(a, TrainingTaskKind::SEND), 16u);
    ExpectError(text + "z -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n", Opts(0), {"f.txt:5: layers:"});
    ExpectError("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp: 3 all_gpus: 8\n1\n"
                "x -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
                Opts(0),
                {"f.txt:1: all_gpus: 8 is not a multiple of model_parallel_NPU_group x pp = 6"});
    ExpectError(
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ga: 2 ga: 3 all_gpus: 8\n1\n"
        "x -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
        Opts(0),
        {"f.txt:1: ga: given twice"});
}

TEST(WorkloadImport, Chakra)
{
    TrainingGraph g = ImportChakraJson(ReadFile(Source("chakra-allreduce.json")),
                                       "chakra-allreduce.json",
                                       ReadFile(Source("chakra-groups.json")),
                                       Opts(0));
    EXPECT_EQ(g.ranks, 4u);
    EXPECT_EQ(Count(g, TrainingTaskKind::COMPUTE), 8u);
    EXPECT_EQ(Count(g, TrainingTaskKind::COLLECTIVE), 3u);
    EXPECT_EQ(Count(g, TrainingTaskKind::SEND), 4u);
    EXPECT_EQ(Count(g, TrainingTaskKind::DELAY), 4u);
    EXPECT_EQ(g.tasks[Find(g, "fwd", 3)].duration, MicroSeconds(50));
    EXPECT_EQ(CollectiveGroups(g, "pair_allgather"),
              (std::vector<std::vector<uint32_t>>{{0, 1}, {2, 3}}));
    EXPECT_EQ(g.tasks[Find(g, "grad_allreduce", 2)].bytes, 1u << 20);
    int send = Find(g, "send_next", 3);
    EXPECT_EQ(g.tasks[send].ranks, (std::vector<uint32_t>{3, 0}));
    EXPECT_TRUE(DependsOn(g, Find(g, "pair_allgather", 0), send));
    // SPMD form
    const std::string spmd = R"({"workload_graph": [
        {"Id": 1, "Name": "c", "NodeType": 4, "runtime": 2, "data_deps": []},
        {"Id": 2, "Name": "ar", "NodeType": 7, "comm_type": 0, "comm_size": 64, "data_deps": [1]}]})";
    TrainingGraph s = ImportChakraJson(spmd, "s.json", "", Opts(3));
    EXPECT_EQ(s.tasks.size(), 4u);
    EXPECT_EQ(CollectiveGroups(s, "ar"), (std::vector<std::vector<uint32_t>>{{0, 1, 2}}));
    EXPECT_TRUE(DependsOn(s, Find(s, "ar"), Find(s, "c", 1)));
}

TEST(WorkloadImport, ChakraErrors)
{
    ExpectChakraError("{\n\"workload_graph\": [\n}", "", 2, {"c.json:3:", "json"});
    ExpectChakraError(R"({"workload_graph": [{"Id": 1, "NodeType": 4, "data_deps": [9]}]})",
                      "",
                      2,
                      {"c.json", "data_deps", "unknown Id 9"});
    ExpectChakraError(R"({"workload_graph": [{"Id": 1, "NodeType": 4, "data_deps": [2]},
                         {"Id": 2, "NodeType": 4, "data_deps": [1]}]})",
                      "",
                      2,
                      {"c.json", "data_deps", "cycle"});
    ExpectChakraError(R"({"traces": [
        {"rank": 0, "workload_graph": [{"Id": 1, "Name": "s", "NodeType": 5, "comm_dst": 1, "comm_size": 8}]},
        {"rank": 1, "workload_graph": []}]})",
                      "",
                      0,
                      {"c.json", "no matching receive"});
    ExpectChakraError(
        R"({"workload_graph": [{"Id": 1, "NodeType": 7, "comm_type": 0, "comm_size": 8, "pg_name": "x"}]})",
        R"({"y": [0, 1]})",
        2,
        {"c.json", "pg_name", "'x' is not a group", "y"});
    ExpectChakraError(R"({"workload_graph": []})", "", 0, {"c.json", "ranks"});
    // the larger of the two sizes was taken without a word
    ExpectChakraError(R"({"traces": [
        {"rank": 0, "workload_graph": [{"Id": 1, "NodeType": 5, "comm_dst": 1, "comm_size": 8}]},
        {"rank": 1, "workload_graph": [{"Id": 7, "NodeType": 6, "comm_src": 0, "comm_size": 64}]}]})",
                      "",
                      0,
                      {"c.json",
                       "comm_size",
                       "rank 1, node Id 7: receive of 64 bytes from rank 0",
                       "meets a send of 8 bytes (node Id 1)"});
    // a count that is not a whole number was told it did not equal the traces' count
    for (const char* ranks : {"4.0", "\"2\""})
    {
        ExpectChakraError(
            std::string(R"({"ranks": )") + ranks + R"(, "traces": [
            {"rank": 0, "workload_graph": []}, {"rank": 1, "workload_graph": []}]})",
            "",
            0,
            {"c.json", "ranks: is not a JSON integer from 1", "the number of traces, 2"});
    }
    ExpectChakraError(R"({"ranks": 3, "traces": [
        {"rank": 0, "workload_graph": []}, {"rank": 1, "workload_graph": []}]})",
                      "",
                      0,
                      {"c.json", "ranks: 3 does not equal the number of traces 2"});
    // more dependencies than nodes: said so, not "not a list of node Ids"
    ExpectChakraError(R"({"workload_graph": [{"Id": 1, "NodeType": 4, "data_deps": [1, 1]}]})",
                      "",
                      2,
                      {"c.json", "data_deps", "lists 2 Ids, more than the trace's 1 nodes"});
}

TEST(WorkloadImport, JsonWorkloadFileIsReadAsChakra)
{
    // without a "workload_graph" key a JSON file was read as ASTRA-sim text, and the error
    // named its first line's policy
    std::string path = testing::TempDir() + "/dlnet-traces-only.json";
    std::ofstream(path) << R"({"traces": []})";
    WorkloadImportOptions o;
    ExpectInvalid(
        [&]
        {
            ImportWorkloadFile(path, o);
        },
        {"traces"});
    std::ofstream(path) << "[1, 2]";
    ExpectInvalid(
        [&]
        {
            ImportWorkloadFile(path, o);
        },
        {"the document is not an object"});
    std::remove(path.c_str());
}

TEST(WorkloadImport, Errors)
{
    const std::string ok = "a -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 0\n";
    ExpectError("FOO\n1\n" + ok,
                Opts(4),
                {"f.txt:1: policy: 'FOO' is not a parallelism policy", "HYBRID_DLRM"});
    ExpectError("HYBRID_DLRM_ENHANCED 0\n1\n" + ok, Opts(4), {"f.txt:1: policy:", "not supported"});
    ExpectError("DISTRIBUTED_INFERENCE\n1\n" + ok, Opts(4), {"f.txt:1: policy:", "not supported"});
    ExpectError("DATA\n2\n" + ok + "b -1 1 ALLREDUCEX 0 1 NONE 0 1 NONE 0 0\n",
                Opts(4),
                {"f.txt:4: fwd_comm_type: 'ALLREDUCEX' is not a collective", "ALLREDUCEALLTOALL"});
    ExpectError(
        "DATA\n1\na -1 1x NONE 0 1 NONE 0 1 NONE 0 0\n", Opts(4), {"f.txt:3: fwd_compute: '1x'"});
    ExpectError("DATA\n1\na -1 1 NONE 0 -5 NONE 0 1 NONE 0 0\n",
                Opts(4),
                {"f.txt:3: ig_compute:", "negative"});
    ExpectError("DATA\n1\na -1 1000000000000001 NONE 0 1 NONE 0 1 NONE 0 0\n",
                Opts(4),
                {"f.txt:3: fwd_compute:", "too large"});
    ExpectError("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 1125899906842625 0\n",
                Opts(4),
                {"f.txt:3: wg_comm_bytes:", "too large"});
    ExpectError("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8\n",
                Opts(4),
                {"f.txt:3: update_time: missing"});
    ExpectError("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 0 9\n",
                Opts(4),
                {"f.txt:3: layer: extra token '9'"});
    ExpectError(
        "DATA\n3\n" + ok + ok, Opts(4), {"f.txt:4: layers:", "declares 3 layers but has 2"});
    ExpectError(
        "DATA\n1\n" + ok + ok, Opts(4), {"f.txt:4: layers:", "declares 1 layers but has 2"});
    ExpectError("DATA\n", Opts(4), {"f.txt:2: layers: missing"});
    ExpectError("DATA\nx\n" + ok, Opts(4), {"f.txt:2: layers: 'x'"});
    // one range for 0 and for too many (0 said "1 to 100000", too many "0 to 100000")
    ExpectError("DATA\n0\n", Opts(4), {"f.txt:2: layers: is 0", "from 1 to 100000"});
    ExpectError(
        "DATA\n100001\n", Opts(4), {"f.txt:2: layers: '100001' is too large", "from 1 to 100000"});
    ExpectError("HYBRID_TRANSFORMER model_parallel_NPU_group: 0\n1\n" + ok,
                Opts(8),
                {"f.txt:1: model_parallel_NPU_group: is 0", "from 1 to 65536"});
    ExpectError("DATA\n1\n" + ok, Opts(0), {"f.txt:1: workload-ranks:", "is 0"});
    ExpectError("DATA extra\n1\n" + ok, Opts(4), {"f.txt:1: header: extra token 'extra'"});
    ExpectError("HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" + ok,
                Opts(8),
                {"f.txt:1: model_parallel_NPU_group: 3 does not divide ranks 8"});
    ExpectError(
        "HYBRID_TRANSFORMER\n1\n" + ok, Opts(8), {"f.txt:1: model_parallel_NPU_group: missing"});
    ExpectError("HYBRID_DLRM 5\n1\n" + ok, Opts(8), {"f.txt:1: last_bottom_layer:", "not below"});
    ExpectError("DATA\n1\na x 1 NONE 0 1 NONE 0 1 NONE 0 0\n", Opts(4), {"f.txt:3: reserved: 'x'"});
    ExpectError("", Opts(4), {"f.txt:1: policy:", "empty"});
}

/// Renders a zoo model as an ASTRA-sim 1.0 DATA workload: per-NPU batch 32,
/// 100 TFLOP/s at 1 GHz (cycles = FLOPs / 1e5), gradients of parameters x 4 bytes.
std::string
RenderData(const Model& m)
{
    const double batch = 32, flopsPerCycle = 1e14 / 1e9;
    std::ostringstream s;
    s << "DATA\n" << m.layers.size() << "\n";
    for (const auto& l : m.layers)
    {
        auto c = [&](double f)
        {
            return static_cast<uint64_t>(std::llround(f * batch / flopsPerCycle));
        };
        s << l.name << " -1 " << c(l.forwardFlops) << " NONE 0 " << c(l.inputGradientFlops)
          << " NONE 0 " << c(l.weightGradientFlops) << (l.parameters ? " ALLREDUCE " : " NONE ")
          << l.parameters * 4 << " 0\n";
    }
    return s.str();
}

TEST(WorkloadImport, ResNet50FileMatchesModelZoo)
{
    Model m = MakeModel("resnet50");
    std::string text = RenderData(m);
    std::string path = Source("resnet50-data.txt");
    if (std::getenv("DLNET_REGENERATE") != nullptr)
    {
        std::ofstream(path) << text;
    }
    EXPECT_EQ(ReadFile(path), text) << "regenerate with workloads/generate.py";
    TrainingGraph g = ImportAstraSimText(text, "resnet50-data.txt", Opts(8));
    uint64_t bytes = 0;
    for (const auto& t : g.tasks)
    {
        bytes += t.kind == TrainingTaskKind::COLLECTIVE ? t.bytes : 0;
    }
    EXPECT_EQ(bytes, 25502912u * 4); // ResNet-50's weights (workloads.md), fp32 gradients
}

TEST(WorkloadImport, ExampleFiles)
{
    for (const char* f : {"resnet50-data.txt",
                          "transformer-hybrid.txt",
                          "dlrm-hybrid.txt",
                          "mlp-model.txt",
                          "gpt-simai.txt",
                          "chakra-allreduce.json"})
    {
        SCOPED_TRACE(f);
        std::string text = ReadFile(Source(f));
        ASSERT_FALSE(text.empty());
        TrainingGraph g;
        if (std::string(f).find(".json") != std::string::npos)
        {
            g = ImportChakraJson(text, f, ReadFile(Source("chakra-groups.json")), Opts(0));
        }
        else
        {
            g = ImportWorkloadFile(Source(f), Opts(std::string(f) == "gpt-simai.txt" ? 0 : 8, 2));
        }
        EXPECT_NO_THROW(g.Validate());
        EXPECT_GT(g.tasks.size(), 0u);
        EXPECT_GT(Count(g, TrainingTaskKind::COLLECTIVE), 0u);
    }
    EXPECT_EQ(ImportWorkloadFile(Source("gpt-simai.txt"), Opts(0)).ranks, 8u);
}

TEST(WorkloadImport, FileDispatchesChakraWithEmbeddedGroups)
{
    std::string path = testing::TempDir() + "dlnet-chakra-embedded.json";
    std::ofstream(path) << R"({"ranks": 4, "groups": {"pair": [1, 3]}, "workload_graph": [
        {"Id": 1, "Name": "ar", "NodeType": 7, "comm_type": 6, "comm_size": 32, "pg_name": "pair"}]})";
    // every rank runs the same trace, so ranks 0 and 2 are not in "pair"
    try
    {
        ImportWorkloadFile(path, Opts(0));
        ADD_FAILURE() << "ranks outside the group accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("not in group 'pair'"), std::string::npos) << e.what();
    }
    std::ofstream(path) << R"({"ranks": 4, "groups": {"pair": [0, 1]}, "workload_graph": [
        {"Id": 1, "Name": "ar", "NodeType": 7, "comm_type": 6, "comm_size": 32, "pg_name": "pair"}]})";
    EXPECT_THROW(ImportWorkloadFile(path, Opts(0)), std::invalid_argument); // ranks 2 and 3
    std::ofstream(path) << R"({"ranks": 2, "groups": {"pair": [1, 0]}, "workload_graph": [
        {"Id": 1, "Name": "a2a", "NodeType": 7, "comm_type": 6, "comm_size": 32, "pg_name": "pair"}]})";
    TrainingGraph g = ImportWorkloadFile(path, Opts(0));
    ASSERT_EQ(g.tasks.size(), 1u);
    EXPECT_EQ(g.tasks[0].ranks, (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(g.tasks[0].op, CollectiveOp::ALL_TO_ALL);
    EXPECT_EQ(g.tasks[0].dimension, TrainingDimension::EP);
    std::remove(path.c_str());
}
