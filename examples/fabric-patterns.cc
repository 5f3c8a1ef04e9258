/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Traffic patterns (point-to-point, incast, all-to-all, permutation) on a
// star, leaf-spine, mesh or torus fabric. Prints a summary table, writes
// messages.csv, links.csv, result.json and two PNG plots under --results.
//
//   ./dlnet run fabric-patterns -- --topology=leaf-spine --oversubscription=2 \
//       --pattern=permutation --shift=4 --message-bytes=4MiB --results=results/ls

#include "ns3/dlnet-module.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

using namespace ns3;

namespace
{

double
Percentile(std::vector<double> v, double p)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * (v.size() - 1) + 0.5));
    return v[i];
}

void
PrintSummary(const TrafficConfig& c, const TrafficResult& r)
{
    std::vector<double> fct;
    double maxUtil = 0;
    std::string busiest;
    for (const auto& m : r.messages)
    {
        fct.push_back(m.fct * 1e6);
    }
    for (const auto& l : r.links)
    {
        if (l.tier != "local" && l.utilisation > maxUtil)
        {
            maxUtil = l.utilisation;
            busiest = l.from + ">" + l.to;
        }
    }
    double mean = 0;
    for (double f : fct)
    {
        mean += f / fct.size();
    }
    std::printf("\n%-28s %s\n",
                "topology",
                (r.topology + ", " + std::to_string(r.ranks) + " ranks").c_str());
    std::printf("%-28s %s, %llu B per message, %s\n",
                "pattern",
                r.pattern.c_str(),
                static_cast<unsigned long long>(c.messageBytes),
                c.functional ? "functional (bytes checked)" : "timing");
    std::printf("%-28s %s\n", "network", r.network.c_str());
    std::printf("%-28s %s\n", "flow control", c.topology.flowControl.c_str());
    std::printf("%-28s %llu of %llu%s\n",
                "messages delivered",
                static_cast<unsigned long long>(r.deliveredMessages),
                static_cast<unsigned long long>(r.expectedMessages),
                c.functional ? (r.allIntact ? ", all intact" : ", CORRUPTED") : "");
    std::printf("%-28s %.3f us\n", "makespan", r.makespan * 1e6);
    std::printf("%-28s %.3f Gbit/s\n", "aggregate goodput", r.aggregateGoodput / 1e9);
    std::printf("%-28s %.3f / %.3f / %.3f us\n",
                "completion mean / p50 / p99",
                mean,
                Percentile(fct, 0.5),
                Percentile(fct, 0.99));
    std::printf("%-28s %.1f %% (%s)\n", "busiest link", maxUtil * 100, busiest.c_str());
    std::printf("%-28s %llu drops, %llu retransmissions, %llu duplicates dropped\n",
                "losses",
                static_cast<unsigned long long>(r.drops),
                static_cast<unsigned long long>(r.retransmissions),
                static_cast<unsigned long long>(r.duplicatePackets));
    std::printf("%-28s %llu events in %.2f s wall\n",
                "simulation",
                static_cast<unsigned long long>(r.events),
                r.wallSeconds);
    if (r.messages.size() <= 16)
    {
        std::printf("\n%6s %6s %12s %8s %5s %14s %14s\n",
                    "src",
                    "dst",
                    "bytes",
                    "packets",
                    "hops",
                    "fct (us)",
                    "goodput Gb/s");
        for (const auto& m : r.messages)
        {
            std::printf("%6u %6u %12llu %8u %5u %14.3f %14.3f\n",
                        m.src,
                        m.dst,
                        static_cast<unsigned long long>(m.bytes),
                        m.packets,
                        m.hops,
                        m.fct * 1e6,
                        m.goodput / 1e9);
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            TrafficConfig config;
            std::string results = "results/fabric-patterns";
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(TrafficOptions(), config);
            cmd.AddValue("results", "folder for CSV, JSON and PNG output", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results); // before the simulation, not after

            TrafficResult result = RunTraffic(config);
            PrintSummary(config, result);
            WriteTrafficResults(config, result, results);
            std::printf("\nresults: %s/messages.csv, links.csv, result.json\n", results.c_str());
            for (const auto& png : PlotTraffic(result, results))
            {
                std::printf("plot:    %s\n", png.c_str());
            }
            if (result.cutByStopTime)
            {
                // the run was cut by stop-time: an input the user can change, not a fault
                std::cerr << "error: stop-time: " << result.deliveredMessages << " of "
                          << result.expectedMessages << " messages were delivered by "
                          << config.stopTime;
                if (dlnet::ParseTime("stop-time", config.stopTime)
                    < Seconds(dlnet::MAX_TIME_SECONDS))
                {
                    std::cerr << "; raise stop-time (at most "
                              << dlnet::TimeText(dlnet::MAX_TIME_SECONDS)
                              << ") to let every message finish\n";
                }
                else // (raising it is no remedy)
                {
                    std::cerr << ", the most a run may simulate; "
                              << SimulationScope::ClockAdvice(
                                     SimulationScope::TimeAttributesOf(config.ns3Attributes),
                                     SimulationScope::RateOptions(),
                                     config.topology.lossRate > 0)
                              << "\n";
                }
                return 2;
            }
            if (!result.allDelivered || !result.allIntact || result.duplicateDeliveries > 0)
            {
                std::cerr << "error: not every message was delivered intact exactly once\n";
                return 1;
            }
            return 0;
        });
}
