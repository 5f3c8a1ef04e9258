/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// HeterPS-style heterogeneous scheduling: each layer of a model (a built-in
// CTR model, a dense zoo model, or a profile file) onto a resource type of a
// catalogue (CPU servers, GPU kinds with their prices), each stage provisioned
// to meet a throughput limit at the least cost. Runs the schedulers (exact
// optimum, RL, greedy, genetic, random, embedding-on-cpu, all-<type>), sweeps
// the limit, prints the HeterPS-style headline (cost of the optimum against
// each baseline at a limit, throughput at equal cost) and, with --simulate,
// runs the best plan on a simulated cluster. A line per step on stderr: RL
// trains at every limit, so with all schedulers most models take minutes.
// Writes schedules.csv, sweep.csv,
// headline.csv, rl-curve.csv, plan.csv, simulation.csv, result.json and
// cost-vs-limit.png, rl-curve.png, plan.png under --results.
//
//   ./dlnet run heterps -- --model=wide-deep --limit=200000 --results=results/heterps
//   ./dlnet run heterps -- --model=dlrm --schedulers=exact,rl,all-cpu --simulate

#include "ns3/dlnet-module.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            HeterpsConfig config;
            std::string results = "results/heterps";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(HeterpsOptions(), config);
            cmd.AddValue("results", "folder for CSV, JSON and PNG output", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results);
            config.Validate(); // every option before anything runs

            // on stderr, so that stdout holds the tables alone
            auto progress = [](const HeterpsStep& s)
            {
                std::fprintf(stderr, "[%u/%u] %s", s.done, s.total, s.what.c_str());
                if (s.limit > 0)
                {
                    std::fprintf(stderr, " at %.6g samples/s", s.limit);
                }
                std::fprintf(stderr, ": %.1f s\n", s.wallSeconds);
            };
            HeterpsResult result = RunHeterps(config, progress);
            PrintHeterpsTable(config, result);
            for (const auto& f : WriteHeterpsResults(config, result, results))
            {
                std::printf("wrote %s\n", f.c_str());
            }
            std::printf("wall time %.3f s\n", result.wallSeconds);
            return 0;
        });
}
