/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// What building a topology costs at thousands of ranks: wall time, heap and
// resident memory per rank, and the ns-3 objects behind them (nodes, devices,
// switches, forwarding-table ranges), for the GPU-server presets
// (rail-optimised, gpu-leaf-spine: 8 GPUs a server, their own defaults),
// a leaf-spine (32 hosts a leaf, 16 spines, non-blocking) and fat trees.
// Each case builds in a child process of its own, so that its peak resident
// memory is its own. A calibration case measures the heap one node and one
// link (two devices and a channel) take, so the table can say how much of a
// rank's memory is ns-3 objects. Nothing here is asserted: the figures go in
// bench/README.md.
//
//   ./build/bench/scale-bench [--kinds=rail-optimised,gpu-leaf-spine,leaf-spine,fat-tree]
//                             [--max-ranks=8192] [--results=DIR]

#include "bench-util.h"

#include "ns3/dlnet-module.h"
#include "ns3/file-io.h"
#include "ns3/gnuplot.h"

#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

using namespace ns3;

namespace
{

/// One case's figures, written by the child through a pipe.
struct Figures
{
    uint32_t ranks{0};
    uint32_t nodes{0};
    uint32_t devices{0};
    uint32_t switches{0};
    uint32_t links{0};
    uint64_t routeRanges{0};
    double buildSeconds{0};
    double destroySeconds{0};
    double heapBytes{0}; //!< heap in use after the build, less before
    double rssBytes{0};  //!< resident after the build, less before
    double peakBytes{0}; //!< the child's peak resident set
};

/// One topology to build.
struct Case
{
    std::string kind;
    TopologyConfig config;
};

double
StatusBytes(const char* field)
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind(field, 0) == 0)
        {
            return std::stod(line.substr(std::string(field).size())) * 1024;
        }
    }
    return 0;
}

double
HeapBytes()
{
    struct mallinfo2 m = mallinfo2();
    return double(m.uordblks) + double(m.hblkhd);
}

Figures
Build(const TopologyConfig& config)
{
    Figures f;
    double heap0 = HeapBytes();
    double rss0 = StatusBytes("VmRSS:");
    auto t0 = std::chrono::steady_clock::now();
    {
        Cluster c = BuildCluster(config);
        f.buildSeconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        f.heapBytes = HeapBytes() - heap0;
        f.rssBytes = StatusBytes("VmRSS:") - rss0;
        f.ranks = c.GetNRanks();
        f.nodes = c.nodes.GetN();
        for (uint32_t i = 0; i < c.nodes.GetN(); ++i)
        {
            f.devices += c.nodes.Get(i)->GetNDevices();
        }
        f.switches = c.switches.size();
        f.links = c.links.size();
        for (const auto& sw : c.switches)
        {
            f.routeRanges += sw->GetNRouteRanges();
        }
        t0 = std::chrono::steady_clock::now();
    }
    Simulator::Destroy();
    f.destroySeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f.peakBytes = StatusBytes("VmHWM:");
    return f;
}

/// Heap per node and per link (two set-up devices and their channel), from count of each.
/// Heap one node and one link take.
struct Calibration
{
    double perNode;
    double perLink;
};

Calibration
Calibrate(uint32_t count)
{
    TopologyConfig config;
    FabricHelper helper = MakeFabricHelper(config);
    double heap0 = HeapBytes();
    NodeContainer nodes;
    nodes.Create(count);
    double perNode = (HeapBytes() - heap0) / count;
    double heap1 = HeapBytes();
    std::vector<std::pair<Ptr<FabricNetDevice>, Ptr<FabricNetDevice>>> links;
    for (uint32_t i = 0; i + 1 < count; i += 2)
    {
        links.push_back(
            helper.Connect(nodes.Get(i), nodes.Get(i + 1), DataRate("100Gbps"), NanoSeconds(500)));
        links.back().first->Setup();
        links.back().second->Setup();
    }
    double perLink = (HeapBytes() - heap1) / links.size();
    links.clear();
    nodes = NodeContainer();
    Simulator::Destroy();
    return {perNode, perLink};
}

std::vector<Case>
Cases(const std::vector<std::string>& kinds, uint32_t maxRanks)
{
    std::vector<Case> cases;
    for (const std::string& kind : kinds)
    {
        if (kind == "fat-tree")
        {
            for (uint32_t k : {8u, 10u, 12u, 16u, 20u, 26u, 32u, 40u})
            {
                TopologyConfig c;
                c.kind = kind;
                c.k = k;
                if (uint64_t(k) * k * k / 4 <= maxRanks)
                {
                    cases.push_back({kind, c});
                }
            }
            continue;
        }
        for (uint32_t ranks = 64; ranks <= maxRanks; ranks *= 2)
        {
            TopologyConfig c;
            c.kind = kind;
            if (kind == "leaf-spine")
            {
                c.nodes = ranks;
                c.hostsPerLeaf = 32;
                c.spines = 16;
            }
            else
            {
                // the GPU-server presets: 8 GPUs a server, their defaults otherwise
                c.servers = ranks / 8;
                c.gpusPerServer = 8;
            }
            cases.push_back({kind, c});
        }
    }
    return cases;
}

