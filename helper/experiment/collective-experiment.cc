/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-experiment.h"

#include "collective-timeline.h"
#include "result-writer.h"
#include "simulation-scope.h"

#include "ns3/config-parse.h"
#include "ns3/link-load-estimate.h"
#include "ns3/log.h"
#include "ns3/omnireduce-helper.h"
#include "ns3/schedule-backend.h"
#include "ns3/simulator.h"
#include "ns3/sparsity.h"
#include "ns3/string.h"
#include "ns3/time-resolution.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveExperiment");

namespace
{

/// The most sizes a sweep may have (min-bytes to max-bytes by step-factor).
constexpr double MAX_SIZES = 10000;

std::vector<uint64_t>
Sizes(const CollectiveConfig& c)
{
    std::vector<uint64_t> sizes;
    uint32_t es = ElementSize(ParseDataType("type", c.type));
    double s = double(c.minBytes);
    while (true)
    {
        uint64_t bytes = std::max<uint64_t>(es, uint64_t(std::llround(s)) / es * es);
        if (bytes > c.maxBytes)
        {
            break;
        }
        if (sizes.empty() || bytes != sizes.back())
        {
            sizes.push_back(bytes);
        }
        if (c.stepFactor <= 1 || c.minBytes == c.maxBytes)
        {
            break;
        }
        s *= c.stepFactor;
    }
    return sizes;
}

/// The registered backends, then auto.
std::vector<std::string>
AlgorithmChoices()
{
    std::vector<std::string> names = CollectiveRegistry::Names();
    names.push_back("auto");
    return names;
}

/// The options of a step schedule that shape how a rank runs its chunks.
bool
IsChunkPipelineOption(const std::string& name)
{
    return name == "chunks-in-flight" || name == "stagger-chunks";
}

/// The options every backend takes (the topology's have their own check).
bool
IsCommonCollectiveOption(const std::string& name)
{
    static const std::set<std::string> common = {"op",
                                                 "algorithm",
                                                 "type",
                                                 "min-bytes",
                                                 "max-bytes",
                                                 "step-factor",
                                                 "ranks",
                                                 "root",
                                                 "tc",
                                                 "functional",
                                                 "estimate",
                                                 "stats",
                                                 "timeline",
                                                 "seed",
                                                 "run"};
    if (common.count(name))
    {
        return true;
    }
    for (const auto& o : TopologyOptions())
    {
        if (o.name == name)
        {
            return true;
        }
    }
    return false;
}

} // namespace

Communicator
ParseCommunicator(const std::string& text, uint32_t clusterRanks)
{
    Communicator comm;
    comm.name = text.empty() ? "world" : text;
    if (text.empty())
    {
        comm = Communicator::World(clusterRanks);
        return comm;
    }
    for (const auto& item : dlnet::ParseList("ranks", text))
    {
        auto dash = item.find('-');
        if (dash == std::string::npos)
        {
            comm.ranks.push_back(dlnet::ParseUnsigned("ranks", item, 0, UINT32_MAX));
            continue;
        }
        uint64_t lo = 0;
        uint64_t hi = 0;
        try
        {
            lo = dlnet::ParseUnsigned("ranks", item.substr(0, dash), 0, UINT32_MAX);
            hi = dlnet::ParseUnsigned("ranks", item.substr(dash + 1), 0, UINT32_MAX);
        }
        catch (const std::invalid_argument&)
        {
            // (it quoted the half it could not read: '' for -3 and for 0-)
            throw std::invalid_argument("ranks: got '" + dlnet::PrintableText(item)
                                        + "'; expected a rank or a range first-last of ranks "
                                          "from 0, e.g. 0-7");
        }
        if (hi < lo)
        {
            // (it said "got '0'; expected a whole number from 1" for 1-0)
            throw std::invalid_argument("ranks: range " + dlnet::PrintableText(item)
                                        + " runs backwards; expected first-last with first <= "
                                          "last, e.g. "
                                        + std::to_string(hi) + "-" + std::to_string(lo));
        }
        if (hi - lo >= clusterRanks)
        {
            throw std::invalid_argument("ranks: range " + item + " is longer than the cluster");
        }
        for (uint64_t r = lo; r <= hi; ++r)
        {
            comm.ranks.push_back(r);
        }
    }
    comm.Validate(clusterRanks);
    return comm;
}

