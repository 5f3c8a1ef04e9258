/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The FRED paper's end-to-end training comparison (arXiv 2406.19580):
// ResNet-152, Transformer-17B, GPT-3 and Transformer-1T as the paper runs
// them on the 2D mesh, Fred-C and Fred-D, packet by packet. Prints the
// iteration time, compute and exposed communication per dimension and the
// speedup over the mesh beside the paper's; writes fred-training.csv,
// result.json and fred-training.png under --results.
//
//   ./dlnet run fred-training -- --workloads=resnet152,gpt3-175b \
//       --variants=mesh,fred-d --layers=4 --mtu=65536 --results=results/ft
//   ./dlnet run fred-training -- --network=flow   # FRED's switch trees as flows (doc/flow-fred.md)
//
// Transformers run --layers of their layers (0: all) with the per-layer
// shape kept and the vocabulary scaled alike; --mtu is the wafer packet.

#include "ns3/dlnet-module.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            FredTrainingConfig config;
            std::string workloads = "resnet152,transformer-17b,gpt3-175b,transformer-1t";
            std::string variants = "mesh,fred-c,fred-d";
            std::string layers = std::to_string(config.layers);
            std::string mtu = std::to_string(config.mtu);
            std::string iterations = std::to_string(config.iterations);
            std::string results = "results/fred-training";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddValue("workloads",
                         "a comma-separated list of " + dlnet::JoinChoices(FredTrainingWorkloads()),
                         workloads);
            cmd.AddValue("variants",
                         "a comma-separated list of " + dlnet::JoinChoices(FredTrainingVariants())
                             + " (speedups need mesh)",
                         variants);
            cmd.AddValue("layers",
                         "transformer layers simulated, per-layer shape kept, vocabulary scaled "
                         "alike (0: the full models)",
                         layers);
            cmd.AddValue("mtu", "wafer packet in bytes, header included (88 to 1048576)", mtu);
            cmd.AddValue("iterations", "iterations per run (the first is the warm-up)", iterations);
            cmd.AddValue("network", NETWORK_OPTION_HELP, config.network);
            cmd.AddValue("results", "folder for CSV, JSON and PNG output", results);
            cmd.Parse(argc, argv);
            config.workloads = dlnet::ParseList("workloads", workloads, FredTrainingWorkloads());
            config.variants = dlnet::ParseList("variants", variants, FredTrainingVariants());
            config.layers = dlnet::ParseUnsigned("layers", layers, 0, 1000);
            config.mtu = dlnet::ParseUnsigned(
                "mtu", mtu, WAFER_MIN_PAYLOAD + FabricHeader::SERIALIZED_SIZE, MAX_MTU);
            config.iterations = dlnet::ParseUnsigned("iterations", iterations, 1, 100);
            config.Validate();
            CheckResultsDir("results", results);

            if (config.network == "packet")
            {
                // a run prints when it ends; at small packets that is minutes away
                std::printf("(packet level simulates every wafer packet of %u bytes: the "
                            "default table, 1 MiB packets, takes about a minute on a 2-core "
                            "machine, and smaller packets take longer in proportion; "
                            "--network=flow takes seconds)\n",
                            config.mtu);
                std::fflush(stdout);
            }
            std::vector<FredTrainingRow> rows = RunFredTraining(
                config,
                [](const FredTrainingRow& r)
                {
                    std::printf("ran %s on %s: %.6g s per iteration, %.1f s of wall time\n",
                                r.workload.c_str(),
                                r.variant.c_str(),
                                r.job.iterationSeconds,
                                r.wallSeconds);
                    std::fflush(stdout);
                });
            PrintFredTrainingTable(rows);
            for (const auto& f : WriteFredTrainingResults(config, rows, results))
            {
                std::printf("wrote %s\n", f.c_str());
            }
            return 0;
        });
}
