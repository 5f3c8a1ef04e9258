/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// What the HeterPS-style schedulers cost in wall time, on random but
// CTR-like problems: a few embedding layers first (fast on the CPU, large
// sparse gradients), then dense layers (fast on GPUs). For every L and type
// count it prints each scheduler's wall time, plan evaluations, throughput,
// cost and gap to the exact optimum. Nothing is asserted: the figures go in
// bench/README.md and doc/heterps-cost-model.md.
//
//   ./build/bench/scheduler-bench [--layers=10,50,200] [--types=2,3,4,5]
//       [--schedulers=exact,rl,greedy,genetic,random] [--seed=1]
//
// Any registered scheduler can be listed ("all-cpu", ...).

#include "ns3/config-parse.h"
#include "ns3/dlnet-module.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>

using namespace ns3;

namespace
{

double
Uniform(std::mt19937_64& rng, double lo, double hi)
{
    return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

/**
 * A CTR-like problem: one CPU type and types - 1 GPU kinds of rising speed
 * and price; L / 10 (at least 1) embedding layers, then dense layers. The
 * limit is 60% of the best throughput the "embeddings on the CPU, the rest
 * on the fastest GPU" plan reaches, so that it is feasible and binding.
 */
SchedulingProblem
CtrLikeProblem(uint32_t layers, uint32_t types, uint64_t seed)
{
    std::mt19937_64 rng(seed * 1000003 + layers * 31 + types);
    SchedulingProblem p;
    p.catalogue.name = "bench";
    // CPU server, then GPUs roughly like T4, V100, A100, H100 on-demand prices.
    const double gpuPrice[] = {0.6, 3.1, 4.1, 9.8};
    const double gpuSpeed[] = {1, 2.5, 4, 8};
    ResourceType cpu;
    cpu.name = "cpu";
    cpu.kind = ResourceKind::CPU;
    cpu.pricePerHour = 1.5;
    cpu.available = 64;
    cpu.device = MakeDevice("cpu");
    cpu.nicRate = 25e9;
    cpu.memoryBytes = 512ULL << 30;
    cpu.hostBandwidth = 200e9;
    p.catalogue.types.push_back(cpu);
    for (uint32_t g = 0; g + 1 < types; ++g)
    {
        ResourceType gpu;
        gpu.name = "gpu" + std::to_string(g);
        gpu.kind = ResourceKind::GPU;
        gpu.pricePerHour = gpuPrice[g % 4] * (1 + g / 4);
        gpu.available = 32;
        gpu.device = MakeDevice("a100");
        gpu.nicRate = 100e9;
        gpu.memoryBytes = 80ULL << 30;
        gpu.hostBandwidth = 25e9;
        p.catalogue.types.push_back(gpu);
    }
    p.profile.name = "ctr-like";
    p.profile.typeNames = p.catalogue.Names();
    p.profile.batch = 2048;
    const uint32_t embeddings = std::max<uint32_t>(1, layers / 10);
    for (uint32_t l = 0; l < layers; ++l)
    {
        ProfiledLayer layer;
        const bool embedding = l < embeddings;
        layer.name = (embedding ? "emb" : "fc") + std::to_string(l);
        layer.kind = embedding ? "embedding" : "linear";
        const double cpuSeconds = embedding ? Uniform(rng, 0.004, 0.012) : Uniform(rng, 0.02, 0.08);
        layer.seconds.push_back(cpuSeconds);
        for (uint32_t g = 0; g + 1 < types; ++g)
        {
            // Embeddings on a GPU go through host memory (the tables do not fit).
            layer.seconds.push_back(embedding ? cpuSeconds * Uniform(rng, 2, 4)
                                              : cpuSeconds / (10 * gpuSpeed[g % 4])
                                                    * Uniform(rng, 0.8, 1.2));
        }
        layer.parallelFraction = Uniform(rng, 0.9, 0.99);
        layer.outputBytes = static_cast<uint64_t>(Uniform(rng, 0.5e6, 4e6));
        layer.syncBytes = embedding ? static_cast<uint64_t>(Uniform(rng, 20e6, 80e6))
                                    : static_cast<uint64_t>(Uniform(rng, 1e6, 8e6));
        layer.parameterBytes = layer.syncBytes;
        p.profile.layers.push_back(layer);
    }
    p.throughputLimit = 1;
    p.samples = 4e9; // e.g. Criteo Terabyte's 4 billion samples, one epoch
    p.sync = SyncMode::ALL_REDUCE;
    SchedulingPlan reference(layers, types - 1);
    std::fill(reference.begin(), reference.begin() + embeddings, 0);
    p.throughputLimit = 0.6 * CostModel(p).BestThroughput(reference).throughput;
    return p;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string layersText = "10,50,200";
    std::string typesText = "2,3,4,5";
    std::string schedulersText = "exact,rl,greedy,genetic,random";
    std::string seedText = "1";
    try
    {
        ExperimentCommandLine cmd(__FILE__);
        cmd.AddValue("layers", "comma-separated layer counts L", layersText);
        cmd.AddValue("types", "comma-separated resource type counts (2 ..)", typesText);
        cmd.AddValue("schedulers", "comma-separated scheduler names", schedulersText);
        cmd.AddValue("seed", "problem and scheduler seed, 1 to 4294967295", seedText);
        cmd.Parse(argc, argv);
        const uint64_t seed = dlnet::ParseUnsigned("seed", seedText, 1, UINT32_MAX);
        std::vector<uint32_t> layerCounts;
        for (const auto& text : dlnet::ParseList("layers", layersText))
        {
            layerCounts.push_back(dlnet::ParseUnsigned("layers", text, 1, 100000));
        }
        std::vector<uint32_t> typeCounts;
        for (const auto& text : dlnet::ParseList("types", typesText))
        {
            typeCounts.push_back(dlnet::ParseUnsigned("types", text, 2, 64));
        }
        const auto schedulers = dlnet::ParseList("schedulers", schedulersText);
        // every name against every problem's catalogue before the table (all-gpu3 needs 5 types)
        for (uint32_t T : typeCounts)
        {
            const auto known = SchedulerNames(CtrLikeProblem(layerCounts[0], T, seed).catalogue);
            for (const auto& name : schedulers)
            {
                if (std::find(known.begin(), known.end(), name) == known.end())
                {
                    throw std::invalid_argument("schedulers: got '" + dlnet::PrintableText(name)
                                                + "'; with " + std::to_string(T) + " types one of "
                                                + dlnet::JoinChoices(known));
                }
            }
        }
        std::printf("%6s %5s %-16s %10s %11s %8s %12s %14s %9s\n",
                    "L",
                    "types",
                    "scheduler",
                    "wall_s",
                    "evaluations",
                    "feasible",
                    "samples/s",
                    "cost_usd",
                    "vs_exact");
        for (uint32_t L : layerCounts)
        {
            for (uint32_t T : typeCounts)
            {
                CostModel model(CtrLikeProblem(L, T, seed));
                SchedulerOptions options;
                options.seed = seed;
                double exactCost = 0;
                for (const auto& name : schedulers)
                {
                    ScheduleResult r = RunScheduler(name, model, options);
                    if (name == "exact" && r.best.feasible)
                    {
                        exactCost = r.best.cost;
                    }
                    std::string gap = "-";
                    if (exactCost > 0 && r.best.feasible)
                    {
                        char text[32];
                        std::snprintf(
                            text, sizeof text, "%+.2f%%", 100 * (r.best.cost / exactCost - 1));
                        gap = text;
                    }
                    std::printf("%6u %5u %-16s %10.4f %11llu %8s %12.1f %14.2f %9s\n",
                                L,
                                T,
                                name.c_str(),
                                r.wallSeconds,
                                static_cast<unsigned long long>(r.evaluations),
                                r.best.feasible ? "yes" : "no",
                                r.best.throughput,
                                r.best.cost,
                                gap.c_str());
                    std::fflush(stdout);
                }
            }
        }
    }
    catch (const std::invalid_argument& e)
    {
        std::fprintf(stderr, "scheduler-bench: %s\n", e.what());
        return 2;
    }
    return 0;
}