LibraryLatencies
LatenciesOf(const Ns3Attributes& attributes)
{
    LibraryLatencies l = CollectiveEngine::GetDefaultLatencies();
    const std::string engine = "ns3::CollectiveEngine::";
    // as SimulationScope sets them: the environment's first, the run's own after
    for (const auto& [name, value] : WithEnvironmentNs3Attributes(attributes))
    {
        double* field = name == engine + "LaunchLatency"        ? &l.launch
                        : name == engine + "StepLatency"        ? &l.step
                        : name == engine + "NetworkStepLatency" ? &l.networkStep
                                                                : nullptr;
        if (field)
        {
            CheckNs3Attribute(name, value); // (names the attribute and its range)
            dlnet::UsePicoseconds();        // as the run will: 100ps is not 0
            *field = dlnet::ParseTime(name, value).GetSeconds();
        }
    }
    return l;
}

NetworkModel
ModelOf(const TopologyConfig& config,
        const std::vector<uint32_t>& ranks,
        const LibraryLatencies& latencies)
{
    Ptr<const Topology> t = MakeTopology(config);
    NetworkModel m
        = MakeNetworkModel(*t,
                           ranks,
                           dlnet::ParseTime("switch-latency", config.switchLatency).GetSeconds(),
                           config.mtu,
                           latencies);
    return m;
}

Ptr<CollectiveBackend>
CollectiveConfig::MakeBackend(const std::string& name) const
{
    const CollectiveKind& kind = CollectiveRegistry::Get(name);
    Ptr<CollectiveBackend> backend = kind.create();
    for (const auto& [option, attribute] : kind.options)
    {
        if (attribute.empty())
        {
            continue; // a field of the request, not a setting of the backend
        }
        for (const auto& o : CollectiveOptions())
        {
            if (o.name == option
                && !backend->SetAttributeFailSafe(attribute, StringValue(o.get(*this))))
            {
                throw std::invalid_argument(option + ": got '" + o.get(*this) + "'; not a value "
                                            + name + " takes");
            }
        }
    }
    return backend;
}

void
CheckFunctionalBytes(const std::string& field, uint64_t bytes, uint32_t ranks)
{
    if (bytes > (uint64_t(1) << 31) / std::max<uint32_t>(ranks, 1))
    {
        throw std::invalid_argument(field
                                    + ": functional mode keeps each rank's buffer in memory; at "
                                      "most 2 GiB over all ranks");
    }
}

void
CheckElementBytes(const std::string& field, uint64_t bytes, const std::string& type)
{
    uint32_t es = ElementSize(ParseDataType("type", type));
    if (bytes == 0)
    {
        throw std::invalid_argument(field + ": got 0; expected at least one " + type + " element");
    }
    if (bytes % es != 0)
    {
        throw std::invalid_argument(field + ": " + std::to_string(bytes)
                                    + " is not a multiple of the " + std::to_string(es) + "-byte "
                                    + type + " element");
    }
}

void
CheckAllToAllBytes(const std::string& field,
                   uint64_t bytes,
                   const std::string& type,
                   uint32_t ranks)
{
    uint32_t es = ElementSize(ParseDataType("type", type));
    if (ranks > 0 && (bytes / es) % ranks != 0)
    {
        throw NotApplicable(field + ": alltoall of " + std::to_string(bytes)
                            + " bytes does not split into " + std::to_string(ranks)
                            + " equal blocks of " + type + " elements (one per rank)");
    }
}

