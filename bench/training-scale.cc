/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// training-scale: what one training iteration costs the simulator as the
// cluster grows, at flow level. One layout family, Megatron's GPT-3 175B
// (96 layers, hidden 12288, sequence 2048, fp16): TP 8 inside an eight-GPU
// server, PP 16 (PP 8 on 64 GPUs), DP = GPUs / (TP x PP), microbatch size 1,
// --microbatches per data-parallel replica (a weak-scaling family: the global
// batch is DP x microbatches), 1F1B, on a rail-optimised fabric of GPUs / 8
// servers. Per point: wall and CPU time of RunTraining (graph, cluster,
// simulation), peak resident memory, tasks and simulator events, and the
// simulated iteration with its breakdown. Each point runs in a child process
// of its own, so that its peak memory is its own. Nothing here is asserted.
//
//   ./build/bench/training-scale [--gpus=64,128,...,8192] [--microbatches=16]
//                                [--network=flow] [--results=results/training-scale]

#include "ns3/dlnet-module.h"
#include "ns3/file-io.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

using namespace ns3;

namespace
{

/// What one point measured (sent from the child to the parent through a pipe).
struct Point
{
    uint32_t gpus{0};
    uint32_t pp{0};
    uint32_t dp{0};
    double wallSeconds{0};
    double cpuSeconds{0};
    double peakMiB{0};
    uint64_t tasks{0};
    uint64_t events{0};
    double iterationSeconds{0};
    double computeSeconds{0};
    double exposedTp{0};
    double exposedPp{0};
    double exposedDp{0};
    double bubbleSeconds{0};
};

/// The family's training config at `gpus` GPUs.
TrainingConfig
ConfigAt(uint32_t gpus, uint32_t microbatches, const std::string& network)
{
    if (gpus != 64 && gpus % 128 != 0)
    {
        throw std::invalid_argument("gpus: got " + std::to_string(gpus)
                                    + "; expected 64 or a multiple of 128 (TP 8 x PP 16)");
    }
    TrainingConfig c;
    SetOption(TrainingOptions(), c, "topology", "rail-optimised");
    SetOption(TrainingOptions(), c, "servers", std::to_string(gpus / 8));
    SetOption(TrainingOptions(), c, "gpus-per-server", "8");
    SetOption(TrainingOptions(), c, "network", network);
    c.model = "gpt3-175b";
    c.tp = 8;
    c.pp = gpus == 64 ? 8 : 16;
    c.dp = gpus / (c.tp * c.pp);
    c.microbatches = microbatches;
    c.microbatchSize = 1;
    c.schedule = "1f1b";
    c.iterations = 1;
    c.trace = false;
    c.comms = false; // (a row per collective and send: 5.7 M at 1024 GPUs, none read here)
    return c;
}

Point
Measure(uint32_t gpus, const TrainingConfig& c)
{
    Point p;
    p.gpus = gpus;
    p.pp = c.pp;
    p.dp = c.dp;
    auto start = std::chrono::steady_clock::now();
    TrainingResult r = RunTraining(c);
    p.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    p.cpuSeconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec
                   + usage.ru_stime.tv_usec * 1e-6;
    p.peakMiB = usage.ru_maxrss / 1024.0;
    p.tasks = r.setups.at(0).graph.tasks.size();
    p.events = r.events;
    const TrainingJobRow& job = r.jobs.at(0);
    p.iterationSeconds = job.iterationSeconds;
    p.computeSeconds = job.breakdown.computeSeconds;
    p.exposedTp = job.breakdown.exposedSeconds[uint32_t(TrainingDimension::TP)];
    p.exposedPp = job.breakdown.exposedSeconds[uint32_t(TrainingDimension::PP)];
    p.exposedDp = job.breakdown.exposedSeconds[uint32_t(TrainingDimension::DP)];
    p.bubbleSeconds = job.breakdown.bubbleSeconds;
    return p;
}

/// Run one point in a child process; \return its exit status (0: out holds the point;
/// 2: bad input, named by the child; otherwise it failed)
int
RunChild(uint32_t gpus, const TrainingConfig& c, Point& out)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        throw std::runtime_error("training-scale: no pipe");
    }
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0)
    {
        close(fds[0]);
        int status = GuardedMain(
            [&]()
            {
                Point p = Measure(gpus, c);
                ssize_t n = write(fds[1], &p, sizeof p);
                return n == ssize_t(sizeof p) ? 0 : 1;
            });
        close(fds[1]);
        _exit(status);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], &out, sizeof out);
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status))
    {
        return 1;
    }
    if (WEXITSTATUS(status) == 0 && n != ssize_t(sizeof out))
    {
        return 1;
    }
    return WEXITSTATUS(status);
}

void
WriteCsv(const std::string& path, const std::vector<Point>& points)
{
    std::ofstream out = dlnet::OpenOutputFile("results", path);
    out << "gpus,tp,pp,dp,wall_s,cpu_s,peak_mib,tasks,events,iteration_s,compute_s,"
           "exposed_tp_s,exposed_pp_s,exposed_dp_s,bubble_s\n";
    for (const auto& p : points)
    {
        out << p.gpus << ",8," << p.pp << "," << p.dp << "," << ExactText(p.wallSeconds) << ","
            << ExactText(p.cpuSeconds) << "," << ExactText(p.peakMiB) << "," << p.tasks << ","
            << p.events << "," << ExactText(p.iterationSeconds) << ","
            << ExactText(p.computeSeconds) << "," << ExactText(p.exposedTp) << ","
            << ExactText(p.exposedPp) << "," << ExactText(p.exposedDp) << ","
            << ExactText(p.bubbleSeconds) << "\n";
    }
    dlnet::CloseOutputFile("results", path, out);
}

