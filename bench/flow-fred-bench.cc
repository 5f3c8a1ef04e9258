/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FRED at flow level against packet level (issue 12): the fred-vs-mesh wafer
// table and the fred-training end-to-end table, each run with
// network=packet and network=flow in this process, side by side: time (and
// effective bandwidth, iteration time, speedup, breakdown) at both levels,
// the deviation of flow from packet, and the wall time of each level.
// Prints Markdown tables (doc/flow-fred.md holds their measured output) and
// writes flow-fred-wafer.csv and flow-fred-training.csv under --results.
// Nothing here is asserted: the test suite dlnet-flow-fred checks reduced
// sizes within 5 %.
//
//   ./build/bench/flow-fred-bench                       # both tables, the examples' defaults
//   ./build/bench/flow-fred-bench --training=false --bytes=16MiB
//   ./build/bench/flow-fred-bench --wafer=false --layers=2

#include "ns3/dlnet-module.h"
#include "ns3/file-io.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

using namespace ns3;

namespace
{

double
Deviation(double flow, double packet)
{
    return packet > 0 ? 100 * (flow / packet - 1) : 0;
}

/// Run one wafer scenario at one level; \return its rows and wall seconds
std::pair<std::vector<WaferRow>, double>
Wafer(const WaferExperimentConfig& config, const std::string& scenario, const std::string& network)
{
    WaferExperimentConfig c = config.ForScenario(scenario);
    c.wafer.network = network;
    WaferResult r = RunWafer(c);
    return {r.rows, r.wallSeconds};
}

void
WaferTable(const WaferExperimentConfig& config, const std::string& dir)
{
    std::ofstream csv = dlnet::OpenOutputFile("results", dir + "/flow-fred-wafer.csv");
    csv << "scenario,variant,group,algorithm,packet_us,flow_us,time_dev_pct,packet_GBps,"
           "flow_GBps,GBps_dev_pct\n";
    std::printf("\n## The wafer table (fred-vs-mesh), %s per NPU, I/O %s per controller\n\n",
                SizeLabel(config.bytes).c_str(),
                SizeLabel(config.ioBytes).c_str());
    std::printf("| scenario | variant | group | packet us | flow us | dev %% | packet GB/s | flow "
                "GB/s | dev %% |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    std::vector<std::string> walls;
    double worst = 0;
    for (const auto& scenario : config.scenarios)
    {
        auto [packet, packetWall] = Wafer(config, scenario, "packet");
        auto [flow, flowWall] = Wafer(config, scenario, "flow");
        for (std::size_t i = 0; i < packet.size() && i < flow.size(); ++i)
        {
            const WaferRow& p = packet[i];
            const WaferRow& f = flow[i];
            // io rows: the stream rate per controller
            double pb = p.effectiveGBps;
            double fb = f.effectiveGBps;
            double dt = Deviation(f.timeUs, p.timeUs);
            worst = std::max(worst, std::abs(dt));
            std::printf("| %s | %s | %s | %.2f | %.2f | %+.2f | %.1f | %.1f | %+.2f |\n",
                        scenario.c_str(),
                        p.variant.c_str(),
                        p.group.c_str(),
                        p.timeUs,
                        f.timeUs,
                        dt,
                        pb,
                        fb,
                        Deviation(fb, pb));
            csv << scenario << "," << p.variant << "," << p.group << "," << p.algorithm << ","
                << p.timeUs << "," << f.timeUs << "," << dt << "," << pb << "," << fb << ","
                << Deviation(fb, pb) << "\n";
        }
        char line[160];
        std::snprintf(line,
                      sizeof(line),
                      "| %s | %.2f | %.2f | %.0f |",
                      scenario.c_str(),
                      packetWall,
                      flowWall,
                      flowWall > 0 ? packetWall / flowWall : 0);
        walls.emplace_back(line);
    }
    std::printf(
        "\nlargest time deviation: %.2f %%\n\nWall time (every variant of the scenario):\n\n"
        "| scenario | packet s | flow s | speed-up |\n|---|---:|---:|---:|\n",
        worst);
    for (const auto& w : walls)
    {
        std::printf("%s\n", w.c_str());
    }
}

void
TrainingTable(FredTrainingConfig config, const std::string& dir)
{
    config.network = "packet";
    std::vector<FredTrainingRow> packet = RunFredTraining(config);
    config.network = "flow";
    std::vector<FredTrainingRow> flow = RunFredTraining(config);
    std::ofstream csv = dlnet::OpenOutputFile("results", dir + "/flow-fred-training.csv");
    csv << "workload,variant,packet_s,flow_s,iteration_dev_pct,packet_speedup,flow_speedup,"
           "packet_exposed_s,flow_exposed_s,packet_bubble_s,flow_bubble_s,packet_wall_s,"
           "flow_wall_s\n";
    std::printf("\n## The FRED end-to-end training table (fred-training), %s transformer layers, "
                "%u-byte packets, %u iterations\n\n",
                config.layers ? std::to_string(config.layers).c_str() : "all",
                config.mtu,
                config.iterations);
    std::printf("| workload | variant | packet iteration s | flow iteration s | dev %% | packet "
                "speedup | flow speedup | exposed comm. packet / flow ms | bubble packet / flow "
                "ms | wall packet / flow s |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double worst = 0;
    double packetWall = 0;
    double flowWall = 0;
    for (std::size_t i = 0; i < packet.size() && i < flow.size(); ++i)
    {
        const FredTrainingRow& p = packet[i];
        const FredTrainingRow& f = flow[i];
        auto exposed = [](const FredTrainingRow& r)
        {
            double sum = 0;
            for (double s : r.job.breakdown.exposedSeconds)
            {
                sum += s;
            }
            return sum;
        };
        double dt = Deviation(f.job.iterationSeconds, p.job.iterationSeconds);
        worst = std::max(worst, std::abs(dt));
        packetWall += p.wallSeconds;
        flowWall += f.wallSeconds;
        std::printf("| %s | %s | %.5f | %.5f | %+.2f | %.3f | %.3f | %.3f / %.3f | %.3f / %.3f | "
                    "%.2f / %.2f |\n",
                    p.workload.c_str(),
                    p.variant.c_str(),
                    p.job.iterationSeconds,
                    f.job.iterationSeconds,
                    dt,
                    p.speedup,
                    f.speedup,
                    1e3 * exposed(p),
                    1e3 * exposed(f),
                    1e3 * p.job.breakdown.bubbleSeconds,
                    1e3 * f.job.breakdown.bubbleSeconds,
                    p.wallSeconds,
                    f.wallSeconds);
        csv << p.workload << "," << p.variant << "," << p.job.iterationSeconds << ","
            << f.job.iterationSeconds << "," << dt << "," << p.speedup << "," << f.speedup << ","
            << exposed(p) << "," << exposed(f) << "," << p.job.breakdown.bubbleSeconds << ","
            << f.job.breakdown.bubbleSeconds << "," << p.wallSeconds << "," << f.wallSeconds
            << "\n";
    }
    std::printf("\nlargest iteration deviation: %.2f %%; wall: packet %.1f s, flow %.1f s "
                "(%.1fx)\n",
                worst,
                packetWall,
                flowWall,
                flowWall > 0 ? packetWall / flowWall : 0);
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            WaferExperimentConfig wafer;
            FredTrainingConfig training;
            const std::string defaultBytes = "64MiB";
            const std::string defaultIoBytes = "4MiB";
            std::string bytes = defaultBytes;
            std::string ioBytes = defaultIoBytes;
            std::string layers = std::to_string(training.layers);
            std::string mtu = std::to_string(training.mtu);
            std::string waferText = "true";
            std::string trainingText = "true";
            std::string results = "results/flow-fred-bench";
            const uint32_t minMtu = WAFER_MIN_PAYLOAD + FabricHeader::SERIALIZED_SIZE;
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddValue("wafer", "run the wafer table", waferText);
            cmd.AddValue("training", "run the training table", trainingText);
            cmd.AddValue("bytes", "wafer collectives: size per NPU", bytes);
            cmd.AddValue("io-bytes", "wafer weight streaming: per I/O controller", ioBytes);
            cmd.AddValue("layers", "training: transformer layers (0: all)", layers);
            cmd.AddValue("mtu",
                         "training: wafer packet, header included (" + std::to_string(minMtu)
                             + " to " + std::to_string(MAX_MTU) + ")",
                         mtu);
            cmd.AddValue("results", "folder for the CSV files", results);
            cmd.Parse(argc, argv);
            const bool doWafer = dlnet::ParseBool("wafer", waferText);
            const bool doTraining = dlnet::ParseBool("training", trainingText);
            if (!doWafer && !doTraining)
            {
                throw std::invalid_argument("wafer, training: both false; nothing to run");
            }
            // an option of the table not run was taken and ignored
            const std::string waferOnly = "to the wafer table, and wafer is false";
            const std::string trainingOnly = "to the training table, and training is false";
            RefuseInapplicable("bytes", bytes, defaultBytes, doWafer, waferOnly);
            RefuseInapplicable("io-bytes", ioBytes, defaultIoBytes, doWafer, waferOnly);
            RefuseInapplicable(
                "layers", layers, std::to_string(training.layers), doTraining, trainingOnly);
            RefuseInapplicable("mtu", mtu, std::to_string(training.mtu), doTraining, trainingOnly);
            wafer.bytes = dlnet::ParseBytes("bytes", bytes);
            wafer.ioBytes = dlnet::ParseBytes("io-bytes", ioBytes);
            wafer.Validate();
            training.layers = dlnet::ParseUnsigned("layers", layers, 0, 1000);
            training.mtu = dlnet::ParseUnsigned("mtu", mtu, minMtu, MAX_MTU);
            training.Validate();
            MakeResultsDir(results);
            if (doWafer)
            {
                WaferTable(wafer, results);
            }
            if (doTraining)
            {
                TrainingTable(training, results);
            }
            return 0;
        });
}
