/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-experiment.h"

#include "simulation-scope.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/reduction.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveExperiment");

namespace
{

/// The largest buffer: 1 TiB, as the wafer experiment's (a rank's share of a
/// larger collective would not simulate in any reasonable time).
constexpr uint64_t MAX_COLLECTIVE_BYTES = 1ULL << 40;

/// The most sizes a sweep may have (min-bytes to max-bytes by step-factor).
constexpr double MAX_SIZES = 10000;

bool
CheckOutputs(const CollectiveRequest& req,
             const CollectiveRecord& rec,
             uint32_t n,
             uint32_t seed,
             double& maxError)
{
    maxError = 0;
    uint64_t elements = req.bytes / ElementSize(req.type);
    if (rec.outputs.size() != n)
    {
        return false;
    }
    bool correct = true;
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint64_t i = 0; i < elements; ++i)
        {
            double want = CollectiveExpectedValue(req.op, n, r, req.root, i, elements, seed);
            if (std::isnan(want))
            {
                continue;
            }
            double got = ElementValue(req.type, rec.outputs[r].data(), i);
            maxError = std::max(maxError, std::fabs(got - want));
            if (got != want && correct)
            {
                NS_LOG_WARN("rank " << r << " element " << i << ": " << got << " != " << want);
                correct = false;
            }
        }
    }
    return correct;
}

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

/// Busy fraction of a device's sending side over a span of time.
double
BusyFraction(Ptr<FabricNetDevice> device, double span)
{
    return span > 0 ? device->GetTxBytes() * 8.0 / device->GetDataRate().GetBitRate() / span : 0;
}

/// The busiest switch-to-host link: the aggregating switch's side of every host link.
double
SwitchToHostUtilisation(const Cluster& cluster, double span)
{
    double busiest = 0;
    for (const auto& link : cluster.links)
    {
        if (link.tier == "host")
        {
            busiest = std::max(busiest, BusyFraction(link.b, span));
        }
    }
    return busiest;
}

/// Add the workers' packet and byte counts of an in-network job to a row.
template <typename WorkerRecord>
void
AddWorkerCounts(CollectiveRow& row, const std::vector<WorkerRecord>& workers)
{
    for (const auto& w : workers)
    {
        row.packets += w.packetsSent;
        row.retransmissions += w.retransmissions;
        row.bytesUp += double(w.bytesUp) / workers.size();
        row.bytesDown += double(w.bytesDown) / workers.size();
    }
}

OmniReduceSettings
OmniSettingsOf(const CollectiveConfig& c)
{
    OmniReduceSettings s;
    s.blockElements = c.blockElements;
    s.messageBlocks = c.messageBlocks;
    s.slots = c.poolSlots;
    s.placement = c.aggregatorPlacement;
    s.aggregators = c.aggregators;
    s.timeout = c.aggregationTimeout;
    s.threshold = c.threshold;
    s.packetTime = c.aggregatorPacketTime;
    return s;
}

/// The block pattern of a size: the user's file, or generated from the density.
SparsityPattern
PatternOf(const CollectiveConfig& c, uint32_t workers, uint64_t bytes)
{
    uint64_t blocks = bytes / 4 / c.blockElements;
    if (!c.sparsityFile.empty())
    {
        return ReadSparsityFile(c.sparsityFile, workers, blocks);
    }
    return GenerateSparsity(workers,
                            blocks,
                            c.density,
                            ParseSparsityPlacement("sparsity-placement", c.sparsityPlacement),
                            c.seed);
}

} // namespace

double
CollectiveInputValue(uint32_t rank, uint64_t i, uint32_t seed, uint32_t n)
{
    int64_t amplitude = std::max<int64_t>(1, std::min<int64_t>(4, 128 / n));
    return double(int64_t((rank * 131ULL + i * 7ULL + seed) % (2 * amplitude + 1)) - amplitude);
}

