/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OmniReduce's micro-benchmark on a simulated fabric: AllReduce of one
// float32 tensor whose 256-element blocks are non-zero with density d,
// sparse block aggregation (omnireduce) against ring AllReduce and dense
// in-network aggregation (switchml).
//
// For each link rate and worker count N: a star of 2N hosts, the workers on
// ranks 0..N-1, the aggregators on dedicated servers N..2N-1 (A = N, slots
// round robin). omnireduce runs at every density; ring and switchml once
// (they move the whole tensor whatever its density). Prints a table per
// (rate, N) and writes sparse-allreduce.csv, result.json and one PNG per rate
// (time against density, log scales) under --results. The experiment is
// RunSparse (helper/experiment/sparse-experiment.h), its files come from
// helper/experiment/sparse-writer.h; Python's dlnet.run_sparse shares both.
//
//   ./dlnet run sparse-allreduce                 # the full sweep (about a minute)
//   ./dlnet run sparse-allreduce -- --quick      # 16 MiB, d = 1, 0.1, 0.01, N = 8, 100 Gbit/s
//   ./dlnet run sparse-allreduce -- --quick --functional --loss=0.01
//   ./dlnet run sparse-allreduce -- --placement=overlap --workers=8 --rates=100Gbps

#include "ns3/dlnet-module.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            SparseConfig config;
            std::string results = "results/sparse-allreduce";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(SparseOptions(), config);
            cmd.AddValue(
                "results", "folder for sparse-allreduce.csv, result.json and the PNGs", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results); // before the simulation, not after
            config.Validate();

            PrintSparseHeader(config);
            SparseResult result
                = RunSparse(config,
                            [&config](const std::vector<SparseRow>& group, double wall)
                            {
                                PrintSparseGroup(config, group, wall);
                            });
            std::vector<std::string> files = WriteSparseResults(config, result, results);
            std::printf("\nresults: %s, %s\n", files[0].c_str(), files[1].c_str());
            for (std::size_t i = 2; i < files.size(); ++i)
            {
                std::printf("plot:    %s\n", files[i].c_str());
            }
            uint64_t events = 0;
            bool wrong = false;
            for (const auto& row : result.rows)
            {
                events += row.run.events;
                wrong = wrong || (row.run.checked && !row.run.correct);
            }
            std::printf("# %zu simulations, %llu events in %.1f s wall\n",
                        result.rows.size(),
                        static_cast<unsigned long long>(events),
                        result.wallSeconds);
            if (wrong)
            {
                std::fprintf(stderr, "error: a functional check found a wrong result\n");
                return 1;
            }
            return 0;
        });
}
