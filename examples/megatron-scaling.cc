/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Megatron-LM's weak-scaling table (Narayanan et al., SC'21, Table 1: 1.7B
// parameters on 32 A100s to 1T on 3072) simulated on DGX A100 servers on a
// rail-optimised fabric: each row with its TP, PP, DP, batch, micro-batch
// size, interleaved 1F1B and full recomputation, Megatron's kernels timed by
// the roofline at one compute efficiency for every row (default: what PyTorch's
// fp16 matmul achieves on an A100, 73.7% of peak), HBM and NVLink at the rates
// measured kernels and NCCL reach (defaults 1800 GB/s, 230 GB/s), NCCL 2.8's
// latencies and Megatron-LM's pipeline and gradient traffic. Prints the simulated
// TFLOP/s per GPU (the paper's FLOP count over the simulated iteration)
// beside the published one, with where the time goes; writes megatron.csv
// and megatron.png under --results.
//
//   ./dlnet run megatron-scaling -- --rows=1.7B,3.6B --results=results/megatron

#include "ns3/dlnet-module.h"

#include <cmath>
#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            std::string rows = "all";
            MegatronSettings settings;
            std::string efficiencyText = dlnet::ShortestText(settings.efficiency);
            std::string memoryText = dlnet::ShortestText(settings.memoryGBps);
            std::string slowdownText = dlnet::ShortestText(settings.overlapSlowdown);
            std::string scatterGatherText = settings.scatterGather ? "true" : "false";
            std::string blockingText = settings.blockingSends ? "true" : "false";
            std::string withBackwardText = settings.sendWithBackward ? "true" : "false";
            std::string rendezvousText = settings.rendezvous ? "true" : "false";
            std::string vocabText = settings.vocabAllReduces ? "true" : "false";
            std::string ncclLatencyText = settings.ncclLatency ? "true" : "false";
            std::string tiedText = settings.tiedEmbedding ? "true" : "false";
            std::string copiesText = settings.localDdpCopies ? "true" : "false";
            std::string bucketCopiesText = settings.ddpBucketCopies ? "true" : "false";
            std::string results = "results/megatron";
            ExperimentCommandLine cmd(__FILE__);
            // the ranges are what every row can run (megatron-scaling.h)
            cmd.AddValue("rows", "rows of the table: all, or a list of 1.7B,3.6B,...,1T", rows);
            cmd.AddValue("network", "packet or flow", settings.network);
            cmd.AddValue("efficiency",
                         "achieved fraction of the A100's peak on GEMMs, 0.01 to 1 (default: "
                         "230/312, PyTorch's fp16 matmul; 267.9/312 is the maximum a search "
                         "over shapes finds)",
                         efficiencyText);
            cmd.AddValue("memory-bandwidth",
                         "HBM bandwidth of the memory-bound kernels, 25 to 1e6 GB/s (default: "
                         "1800, what a read kernel reaches; the data sheet's is 2000)",
                         memoryText);
            cmd.AddValue("nvlink-rate",
                         "NVLink rate per GPU and direction, 1Gbps to 40Tbps (default: 230GBps, "
                         "NCCL's effective NVLink bandwidth; the data sheet's is 300GBps)",
                         settings.nvlinkRate);
            cmd.AddValue("overlap-slowdown",
                         "compute beside a collective or send of its GPU takes 1 + this times "
                         "as long (NCCL's kernels take SMs and memory bandwidth; default 0: no "
                         "contention; doc/megatron-validation.md)",
                         slowdownText);
            cmd.AddValue("scatter-gather",
                         "pipeline messages scattered over the tensor-parallel ranks and "
                         "all-gathered by the receiving stage, as Megatron-LM sends them (false: "
                         "every TP rank sends the whole activation)",
                         scatterGatherText);
            cmd.AddValue("blocking-sends",
                         "synchronous pipeline messages, as Megatron-LM's: a send holds the "
                         "sender's compute, a step waits for its message (false: asynchronous)",
                         blockingText);
            cmd.AddValue("send-with-backward",
                         "interleaved rows: a forward step's message leaves with the next "
                         "backward step's, after both, as Megatron-LM's schedule sends it "
                         "(false: as soon as the forward step has computed)",
                         withBackwardText);
            cmd.AddValue("rendezvous",
                         "a pipeline send starts only once its receiver has computed its step "
                         "and posts the receive, as NCCL's send waits for it (false: at once)",
                         rendezvousText);
            cmd.AddValue("vocab-all-reduces",
                         "the TP all-reduces of the vocabulary-parallel embedding's output and "
                         "of the logits' input gradient, as Megatron-LM runs them (false: none)",
                         vocabText);
            cmd.AddValue("tied-embedding",
                         "the pipelined rows' last stage keeps a copy of the tied word "
                         "embedding, in its data-parallel all-reduce and optimizer, and "
                         "all-reduces its gradient with the first stage, as Megatron-LM "
                         "(false: the first stage's only)",
                         tiedText);
            cmd.AddValue("local-ddp-copies",
                         "the rows with Megatron-LM's local DDP flatten and scale their "
                         "gradients before the data-parallel all-reduce and copy them back "
                         "after (false: neither)",
                         copiesText);
            cmd.AddValue("ddp-bucket-copies",
                         "the rows with PyTorch DDP copy each gradient into its bucket before "
                         "the bucket's all-reduce and back after them all, as its Reducer "
                         "(false: neither)",
                         bucketCopiesText);
            cmd.AddValue("nccl-latency",
                         "NCCL 2.8's ring latencies, 8.4 us per collective, 3.4 us per step "
                         "inside a server and 9.6 us per step that leaves it, and its ring for "
                         "tensor parallelism (false: no latencies, and halving-doubling)",
                         ncclLatencyText);
            cmd.AddValue("results", "folder for megatron.csv and megatron.png", results);
            cmd.Parse(argc, argv);
            std::vector<MegatronRow> chosen = ParseMegatronRows("rows", rows);
            settings.efficiency = MegatronSettings::ParseEfficiency(efficiencyText);
            settings.memoryGBps = MegatronSettings::ParseMemoryGBps(memoryText);
            settings.overlapSlowdown = dlnet::ParseReal("overlap-slowdown", slowdownText, 0, 100);
            settings.scatterGather = dlnet::ParseBool("scatter-gather", scatterGatherText);
            settings.blockingSends = dlnet::ParseBool("blocking-sends", blockingText);
            settings.sendWithBackward = dlnet::ParseBool("send-with-backward", withBackwardText);
            settings.rendezvous = dlnet::ParseBool("rendezvous", rendezvousText);
            settings.vocabAllReduces = dlnet::ParseBool("vocab-all-reduces", vocabText);
            settings.ncclLatency = dlnet::ParseBool("nccl-latency", ncclLatencyText);
            settings.tiedEmbedding = dlnet::ParseBool("tied-embedding", tiedText);
            settings.localDdpCopies = dlnet::ParseBool("local-ddp-copies", copiesText);
            settings.ddpBucketCopies = dlnet::ParseBool("ddp-bucket-copies", bucketCopiesText);
            settings.Validate();
            settings.CheckRows(chosen);
            CheckResultsDir("results", results);

            std::printf(
                "Megatron-LM weak scaling (SC'21 Table 1) at %s level, efficiency %.4f, "
                "HBM %g GB/s, NVLink %s, pipeline messages %s and %s%s%s, overlap slowdown %g%s\n",
                settings.network.c_str(),
                settings.efficiency,
                settings.memoryGBps,
                settings.nvlinkRate.c_str(),
                settings.scatterGather ? "scatter-gather" : "whole",
                settings.blockingSends ? "blocking" : "asynchronous",
                settings.sendWithBackward ? ", interleaved ones after the next backward" : "",
                settings.rendezvous ? ", each with its receive" : "",
                settings.overlapSlowdown,
                settings.ncclLatency ? ", NCCL's ring latencies" : "");
            if (settings.network == "packet")
            {
                // a row prints when it ends: say up front that it is minutes, not seconds
                std::printf("(packet level simulates every packet: the smallest row, 1.7B on 32 "
                            "GPUs, took 454 s on a 2-core machine, 0.3 s at flow level; the "
                            "larger rows take longer)\n");
            }
            std::printf("%-5s %7s %3s %3s %3s %5s %5s %3s %4s %2s %9s %8s %8s %7s %8s %8s %8s %8s "
                        "%8s %8s\n",
                        "row",
                        "params",
                        "TP",
                        "PP",
                        "DP",
                        "GPUs",
                        "batch",
                        "b",
                        "m",
                        "v",
                        "iter (s)",
                        "TFLOP/s",
                        "publ.",
                        "dev.",
                        "compute",
                        "exp. TP",
                        "exp. PP",
                        "exp. DP",
                        "bubble",
                        "wall (s)");
            std::fflush(stdout);
            std::vector<MegatronRowResult> out;
            for (const auto& row : chosen)
            {
                MegatronRowResult r = RunMegatronRow(row, settings);
                const TrainingBreakdown& b = r.breakdown;
                std::printf(
                    "%-5s %6.1fB %3u %3u %3u %5u %5u %3u %4u %2u %9.3f %8.1f %8.0f %+6.1f%% "
                    "%8.3f %8.3f %8.3f %8.3f %8.3f %8.1f\n",
                    row.name.c_str(),
                    row.parametersB,
                    row.tp,
                    row.pp,
                    row.Dp(),
                    row.gpus,
                    row.batch,
                    row.microbatch,
                    row.Microbatches(),
                    row.VirtualStages(),
                    r.iterationSeconds,
                    r.tflopsPerGpu,
                    row.published,
                    100 * r.deviation,
                    b.computeSeconds,
                    b.exposedSeconds[uint32_t(TrainingDimension::TP)],
                    b.exposedSeconds[uint32_t(TrainingDimension::PP)],
                    b.exposedSeconds[uint32_t(TrainingDimension::DP)],
                    b.bubbleSeconds + b.idleSeconds,
                    r.wallSeconds);
                std::fflush(stdout);
                if (std::abs(r.simulatorFlops / r.flops - 1) > 1e-9)
                {
                    std::printf("      note: the simulator counts %.6g FLOPs, the paper's formula "
                                "%.6g\n",
                                r.simulatorFlops,
                                r.flops);
                }
                out.push_back(r);
            }
            std::printf("(TFLOP/s: 96·B·s·l·h²(1 + s/6h + V/16lh) / (iteration x GPUs); dev.: "
                        "against the published; breakdown in seconds per iteration, mean over "
                        "ranks; bubble includes idle)\n");
            WriteCsv(results + "/megatron.csv", MegatronFields(), out);
            std::printf("wrote %s/megatron.csv\n", results.c_str());
            std::string png = PlotMegatronScaling(out, results);
            if (!png.empty())
            {
                std::printf("plot:  %s\n", png.c_str());
            }
            return 0;
        });
}
