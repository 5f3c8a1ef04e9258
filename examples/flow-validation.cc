/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The flow-level network against packet level: every case of a matrix of
// topologies x algorithms x operations x buffer sizes is run twice, once per
// network model, and the two completion times are compared. Writes
// flow-validation.csv, a Markdown table of them (flow-validation.md)
// and deviation.png (flow / packet - 1 against the buffer size) under
// --results; prints a line per run as it goes.
//
//   ./dlnet run flow-validation -- --results=results/flow-validation
//   ./dlnet run flow-validation -- --set=small --results=results/flow-small
//   ./dlnet run flow-validation -- --filter=leaf-spine-1:1-ecmp --sizes=64MiB
//
// --set=agreement (default): buffers of 1 MiB and above (1, 16, 64 MiB);
// --set=small: latency-bound sizes (1 KiB to 256 KiB); --set=scale: 2 and 64
// ranks. --sizes overrides the set's sizes (--sizes=set, the default: the
// set's), --filter keeps the cases whose name contains the text,
// --algorithms and --ops restrict those;
// --rx-buffer-bytes=256MiB gives packet level credits that never run out
// (the diagnosis of doc/flow-network.md: credit back-pressure). Every run is
// validated before the first: an algorithm that does not apply to a case
// (NotApplicable: hierarchical on a star) prints an "n/a" line, while a bad
// value of these options (a size, rx-buffer-bytes) is an error (exit 2).
// --ns3::Type::Attribute=value flags go to both runs of every case, e.g.
// --ns3::FlowNetwork::SourceLockStep=true (flow level only, by its type).

#include "ns3/dlnet-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// A topology of the matrix and what runs on it.
struct Case
{
    std::string name;
    TopologyConfig topology;
    std::vector<std::string> ops; //!< the operations beyond allreduce run here
};

TopologyConfig
Kind(const std::string& kind)
{
    TopologyConfig t;
    t.kind = kind;
    return t;
}

/// A mesh or torus of rows x cols
TopologyConfig
Grid(const std::string& kind, uint32_t rows, uint32_t cols)
{
    TopologyConfig t = Kind(kind);
    t.rows = rows;
    t.cols = cols;
    return t;
}

/// GPU servers (rail-optimised or gpu-leaf-spine)
TopologyConfig
Servers(const std::string& kind, uint32_t servers, uint32_t gpus)
{
    TopologyConfig t = Kind(kind);
    t.servers = servers;
    t.gpusPerServer = gpus;
    return t;
}

/// \return the topologies of a set
std::vector<Case>
Cases(const std::string& set)
{
    std::vector<Case> cases;
    const std::vector<std::string> moreOps = {"reducescatter", "allgather", "alltoall"};
    if (set == "agreement" || set == "small")
    {
        TopologyConfig star = Kind("star");
        star.hosts = 8;
        cases.push_back({"star-8", star, {}});
        for (double over : {1.0, 2.0})
        {
            for (std::string lb : {"flow", "packet"})
            {
                TopologyConfig ls = Kind("leaf-spine");
                ls.leaves = 4;
                ls.hostsPerLeaf = 4;
                ls.spines = 2;
                ls.oversubscription = over;
                ls.loadBalancing = lb;
                std::string name = std::string("leaf-spine-") + (over == 1 ? "1:1" : "2:1") + "-"
                                   + (lb == "flow" ? "ecmp" : "spray");
                cases.push_back(
                    {name, ls, over == 1 && lb == "flow" ? moreOps : std::vector<std::string>{}});
            }
        }
        cases.push_back({"mesh-4x4", Grid("mesh", 4, 4), {}});
        cases.push_back({"torus-4x4", Grid("torus", 4, 4), moreOps});
        TopologyConfig fat = Kind("fat-tree");
        fat.k = 4;
        cases.push_back({"fat-tree-k4", fat, {}});
        TopologyConfig fly = Kind("dragonfly");
        fly.routersPerGroup = 2;
        fly.hostsPerRouter = 2;
        fly.globalLinksPerRouter = 2;
        fly.groups = 4;
        cases.push_back({"dragonfly-16", fly, {}});
        cases.push_back({"rail-optimised-2x8", Servers("rail-optimised", 2, 8), moreOps});
        TopologyConfig gls = Servers("gpu-leaf-spine", 4, 4);
        gls.serversPerLeaf = 2;
        cases.push_back({"gpu-leaf-spine-4x4", gls, {}});
    }
    else if (set == "scale")
    {
        TopologyConfig two = Kind("star");
        two.hosts = 2;
        cases.push_back({"star-2", two, {}});
        TopologyConfig big = Kind("leaf-spine");
        big.leaves = 8;
        big.hostsPerLeaf = 8;
        big.spines = 4;
        cases.push_back({"leaf-spine-8x8-1:1-ecmp", big, {}});
        cases.push_back({"rail-optimised-8x8", Servers("rail-optimised", 8, 8), {}});
    }
    else
    {
        throw std::invalid_argument("set: got '" + set + "'; expected agreement, small or scale");
    }
    return cases;
}