void
WriteResults(const std::string& dir,
             const std::vector<std::pair<Case, Figures>>& rows,
             const std::vector<std::string>& kinds)
{
    std::filesystem::create_directories(dir);
    std::ofstream csv = dlnet::OpenOutputFile("results", dir + "/scale.csv");
    csv << "kind,ranks,nodes,devices,switches,links,route_ranges,build_s,destroy_s,heap_bytes,"
           "rss_bytes,peak_rss_bytes,heap_bytes_per_rank\n";
    for (const auto& [c, f] : rows)
    {
        csv << c.kind << "," << f.ranks << "," << f.nodes << "," << f.devices << "," << f.switches
            << "," << f.links << "," << f.routeRanges << "," << f.buildSeconds << ","
            << f.destroySeconds << "," << f.heapBytes << "," << f.rssBytes << "," << f.peakBytes
            << "," << f.heapBytes / f.ranks << "\n";
    }
    Gnuplot time;
    time.SetTitle("Building a topology: wall time");
    time.SetLegend("ranks", "build wall time (s)");
    time.AppendExtra("set logscale xy\nset key top left\nset grid");
    Gnuplot memory;
    memory.SetTitle("Building a topology: heap per rank");
    memory.SetLegend("ranks", "heap per rank (KiB)");
    memory.AppendExtra("set logscale x\nset key top left\nset grid\nset yrange [0:*]");
    for (const std::string& kind : kinds)
    {
        Gnuplot2dDataset t(kind);
        t.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        Gnuplot2dDataset m(kind);
        m.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        for (const auto& [c, f] : rows)
        {
            if (c.kind == kind)
            {
                t.Add(f.ranks, f.buildSeconds);
                m.Add(f.ranks, f.heapBytes / f.ranks / 1024);
            }
        }
        time.AddDataset(t);
        memory.AddDataset(m);
    }
    RenderPng(time, dir + "/build-time.png");
    RenderPng(memory, dir + "/memory-per-rank.png");
    std::printf("results: %s/scale.csv, build-time.png, memory-per-rank.png\n", dir.c_str());
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            std::string kindList = "rail-optimised,gpu-leaf-spine,leaf-spine,fat-tree";
            std::string maxRanksText = "8192";
            std::string results;
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddValue("kinds", "topology kinds, comma-separated", kindList);
            cmd.AddValue("max-ranks",
                         "largest rank count, 128 to 16384 (from 64, doubling; fat trees of "
                         "k^3/4 up to it)",
                         maxRanksText);
            cmd.AddValue("results", "a folder for scale.csv and the PNGs", results);
            cmd.Parse(argc, argv);
            const std::vector<std::string> kinds = dlnet::ParseList(
                "kinds", kindList, {"rail-optimised", "gpu-leaf-spine", "leaf-spine", "fat-tree"});
            // (the smallest fat tree, k 8, has 128 ranks: below, an empty table was written)
            const uint32_t maxRanks = dlnet::ParseUnsigned("max-ranks", maxRanksText, 128, 16384);
            Calibration calibration;
            if (!bench::InChild<Calibration>(
                    []()
                    {
                        return Calibrate(20000);
                    },
                    calibration))
            {
                std::fprintf(stderr, "error: the calibration failed\n");
                return 1;
            }
            auto [perNode, perLink] = calibration;
            std::printf("calibration: a node %.0f B of heap, a link (2 devices, channel, set up) "
                        "%.0f B\n\n",
                        perNode,
                        perLink);
            std::printf("%-15s %6s %7s %7s %6s %7s %7s %8s %8s %9s %9s %9s %9s\n",
                        "kind",
                        "ranks",
                        "nodes",
                        "devices",
                        "switch",
                        "links",
                        "ranges",
                        "build s",
                        "free s",
                        "heap MiB",
                        "peak MiB",
                        "KiB/rank",
                        "ns3 KiB/r");
            std::vector<std::pair<Case, Figures>> rows;
            for (const Case& c : Cases(kinds, maxRanks))
            {
                Figures f;
                TopologyConfig config = c.config;
                if (!bench::InChild<Figures>(
                        [config]()
                        {
                            return Build(config);
                        },
                        f))
                {
                    std::fprintf(stderr, "error: building %s failed\n", c.kind.c_str());
                    return 1;
                }
                double objects = f.nodes * perNode + f.links * perLink;
                std::printf("%-15s %6u %7u %7u %6u %7u %7llu %8.3f %8.3f %9.1f %9.1f %9.1f %9.1f\n",
                            c.kind.c_str(),
                            f.ranks,
                            f.nodes,
                            f.devices,
                            f.switches,
                            f.links,
                            static_cast<unsigned long long>(f.routeRanges),
                            f.buildSeconds,
                            f.destroySeconds,
                            f.heapBytes / 1048576,
                            f.peakBytes / 1048576,
                            f.heapBytes / f.ranks / 1024,
                            objects / f.ranks / 1024);
                std::fflush(stdout);
                rows.push_back({c, f});
            }
            std::printf("\nKiB/rank: heap the built cluster holds, per rank; ns3 KiB/r: the part "
                        "that is nodes and links (calibrated above)\n");
            if (!results.empty())
            {
                WriteResults(results, rows, kinds);
            }
            return 0;
        });
}