void
CollectiveConfig::Validate() const
{
    Ptr<const Topology> t = MakeTopology(topology);
    ParseCollectiveOp("op", op); // named in the error when it is not one
    ParseDataType("type", type);
    CheckGivenOptions();
    if (!timeline.empty() && Sizes(*this).size() != 1)
    {
        throw std::invalid_argument("timeline: one size only (min-bytes = max-bytes); the sweep "
                                    "has "
                                    + std::to_string(Sizes(*this).size()));
    }
    if (!timeline.empty())
    {
        CheckOutputFile("timeline", timeline); // before the run, not after it
    }
    const CollectiveKind* kind
        = algorithm == "auto" ? nullptr : &CollectiveRegistry::Get(algorithm);
    if (!timeline.empty() && kind && kind->inNetwork)
    {
        // its workers send packets to a switch program or an aggregator, not messages
        // between ranks: the timeline would be empty
        std::vector<std::string> scheduled;
        for (const auto& name : CollectiveRegistry::Names())
        {
            if (!CollectiveRegistry::Get(name).inNetwork)
            {
                scheduled.push_back(name);
            }
        }
        scheduled.push_back("auto");
        throw std::invalid_argument("timeline: " + algorithm
                                    + " aggregates in the network and has no messages between "
                                      "ranks to draw (--stats gives its per-rank times); "
                                      "algorithms with a timeline: "
                                    + dlnet::JoinChoices(scheduled));
    }
    CheckElementBytes("min-bytes", minBytes, type);
    CheckElementBytes("max-bytes", maxBytes, type);
    if (maxBytes < minBytes)
    {
        throw std::invalid_argument("max-bytes: smaller than min-bytes");
    }
    if (!(stepFactor > 1) && maxBytes != minBytes)
    {
        throw std::invalid_argument("step-factor: got " + dlnet::ShortestText(stepFactor)
                                    + "; expected a number greater than 1");
    }
    if (maxBytes > MAX_COLLECTIVE_BYTES)
    {
        throw std::invalid_argument("max-bytes: got " + std::to_string(maxBytes)
                                    + "; expected at most 1TiB ("
                                    + std::to_string(MAX_COLLECTIVE_BYTES) + " bytes)");
    }
    if (maxBytes != minBytes
        && std::log(double(maxBytes) / minBytes) / std::log(stepFactor) > MAX_SIZES)
    {
        // (the echo as typed: 1.0000001 read 1.000000)
        const double least = std::pow(double(maxBytes) / minBytes, 1.0 / MAX_SIZES);
        throw std::invalid_argument(
            "step-factor: got " + dlnet::ShortestText(stepFactor)
            + "; from min-bytes to max-bytes it makes more than " + std::to_string(int(MAX_SIZES))
            + " sizes (expected a factor of " + dlnet::ShortestText(std::ceil(least * 1e6) / 1e6)
            + " or more, or min-bytes and max-bytes closer together)");
    }
    Communicator comm = ParseCommunicator(ranks, t->GetNRanks());
    uint32_t n = comm.GetSize();
    if (n < 2)
    {
        // one rank sends nothing: its time is 0 and its bandwidths are undefined (they were
        // printed as 0 GB/s)
        throw std::invalid_argument("ranks: got '" + dlnet::PrintableText(ranks)
                                    + "', which lists one rank; a collective needs two or more "
                                      "(ranks lists rank numbers, e.g. 0-7 or 0,2,4,6)");
    }
    uint32_t most = MostChunks();
    if (most > 1 && chunksInFlight > most)
    {
        // taken as "all of them" before: a rank never has more chunks to run at once
        throw std::invalid_argument(
            "chunks-in-flight: got " + std::to_string(chunksInFlight) + "; expected 0 (all) to "
            + std::to_string(most) + ", the chunks a rank runs"
            + (chunks == 0 ? " (chunks 0: the algorithm's own count)" : " (chunks)"));
    }
    // taken and ignored: only the rooted operations have a root
    RefuseInapplicable("root",
                       root,
                       0,
                       op == "broadcast" || op == "reduce",
                       "to broadcast and reduce only, and the op is " + op);
    if (root >= n)
    {
        throw std::invalid_argument("root: " + std::to_string(root)
                                    + " is not a communicator index (0 to " + std::to_string(n - 1)
                                    + ")");
    }
    if (tc >= topology.trafficClasses)
    {
        throw std::invalid_argument("tc: got " + std::to_string(tc) + "; expected 0 to "
                                    + std::to_string(topology.trafficClasses - 1));
    }
    if (seed == 0)
    {
        throw std::invalid_argument("seed: got 0; expected a whole number of at least 1");
    }
    if (functional)
    {
        CheckFunctionalBytes("max-bytes", maxBytes, n);
    }
    // taken and ignored: without tensors the blocks sent follow the density, not values
    RefuseInapplicable("threshold",
                       threshold,
                       0,
                       functional,
                       "with functional only (it tests the values of real tensors), and this "
                       "run carries none");
    const CollectiveConfig defaults;
    if (topology.network == "flow" && Applies("aggregation-timeout")
        && dlnet::ParseTime("aggregation-timeout", aggregationTimeout)
               != dlnet::ParseTime("aggregation-timeout", defaults.aggregationTimeout))
    {
        // taken and ignored before: flow level loses nothing and keeps no timer (a timeout
        // shorter than the queueing round trip resends at packet level only)
        RefuseInapplicable("aggregation-timeout",
                           aggregationTimeout,
                           defaults.aggregationTimeout,
                           false,
                           "at network=packet only: flow level has no loss and no timer, so its "
                           "workers never resend");
    }
    if (algorithm == "omnireduce")
    {
        CheckSparsitySize("max-bytes", maxBytes, blockElements, n);
        // taken and ignored before: a file gives every worker's blocks, and at density 1
        // every block is sent, wherever a pattern would put them
        RefuseInapplicable("density",
                           density,
                           defaults.density,
                           sparsityFile.empty(),
                           "without sparsity-file only, and sparsity-file gives the blocks");
        RefuseInapplicable("sparsity-placement",
                           sparsityPlacement,
                           defaults.sparsityPlacement,
                           sparsityFile.empty() && density < 1,
                           sparsityFile.empty()
                               ? "below density 1 only, and density is 1 (every block is sent)"
                               : "without sparsity-file only, and sparsity-file gives the blocks");
        if (aggregatorPlacement != "switch")
        {
            // set on every server or colocated aggregator (a switch's keeps the default)
            RefuseSetByOptions(
                ns3Attributes,
                {{"ns3::OmniReduceAggregator::PacketTime", "aggregator-packet-time"}});
        }
    }
    NetworkModel model = ModelOf(topology, comm.ranks, LatenciesOf(ns3Attributes));
    Ptr<CollectiveBackend> backend = kind ? MakeBackend(algorithm) : nullptr;
    const std::vector<uint64_t> sizes = Sizes(*this);
    if (backend && !sizes.empty() && !backend->Implements(ParseCollectiveOp("op", op)))
    {
        // (said first: the block split below would not be the reason it cannot run)
        backend->Validate(RequestOf(sizes.front(), model), *t, comm);
    }
    for (uint64_t bytes : sizes)
    {
        if (op == "alltoall")
        {
            // (the engine's message says "bytes", which no program has)
            CheckAllToAllBytes(bytes == minBytes   ? "min-bytes"
                               : bytes == maxBytes ? "max-bytes"
                                                   : "step-factor",
                               bytes,
                               type,
                               n);
        }
        CollectiveRequest request = RequestOf(bytes, model);
        if (backend)
        {
            backend->Validate(request, *t, comm);
        }
        else
        {
            CollectiveRegistry::ChooseAuto(request, *t, comm, model);
        }
    }
}