double
CollectiveExpectedValue(CollectiveOp op,
                        uint32_t n,
                        uint32_t rank,
                        uint32_t root,
                        uint64_t i,
                        uint64_t elements,
                        uint32_t seed)
{
    auto sum = [&]()
    {
        double s = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            s += CollectiveInputValue(r, i, seed, n);
        }
        return s;
    };
    auto partOf = [&](uint64_t e)
    {
        // inverse of the element-aligned split: the part whose [lo, hi) holds e
        uint32_t p = static_cast<uint32_t>(e * n / elements);
        while (p + 1 < n && elements * (p + 1) / n <= e)
        {
            ++p;
        }
        while (p > 0 && elements * p / n > e)
        {
            --p;
        }
        return p;
    };
    switch (op)
    {
        case CollectiveOp::ALL_REDUCE:
            return sum();
        case CollectiveOp::REDUCE_SCATTER:
            return partOf(i) == rank ? sum() : NAN;
        case CollectiveOp::ALL_GATHER:
            return CollectiveInputValue(partOf(i), i, seed, n);
        case CollectiveOp::ALL_TO_ALL:
        {
            // part j of rank `rank` came from rank j's part `rank`
            uint64_t part = elements / n;
            uint32_t j = static_cast<uint32_t>(i / part);
            return CollectiveInputValue(j, rank * part + i % part, seed, n);
        }
        case CollectiveOp::BROADCAST:
            return CollectiveInputValue(root, i, seed, n);
        case CollectiveOp::REDUCE:
            return rank == root ? sum() : NAN;
        case CollectiveOp::SEND_RECV:
            return rank == 1 ? CollectiveInputValue(0, i, seed, n) : NAN;
    }
    return NAN;
}

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
        uint64_t lo = dlnet::ParseUnsigned("ranks", item.substr(0, dash), 0, UINT32_MAX);
        uint64_t hi = dlnet::ParseUnsigned("ranks", item.substr(dash + 1), lo, UINT32_MAX);
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

NetworkModel
ModelOf(const TopologyConfig& config, const std::vector<uint32_t>& ranks)
{
    Ptr<const Topology> t = MakeTopology(config);
    NetworkModel m
        = MakeNetworkModel(*t,
                           ranks,
                           dlnet::ParseTime("switch-latency", config.switchLatency).GetSeconds(),
                           config.mtu);
    m.inNetwork = !t->GetAggregationTree(ranks, 1).nodes.empty();
    return m;
}

