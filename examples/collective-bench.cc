/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// nccl-tests on a simulated fabric: one collective swept over sizes.
// Prints the nccl-tests table (plus the alpha-beta prediction) and writes
// collective.csv, result.json and busbw.png under --results.
//
//   ./dlnet run collective-bench -- --topology=leaf-spine --op=allreduce \
//       --algorithm=ring,halving-doubling,double-binary-tree,direct \
//       --min-bytes=1KiB --max-bytes=256MiB --results=results/cb
//
// --algorithm takes a comma-separated list: one sweep per algorithm, one
// line per algorithm in the plot.

#include "ns3/dlnet-module.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            CollectiveConfig config;
            std::string results = "results/collective-bench";
            std::string algorithms = "ring";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(CollectiveOptions(), config, {"algorithm"});
            // --algorithm is read here as a list; each entry is validated as the option.
            cmd.AddValue("algorithm",
                         "a comma-separated list of "
                             + dlnet::JoinChoices(CollectiveRegistry::Names())
                             + ", auto (per size, the smallest bound among the backends that "
                               "implement the operation on the topology and do not aggregate in "
                               "the network)",
                         algorithms);
            cmd.AddValue("results", "folder for CSV, JSON and PNG output", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results); // before the simulation, not after

            std::vector<CollectiveResult> sweeps;
            for (const auto& c : SplitAlgorithmList(config, algorithms)) // (all validated)
            {
                sweeps.push_back(RunCollective(c));
            }
            PrintCollectiveTable(config, sweeps);
            PrintCollectiveComparison(sweeps);
            config.algorithm = algorithms; // the list that ran, for result.json
            WriteCollectiveResults(config, sweeps, results);
            std::printf("\nresults: %s/collective.csv, result.json\n", results.c_str());
            for (const auto& png : PlotCollective(sweeps, results))
            {
                std::printf("plot:    %s\n", png.c_str());
            }
            for (const auto& s : sweeps)
            {
                for (const auto& row : s.rows)
                {
                    if (row.checked && !row.correct)
                    {
                        std::fprintf(stderr,
                                     "error: %s %s of %llu bytes gave a wrong result\n",
                                     row.algorithm.c_str(),
                                     s.op.c_str(),
                                     static_cast<unsigned long long>(row.bytes));
                        return 1;
                    }
                }
            }
            return 0;
        });
}
