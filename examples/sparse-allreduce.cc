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
// (rate, N) and writes sparse-allreduce.csv and one PNG per rate (time
// against density, log scales) under --results.
//
//   ./dlnet run sparse-allreduce                 # the full sweep (about a minute)
//   ./dlnet run sparse-allreduce -- --quick      # 16 MiB, d = 1, 0.1, 0.01, N = 8, 100 Gbit/s
//   ./dlnet run sparse-allreduce -- --quick --functional --loss=0.01
//   ./dlnet run sparse-allreduce -- --placement=overlap --workers=8 --rates=100Gbps

#include "ns3/dlnet-module.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

// Defaults of the sweep, and those --quick puts in their place.
const std::string kTensor = "100MiB";
const std::string kDensities = "1.0,0.8,0.4,0.2,0.1,0.08,0.04,0.02,0.01";
const std::string kWorkers = "2,4,8";
const std::string kRates = "10Gbps,100Gbps";
const std::string kQuickTensor = "16MiB";
const std::string kQuickDensities = "1,0.1,0.01";
const std::string kQuickWorkers = "8";
const std::string kQuickRates = "100Gbps";

/// The items of a comma-separated list (empty items are an error).
std::vector<std::string>
SplitList(const std::string& field, const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        if (item.empty())
        {
            throw std::invalid_argument(field + ": empty item in '" + text
                                        + "'; expected a comma-separated list");
        }
        items.push_back(item);
    }
    if (items.empty() || text.back() == ',')
    {
        throw std::invalid_argument(field + ": got '" + text
                                    + "'; expected a comma-separated list");
    }
    return items;
}

/// A flag that may be given bare (--quick) or with a value (--quick=false).
bool
FlagValue(const std::string& field, const std::string& text)
{
    return text.empty() ? true : dlnet::ParseBool(field, text);
}

/// Was --name given on the command line (with or without a value)?
bool
Given(int argc, char** argv, const std::string& name)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0)
        {
            arg = "-" + arg; // -name=value is read as --name=value
        }
        if (arg == "--" + name || arg.rfind("--" + name + "=", 0) == 0)
        {
            return true;
        }
    }
    return false;
}

/// Text of a rate for file names: 100Gbps -> 100Gbps, 2.5Gbps -> 2_5Gbps.
std::string
FileSafe(std::string text)
{
    for (auto& ch : text)
    {
        if (!std::isalnum(static_cast<unsigned char>(ch)))
        {
            ch = '_';
        }
    }
    return text;
}

