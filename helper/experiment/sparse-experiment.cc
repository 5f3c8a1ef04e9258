/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "sparse-experiment.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/sparsity.h"
#include "ns3/topology.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetSparseExperiment");

namespace
{

// Defaults of the sweep, and those quick puts in their place.
const std::string kTensor = "100MiB";
const std::string kDensities = "1.0,0.8,0.4,0.2,0.1,0.08,0.04,0.02,0.01";
const std::string kWorkers = "2,4,8";
const std::string kRates = "10Gbps,100Gbps";
const std::string kQuickTensor = "16MiB";
const std::string kQuickDensities = "1,0.1,0.01";
const std::string kQuickWorkers = "8";
const std::string kQuickRates = "100Gbps";

/// The collective options the benchmark takes (a name the table lacks is skipped).
const std::vector<std::string> kCollectiveOptions = {"link-delay",
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
                                                     "run",
                                                     "network"};

uint64_t
TensorBytesOf(const std::string& text)
{
    uint64_t bytes = dlnet::ParseBytes("tensor-bytes", text, 1, MAX_COLLECTIVE_BYTES);
    if (bytes % 4 != 0)
    {
        throw std::invalid_argument("tensor-bytes: " + std::to_string(bytes)
                                    + " is not a whole number of 4-byte float32 elements");
    }
    return bytes;
}

std::vector<double>
DensitiesOf(const std::string& text)
{
    std::vector<double> ds;
    for (const auto& d : dlnet::ParseList("densities", text))
    {
        ds.push_back(dlnet::ParseReal("densities", d, 0, 1));
    }
    return ds;
}

std::vector<uint32_t>
WorkersOf(const std::string& text)
{
    std::vector<uint32_t> ns;
    for (const auto& n : dlnet::ParseList("workers", text))
    {
        ns.push_back(static_cast<uint32_t>(dlnet::ParseUnsigned("workers", n, 2, 32768)));
    }
    return ns;
}

std::vector<std::string>
RatesOf(const std::string& text)
{
    std::vector<std::string> rs = dlnet::ParseList("rates", text);
    for (const auto& r : rs)
    {
        dlnet::ParseRate("rates", r);
    }
    return rs;
}

/// A list option: parsed (and so checked) when set, kept as text.
ExperimentOption<SparseConfig>
ListOption(const std::string& name,
           const std::string& help,
           std::string SparseConfig::*member,
           std::function<void(const std::string&)> check,
           std::string (SparseConfig::*resolved)() const)
{
    return {name,
            help,
            [member, check](SparseConfig& c, const std::string& v)
            {
                check(v);
                c.*member = v;
            },
            [resolved](const SparseConfig& c)
            {
                return (c.*resolved)();
            }};
}

/// A flag that may be given bare (--quick) or with a value (--quick=false).
ExperimentOption<SparseConfig>
FlagOption(const std::string& name,
           const std::string& help,
           std::function<bool&(SparseConfig&)> field,
           std::function<bool(const SparseConfig&)> value)
{
    return {name,
            help,
            [name, field](SparseConfig& c, const std::string& v)
            {
                field(c) = v.empty() || dlnet::ParseBool(name, v);
            },
            [value](const SparseConfig& c)
            {
                return std::string(value(c) ? "true" : "false");
            },
            "bool"};
}

/// One simulation of the sweep, before it runs.
struct Point
{
    SparseRow row;
    CollectiveConfig config;
};

/// Every point, in run order: per rate, per N: ring, switchml, omnireduce per density.
std::vector<Point>
PointsOf(const SparseConfig& s)
{
    const CollectiveConfig& base = s.base;
    uint64_t bytes = s.TensorBytes();
    std::vector<double> ds = s.Densities();
    std::vector<uint32_t> ns = s.Workers();
    std::vector<std::string> rs = s.Rates();
    SparsityPlacement where = ParseSparsityPlacement("placement", s.placement);
    std::vector<Point> points;
    for (const auto& rate : rs)
    {
        for (uint32_t n : ns)
        {
            uint32_t a = base.aggregatorPlacement == "switch"
                             ? 1
                             : (base.aggregators ? base.aggregators : n);
            CollectiveConfig c = base;
            c.ns3Attributes = s.ns3Attributes;
            c.given.clear();    // the sweep runs every algorithm with the same settings
            c.estimate = false; // (the sweep reports none, and a ring's takes memory in ranks^2)
            c.topology.kind = "star";
            c.topology.hosts = n + std::max(n, a);
            c.topology.hostLinkRate = rate;
            if (s.loss > 0)
            {
                c.topology.flowControl = "lossy";
                c.topology.lossRate = s.loss;
            }
            c.op = "allreduce";
            c.type = "fp32";
            c.minBytes = bytes;
            c.maxBytes = bytes;
            c.ranks = "0-" + std::to_string(n - 1);
            c.sparsityPlacement = ToString(where);
            Point p;
            p.row.rate = rate;
            p.row.rateBps = dlnet::ParseRate("rates", rate).GetBitRate();
            p.row.workers = n;
            p.row.aggregators = a;
            p.row.aggregatorPlacement = base.aggregatorPlacement;
            p.row.placement = c.sparsityPlacement;
            p.row.bytes = bytes;
            p.row.blockElements = base.blockElements;
            p.row.messageBlocks = base.messageBlocks;
            p.row.lossRate = s.loss;
            p.config = c;
            for (std::string alg : {"ring", "switchml"})
            {
                Point q = p;
                q.row.algorithm = alg;
                q.config.algorithm = alg;
                points.push_back(q);
            }
            for (double d : ds)
            {
                Point q = p;
                q.row.algorithm = "omnireduce";
                q.row.density = d;
                q.config.algorithm = "omnireduce";
                q.config.density = d;
                if (d >= 1)
                {
                    // every block is sent: no placement (a run refuses one)
                    q.config.sparsityPlacement = CollectiveConfig().sparsityPlacement;
                }
                points.push_back(q);
            }
        }
    }
    return points;
}

} // namespace