std::vector<uint64_t>
DefaultSizes(const std::string& set)
{
    if (set == "small")
    {
        return {1 << 10, 16 << 10, 256 << 10};
    }
    if (set == "scale")
    {
        return {1 << 20, 64 << 20};
    }
    return {1 << 20, 16 << 20, 64 << 20};
}

/// One row of the table: a case, an operation and an algorithm over the sizes
struct Row
{
    const Case* kase;                      //!< the topology
    std::string op;                        //!< the operation
    std::string algorithm;                 //!< the algorithm
    std::vector<CollectiveConfig> configs; //!< the sizes that run, validated
    uint64_t notApplicableBytes;           //!< the size that does not apply (0: none)
    std::string notApplicable;             //!< why not (NotApplicable's message), or ""
};

struct Measured
{
    double time{0};
    double wall{0};
    uint64_t events{0};
};

Measured
RunOne(CollectiveConfig c, const std::string& network)
{
    c.topology.network = network;
    if (network == "flow")
    {
        c.topology.rxBufferBytes = 0; // the packet level's credits: none at flow level
    }
    auto start = std::chrono::steady_clock::now();
    CollectiveResult r = RunCollective(c);
    Measured m;
    m.time = r.rows.at(0).time;
    m.events = r.rows.at(0).events;
    m.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return m;
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            std::string results = "results/flow-validation";
            std::string set = "agreement";
            // "set": the set's sizes; an explicit empty --sizes= is then an error, not the default
            std::string sizesText = "set";
            std::string filter;
            std::string algorithmsText = "ring,direct,halving-doubling,double-binary-tree,"
                                         "hierarchical,hierarchical-local-bw-aware";
            std::string opsText = "allreduce,reducescatter,allgather,alltoall";
            std::string rxBuffer = "0";
            Ns3Attributes attributes;
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddNs3Attributes(attributes);
            cmd.AddValue("results", "folder for flow-validation.csv and deviation.png", results);
            cmd.AddValue("set", "agreement (1 MiB and up), small (latency-bound) or scale", set);
            cmd.AddValue("sizes", "buffer sizes, e.g. 1MiB,64MiB, or set: the set's", sizesText);
            cmd.AddValue("filter", "run only the cases whose name contains this", filter);
            cmd.AddValue("algorithms", "algorithms to run where they apply", algorithmsText);
            cmd.AddValue("ops",
                         "operations: allreduce everywhere, the others on the cases that "
                         "list them",
                         opsText);
            cmd.AddValue("rx-buffer-bytes",
                         "lossless credits per queue at packet level, e.g. 256MiB so that they "
                         "never run out (0: the topology's default, from the bandwidth-delay "
                         "product)",
                         rxBuffer);
            cmd.Parse(argc, argv);
            // its range is the fabric's (TopologyConfig::ValidateFabric), checked with each case
            uint64_t rxBufferBytes = dlnet::ParseBytes("rx-buffer-bytes", rxBuffer, 0);
            std::vector<Case> cases = Cases(set);
            std::vector<uint64_t> sizes = DefaultSizes(set);
            if (sizesText.empty())
            {
                throw std::invalid_argument("sizes: got ''; expected a comma-separated list of "
                                            "sizes (e.g. 1MiB,64MiB) or set (the set's sizes)");
            }
            if (sizesText != "set")
            {
                sizes.clear();
                for (const auto& s : dlnet::ParseList("sizes", sizesText))
                {
                    sizes.push_back(dlnet::ParseBytes("sizes", s, 1, MAX_COLLECTIVE_BYTES));
                    CheckElementBytes("sizes", sizes.back(), CollectiveConfig().type);
                }
            }
            std::vector<std::string> algorithms
                = dlnet::ParseList("algorithms", algorithmsText, CollectiveRegistry::Names());
            const std::vector<std::string> validatedOps
                = {"allreduce", "reducescatter", "allgather", "alltoall"};
            std::vector<std::string> ops = dlnet::ParseList("ops", opsText, validatedOps);
            // the cases the filter and the operations leave: none is an error, not an empty
            // table (an unknown filter, or --ops=alltoall on a case that does not list it)
            std::vector<std::string> names;
            std::size_t runnable = 0;
            for (const auto& k : cases)
            {
                names.push_back(k.name);
                if (!filter.empty() && k.name.find(filter) == std::string::npos)
                {
                    continue;
                }
                for (const auto& op : ops)
                {
                    runnable += op == "allreduce"
                                || std::find(k.ops.begin(), k.ops.end(), op) != k.ops.end();
                }
            }
            if (runnable == 0)
            {
                throw std::invalid_argument(
                    "filter: '" + dlnet::PrintableText(filter) + "' with ops '" + opsText
                    + "' leaves no case of the " + set + " set to run (cases: "
                    + dlnet::JoinChoices(names) + "; allreduce runs on every case)");
            }
            // Every run of the matrix, validated before any runs: a bad value of the user's
            // own options (sizes, rx-buffer-bytes) is an error (exit 2) here, while an
            // algorithm that does not apply to a case (NotApplicable: hierarchical on a star)
            // makes an "n/a" line and ends that row's sizes.
            std::vector<Row> rows;
            std::string firstNotApplicable;
            for (const auto& k : cases)
            {
                if (!filter.empty() && k.name.find(filter) == std::string::npos)
                {
                    continue;
                }
                for (const auto& op : ops)
                {
                    if (op != "allreduce"
                        && std::find(k.ops.begin(), k.ops.end(), op) == k.ops.end())
                    {
                        continue;
                    }
                    for (const auto& alg : algorithms)
                    {
                        Row row{&k, op, alg, {}, 0, ""};
                        for (uint64_t bytes : sizes)
                        {
                            CollectiveConfig c;
                            c.topology = k.topology;
                            c.topology.rxBufferBytes = rxBufferBytes;
                            c.ns3Attributes = attributes;
                            c.op = op;
                            c.algorithm = alg;
                            c.minBytes = bytes;
                            c.maxBytes = bytes;
                            if (op == "alltoall")
                            {
                                // the user's size, not this case's fault: an error naming
                                // this program's option (the engine's says "bytes")
                                CheckAllToAllBytes(
                                    "sizes",
                                    bytes,
                                    c.type,
                                    ParseCommunicator(c.ranks,
                                                      MakeTopology(c.topology)->GetNRanks())
                                        .GetSize());
                            }
                            try
                            {
                                c.Validate();
                            }
                            catch (const NotApplicable& e)
                            {
                                row.notApplicableBytes = bytes;
                                row.notApplicable = e.what();
                                if (firstNotApplicable.empty())
                                {
                                    firstNotApplicable = k.name + ": " + e.what();
                                }
                                break;
                            }
                            row.configs.push_back(c);
                        }
                        rows.push_back(row);
                    }
                }
            }
            if (std::none_of(rows.begin(),
                             rows.end(),
                             [](const Row& r)
                             {
                                 return !r.configs.empty();
                             }))
            {
                throw std::invalid_argument("algorithms: none of '" + algorithmsText
                                            + "' applies to the cases chosen (" + firstNotApplicable
                                            + "); the table would be empty");
            }
            CheckResultsDir("results", results);
            // the files are written once every run is done: a value that only a run can
            // refuse (an ns-3 attribute's, beyond the clock) leaves no folder behind
            std::ostringstream csv;
            // a Markdown table, one row per case and one column per size
            // (doc/flow-network.md quotes it), below the ns-3 attributes both levels took
            std::ostringstream md;
            for (const auto& [source, given] :
                 {std::make_pair("NS_ATTRIBUTE_DEFAULT ", EnvironmentNs3Attributes()),
                  std::make_pair("--", attributes)})
            {
                for (const auto& [name, value] : given)
                {
                    const std::string setting = source + name + '=' + value;
                    md << "Both levels with " << setting << ".\n\n";
                    std::printf("# both levels with %s\n", setting.c_str());
                }
            }
            if (*std::max_element(sizes.begin(), sizes.end()) > (uint64_t(4) << 30))
            {
                // a row prints when its packet-level runs end (a fuzzing run saw nothing for
                // minutes at 1 TiB)
                std::printf("(packet level simulates every packet: a ring of 4 GiB on the star of "
                            "8 took 19 s on a 2-core machine, and the time grows with the bytes, "
                            "ranks and hops)\n");
                std::fflush(stdout);
            }
            md << "| case | ranks | op | algorithm |";
            for (uint64_t bytes : sizes)
            {
                md << ' ' << SizeLabel(bytes) << ": packet / flow (us), deviation |";
            }
            md << "\n|---|---:|---|---|";
            for (std::size_t i = 0; i < sizes.size(); ++i)
            {
                md << "---:|";
            }
            md << '\n';
            csv << "case,topology,ranks,op,algorithm,bytes,packet_s,flow_s,deviation,"
                   "packet_wall_s,flow_wall_s,packet_events,flow_events\n";
            std::printf("%-24s %5s %-13s %-27s %9s %14s %14s %9s %8s %8s\n",
                        "case",
                        "ranks",
                        "op",
                        "algorithm",
                        "bytes",
                        "packet (us)",
                        "flow (us)",
                        "dev (%)",
                        "wall p",
                        "wall f");
            std::map<std::string, Gnuplot2dDataset> byAlgorithm;
            for (const auto& row : rows)
            {
                const Case& k = *row.kase;
                uint32_t ranks = k.topology.GetNRanks();
                std::string mdRow;
                for (const auto& c : row.configs)
                {
                    uint64_t bytes = c.minBytes;
                    Measured p = RunOne(c, "packet");
                    Measured f = RunOne(c, "flow");
                    double dev = f.time / p.time - 1;
                    std::printf("%-24s %5u %-13s %-27s %9s %14.3f %14.3f %+9.3f %8.2f "
                                "%8.2f\n",
                                k.name.c_str(),
                                ranks,
                                row.op.c_str(),
                                row.algorithm.c_str(),
                                SizeLabel(bytes).c_str(),
                                p.time * 1e6,
                                f.time * 1e6,
                                dev * 100,
                                p.wall,
                                f.wall);
                    std::fflush(stdout);
                    csv << k.name << ',' << k.topology.kind << ',' << ranks << ',' << row.op << ','
                        << row.algorithm << ',' << bytes << ',' << ExactText(p.time) << ','
                        << ExactText(f.time) << ',' << ExactText(dev) << ',' << p.wall << ','
                        << f.wall << ',' << p.events << ',' << f.events << '\n';
                    if (mdRow.empty())
                    {
                        mdRow = "| " + k.name + " | " + std::to_string(ranks) + " | " + row.op
                                + " | " + row.algorithm + " |";
                    }
                    char cell[96];
                    std::snprintf(cell,
                                  sizeof(cell),
                                  " %.2f / %.2f, %+.2f%% |",
                                  p.time * 1e6,
                                  f.time * 1e6,
                                  dev * 100);
                    mdRow += cell;
                    auto it = byAlgorithm.find(row.algorithm);
                    if (it == byAlgorithm.end())
                    {
                        it = byAlgorithm.emplace(row.algorithm, Gnuplot2dDataset(row.algorithm))
                                 .first;
                        it->second.SetStyle(Gnuplot2dDataset::POINTS);
                    }
                    it->second.Add(double(bytes), dev * 100);
                }
                if (!row.notApplicable.empty())
                {
                    std::printf("%-24s %5u %-13s %-27s %9s n/a: %s\n",
                                k.name.c_str(),
                                ranks,
                                row.op.c_str(),
                                row.algorithm.c_str(),
                                SizeLabel(row.notApplicableBytes).c_str(),
                                row.notApplicable.c_str());
                }
                if (!mdRow.empty())
                {
                    md << mdRow << '\n';
                }
            }
            MakeResultsDir(results);
            WriteTextFile(results + "/flow-validation.csv", csv.str());
            WriteTextFile(results + "/flow-validation.md", md.str());
            Gnuplot plot;
            plot.SetTitle("Flow level against packet level (" + set + ")");
            plot.SetLegend("buffer size (bytes)", "flow / packet - 1 (%)");
            // the sizes that ran as binary-unit tics, half a step of room each side
            std::string tics = "set xtics (";
            for (std::size_t i = 0; i < sizes.size(); ++i)
            {
                tics
                    += (i ? ", \"" : "\"") + SizeLabel(sizes[i]) + "\" " + std::to_string(sizes[i]);
            }
            tics += ")\nset xrange ["
                    + std::to_string(double(*std::min_element(sizes.begin(), sizes.end())) / 2)
                    + ":"
                    + std::to_string(double(*std::max_element(sizes.begin(), sizes.end())) * 2)
                    + "]";
            plot.AppendExtra("set logscale x 2\nset grid\nset key outside right\n" + tics
                             + "\nset arrow from graph 0, first 3 to graph 1, first 3 nohead dt 2"
                               "\nset arrow from graph 0, first -3 to graph 1, first -3 nohead dt "
                               "2");
            for (auto& [alg, data] : byAlgorithm)
            {
                plot.AddDataset(data);
            }
            std::printf("\nresults: %s/flow-validation.csv, flow-validation.md\n", results.c_str());
            if (RenderPng(plot, results + "/deviation.png"))
            {
                std::printf("plot:    %s/deviation.png\n", results.c_str());
            }
            return 0;
        });
}