/// One simulation of the sweep.
struct Point
{
    std::string rate;
    uint32_t workers{0};
    uint32_t aggregators{0};
    std::string algorithm;    //!< omnireduce, ring or switchml
    double density{NAN};      //!< omnireduce only
    double unionDensity{NAN}; //!< omnireduce only: of the pattern that ran
    CollectiveConfig config;
    CollectiveRow row;
};

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            auto wallStart = std::chrono::steady_clock::now();
            CollectiveConfig base;
            base.topology.mtu = 9000; // jumbo frames: fused OmniReduce packets fit
            std::string tensor = kTensor;
            std::string densities = kDensities;
            std::string workers = kWorkers;
            std::string rates = kRates;
            std::string placement = "random";
            std::string loss = "0";
            std::string quick = "false";
            std::string functional = "false";
            std::string results = "results/sparse-allreduce";

            ExperimentCommandLine cmd(__FILE__);
            // The collective options that make sense for this benchmark (a
            // name the option table lacks is skipped); topology,
            // communicator, sizes and algorithm are set per point.
            const std::vector<std::string> taken = {"link-delay",
                                                    "switch-latency",
                                                    "mtu",
                                                    "buffer-bytes",
                                                    "window",
                                                    "retransmit-timeout",
                                                    "block-elements",
                                                    "message-blocks",
                                                    "pool-slots",
                                                    "packet-elements",
                                                    "aggregation-timeout",
                                                    "aggregator-placement",
                                                    "aggregators",
                                                    "threshold",
                                                    "aggregator-packet-time",
                                                    "seed",
                                                    "run"};
            std::vector<std::string> except;
            for (const auto& o : CollectiveOptions())
            {
                if (std::find(taken.begin(), taken.end(), o.name) == taken.end())
                {
                    except.push_back(o.name);
                }
            }
            cmd.AddOptions(CollectiveOptions(), base, except);
            cmd.AddValue("tensor-bytes", "float32 tensor to all-reduce, e.g. 100MiB", tensor);
            cmd.AddValue("densities",
                         "omnireduce: comma-separated block densities (fraction of each "
                         "worker's blocks that are non-zero)",
                         densities);
            cmd.AddValue("workers", "comma-separated worker counts N (at least 2 each)", workers);
            cmd.AddValue("rates", "comma-separated link rates, e.g. 10Gbps,100Gbps", rates);
            cmd.AddValue("placement",
                         "where each worker's non-zero blocks lie: random (independent per "
                         "worker), overlap (the same blocks) or disjoint",
                         placement);
            cmd.AddValue("loss",
                         "packet loss rate; above 0 the fabric is lossy (drop-tail, every "
                         "receiver drops with this probability)",
                         loss);
            cmd.AddValue("quick",
                         "demo sweep: 16MiB, densities 1,0.1,0.01, 8 workers, 100Gbps (flags "
                         "given explicitly still win)",
                         quick);
            cmd.AddValue("functional",
                         "carry real float32 tensors and check every worker's result (--functional "
                         "alone means true; keeps N tensors in memory: use a small --tensor-bytes)",
                         functional);
            cmd.AddValue("results", "folder for sparse-allreduce.csv and the PNGs", results);
            cmd.Parse(argc, argv);
            CheckResultsDir("results", results); // before the simulation, not after

            if (FlagValue("quick", quick))
            {
                tensor = Given(argc, argv, "tensor-bytes") ? tensor : kQuickTensor;
                densities = Given(argc, argv, "densities") ? densities : kQuickDensities;
                workers = Given(argc, argv, "workers") ? workers : kQuickWorkers;
                rates = Given(argc, argv, "rates") ? rates : kQuickRates;
            }
            base.functional = FlagValue("functional", functional);
            uint64_t bytes = dlnet::ParseBytes("tensor-bytes", tensor, 1);
            if (bytes % 4 != 0)
            {
                throw std::invalid_argument("tensor-bytes: " + std::to_string(bytes)
                                            + " is not a whole number of 4-byte float32 "
                                              "elements");
            }
            std::vector<double> ds;
            for (const auto& d : SplitList("densities", densities))
            {
                ds.push_back(dlnet::ParseReal("densities", d, 0, 1));
            }
            std::vector<uint32_t> ns;
            for (const auto& n : SplitList("workers", workers))
            {
                ns.push_back(static_cast<uint32_t>(dlnet::ParseUnsigned("workers", n, 2, 32768)));
            }
            std::vector<std::string> rs = SplitList("rates", rates);
            for (const auto& r : rs)
            {
                dlnet::ParseRate("rates", r);
            }
            SparsityPlacement where = ParseSparsityPlacement("placement", placement);
            double lossRate = dlnet::ParseReal("loss", loss, 0, 1);
            if (lossRate >= 1)
            {
                throw std::invalid_argument("loss: got " + loss
                                            + "; expected a rate below 1 (nothing would arrive)");
            }

            // Every point of the sweep, each validated before anything runs.
            std::vector<Point> points;
            for (const auto& rate : rs)
            {
                for (uint32_t n : ns)
                {
                    uint32_t a = base.aggregatorPlacement == "switch"
                                     ? 1
                                     : (base.aggregators ? base.aggregators : n);
                    CollectiveConfig c = base;
                    c.topology.kind = "star";
                    c.topology.hosts = n + std::max(n, a);
                    c.topology.hostLinkRate = rate;
                    if (lossRate > 0)
                    {
                        c.topology.flowControl = "lossy";
                        c.topology.lossRate = lossRate;
                    }
                    c.op = "allreduce";
                    c.type = "fp32";
                    c.minBytes = bytes;
                    c.maxBytes = bytes;
                    c.ranks = "0-" + std::to_string(n - 1);
                    c.sparsityPlacement = ToString(where);
                    for (std::string alg : {"ring", "switchml"})
                    {
                        Point p;
                        p.rate = rate;
                        p.workers = n;
                        p.aggregators = a;
                        p.algorithm = alg;
                        p.config = c;
                        p.config.algorithm = alg;
                        points.push_back(p);
                    }
                    for (double d : ds)
                    {
                        Point p;
                        p.rate = rate;
                        p.workers = n;
                        p.aggregators = a;
                        p.algorithm = "omnireduce";
                        p.density = d;
                        p.config = c;
                        p.config.algorithm = "omnireduce";
                        p.config.density = d;
                        points.push_back(p);
                    }
                }
            }
            for (const auto& p : points)
            {
                p.config.Validate();
            }

            std::printf(
                "# sparse AllReduce of a %s float32 tensor (%llu elements, %llu blocks "
                "of %u), %s placement, aggregators on %s, %u block%s per packet, mtu %u%s\n",
                tensor.c_str(),
                static_cast<unsigned long long>(bytes / 4),
                static_cast<unsigned long long>(bytes / 4 / base.blockElements),
                base.blockElements,
                ToString(where).c_str(),
                base.aggregatorPlacement.c_str(),
                base.messageBlocks,
                base.messageBlocks == 1 ? "" : "s",
                base.topology.mtu,
                lossRate > 0 ? (", lossy fabric, loss rate " + loss).c_str() : "");
            bool wrong = false;
            uint64_t events = 0;
            for (std::size_t first = 0; first < points.size();)
            {
                // one (rate, N) group: ring, switchml, then omnireduce per density
                std::size_t end = first + 2 + ds.size();
                auto groupStart = std::chrono::steady_clock::now();
                for (std::size_t i = first; i < end; ++i)
                {
                    Point& p = points[i];
                    CollectiveResult r = RunCollective(p.config);
                    p.row = r.rows.at(0);
                    events += p.row.events;
                    wrong = wrong || (p.row.checked && !p.row.correct);
                    if (p.algorithm == "omnireduce")
                    {
                        uint64_t blocks = bytes / 4 / p.config.blockElements;
                        p.unionDensity
                            = GenerateSparsity(p.workers, blocks, p.density, where, p.config.seed)
                                  .UnionDensity();
                    }
                }
                const Point& ring = points[first];
                const Point& sml = points[first + 1];
                double groupWall
                    = std::chrono::duration<double>(std::chrono::steady_clock::now() - groupStart)
                          .count();
                bool lossy = lossRate > 0;
                bool checking = base.functional;
                std::printf("\n# %s, N = %u workers, A = %u aggregators (%s)\n",
                            ring.rate.c_str(),
                            ring.workers,
                            ring.aggregators,
                            base.aggregatorPlacement.c_str());
                std::printf("# ring %.3f ms (model %.3f), switchml %.3f ms (model %.3f); "
                            "ring/switchml %.3f, 2(N-1)/N = %.3f\n",
                            ring.row.time * 1e3,
                            ring.row.predicted * 1e3,
                            sml.row.time * 1e3,
                            sml.row.predicted * 1e3,
                            ring.row.time / sml.row.time,
                            2.0 * (ring.workers - 1) / ring.workers);
                std::printf("#%8s %8s %15s %9s %12s %10s %12s",
                            "density",
                            "d_union",
                            "omnireduce(ms)",
                            "ring(ms)",
                            "switchml(ms)",
                            "x ring",
                            "model(ms)");
                if (lossy)
                {
                    std::printf(" %8s", "retx");
                }
                if (checking)
                {
                    std::printf(" %6s", "check");
                }
                std::printf("\n");
                for (std::size_t i = first + 2; i < end; ++i)
                {
                    const Point& p = points[i];
                    std::printf(" %8g %8.4f %15.3f %9.3f %12.3f %10.2f %12.3f",
                                p.density,
                                p.unionDensity,
                                p.row.time * 1e3,
                                ring.row.time * 1e3,
                                sml.row.time * 1e3,
                                ring.row.time / p.row.time,
                                p.row.predicted * 1e3);
                    if (lossy)
                    {
                        std::printf(" %8llu",
                                    static_cast<unsigned long long>(p.row.retransmissions));
                    }
                    if (checking)
                    {
                        std::printf(" %6s", p.row.checked ? (p.row.correct ? "ok" : "WRONG") : "-");
                    }
                    std::printf("\n");
                }
                if (lossy || checking)
                {
                    std::printf("# ring: %s%s; switchml: %llu retransmissions%s\n",
                                lossy ? "lossy fabric, endpoint retransmission" : "lossless",
                                checking ? (ring.row.correct ? ", check ok" : ", check WRONG") : "",
                                static_cast<unsigned long long>(sml.row.retransmissions),
                                checking ? (sml.row.correct ? ", check ok" : ", check WRONG") : "");
                }
                std::printf("# %.1f s wall\n", groupWall);
                std::fflush(stdout);
                first = end;
            }

            // sparse-allreduce.csv: one row per simulation
            MakeResultsDir(results);
            std::string csvPath = results + "/sparse-allreduce.csv";
            std::ofstream csv(csvPath);
            if (!csv)
            {
                throw std::runtime_error("cannot write " + csvPath);
            }
            csv << "rate,rate_bps,workers,aggregators,aggregator_placement,placement,algorithm,"
                   "density,union_density,bytes,block_elements,message_blocks,loss_rate,time_s,"
                   "predicted_s,speedup_over_ring,packets,retransmissions,bytes_up_per_worker,"
                   "bytes_down_per_worker,aggregator_utilisation,checked,correct,max_error\n";
            std::map<std::pair<std::string, uint32_t>, double> ringTime;
            for (const auto& p : points)
            {
                if (p.algorithm == "ring")
                {
                    ringTime[{p.rate, p.workers}] = p.row.time;
                }
            }
            for (const auto& p : points)
            {
                bool sparse = p.algorithm == "omnireduce";
                csv << p.rate << ',' << dlnet::ParseRate("rates", p.rate).GetBitRate() << ','
                    << p.workers << ',' << p.aggregators << ',' << p.config.aggregatorPlacement
                    << ',' << p.config.sparsityPlacement << ',' << p.algorithm << ','
                    << (sparse ? ExactText(p.density) : "") << ','
                    << (sparse ? ExactText(p.unionDensity) : "") << ',' << bytes << ','
                    << p.config.blockElements << ',' << p.config.messageBlocks << ','
                    << ExactText(lossRate) << ',' << ExactText(p.row.time) << ','
                    << ExactText(p.row.predicted) << ','
                    << ExactText(ringTime[{p.rate, p.workers}] / p.row.time) << ',' << p.row.packets
                    << ',' << p.row.retransmissions << ',' << ExactText(p.row.bytesUp) << ','
                    << ExactText(p.row.bytesDown) << ',' << ExactText(p.row.aggregatorUtilisation)
                    << ',' << p.row.checked << ',' << p.row.correct << ','
                    << ExactText(p.row.maxError) << '\n';
            }
            csv.close();
            std::printf("\nresults: %s\n", csvPath.c_str());

            // one plot per rate: time against density; omnireduce per N, ring
            // and switchml flat (they send the dense tensor)
            const char* colours[] = {"#1f77b4",
                                     "#d62728",
                                     "#2ca02c",
                                     "#9467bd",
                                     "#ff7f0e",
                                     "#8c564b",
                                     "#e377c2",
                                     "#17becf"};
            double dmin = *std::min_element(ds.begin(), ds.end());
            double dmax = *std::max_element(ds.begin(), ds.end());
            bool logX = dmin > 0 && dmax > dmin;
            for (const auto& rate : rs)
            {
                // switchml is flat in N: one black line when every N gives the same time
                double smlLo = INFINITY;
                double smlHi = 0;
                for (const auto& p : points)
                {
                    if (p.rate == rate && p.algorithm == "switchml")
                    {
                        smlLo = std::min(smlLo, p.row.time);
                        smlHi = std::max(smlHi, p.row.time);
                    }
                }
                bool oneSwitchml = ns.size() > 1 && smlHi <= smlLo * 1.005;
                Gnuplot plot;
                std::string who
                    = base.aggregatorPlacement == "switch"
                          ? "aggregation in the switch"
                          : (base.aggregators ? "A = " + std::to_string(base.aggregators) : "A = N")
                                + (base.aggregatorPlacement == "servers"
                                       ? " aggregator servers"
                                       : " aggregators on the workers");
                plot.SetTitle("AllReduce of " + tensor + " float32, star at " + rate + ", "
                              + ToString(where) + " placement, " + who);
                plot.SetLegend("block density d (non-zero blocks per worker)", "time (ms)");
                std::string extra = "set grid\nset key outside right top\nset logscale y\n";
                if (logX)
                {
                    extra += "set logscale x\nset xrange [" + ExactText(dmin / 1.25) + ":"
                             + ExactText(dmax * 1.25) + "]\n";
                }
                plot.AppendExtra(extra);
                double x0 = logX ? dmin / 1.25 : dmin;
                double x1 = logX ? dmax * 1.25 : dmax;
                for (std::size_t k = 0; k < ns.size(); ++k)
                {
                    uint32_t n = ns[k];
                    std::string colour = colours[k % 8];
                    Gnuplot2dDataset omni("omnireduce N=" + std::to_string(n));
                    omni.SetStyle(Gnuplot2dDataset::LINES_POINTS);
                    omni.SetExtra("lc rgb '" + colour + "' lw 2 pt 7");
                    Gnuplot2dDataset model("model N=" + std::to_string(n));
                    model.SetStyle(Gnuplot2dDataset::LINES);
                    model.SetExtra("lc rgb '" + colour + "' lw 1 dt 3");
                    Gnuplot2dDataset ringLine("ring N=" + std::to_string(n));
                    ringLine.SetStyle(Gnuplot2dDataset::LINES);
                    ringLine.SetExtra("lc rgb '" + colour + "' lw 2 dt 2");
                    Gnuplot2dDataset smlLine("switchml N=" + std::to_string(n));
                    smlLine.SetStyle(Gnuplot2dDataset::LINES);
                    smlLine.SetExtra("lc rgb '" + colour + "' lw 2 dt 4");
                    std::vector<std::pair<double, double>> omniPoints;
                    std::vector<std::pair<double, double>> modelPoints;
                    for (const auto& p : points)
                    {
                        if (p.rate != rate || p.workers != n)
                        {
                            continue;
                        }
                        if (p.algorithm == "ring")
                        {
                            ringLine.Add(x0, p.row.time * 1e3);
                            ringLine.Add(x1, p.row.time * 1e3);
                        }
                        else if (p.algorithm == "switchml")
                        {
                            smlLine.Add(x0, p.row.time * 1e3);
                            smlLine.Add(x1, p.row.time * 1e3);
                        }
                        else
                        {
                            omniPoints.emplace_back(p.density, p.row.time * 1e3);
                            modelPoints.emplace_back(p.density, p.row.predicted * 1e3);
                        }
                    }
                    std::sort(omniPoints.begin(), omniPoints.end());
                    std::sort(modelPoints.begin(), modelPoints.end());
                    for (const auto& [x, y] : omniPoints)
                    {
                        if (!logX || x > 0)
                        {
                            omni.Add(x, y);
                        }
                    }
                    for (const auto& [x, y] : modelPoints)
                    {
                        if (!logX || x > 0)
                        {
                            model.Add(x, y);
                        }
                    }
                    plot.AddDataset(omni);
                    plot.AddDataset(model);
                    plot.AddDataset(ringLine);
                    if (!oneSwitchml)
                    {
                        plot.AddDataset(smlLine);
                    }
                }
                if (oneSwitchml)
                {
                    Gnuplot2dDataset smlLine("switchml, every N");
                    smlLine.SetStyle(Gnuplot2dDataset::LINES);
                    smlLine.SetExtra("lc rgb 'black' lw 2 dt 4");
                    smlLine.Add(x0, smlHi * 1e3);
                    smlLine.Add(x1, smlHi * 1e3);
                    plot.AddDataset(smlLine);
                }
                std::string png = results + "/time-vs-density-" + FileSafe(rate) + ".png";
                if (RenderPng(plot, png))
                {
                    std::printf("plot:    %s\n", png.c_str());
                }
            }
            double wall
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart)
                      .count();
            std::printf("# %zu simulations, %llu events in %.1f s wall\n",
                        points.size(),
                        static_cast<unsigned long long>(events),
                        wall);
            if (wrong)
            {
                std::fprintf(stderr, "error: a functional check found a wrong result\n");
                return 1;
            }
            return 0;
        });
}