namespace
{
/// The options of the algorithms a text names: the union over a list;
/// for auto, those every backend it may pick takes.
std::vector<std::string>
OptionsOfAlgorithms(const std::string& algorithms)
{
    std::vector<std::string> out;
    auto add = [&out](const std::string& o)
    {
        if (std::find(out.begin(), out.end(), o) == out.end())
        {
            out.push_back(o);
        }
    };
    for (const auto& name : dlnet::ParseList("algorithm", algorithms))
    {
        if (name != "auto")
        {
            for (const auto& [o, attribute] : CollectiveRegistry::Get(name).options)
            {
                add(o);
            }
            continue;
        }
        std::vector<std::string> shared;
        bool first = true;
        for (const auto& candidate : CollectiveRegistry::Names())
        {
            const CollectiveKind& k = CollectiveRegistry::Get(candidate);
            if (k.inNetwork)
            {
                continue;
            }
            std::vector<std::string> own;
            for (const auto& [o, attribute] : k.options)
            {
                if (first || std::find(shared.begin(), shared.end(), o) != shared.end())
                {
                    own.push_back(o);
                }
            }
            shared = own;
            first = false;
        }
        for (const auto& o : shared)
        {
            add(o);
        }
    }
    return out;
}
} // namespace

bool
CollectiveConfig::Applies(const std::string& option) const
{
    // off: left out of the config (result files as without the option)
    if (option == "stats")
    {
        return stats;
    }
    if (option == "timeline")
    {
        return !timeline.empty();
    }
    if (!TopologyOptionApplies(topology, option))
    {
        return false;
    }
    if (IsCommonCollectiveOption(option))
    {
        return true;
    }
    std::vector<std::string> own = OptionsOfAlgorithms(algorithm);
    if (std::find(own.begin(), own.end(), option) == own.end())
    {
        return false;
    }
    return !IsChunkPipelineOption(option) || ChunkOptionApplies(option);
}

bool
CollectiveConfig::ChunkOptionApplies(const std::string& option) const
{
    // a rank that runs one chunk at a time has none to hold back or to stagger
    return MostChunks() > 1 && (option != "stagger-chunks" || chunksInFlight != 1);
}

