/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Training iterations on a simulated cluster: a model from the zoo (or a
// transformer by its shape, or an ASTRA-sim / SimAI / Chakra workload file),
// a DP x TP x PP plan, every byte through the packet-level fabric. Prints the
// iteration time, throughput, MFU, HFU and where the time goes; writes
// training.csv, comms.csv, ranks.csv, result.json, trace.json (Perfetto) and
// breakdown.png under --results.
//
//   ./dlnet run training -- --model=gpt3-175b --topology=rail-optimised \
//       --servers=8 --tp=8 --pp=2 --dp=4 --microbatches=8 --results=results/training
//
// --topology takes a comma-separated list: one run per topology, one bar each.

#include "ns3/dlnet-module.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            TrainingConfig config;
            std::string results = "results/training";
            std::string topologies = config.topology.kind;
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(TrainingOptions(), config, {"topology"});
            cmd.AddValue("topology",
                         "a comma-separated list of "
                             + dlnet::JoinChoices(TopologyRegistry::Names()),
                         topologies);
            cmd.AddValue("results", "folder for CSV, JSON, trace and PNG output", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results);

            std::vector<TrainingConfig> configs;
            std::vector<std::string> labels;
            std::vector<std::string> kinds = dlnet::ParseList("topology", topologies);
            for (const auto& topology : SplitTopologyList(config.topology, kinds))
            {
                TrainingConfig c = config;
                c.topology = topology;
                const std::string& kind = topology.kind;
                if (kinds.size() > 1)
                {
                    c.Validate(); // every entry before anything runs (RunTraining checks one)
                }
                configs.push_back(c);
                labels.push_back(kind);
            }
            std::vector<TrainingResult> runs;
            for (std::size_t k = 0; k < configs.size(); ++k)
            {
                runs.push_back(RunTraining(configs[k]));
                std::string dir = configs.size() == 1 ? results : results + "/" + labels[k];
                for (const auto& f : WriteTrainingResults(configs[k], runs.back(), dir))
                {
                    std::printf("wrote %s\n", f.c_str());
                }
            }
            PrintTrainingTable(labels, runs);
            std::string png = PlotTrainingBreakdown(labels, runs, results);
            if (!png.empty())
            {
                std::printf("plot:  %s\n", png.c_str());
            }
            return 0;
        });
}
