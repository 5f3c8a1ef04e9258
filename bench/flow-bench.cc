/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// What the flow-level network saves: wall time of packet against flow level
// on the same cases, in one process, and the flow level's wall time as a
// collective grows from 64 to 8192 ranks.
//
// Part 1, packet against flow (each run in a child process of its own, so
// that its peak resident memory is its own):
//   ar8:      64 MiB ring AllReduce on 8 ranks (leaf-spine 2 x 4, 2 spines)
//   ar256:    1 GiB ring AllReduce on 256 ranks (leaf-spine 16 x 16, 8 spines);
//             packet level takes minutes (--skip-slow skips it)
//   train64:  one training iteration on 64 GPUs (8 servers x 8, rail-optimised):
//             GPT-3's shape with --gpt-layers layers, TP 8, PP 2, DP 4, 8 microbatches
//             (training-bench's case)
// Part 2, flow level only: 1 GiB AllReduce on a non-blocking leaf-spine of 32
// hosts a leaf and 16 spines (64 ranks: 2 leaves) for each algorithm, ranks
// doubling from 64 to --max-ranks; the link-load estimate is not computed
// (estimate=false), so the wall time is the topology build plus the run.
// Every link 100 Gbit/s host side, 4 KiB MTU (the defaults).
//
//   ./build/bench/flow-bench [--part=all|compare|scale] [--skip-slow] [--max-ranks=8192]
//                            [--algorithms=ring,halving-doubling] [--gpt-layers=2] [--results=DIR]
//
// Nothing here is asserted: the figures go in bench/README.md.

#include "bench-util.h"

#include "ns3/dlnet-module.h"
#include "ns3/file-io.h"
#include "ns3/gnuplot.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// One run's figures, written by the child through a pipe.
struct Figures
{
    double wall{0};      //!< s, the whole run (build, simulate, clean up)
    double simulated{0}; //!< s of simulated time: the collective, or the iteration
    uint64_t events{0};
    uint64_t messages{0};
    double peakBytes{0}; //!< the child's peak resident set
    uint32_t ranks{0};
};

/// \return f with the process's peak resident set
Figures
Measured(Figures f)
{
    f.peakBytes = bench::PeakRssBytes();
    return f;
}

CollectiveConfig
AllReduce(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines, uint64_t bytes)
{
    CollectiveConfig c;
    c.topology.kind = "leaf-spine";
    c.topology.leaves = leaves;
    c.topology.hostsPerLeaf = hostsPerLeaf;
    c.topology.spines = spines;
    c.op = "allreduce";
    c.algorithm = "ring";
    c.minBytes = bytes;
    c.maxBytes = bytes;
    return c;
}

Figures
RunCollectiveCase(const CollectiveConfig& c)
{
    auto start = std::chrono::steady_clock::now();
    CollectiveResult r = RunCollective(c);
    Figures f;
    f.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const CollectiveRow& row = r.rows.at(0);
    f.simulated = row.time;
    f.events = row.events;
    f.messages = row.packets;
    f.ranks = r.ranks;
    return f;
}

Figures
RunTrainingCase(const TrainingConfig& c)
{
    auto start = std::chrono::steady_clock::now();
    TrainingResult r = RunTraining(c);
    Figures f;
    f.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    f.simulated = r.jobs.at(0).iterationSeconds;
    f.events = r.events;
    f.ranks = r.clusterRanks;
    return f;
}

constexpr uint32_t DEFAULT_MAX_RANKS = 8192;                    //!< --max-ranks
constexpr uint32_t DEFAULT_GPT_LAYERS = 2;                      //!< --gpt-layers
const char* const DEFAULT_ALGORITHMS = "ring,halving-doubling"; //!< --algorithms

/// A case of part 1: the same experiment at either level.
struct CompareCase
{
    std::string name;
    std::string what;
    bool slow; //!< packet level takes minutes
    std::function<Figures(const std::string& network)> run;
};