uint32_t
CollectiveConfig::MostChunks() const
{
    CollectiveRequest request;
    request.op = ParseCollectiveOp("op", op);
    request.type = ParseDataType("type", type);
    request.bytes = maxBytes;
    request.chunks = chunks;
    uint32_t most = 0;
    for (const auto& name : dlnet::ParseList("algorithm", algorithm))
    {
        std::vector<std::string> candidates{name};
        if (name == "auto")
        {
            candidates = CollectiveRegistry::Names();
        }
        for (const auto& candidate : candidates)
        {
            const auto& options = CollectiveRegistry::Get(candidate).options;
            if (std::find_if(options.begin(),
                             options.end(),
                             [](const auto& o)
                             {
                                 return o.first == "chunks";
                             })
                == options.end())
            {
                continue; // not a step schedule: it has no chunks
            }
            request.algorithm = ParseCollectiveAlgorithm("algorithm", candidate);
            most = std::max(most, CollectiveEngine::ResolvedChunks(request));
        }
    }
    return most;
}

void
CollectiveConfig::CheckGivenOptions() const
{
    for (const auto& name : given)
    {
        std::vector<std::string> own = OptionsOfAlgorithms(algorithm);
        if (IsChunkPipelineOption(name) && std::find(own.begin(), own.end(), name) != own.end())
        {
            // taken and ignored before: a rank that runs one chunk at a time pipelines none
            const CollectiveConfig defaults;
            for (const auto& o : CollectiveOptions())
            {
                if (o.name == name)
                {
                    RefuseInapplicable(
                        name,
                        o.get(*this),
                        o.get(defaults),
                        ChunkOptionApplies(name),
                        "when a rank runs two or more chunks at once, and "
                            + (MostChunks() > 1 ? std::string("chunks-in-flight is 1")
                               : chunks == 0
                                   ? algorithm + " runs " + op
                                         + " in one chunk (chunks 0 takes the algorithm's own "
                                           "count; set chunks to 2 or more)"
                                   : std::string("chunks is 1")));
                }
            }
            continue;
        }
        if (!IsCommonCollectiveOption(name) && !Applies(name))
        {
            throw std::invalid_argument(name + ": does not apply to algorithm " + algorithm
                                        + (own.empty()
                                               ? std::string("; it takes no options of its own")
                                               : "; its options are " + dlnet::JoinChoices(own)));
        }
    }
}

std::vector<CollectiveConfig>
SplitAlgorithmList(const CollectiveConfig& config, const std::string& algorithms)
{
    CollectiveConfig all = config;
    all.algorithm = algorithms;
    all.CheckGivenOptions(); // an option must apply to one of the algorithms
    const std::vector<std::string> names = dlnet::ParseList("algorithm", algorithms);
    if (!config.timeline.empty() && names.size() != 1)
    {
        // one file per run: a second algorithm would overwrite the first's trace
        throw std::invalid_argument("timeline: one algorithm only; --algorithm lists "
                                    + std::to_string(names.size()));
    }
    std::vector<CollectiveConfig> out;
    for (const auto& name : names)
    {
        CollectiveConfig c = config;
        SetOption(CollectiveOptions(), c, "algorithm", name);
        for (auto it = c.given.begin(); it != c.given.end();)
        {
            it = c.Applies(*it) ? std::next(it) : c.given.erase(it); // another entry's
        }
        try
        {
            c.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            if (names.size() == 1)
            {
                throw;
            }
            // which entry of the list refused it (a NotApplicable stays one)
            const std::string what = std::string(e.what()) + " (algorithm " + name + " of the list "
                                     + algorithms + ")";
            if (dynamic_cast<const NotApplicable*>(&e))
            {
                throw NotApplicable(what);
            }
            throw std::invalid_argument(what);
        }
        out.push_back(std::move(c));
    }
    return out;
}

CollectiveRequest
CollectiveConfig::RequestOf(uint64_t bytes, const NetworkModel& model) const
{
    CollectiveRequest req;
    req.op = ParseCollectiveOp("op", op);
    req.type = ParseDataType("type", type);
    req.bytes = bytes;
    req.root = root;
    req.grid = model.grid;
    req.chunks = chunks;
    req.chunksInFlight = chunksInFlight;
    req.staggerChunks = staggerChunks;
    return req;
}

