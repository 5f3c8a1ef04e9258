/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FRED against the 2D mesh it replaces on a 20-NPU wafer (Rashidi et al.,
// ISCA 2025): the micro-benchmarks of the paper's evaluation.
//
//  - allreduce: a wafer-wide AllReduce of --bytes per NPU. Mesh: hierarchical
//    2D (rows and columns, two chunks starting in different dimensions);
//    Fred-A/C: hierarchical two-level ring (pipelined in --chunks on the tapered
//    Fred-A only); Fred-B/D: in-switch.
//  - groups: the collectives of an MP x DP x PP job (default 2 x 5 x 2, MP on
//    consecutive NPUs, then PP, then DP): every MP group all-reduces, every PP
//    stage sends to the next, every DP group all-reduces; one kind at a time.
//  - mix: the same collectives all at once, each kind on its own class.
//  - io: every I/O controller streams --io-bytes of weights to every NPU.
//  - group: one all-reduce on the NPUs of --ranks (not run by default).
//  - priority: an MP all-reduce and a DP all-reduce sharing NPU 0's ports,
//    alone and together (MP on the highest-priority class).
//
// Effective per-NPU bandwidth is, as in the paper, the bytes an NPU injects
// during the collective divided by the collective's time. Prints one table
// per scenario, writes fred-vs-mesh.csv, result.json and fred-vs-mesh.png (a
// bar chart of effective bandwidth per group kind and variant) under --results;
// with --stats=true also links.csv, switches.csv and ranks.csv (per directed
// link, switch and NPU of every simulation; doc/statistics.md).
// The experiment is RunWafer (helper/experiment/wafer-experiment.h); its
// tables and files come from helper/experiment/wafer-writer.h, which Python's
// dlnet.run_wafer shares.
//
//   ./dlnet run fred-vs-mesh
//   ./dlnet run fred-vs-mesh -- --scenarios=allreduce --bytes=256MiB
//   ./dlnet run fred-vs-mesh -- --variants=mesh,fred-d --scenarios=groups --functional --bytes=1MiB

#include "ns3/dlnet-module.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            WaferExperimentConfig config;
            std::string results = "results/fred-vs-mesh";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(WaferOptions(), config, {});
            cmd.AddValue("results",
                         "folder for fred-vs-mesh.csv, result.json and fred-vs-mesh.png "
                         "(and with --stats links.csv, switches.csv, ranks.csv)",
                         results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results); // before the simulation, not after
            config.Validate();

            WaferResult result = RunWafer(config);
            PrintWaferTables(config, result);
            std::printf("\nwrote");
            for (const auto& file : WriteWaferResults(config, result, results))
            {
                std::printf(" %s", file.c_str());
            }
            std::printf(" (%.1f s wall)\n", result.wallSeconds);
            return 0;
        });
}
