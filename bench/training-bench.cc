/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// What a training iteration costs the packet-level simulator: wall time,
// simulator events, peak memory and events per simulated byte, for
//   resnet: ResNet-152, pure DP on 16 GPUs (2 servers x 8, rail-optimised), one iteration;
//   gpt:    a GPT-3-like iteration on 64 GPUs (8 servers x 8, rail-optimised),
//           TP 8, PP 2, DP 4, 8 microbatches, GPT-3's hidden size and sequence,
//           --gpt-layers layers instead of 96 (stated in the output).
// Each case runs in a child process of its own, so that its peak resident
// memory is its own. Nothing here is asserted: the figures go in bench/README.md.
//
//   ./build/bench/training-bench [--case=all|resnet|gpt] [--gpt-layers=2] [--network=packet]
//
// --network=flow runs the same cases at flow level (the speed-up against packet level).

#include "bench-util.h"

#include "ns3/dlnet-module.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

using namespace ns3;

namespace
{

TrainingConfig
ResNetCase()
{
    TrainingConfig c;
    c.topology.kind = "rail-optimised";
    c.topology.servers = 2;
    c.topology.gpusPerServer = 8;
    c.model = "resnet152";
    c.type = "fp16";
    c.dp = 16;
    c.microbatchSize = 32;
    c.iterations = 1;
    c.trace = false;
    return c;
}

void
Measure(const std::string& name, const std::string& what, const TrainingConfig& c)
{
    auto start = std::chrono::steady_clock::now();
    TrainingResult r = RunTraining(c);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double bytes = 0; // bytes the network carried: collective buffers, sends and streams
    for (const auto& row : r.jobs)
    {
        bytes += row.mode == "together" ? double(row.bytes) : 0;
    }
    const TrainingJobRow& job = r.jobs.at(0);
    std::printf("%-7s %-58s %9.3f %8.4f %12llu %9.1f %10.3g %9.3g\n",
                name.c_str(),
                what.c_str(),
                wall,
                job.iterationSeconds,
                static_cast<unsigned long long>(r.events),
                usage.ru_maxrss / 1024.0,
                bytes,
                r.events / bytes);
    std::fflush(stdout);
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            std::string which = "all";
            std::string gptLayersText = "2";
            std::string network = "packet";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddValue("case", "all, resnet or gpt", which);
            cmd.AddValue("gpt-layers",
                         "transformer layers of the GPT-3-like case, 2 to 96 (GPT-3: 96)",
                         gptLayersText);
            cmd.AddValue("network", NETWORK_OPTION_HELP, network);
            cmd.Parse(argc, argv);
            dlnet::ParseChoice("case", which, {"all", "resnet", "gpt"});
            dlnet::ParseChoice("network", network, {"packet", "flow"});
            // (PP 2: two layers at least; a bad count failed in the child, exit 1)
            const uint32_t gptLayers = dlnet::ParseUnsigned("gpt-layers", gptLayersText, 2, 96);
            // taken and ignored before
            RefuseInapplicable("gpt-layers",
                               gptLayers,
                               2,
                               which != "resnet",
                               "to case gpt (or all), and case is resnet");
            // the configs are checked here: a bad one failed in the child, exit 1
            ResNetCase().Validate();
            bench::Gpt64(gptLayers).Validate();
            std::printf("network=%s\n", network.c_str());
            std::vector<std::pair<std::string, std::string>> cases;
            if (which != "gpt")
            {
                cases.push_back({"resnet", "ResNet-152 fp16, DP 16 (2x8 GPUs), batch 32/GPU"});
            }
            if (which != "resnet")
            {
                cases.push_back({"gpt",
                                 "GPT-3 shape, " + std::to_string(gptLayers)
                                     + " layers, TP8 PP2 DP4, 8 microbatches (8x8 GPUs)"});
            }
            std::printf("%-7s %-58s %9s %8s %12s %9s %10s %9s\n",
                        "case",
                        "what",
                        "wall (s)",
                        "iter (s)",
                        "events",
                        "peak MiB",
                        "net bytes",
                        "events/B");
            std::fflush(stdout);
            for (const auto& [name, what] : cases)
            {
                TrainingConfig c = name == "resnet" ? ResNetCase() : bench::Gpt64(gptLayers);
                c.topology.network = network;
                pid_t child = fork();
                if (child == 0)
                {
                    int status = GuardedMain(
                        [&]()
                        {
                            Measure(name, what, c);
                            return 0;
                        });
                    std::fflush(stdout);
                    _exit(status);
                }
                int status = 0;
                waitpid(child, &status, 0);
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                {
                    std::fprintf(stderr, "error: case %s failed\n", name.c_str());
                    return 1;
                }
            }
            return 0;
        });
}