CollectiveConfig
SparseConfig::DefaultBase()
{
    CollectiveConfig base;
    base.topology.mtu = 9000; // jumbo frames: fused OmniReduce packets fit
    return base;
}

std::string
SparseConfig::TensorText() const
{
    return !tensorBytes.empty() ? tensorBytes : (quick ? kQuickTensor : kTensor);
}

std::string
SparseConfig::DensitiesText() const
{
    return !densities.empty() ? densities : (quick ? kQuickDensities : kDensities);
}

std::string
SparseConfig::WorkersText() const
{
    return !workers.empty() ? workers : (quick ? kQuickWorkers : kWorkers);
}

std::string
SparseConfig::RatesText() const
{
    return !rates.empty() ? rates : (quick ? kQuickRates : kRates);
}

uint64_t
SparseConfig::TensorBytes() const
{
    return TensorBytesOf(TensorText());
}

std::vector<double>
SparseConfig::Densities() const
{
    return DensitiesOf(DensitiesText());
}

std::vector<uint32_t>
SparseConfig::Workers() const
{
    return WorkersOf(WorkersText());
}

std::vector<std::string>
SparseConfig::Rates() const
{
    return RatesOf(RatesText());
}

void
SparseConfig::Validate() const
{
    if (!(loss >= 0 && loss < 1))
    {
        throw std::invalid_argument("loss: got " + std::to_string(loss)
                                    + "; expected a number from 0 to below 1");
    }
    if (base.topology.network == "flow" && loss > 0)
    {
        // the topology's message names flow-control, which this sweep sets from loss
        throw std::invalid_argument("loss: got " + dlnet::ShortestText(loss)
                                    + "; network=flow models lossless fabrics only (no "
                                      "drops, no retransmission): use network=packet, or "
                                      "loss 0");
    }
    for (const auto& p : PointsOf(*this))
    {
        // the collective's messages name its own options (max-bytes); a sweep's are these
        if (p.config.functional)
        {
            CheckFunctionalBytes("tensor-bytes", p.row.bytes, p.row.workers);
        }
        if (p.row.algorithm == "omnireduce")
        {
            CheckSparsitySize("tensor-bytes", p.row.bytes, p.row.blockElements, p.row.workers);
        }
        if (p.config.topology.hosts > MAX_RANKS)
        {
            // the sweep builds a star of both; workers are at most 32768, so only the
            // aggregators can make it too large
            throw std::invalid_argument(
                "aggregators: " + std::to_string(p.row.aggregators) + " aggregators beside "
                + std::to_string(p.row.workers) + " workers make a star of "
                + std::to_string(p.config.topology.hosts) + " hosts; at most "
                + std::to_string(MAX_RANKS) + " (aggregators at most "
                + std::to_string(MAX_RANKS - p.row.workers) + " with these workers)");
        }
        p.config.Validate();
    }
}