bool
Plot(const std::string& path, const std::vector<Point>& points, uint32_t microbatches)
{
    Gnuplot plot;
    plot.SetTitle("GPT-3 175B iteration (TP 8, PP 16, DP = GPUs/128, "
                  + std::to_string(microbatches) + " microbatches per replica), flow level");
    plot.SetLegend("GPUs", "seconds");
    plot.AppendExtra("set logscale xy 2\nset grid\nset key top left\nset offsets graph 0.02, graph "
                     "0.04, 0, 0\nset xtics ("
                     +
                     [&]()
                     {
                         std::string tics;
                         for (const auto& p : points)
                         {
                             tics += (tics.empty() ? "" : ", ") + std::string("\"")
                                     + std::to_string(p.gpus) + "\" " + std::to_string(p.gpus);
                         }
                         return tics;
                     }()
                     + ")");
    Gnuplot2dDataset wall("wall time (s)");
    wall.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    Gnuplot2dDataset cpu("CPU time (s)");
    cpu.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    for (const auto& p : points)
    {
        wall.Add(p.gpus, p.wallSeconds);
        cpu.Add(p.gpus, p.cpuSeconds);
    }
    plot.AddDataset(wall);
    plot.AddDataset(cpu);
    return RenderPng(plot, path);
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            std::string gpuList = "64,128,256,512,1024,2048,4096,8192";
            std::string microbatches = "16";
            std::string network = "flow";
            std::string results = "results/training-scale";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddValue("gpus", "GPU counts: 64 or multiples of 128", gpuList);
            cmd.AddValue("microbatches", "microbatches per data-parallel replica", microbatches);
            cmd.AddValue("network", NETWORK_OPTION_HELP, network);
            cmd.AddValue("results", "folder for training-scale.csv and .png", results);
            cmd.Parse(argc, argv);
            uint32_t m = dlnet::ParseUnsigned("microbatches", microbatches, 1, 100000);
            dlnet::ParseChoice("network", network, {"packet", "flow"});
            std::vector<uint32_t> gpus;
            std::vector<TrainingConfig> configs;
            for (const auto& g : dlnet::ParseList("gpus", gpuList))
            {
                gpus.push_back(dlnet::ParseUnsigned("gpus", g, 64, MAX_RANKS));
                configs.push_back(ConfigAt(gpus.back(), m, network));
            }
            CheckResultsDir("results", results);
            std::printf("GPT-3 175B, TP 8 x PP 16 (PP 8 on 64 GPUs) x DP, %u microbatches of 1 "
                        "per replica, 1F1B, rail-optimised, network=%s; one iteration\n",
                        m,
                        network.c_str());
            if (network == "packet")
            {
                // a point prints when it ends (a fuzzing run saw nothing for minutes)
                std::printf("(packet level simulates every packet: flow-bench's 2-layer GPT-3 "
                            "iteration on 64 GPUs took 155 s, 0.02 s at flow level, on a 2-core "
                            "machine; these points have 96 layers)\n");
            }
            std::printf("%6s %3s %3s %9s %9s %9s %10s %11s %9s %8s %8s %8s %8s %8s\n",
                        "GPUs",
                        "PP",
                        "DP",
                        "wall (s)",
                        "CPU (s)",
                        "peak MiB",
                        "tasks",
                        "events",
                        "iter (s)",
                        "compute",
                        "exp. TP",
                        "exp. PP",
                        "exp. DP",
                        "bubble");
            std::vector<Point> points;
            for (std::size_t i = 0; i < gpus.size(); ++i)
            {
                Point p;
                if (int status = RunChild(gpus[i], configs[i], p); status != 0)
                {
                    std::fprintf(stderr, "error: %u GPUs failed\n", gpus[i]);
                    return status == 2 ? 2 : 1; // (2: the child named the bad input)
                }
                std::printf("%6u %3u %3u %9.2f %9.2f %9.0f %10llu %11llu %9.4g %8.4g %8.3g "
                            "%8.3g %8.3g %8.3g\n",
                            p.gpus,
                            p.pp,
                            p.dp,
                            p.wallSeconds,
                            p.cpuSeconds,
                            p.peakMiB,
                            static_cast<unsigned long long>(p.tasks),
                            static_cast<unsigned long long>(p.events),
                            p.iterationSeconds,
                            p.computeSeconds,
                            p.exposedTp,
                            p.exposedPp,
                            p.exposedDp,
                            p.bubbleSeconds);
                std::fflush(stdout);
                points.push_back(p);
            }
            MakeResultsDir(results);
            WriteCsv(results + "/training-scale.csv", points);
            std::printf("wrote %s/training-scale.csv\n", results.c_str());
            if (Plot(results + "/training-scale.png", points, m))
            {
                std::printf("plot:  %s/training-scale.png\n", results.c_str());
            }
            return 0;
        });
}