CollectiveResult
RunCollective(const CollectiveConfig& c)
{
    c.Validate();
    CollectiveResult result;
    result.topology = c.topology.kind;
    result.op = c.op;
    Ptr<const Topology> topology = MakeTopology(c.topology);
    CollectiveOp op = ParseCollectiveOp("op", c.op);
    Communicator comm = ParseCommunicator(c.ranks, topology->GetNRanks());
    comm.tc = c.tc;
    uint32_t n = comm.GetSize();
    result.ranks = n;
    const LibraryLatencies latencies = LatenciesOf(c.ns3Attributes);
    result.model = ModelOf(c.topology, comm.ranks, latencies);
    uint32_t es = ElementSize(ParseDataType("type", c.type));

    for (uint64_t bytes : Sizes(c))
    {
        auto wallStart = std::chrono::steady_clock::now();
        CollectiveRequest req = c.RequestOf(bytes, result.model);
        std::string name = c.algorithm == "auto"
                               ? CollectiveRegistry::ChooseAuto(req, *topology, comm, result.model)
                               : c.algorithm;
        Ptr<CollectiveBackend> backend = c.MakeBackend(name);
        CollectiveRow row;
        row.bound = backend->Bound(req, comm, result.model);
        // A run is held to dlnet::MAX_TIME_SECONDS of simulated time (links of a few bit/s
        // would take days; beyond about 106 days ns-3's clock overflows and the time came
        // out negative): refused up front when even the contention-free bound is
        // beyond it, else cut there (below) and refused.
        const std::string limitText = dlnet::TimeText(dlnet::MAX_TIME_SECONDS);
        // the field and the advice name the run's ns-3 time attributes too (a collective's
        // launch latency counts in its bound, a device's latency in its run)
        const std::vector<std::string> timeAttributes
            = SimulationScope::TimeAttributesOf(c.ns3Attributes);
        // (a slow aggregator, not the links, may be what takes so long)
        const bool slowAggregator
            = name == "omnireduce" && c.aggregatorPlacement != "switch"
              && !dlnet::ParseTime("aggregator-packet-time", c.aggregatorPacketTime).IsZero();
        // (lossy: the run's retransmissions, not the contention-free bound, may take so long)
        auto beyondLimit = [&](const std::string& what, bool lossy)
        {
            std::vector<std::string> more;
            if (slowAggregator)
            {
                more.push_back("lower aggregator-packet-time (" + c.aggregatorPacketTime
                               + " per packet of each aggregator)");
            }
            return std::invalid_argument(
                (slowAggregator ? "aggregator-packet-time, " : "")
                + SimulationScope::ClockField(timeAttributes) + ": " + c.op + " of "
                + std::to_string(bytes) + " bytes with " + name + " on " + std::to_string(n)
                + " ranks " + what + "; "
                + SimulationScope::ClockAdvice(
                    timeAttributes, SimulationScope::RateOptions(), lossy, more));
        };
        if (!(row.bound <= dlnet::MAX_TIME_SECONDS))
        {
            std::ostringstream os;
            os << std::setprecision(4) << row.bound;
            throw beyondLimit("needs at least " + os.str()
                                  + " s (its contention-free bound), more than a run may "
                                    "simulate ("
                                  + limitText + ")",
                              false);
        }
        if (c.functional)
        {
            backend->MakeInputs(req, n, c.seed);
        }
        {
            SimulationScope scope(c.seed, c.run, c.ns3Attributes);
            // (before the build, which at tens of thousands of ranks takes seconds: a
            // schedule too large for the estimate is refused at once; gone before the run)
            std::vector<LinkPhase> phases;
            if (c.estimate)
            {
                phases = backend->Phases(req, comm);
            }
            Cluster cluster = topology->Build();
            row.network = cluster.GetNetwork();
            result.network = row.network;
            if (!phases.empty())
            {
                LinkLoadEstimate estimate = EstimateLinkLoad(cluster, phases);
                row.estimate
                    = estimate.seconds + backend->LibraryLatency(req, phases, *topology, latencies);
                row.busiestLink = estimate.busiestLink;
                std::vector<LinkPhase>().swap(phases);
            }
            // disposed before the cluster and the simulator go, even when the run throws
            struct DisposeAtExit
            {
                Ptr<CollectiveBackend> backend;
                ~DisposeAtExit()
                {
                    backend->Dispose();
                }
            } disposeAtExit{backend};
            CollectiveTimeline timeline;
            if (!c.timeline.empty() || c.stats)
            {
                timeline.Connect(cluster); // the messages also give the ranks' times
                auto schedule = DynamicCast<ScheduleBackend>(backend);
                if (schedule && !c.timeline.empty()) // (the rank times need no step)
                {
                    timeline.ConnectSteps(
                        schedule->GetEngine(cluster, *topology)); // slices by step
                }
            }
            bool finished = false;
            Time started;
            std::map<uint32_t, uint32_t> peakSlots; // of switch programs gone with the job
            std::vector<Time> rankEnd;              // in-network workers' ends (packet level)
            CollectiveRequest check = req; // what the outputs are checked against (no inputs)
            check.inputs.clear();
            CollectiveBackend::DoneCallback done(
                [&](const CollectiveRecord& r)
                {
                    finished = true;
                    started = r.start;
                    peakSlots = r.switchPeakSlots;
                    rankEnd = r.rankEnd;
                    row.time = (r.end - r.start).GetSeconds();
                    row.packets = r.messages;
                    row.retransmissions = r.retransmissions;
                    row.aggregatorUtilisation = r.aggregatorUtilisation;
                    for (std::size_t i = 0; c.stats && i < r.bytesSent.size(); ++i)
                    {
                        row.ranks.push_back(CollectiveRankResult{
                            uint32_t(i), comm.ranks[i], r.bytesSent[i], r.bytesReceived[i]});
                    }
                    for (std::size_t i = 0; i < r.bytesSent.size(); ++i)
                    {
                        row.bytesUp += double(r.bytesSent[i]) / r.bytesSent.size();
                        row.bytesDown += double(r.bytesReceived[i]) / r.bytesSent.size();
                    }
                    if (c.functional)
                    {
                        row.checked = true;
                        // inside the callback: the outputs are not copied
                        row.correct
                            = r.checked ? r.maxError == 0
                                        : CheckCollectiveOutputs(check, r, n, c.seed, row.maxError);
                        row.maxError = r.checked ? r.maxError : row.maxError;
                    }
                });
            backend->Start(cluster, *topology, comm, std::move(req), done);
            try
            {
                Simulator::Run();
            }
            catch (const SimulatedTimeLimit&)
            {
                throw beyondLimit("had not finished after " + limitText
                                      + " of simulated time, the most a run may simulate",
                                  c.topology.lossRate > 0);
            }
            if (!finished)
            {
                throw std::runtime_error("collective did not finish: the fabric stalled");
            }
            row.events = Simulator::GetEventCount();
            if (c.stats)
            {
                row.links = CollectLinkStats(cluster, row.time);
                row.switches = CollectSwitchStats(cluster, peakSlots);
                // one pass over the messages for every rank
                std::vector<CollectiveTimeline::RankTraffic> traffic
                    = timeline.TrafficByRank(cluster.GetNRanks());
                for (auto& rank : row.ranks)
                {
                    // an in-network worker: its packets go to a switch or an aggregator,
                    // not as messages between ranks. It has a contribution outstanding
                    // (every slot sends again as soon as its result is in; a FRED NPU
                    // streams its buffer and takes the results as they come) from the
                    // start until its last result: it waits for the network throughout.
                    std::vector<std::pair<Time, Time>> results;
                    if (rank.index < rankEnd.size())
                    {
                        results.emplace_back(started, rankEnd[rank.index]);
                    }
                    auto t
                        = CollectiveTimeline::RankTimesOf(traffic.at(rank.rank), started, results);
                    rank.timed = t.known;
                    rank.finish = t.finish.GetSeconds();
                    rank.network = t.network.GetSeconds();
                }
            }
            if (!c.timeline.empty())
            {
                timeline.Write(c.timeline);
            }
        }
        row.bytes = bytes;
        row.count = bytes / es;
        row.type = c.type;
        bool reduces = op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::REDUCE_SCATTER
                       || op == CollectiveOp::REDUCE;
        row.redop = reduces ? "sum" : "none";
        row.algorithm = name;
        row.algbw = row.time > 0 ? bytes / row.time : 0;
        row.busbw = row.algbw * BusBandwidthFactor(op, n);
        row.wallSeconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        result.rows.push_back(row);
    }
    return result;
}