const std::vector<ExperimentOption<SparseConfig>>&
SparseOptions()
{
    static const std::vector<ExperimentOption<SparseConfig>> options = []()
    {
        std::vector<ExperimentOption<SparseConfig>> out;
        // The collective options that make sense here, applied to the base config.
        for (const auto& o : CollectiveOptions())
        {
            if (std::find(kCollectiveOptions.begin(), kCollectiveOptions.end(), o.name)
                == kCollectiveOptions.end())
            {
                continue;
            }
            out.push_back({o.name,
                           o.help,
                           [set = o.set](SparseConfig& c, const std::string& v)
                           {
                               set(c.base, v);
                           },
                           [get = o.get](const SparseConfig& c)
                           {
                               return get(c.base);
                           }});
        }
        out.push_back(ListOption(
            "tensor-bytes",
            "float32 tensor to all-reduce, e.g. 100MiB",
            &SparseConfig::tensorBytes,
            [](const std::string& v)
            {
                TensorBytesOf(v);
            },
            &SparseConfig::TensorText));
        out.push_back(ListOption(
            "densities",
            "omnireduce: comma-separated block densities (fraction of each worker's blocks "
            "that are non-zero)",
            &SparseConfig::densities,
            [](const std::string& v)
            {
                DensitiesOf(v);
            },
            &SparseConfig::DensitiesText));
        out.push_back(ListOption(
            "workers",
            "comma-separated worker counts N (at least 2 each)",
            &SparseConfig::workers,
            [](const std::string& v)
            {
                WorkersOf(v);
            },
            &SparseConfig::WorkersText));
        out.push_back(ListOption(
            "rates",
            "comma-separated link rates, e.g. 10Gbps,100Gbps",
            &SparseConfig::rates,
            [](const std::string& v)
            {
                RatesOf(v);
            },
            &SparseConfig::RatesText));
        out.push_back({"placement",
                       "where each worker's non-zero blocks lie: random (independent per "
                       "worker), overlap (the same blocks) or disjoint",
                       [](SparseConfig& c, const std::string& v)
                       {
                           c.placement = ToString(ParseSparsityPlacement("placement", v));
                       },
                       [](const SparseConfig& c)
                       {
                           return c.placement;
                       }});
        out.push_back({"loss",
                       "packet loss rate; above 0 the fabric is lossy (drop-tail, every "
                       "receiver drops with this probability)",
                       [](SparseConfig& c, const std::string& v)
                       {
                           c.loss = dlnet::ParseReal("loss", v, 0, 1, true);
                       },
                       [](const SparseConfig& c)
                       {
                           std::ostringstream os;
                           os << c.loss;
                           return os.str();
                       }});
        out.push_back(FlagOption(
            "quick",
            "demo sweep: 16MiB, densities 1,0.1,0.01, 8 workers, 100Gbps (options given "
            "explicitly still win)",
            [](SparseConfig& c) -> bool&
            {
                return c.quick;
            },
            [](const SparseConfig& c)
            {
                return c.quick;
            }));
        out.push_back(FlagOption(
            "functional",
            "carry real float32 tensors and check every worker's result (--functional alone "
            "means true; keeps N tensors in memory: use a small --tensor-bytes)",
            [](SparseConfig& c) -> bool&
            {
                return c.base.functional;
            },
            [](const SparseConfig& c)
            {
                return c.base.functional;
            }));
        return out;
    }();
    return options;
}

SparseResult
RunSparse(const SparseConfig& config, const SparseProgress& progress)
{
    auto wallStart = std::chrono::steady_clock::now();
    config.Validate();
    std::vector<Point> points = PointsOf(config);
    SparsityPlacement where = ParseSparsityPlacement("placement", config.placement);
    uint64_t bytes = config.TensorBytes();
    std::size_t groupSize = 2 + config.Densities().size();
    SparseResult result;
    for (std::size_t first = 0; first < points.size(); first += groupSize)
    {
        // one (rate, N) group: ring, switchml, then omnireduce per density
        auto groupStart = std::chrono::steady_clock::now();
        std::vector<SparseRow> group;
        for (std::size_t i = first; i < first + groupSize; ++i)
        {
            SparseRow row = points[i].row;
            row.run = RunCollective(points[i].config).rows.at(0);
            if (row.algorithm == "omnireduce")
            {
                // (the blocks the run sent: a last partial one padded)
                uint64_t blocks = SparsityBlocks(bytes, points[i].config.blockElements);
                row.unionDensity
                    = GenerateSparsity(row.workers, blocks, row.density, where, config.base.seed)
                          .UnionDensity();
            }
            group.push_back(row);
        }
        for (auto& row : group)
        {
            row.speedupOverRing = group.front().run.time / row.run.time;
        }
        result.rows.insert(result.rows.end(), group.begin(), group.end());
        if (progress)
        {
            progress(group,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - groupStart)
                         .count());
        }
    }
    result.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

} // namespace ns3