void
CollectiveConfig::Validate() const
{
    topology.Validate();
    CollectiveOp o = ParseCollectiveOp("op", op);
    CollectiveAlgorithm a = ParseCollectiveAlgorithm("algorithm", algorithm);
    DataType t = ParseDataType("type", type);
    uint32_t es = ElementSize(t);
    for (auto [field, v] :
         {std::make_pair("min-bytes", minBytes), std::make_pair("max-bytes", maxBytes)})
    {
        if (v == 0)
        {
            throw std::invalid_argument(std::string(field) + ": got 0; expected at least one "
                                        + type + " element");
        }
        if (v % es != 0)
        {
            throw std::invalid_argument(std::string(field) + ": " + std::to_string(v)
                                        + " is not a multiple of the " + std::to_string(es)
                                        + "-byte " + type + " element");
        }
    }
    if (maxBytes < minBytes)
    {
        throw std::invalid_argument("max-bytes: smaller than min-bytes");
    }
    if (!(stepFactor > 1) && maxBytes != minBytes)
    {
        throw std::invalid_argument("step-factor: got " + std::to_string(stepFactor)
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
        throw std::invalid_argument("step-factor: got " + std::to_string(stepFactor)
                                    + "; from min-bytes to max-bytes it makes more than "
                                    + std::to_string(int(MAX_SIZES)) + " sizes");
    }
    Communicator comm = ParseCommunicator(ranks, topology.GetNRanks());
    uint32_t n = comm.GetSize();
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
    if (o == CollectiveOp::ALL_TO_ALL)
    {
        for (uint64_t s : Sizes(*this))
        {
            if ((s / es) % n != 0)
            {
                throw std::invalid_argument("bytes: alltoall of " + std::to_string(s)
                                            + " bytes does not split into " + std::to_string(n)
                                            + " equal blocks of " + type + " elements");
            }
        }
    }
    bool partitioned = o == CollectiveOp::REDUCE_SCATTER || o == CollectiveOp::ALL_GATHER
                       || o == CollectiveOp::ALL_TO_ALL;
    if (partitioned && chunks > 1)
    {
        throw std::invalid_argument("chunks: " + op + " runs in one chunk; got "
                                    + std::to_string(chunks));
    }
    if ((a == CollectiveAlgorithm::SWITCHML || a == CollectiveAlgorithm::OMNIREDUCE)
        && !Implements(a, o))
    {
        throw std::invalid_argument("algorithm: " + algorithm + " does not implement " + op
                                    + "; it is an allreduce");
    }
    if (a == CollectiveAlgorithm::SWITCHML)
    {
        Ptr<const Topology> shaped = MakeTopology(topology);
        if (shaped->GetAggregationTree(comm.ranks, 1).nodes.empty())
        {
            throw std::invalid_argument("algorithm: switchml aggregates in the switch of a star or "
                                        "the leaves and spine of a leaf-spine; the topology is a "
                                        + shaped->GetKind());
        }
        if (t != DataType::FP32)
        {
            throw std::invalid_argument("type: switchml aggregates fp32 tensors (quantised to "
                                        "int32 in the switch); got "
                                        + type);
        }
        if (packetElements == 0
            || packetElements * 4 + SwitchmlHeader::SERIALIZED_SIZE + FabricHeader::SERIALIZED_SIZE
                   > topology.mtu)
        {
            throw std::invalid_argument("packet-elements: " + std::to_string(packetElements)
                                        + " values do not fit a packet of mtu "
                                        + std::to_string(topology.mtu) + " bytes (at least 1)");
        }
        if (poolSlots == 0)
        {
            throw std::invalid_argument("pool-slots: got 0; expected at least 1 slot");
        }
        if (dlnet::ParseTime("aggregation-timeout", aggregationTimeout, dlnet::MAX_TIMEOUT_SECONDS)
            < NanoSeconds(1))
        {
            throw std::invalid_argument("aggregation-timeout: got '" + aggregationTimeout
                                        + "'; expected a time from 1ns to 10s");
        }
    }
    if (a == CollectiveAlgorithm::OMNIREDUCE)
    {
        if (t != DataType::FP32)
        {
            throw std::invalid_argument("type: omnireduce aggregates fp32 tensors; got " + type);
        }
        if (!(density >= 0 && density <= 1))
        {
            throw std::invalid_argument("density: got " + std::to_string(density)
                                        + "; expected a fraction from 0 to 1");
        }
        ParseSparsityPlacement("sparsity-placement", sparsityPlacement);
        for (uint64_t s : Sizes(*this))
        {
            OmniReduceHelper::Validate(
                OmniSettingsOf(*this), *MakeTopology(topology), comm, s / 4, topology.mtu);
            if (!sparsityFile.empty())
            {
                PatternOf(*this, n, s); // the file must exist and fit every size
            }
        }
    }
    if (a != CollectiveAlgorithm::AUTO && a != CollectiveAlgorithm::SWITCHML
        && a != CollectiveAlgorithm::OMNIREDUCE)
    {
        CollectiveRequest probe;
        probe.op = o;
        probe.algorithm = a;
        probe.type = t;
        probe.bytes = minBytes;
        probe.chunks = chunks ? chunks : 1;
        probe.grid = ModelOf(topology, comm.ranks).grid;
        probe.Validate(n);
    }
    if (functional && maxBytes > (uint64_t(1) << 31) / n)
    {
        throw std::invalid_argument(
            "max-bytes: functional mode keeps each rank's buffer three times in "
            "memory; at most 2 GiB over all ranks");
    }
}

CollectiveResult
RunCollective(const CollectiveConfig& c)
{
    c.Validate();
    CollectiveResult result;
    result.topology = c.topology.kind;
    result.op = c.op;
    CollectiveOp op = ParseCollectiveOp("op", c.op);
    CollectiveAlgorithm requested = ParseCollectiveAlgorithm("algorithm", c.algorithm);
    DataType type = ParseDataType("type", c.type);
    Communicator comm = ParseCommunicator(c.ranks, c.topology.GetNRanks());
    comm.tc = c.tc;
    uint32_t n = comm.GetSize();
    result.ranks = n;
    result.model = ModelOf(c.topology, comm.ranks);
    Ptr<const Topology> topology = MakeTopology(c.topology);
    result.model.switchmlPacket = 4.0 * c.packetElements;
    uint32_t es = ElementSize(type);

    for (uint64_t bytes : Sizes(c))
    {
        auto wallStart = std::chrono::steady_clock::now();
        CollectiveRequest req;
        req.op = op;
        req.type = type;
        req.bytes = bytes;
        req.root = c.root;
        req.grid = result.model.grid;
        uint32_t chunks = c.chunks;
        CollectiveAlgorithm alg = requested;
        if (alg == CollectiveAlgorithm::AUTO)
        {
            alg = ChooseAlgorithm(op, n, bytes, chunks ? chunks : 8, result.model);
        }
        req.algorithm = alg;
        req.chunks = std::min<uint64_t>(chunks ? chunks : CollectiveEngine::DefaultChunks(op, alg),
                                        bytes / es);
        req.chunksInFlight = c.chunksInFlight ? c.chunksInFlight : req.chunks;
        req.staggerChunks = c.staggerChunks;
        if (c.functional && alg != CollectiveAlgorithm::OMNIREDUCE)
        {
            uint64_t elements = bytes / es;
            req.inputs.assign(n, std::vector<uint8_t>(bytes));
            for (uint32_t r = 0; r < n; ++r)
            {
                for (uint64_t i = 0; i < elements; ++i)
                {
                    SetElementValue(
                        type, req.inputs[r].data(), i, CollectiveInputValue(r, i, c.seed, n));
                }
            }
        }

        CollectiveRow row;
        NetworkModel sizeModel = result.model;
        {
            SimulationScope scope(c.seed, c.run, c.ns3Attributes);
            Cluster cluster = topology->Build();
            CollectiveRecord record;
            bool finished = false;
            std::vector<uint32_t> aggregators;
            if (alg == CollectiveAlgorithm::OMNIREDUCE)
            {
                SparsityPattern pattern = PatternOf(c, n, bytes);
                OmniReduceSettings settings = OmniSettingsOf(c);
                std::vector<std::vector<float>> tensors;
                std::vector<float> expected;
                if (c.functional)
                {
                    expected.assign(bytes / 4, 0.0f);
                    for (uint32_t w = 0; w < n; ++w)
                    {
                        tensors.push_back(MakeSparseTensor(pattern, w, c.blockElements, c.seed));
                        for (uint64_t i = 0; i < expected.size(); ++i)
                        {
                            expected[i] += tensors.back()[i];
                        }
                    }
                }
                // the alpha-beta model of this size's sparsity
                double d = 0;
                for (uint32_t w = 0; w < n; ++w)
                {
                    d += pattern.Density(w) / n;
                }
                double du = pattern.UnionDensity();
                // round 0 sends every slot's first blocks, zero or not
                double blocks = double(bytes) / 4 / c.blockElements;
                double burst = std::min(1.0, 1.0 * c.poolSlots * c.messageBlocks / blocks);
                d += (1 - d) * burst;
                du += (1 - du) * burst;
                // the busiest link: a worker's (d up, d_union down) or, with A
                // aggregators, an aggregator's; colocated ones share the worker's link
                double a = c.aggregators ? c.aggregators : n;
                if (c.aggregatorPlacement == "servers")
                {
                    sizeModel.sparseFactor = std::max({d, du, n * d / a, n * du / a});
                }
                else if (c.aggregatorPlacement == "colocated")
                {
                    double in = (n - 1) * d / a + du * (a - 1) / a;
                    double out = (n - 1) * du / a + d * (a - 1) / a;
                    sizeModel.sparseFactor = std::max({d, du, in, out});
                }
                else
                {
                    // the switch's ports are the workers' links
                    sizeModel.sparseFactor = std::max(d, du);
                }
                double packets = n * d * blocks / c.messageBlocks / a;
                sizeModel.aggregatorBusy
                    = packets
                      * dlnet::ParseTime("aggregator-packet-time", c.aggregatorPacketTime)
                            .GetSeconds();
                double f = c.messageBlocks;
                double values = 4.0 * c.blockElements * f;
                sizeModel.omnireduceWire = (values + 4 * f + 44) / values;
                OmniReduceHelper::Start(
                    cluster,
                    *topology,
                    comm,
                    bytes / 4,
                    settings,
                    pattern.nonZero,
                    tensors,
                    OmniReduceHelper::DoneCallback(
                        [&](const OmniReduceJobRecord& r)
                        {
                            record.start = r.start;
                            record.end = r.end;
                            AddWorkerCounts(row, r.workers);
                            for (const auto& w : r.workers)
                            {
                                if (c.functional)
                                {
                                    for (uint64_t i = 0; i < expected.size(); ++i)
                                    {
                                        double err = std::fabs(double(w.output[i]) - expected[i]);
                                        row.maxError = std::max(row.maxError, err);
                                    }
                                }
                            }
                            aggregators = r.aggregators;
                            finished = true;
                        }));
                Simulator::Run();
                double span = (record.end - record.start).GetSeconds();
                if (c.aggregatorPlacement == "switch")
                {
                    row.aggregatorUtilisation = SwitchToHostUtilisation(cluster, span);
                }
                for (uint32_t address : aggregators)
                {
                    if (address < cluster.GetNRanks())
                    {
                        row.aggregatorUtilisation
                            = std::max(row.aggregatorUtilisation,
                                       BusyFraction(cluster.endpoints[address]->GetDevice(), span));
                    }
                }
                if (c.functional)
                {
                    row.checked = true;
                    row.correct = row.maxError == 0;
                }
            }
            else if (alg == CollectiveAlgorithm::SWITCHML)
            {
                SwitchmlSettings settings;
                settings.elementsPerPacket = c.packetElements;
                settings.window = c.poolSlots;
                settings.timeout = c.aggregationTimeout;
                std::vector<std::vector<float>> floats;
                for (const auto& in : req.inputs)
                {
                    floats.emplace_back(in.size() / 4);
                    std::memcpy(floats.back().data(), in.data(), in.size());
                }
                SwitchmlHelper::Start(cluster,
                                      *topology,
                                      comm,
                                      bytes / es,
                                      settings,
                                      floats,
                                      SwitchmlHelper::DoneCallback(
                                          [&](const SwitchmlJobRecord& r)
                                          {
                                              record.start = r.start;
                                              record.end = r.end;
                                              AddWorkerCounts(row, r.workers);
                                              for (const auto& w : r.workers)
                                              {
                                                  std::vector<uint8_t> out(w.output.size() * 4);
                                                  std::memcpy(
                                                      out.data(), w.output.data(), out.size());
                                                  record.outputs.push_back(std::move(out));
                                              }
                                              finished = true;
                                          }));
                Simulator::Run();
                // the aggregating switches' links toward the workers
                row.aggregatorUtilisation
                    = SwitchToHostUtilisation(cluster, (record.end - record.start).GetSeconds());
            }
            else
            {
                Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
                engine->SetEndpoints(cluster.endpoints);
                // The inputs move into the engine (no copy stays here), and the
                // outputs are checked where the engine hands them over (no copy either).
                std::vector<std::vector<uint8_t>> inputs = std::move(req.inputs);
                req.inputs.clear();
                CollectiveRequest moved = req; // without the inputs
                moved.inputs = std::move(inputs);
                engine->Start(comm,
                              std::move(moved),
                              CollectiveEngine::DoneCallback(
                                  [&](const CollectiveRecord& r)
                                  {
                                      record.start = r.start;
                                      record.end = r.end;
                                      if (c.functional)
                                      {
                                          row.checked = true;
                                          row.correct
                                              = CheckOutputs(req, r, n, c.seed, row.maxError);
                                      }
                                      finished = true;
                                      row.packets = r.messages;
                                      for (uint32_t i = 0; i < n; ++i)
                                      {
                                          row.bytesUp += double(r.bytesSent[i]) / n;
                                          row.bytesDown += double(r.bytesReceived[i]) / n;
                                      }
                                  }));
                Simulator::Run();
                engine->Dispose();
            }
            if (!finished)
            {
                throw std::runtime_error("collective did not finish: the fabric stalled");
            }
            row.time = (record.end - record.start).GetSeconds();
            row.events = Simulator::GetEventCount();
            if (c.functional && alg == CollectiveAlgorithm::SWITCHML)
            {
                row.checked = true;
                row.correct = CheckOutputs(req, record, n, c.seed, row.maxError);
            }
        }
        row.bytes = bytes;
        row.count = bytes / es;
        row.type = c.type;
        bool reduces = op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::REDUCE_SCATTER
                       || op == CollectiveOp::REDUCE;
        row.redop = reduces ? "sum" : "none";
        row.algorithm = ToString(alg);
        row.algbw = row.time > 0 ? bytes / row.time : 0;
        row.busbw = row.algbw * BusBandwidthFactor(op, n);
        row.predicted = PredictCollectiveTime(op, alg, n, bytes, req.chunks, sizeModel);
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
                            "ring, direct, halving-doubling, double-binary-tree, hierarchical, "
                            "hierarchical-local-bw-aware, switchml, omnireduce or auto",
                            &C::algorithm,
                            CollectiveAlgorithmNames()),
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
            RealOption<C>("step-factor", "size multiplier between rows", &C::stepFactor, 0, 1e6),
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
                          dlnet::MAX_TIMEOUT_SECONDS),
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
            TextOption<C>("sparsity-file",
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
        return WithCommonAndTopologyOptions<C>(std::move(o));
    }();
    return options;
}

} // namespace ns3