const std::vector<ExperimentOption<CollectiveConfig>>&
CollectiveOptions()
{
    using C = CollectiveConfig;
    static const std::vector<ExperimentOption<C>> options = []()
    {
        std::vector<ExperimentOption<C>> o = {
            ChoiceOption<C>("op",
                            "allreduce, reducescatter, allgather, alltoall, broadcast, reduce or "
                            "sendrecv",
                            &C::op,
                            CollectiveOpNames()),
            ChoiceOption<C>("algorithm",
                            dlnet::JoinChoices(AlgorithmChoices())
                                + " (auto: the smallest bound among the backends that do not "
                                  "aggregate in the network)",
                            &C::algorithm,
                            AlgorithmChoices()),
            ChoiceOption<C>(
                "type", "element type: fp32, fp16, bf16 or int32", &C::type, DataTypeNames()),
            BytesOption<C>("min-bytes",
                           "smallest buffer, e.g. 1KiB (at most 1TiB)",
                           &C::minBytes,
                           0,
                           MAX_COLLECTIVE_BYTES),
            BytesOption<C>("max-bytes",
                           "largest buffer, e.g. 256MiB (at most 1TiB)",
                           &C::maxBytes,
                           0,
                           MAX_COLLECTIVE_BYTES),
            RealOption<C>("step-factor",
                          "size multiplier between rows (above 1 when the sizes differ)",
                          &C::stepFactor,
                          1,
                          1e6),
            TextOption<C>("ranks",
                          "communicator: empty = every rank, or a list like 0-7 or 0,2,4,6",
                          &C::ranks),
            UnsignedOption<C>(
                "root", "communicator index of the root (broadcast, reduce)", &C::root),
            UnsignedOption<C>("chunks",
                              "pipelining chunks; 0 = per algorithm (trees and chains 8, others 1)",
                              &C::chunks),
            UnsignedOption<C>(
                "chunks-in-flight", "chunks a rank works on at once; 0 = all", &C::chunksInFlight),
            BoolOption<C>("estimate",
                          "compute the link-load estimate (the estimate column); false skips it "
                          "(at thousands of ranks it costs about what the run does)",
                          &C::estimate),
            BoolOption<C>("stats",
                          "collect per-link, per-switch and per-rank statistics (links.csv, "
                          "switches.csv, ranks.csv; Python: the links, switches and ranks "
                          "tables)",
                          &C::stats),
            PathOption<C>("timeline",
                          "write the collective's messages as a Chrome trace-event JSON file "
                          "(one track per rank, a slice per send and receive named by its "
                          "step; one size and one algorithm only)",
                          &C::timeline),
            BoolOption<C>("stagger-chunks",
                          "pipeline the chunks through the steps: chunk c enters a step once "
                          "chunk c-1 has left it (else chunks in flight run side by side)",
                          &C::staggerChunks),
            UnsignedOption<C>("packet-elements",
                              "switchml: int32 values per packet (64 or 256 in the paper)",
                              &C::packetElements),
            UnsignedOption<C>("pool-slots",
                              "switchml, omnireduce: aggregation slots per job (each worker's "
                              "window of packets)",
                              &C::poolSlots),
            TimeOption<C>("aggregation-timeout",
                          "switchml, omnireduce: worker retransmission timeout, e.g. 1ms (doubles "
                          "on each expiry up to the larger of 100ms and itself)",
                          &C::aggregationTimeout,
                          dlnet::MAX_TIMEOUT_SECONDS,
                          false,
                          dlnet::MIN_POSITIVE_TIME_SECONDS),
            RealOption<C>("density",
                          "omnireduce: fraction of each worker's blocks that are non-zero",
                          &C::density,
                          0,
                          1),
            ChoiceOption<C>("sparsity-placement",
                            "omnireduce: random (independent per worker), overlap (the same "
                            "blocks) or disjoint",
                            &C::sparsityPlacement,
                            SparsityPlacementNames()),
            PathOption<C>("sparsity-file",
                          "omnireduce: read each worker's non-zero blocks from this file instead "
                          "(format in sparsity.h)",
                          &C::sparsityFile),
            UnsignedOption<C>(
                "block-elements", "omnireduce: float32 elements per block", &C::blockElements),
            UnsignedOption<C>("message-blocks",
                              "omnireduce: blocks fused in one packet (1 to 32)",
                              &C::messageBlocks),
            ChoiceOption<C>("aggregator-placement",
                            "omnireduce: servers (ranks outside the communicator), colocated (on "
                            "the workers) or switch",
                            &C::aggregatorPlacement,
                            OmniReduceHelper::Placements()),
            UnsignedOption<C>("aggregators",
                              "omnireduce: number of aggregators; 0 = one per worker (the switch "
                              "placement has one; at most 65535)",
                              &C::aggregators,
                              0,
                              0xffff),
            TimeOption<C>("aggregator-packet-time",
                          "omnireduce: processing time per packet of a server or colocated "
                          "aggregator, e.g. 60ns",
                          &C::aggregatorPacketTime,
                          dlnet::MAX_DELAY_SECONDS),
            RealOption<C>("threshold",
                          "omnireduce, functional: a block is zero when every |value| is at most "
                          "this",
                          &C::threshold,
                          0,
                          1e300),
        };
        return RecordGiven<C>(WithCommonAndTopologyOptions<C>(std::move(o)));
    }();
    return options;
}

} // namespace ns3