void
Plot(const std::string& dir,
     const std::string& file,
     const std::string& title,
     const std::string& ylabel,
     const std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>& series)
{
    Gnuplot plot;
    plot.SetTitle(title);
    plot.SetLegend("ranks", ylabel);
    plot.AppendExtra("set logscale xy\nset key top left\nset grid");
    for (const auto& [name, points] : series)
    {
        Gnuplot2dDataset d(name);
        d.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        for (const auto& [x, y] : points)
        {
            d.Add(x, y);
        }
        plot.AddDataset(d);
    }
    RenderPng(plot, dir + "/" + file);
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            std::string part = "all";
            std::string skipSlowText = "false";
            std::string maxRanksText = std::to_string(DEFAULT_MAX_RANKS);
            std::string algorithmsText = DEFAULT_ALGORITHMS;
            std::string gptLayersText = std::to_string(DEFAULT_GPT_LAYERS);
            std::string results;
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddValue("part", "all, compare (packet against flow) or scale (flow only)", part);
            cmd.AddValue(
                "skip-slow", "compare: skip the packet-level run of ar256 (minutes)", skipSlowText);
            cmd.AddValue("max-ranks",
                         "scale: the largest rank count, 64 to 16384 (from 64, doubling)",
                         maxRanksText);
            cmd.AddValue(
                "algorithms", "scale: AllReduce algorithms, comma-separated", algorithmsText);
            cmd.AddValue("gpt-layers",
                         "compare, train64: transformer layers, 2 to 96 (GPT-3: 96)",
                         gptLayersText);
            cmd.AddValue("results", "a folder for the CSV files and PNGs", results);
            cmd.Parse(argc, argv);
            dlnet::ParseChoice("part", part, {"all", "compare", "scale"});
            const bool skipSlow = dlnet::ParseBool("skip-slow", skipSlowText);
            const uint32_t maxRanks = dlnet::ParseUnsigned("max-ranks", maxRanksText, 64, 16384);
            const std::vector<std::string> algorithms
                = dlnet::ParseList("algorithms", algorithmsText);
            const uint32_t gptLayers = dlnet::ParseUnsigned("gpt-layers", gptLayersText, 2, 96);
            // an option of the part not run was taken and ignored
            const bool compares = part != "scale";
            const bool scales = part != "compare";
            const std::string compareOnly = "to part compare (or all), and part is " + part;
            const std::string scaleOnly = "to part scale (or all), and part is " + part;
            RefuseInapplicable("skip-slow", skipSlow, false, compares, compareOnly);
            RefuseInapplicable("gpt-layers", gptLayers, DEFAULT_GPT_LAYERS, compares, compareOnly);
            RefuseInapplicable("max-ranks", maxRanks, DEFAULT_MAX_RANKS, scales, scaleOnly);
            RefuseInapplicable(
                "algorithms", dlnet::JoinList(algorithms), DEFAULT_ALGORITHMS, scales, scaleOnly);
            if (part != "compare")
            {
                for (const std::string& algorithm : algorithms)
                {
                    CollectiveConfig c = AllReduce(2, 32, 16, 1ull << 30);
                    c.algorithm = algorithm;
                    c.topology.network = "flow";
                    c.estimate = false;
                    try
                    {
                        c.Validate(); // before any table: bad algorithm names fail here
                    }
                    catch (const std::invalid_argument& e)
                    {
                        // the collective names its own option, algorithm; this one's is a list
                        const std::string what = e.what();
                        const std::string field = "algorithm:";
                        throw std::invalid_argument(what.compare(0, field.size(), field) == 0
                                                        ? "algorithms:" + what.substr(field.size())
                                                        : what);
                    }
                }
            }
            if (!results.empty())
            {
                std::filesystem::create_directories(results);
            }

            if (part != "scale")
            {
                std::vector<CompareCase> cases{
                    {"ar8",
                     "64 MiB ring AllReduce, 8 ranks (leaf-spine 2x4)",
                     false,
                     [](const std::string& network)
                     {
                         CollectiveConfig c = AllReduce(2, 4, 2, 64ull << 20);
                         c.topology.network = network;
                         return RunCollectiveCase(c);
                     }},
                    {"ar256",
                     "1 GiB ring AllReduce, 256 ranks (leaf-spine 16x16, 8 spines)",
                     true,
                     [](const std::string& network)
                     {
                         CollectiveConfig c = AllReduce(16, 16, 8, 1ull << 30);
                         c.topology.network = network;
                         return RunCollectiveCase(c);
                     }},
                    {"train64",
                     "GPT-3 shape, " + std::to_string(gptLayers)
                         + " layers, TP8 PP2 DP4, 8 microbatches, 64 GPUs (8x8 rail)",
                     false,
                     [gptLayers](const std::string& network)
                     {
                         TrainingConfig c = bench::Gpt64(gptLayers);
                         c.topology.network = network;
                         return RunTrainingCase(c);
                     }},
                };
                std::printf("Part 1: packet against flow level, the same case in one process\n");
                std::printf("%-8s %-7s %10s %12s %14s %10s %9s  %s\n",
                            "case",
                            "network",
                            "wall s",
                            "events",
                            "simulated s",
                            "peak MiB",
                            "speed-up",
                            "what");
                std::ofstream csv;
                if (!results.empty())
                {
                    csv = dlnet::OpenOutputFile("results", results + "/compare.csv");
                    csv << "case,network,wall_s,events,simulated_s,peak_rss_bytes,speedup,"
                           "flow_vs_packet\n";
                }
                for (const CompareCase& c : cases)
                {
                    Figures packet;
                    bool havePacket = false;
                    for (const std::string network : {"packet", "flow"})
                    {
                        if (network == "packet" && c.slow && skipSlow)
                        {
                            std::printf("%-8s %-7s %10s %12s %14s %10s %9s  %s\n",
                                        c.name.c_str(),
                                        network.c_str(),
                                        "skipped",
                                        "-",
                                        "-",
                                        "-",
                                        "-",
                                        c.what.c_str());
                            continue;
                        }
                        Figures f;
                        if (!bench::InChild<Figures>(
                                [&]()
                                {
                                    return Measured(c.run(network));
                                },
                                f))
                        {
                            std::fprintf(stderr,
                                         "error: %s at %s level failed\n",
                                         c.name.c_str(),
                                         network.c_str());
                            return 1;
                        }
                        char speedup[32] = "-";
                        char deviation[32] = "";
                        if (network == "packet")
                        {
                            packet = f;
                            havePacket = true;
                        }
                        else if (havePacket)
                        {
                            std::snprintf(speedup, sizeof(speedup), "%.0fx", packet.wall / f.wall);
                            std::snprintf(deviation,
                                          sizeof(deviation),
                                          " (flow %+.2f%% of packet)",
                                          100 * (f.simulated / packet.simulated - 1));
                        }
                        std::printf("%-8s %-7s %10.3f %12llu %14.9f %10.1f %9s  %s%s\n",
                                    c.name.c_str(),
                                    network.c_str(),
                                    f.wall,
                                    static_cast<unsigned long long>(f.events),
                                    f.simulated,
                                    f.peakBytes / 1048576,
                                    speedup,
                                    network == "packet" ? c.what.c_str() : "",
                                    deviation);
                        std::fflush(stdout);
                        if (csv.is_open())
                        {
                            csv << c.name << "," << network << "," << f.wall << "," << f.events
                                << "," << f.simulated << "," << f.peakBytes << ","
                                << (network == "flow" && havePacket ? packet.wall / f.wall : 0)
                                << ","
                                << (network == "flow" && havePacket ? f.simulated / packet.simulated
                                                                    : 0)
                                << "\n";
                        }
                    }
                }
                std::printf("\n");
            }

            if (part != "compare")
            {
                std::printf("Part 2: flow level, 1 GiB AllReduce on a non-blocking leaf-spine "
                            "(32 hosts a leaf, 16 spines), no estimate\n");
                std::printf("%-18s %6s %10s %12s %12s %14s %10s %11s\n",
                            "algorithm",
                            "ranks",
                            "wall s",
                            "events",
                            "messages",
                            "simulated s",
                            "peak MiB",
                            "us/message");
                std::ofstream csv;
                if (!results.empty())
                {
                    csv = dlnet::OpenOutputFile("results", results + "/scale.csv");
                    csv << "algorithm,ranks,wall_s,events,messages,simulated_s,peak_rss_bytes\n";
                }
                std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> wall;
                std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> memory;
                for (const std::string& algorithm : algorithms)
                {
                    wall.push_back({algorithm, {}});
                    memory.push_back({algorithm, {}});
                    for (uint32_t ranks = 64; ranks <= maxRanks; ranks *= 2)
                    {
                        CollectiveConfig c = AllReduce(ranks / 32, 32, 16, 1ull << 30);
                        c.algorithm = algorithm;
                        c.topology.network = "flow";
                        c.estimate = false;
                        c.Validate(); // bad algorithm names fail here, not in a child
                        Figures f;
                        if (!bench::InChild<Figures>(
                                [&]()
                                {
                                    return Measured(RunCollectiveCase(c));
                                },
                                f))
                        {
                            std::fprintf(
                                stderr, "error: %s on %u ranks failed\n", algorithm.c_str(), ranks);
                            return 1;
                        }
                        std::printf("%-18s %6u %10.3f %12llu %12llu %14.9f %10.1f %11.2f\n",
                                    algorithm.c_str(),
                                    f.ranks,
                                    f.wall,
                                    static_cast<unsigned long long>(f.events),
                                    static_cast<unsigned long long>(f.messages),
                                    f.simulated,
                                    f.peakBytes / 1048576,
                                    1e6 * f.wall / std::max<double>(1, f.messages));
                        std::fflush(stdout);
                        wall.back().second.push_back({double(f.ranks), f.wall});
                        memory.back().second.push_back({double(f.ranks), f.peakBytes / 1048576});
                        if (csv.is_open())
                        {
                            csv << algorithm << "," << f.ranks << "," << f.wall << "," << f.events
                                << "," << f.messages << "," << f.simulated << "," << f.peakBytes
                                << "\n";
                        }
                    }
                }
                if (!results.empty())
                {
                    Plot(results,
                         "scale-wall.png",
                         "Flow level: 1 GiB AllReduce, wall time against ranks",
                         "wall time (s)",
                         wall);
                    Plot(results,
                         "scale-memory.png",
                         "Flow level: 1 GiB AllReduce, peak resident memory",
                         "peak RSS (MiB)",
                         memory);
                }
            }
            if (!results.empty())
            {
                std::printf("\nresults: %s\n", results.c_str());
            }
            return 0;
        });
}
