/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "wafer-experiment.h"

#include "collective-experiment.h"
#include "collective-timeline.h"
#include "simulation-scope.h"

#include "ns3/boolean.h"
#include "ns3/collective-backend.h"
#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/parallel-groups.h"
#include "ns3/reduction.h"
#include "ns3/simulator.h"
#include "ns3/wafer-topology.h"
#include "ns3/weight-streaming.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetWaferExperiment");

namespace
{

constexpr uint64_t MAX_BYTES = 1ULL
                               << 40; //!< per NPU or I/O controller: packet indices fit 32 bits

/// The algorithm column of a collective the FRED switches reduce and distribute.
const std::string IN_SWITCH = "in-switch";

/// One collective of a run: a group and what it does.
struct Launch
{
    Communicator comm;
    CollectiveOp op{CollectiveOp::ALL_REDUCE};
    uint64_t bytes{0};
};

/// What one launch did.
struct Outcome
{
    Time start;
    Time end;
    std::vector<uint64_t> sent;     //!< payload bytes per sender
    std::vector<uint64_t> received; //!< payload bytes per receiver
    /// in-switch (packet level): per member, when its last result arrived; else empty
    std::vector<Time> rankEnd;
    std::string algorithm;
    bool exact{false};
    bool finished{false};
};

/// Wire bytes by link tier.
struct LinkBytes
{
    uint64_t npu{0};
    uint64_t upper{0};
    uint64_t io{0};
    std::string network; //!< the model that carried them: packet or flow
};

/// Functional input of communicator index m (the collective experiment's values).
std::vector<uint8_t>
InputOf(uint32_t m, uint32_t n, uint64_t bytes, uint32_t seed)
{
    std::vector<uint8_t> buffer(bytes);
    for (uint64_t i = 0; i < bytes / 4; ++i)
    {
        SetElementValue(DataType::FP32, buffer.data(), i, CollectiveInputValue(m, i, seed, n));
    }
    return buffer;
}

/// Does every member's output hold what the collective leaves there?
bool
Exact(const Launch& l, const std::vector<std::vector<uint8_t>>& outputs, uint32_t seed)
{
    uint32_t n = l.comm.GetSize();
    uint64_t elements = l.bytes / 4;
    for (uint32_t m = 0; m < outputs.size(); ++m)
    {
        for (uint64_t i = 0; i < elements; ++i)
        {
            double want = CollectiveExpectedValue(l.op, n, m, 0, i, elements, seed);
            if (!std::isnan(want) && ElementValue(DataType::FP32, outputs[m].data(), i) != want)
            {
                return false;
            }
        }
    }
    return true;
}

/// The configured chunks, fewer when the buffer has fewer elements per NPU.
uint32_t
ChunksFor(const WaferExperimentConfig& c, uint64_t bytes)
{
    return std::max<uint64_t>(1, std::min<uint64_t>(c.chunks, bytes / 4 / WAFER_NPUS));
}

bool
IsWaferWide(const Communicator& comm, const Wafer& w)
{
    if (comm.GetSize() != w.npus)
    {
        return false;
    }
    for (uint32_t i = 0; i < comm.GetSize(); ++i)
    {
        if (comm.ranks[i] != i)
        {
            return false;
        }
    }
    return true;
}

LinkBytes
CountLinkBytes(const Wafer& w)
{
    LinkBytes b;
    b.network = w.cluster.GetNetwork();
    for (const auto& link : w.cluster.links)
    {
        // at flow level no packet crossed the devices: the flow network's bytes per link
        uint64_t bytes = w.cluster.flow ? std::llround(w.cluster.flow->GetCarriedBytes(link.a)
                                                       + w.cluster.flow->GetCarriedBytes(link.b))
                                        : link.a->GetTxBytes() + link.b->GetTxBytes();
        if (link.tier == "io")
        {
            b.io += bytes;
        }
        else if (link.tier == "fabric")
        {
            b.upper += bytes;
        }
        else
        {
            b.npu += bytes;
        }
    }
    return b;
}

/**
 * The statistics of a finished simulation: links over its makespan, switches,
 * and per NPU the bytes of the launches (null without launches: weight
 * streaming) and the times of the messages between ranks and of its in-switch
 * collectives (each from the launch's start to the NPU's last result).
 */
void
CollectWaferStats(const Wafer& w,
                  const CollectiveTimeline& timeline,
                  Time start,
                  Time end,
                  const std::vector<Launch>* launches,
                  const std::vector<Outcome>* outcomes,
                  WaferRunStats& stats)
{
    stats.makespan = (end - start).GetSeconds();
    stats.links = CollectLinkStats(w.cluster, stats.makespan);
    stats.switches = CollectSwitchStats(w.cluster);
    stats.ranks.assign(w.npus, RankResult{});
    // per NPU: [start, last result] of each in-switch collective it is in (packet level);
    // at flow level the FRED twin gives no member's own end: an NPU in such a collective
    // has unknown times (its messages alone, if any, would understate them)
    std::vector<std::vector<std::pair<Time, Time>>> results(w.npus);
    std::vector<bool> untimed(w.npus, false);
    for (std::size_t i = 0; outcomes && i < outcomes->size(); ++i)
    {
        const Communicator& comm = (*launches)[i].comm;
        const Outcome& o = (*outcomes)[i];
        for (uint32_t m = 0; m < comm.GetSize(); ++m)
        {
            if (m < o.rankEnd.size())
            {
                results.at(comm.ranks[m]).emplace_back(o.start, o.rankEnd[m]);
            }
            else if (o.algorithm == IN_SWITCH)
            {
                untimed.at(comm.ranks[m]) = true;
            }
        }
    }
    std::vector<CollectiveTimeline::RankTraffic> traffic
        = timeline.TrafficByRank(w.cluster.GetNRanks());
    for (uint32_t npu = 0; npu < w.npus; ++npu)
    {
        RankResult& r = stats.ranks[npu];
        r.index = npu;
        r.rank = npu;
        r.counted = launches != nullptr;
        auto t = CollectiveTimeline::RankTimesOf(traffic[npu], start, results[npu]);
        r.timed = t.known && !untimed[npu];
        r.finish = t.finish.GetSeconds();
        r.network = t.network.GetSeconds();
    }
    for (std::size_t i = 0; launches && i < launches->size(); ++i)
    {
        const Communicator& comm = (*launches)[i].comm;
        const Outcome& o = (*outcomes)[i];
        for (uint32_t m = 0; m < comm.GetSize(); ++m)
        {
            RankResult& r = stats.ranks.at(comm.ranks[m]);
            r.bytesSent += m < o.sent.size() ? o.sent[m] : 0;
            r.bytesReceived += m < o.received.size() ? o.received[m] : 0;
        }
    }
}

/**
 * Rethrow a launch's refusal, unless it is the switches' refusal of in-switch flows on one
 * port (named by their flows, which the user did not write) while collectives may not wait
 * for each other: then say which option lets them run.
 * \param unserialised in-switch collectives that conflict are refused, not queued
 */
[[noreturn]] void
RefuseConflict(const std::invalid_argument& e, bool unserialised, const std::string& variant)
{
    const std::string what = e.what();
    if (!unserialised || what.rfind("flows: ", 0) != 0)
    {
        throw;
    }
    throw std::invalid_argument(
        "serialise-conflicts: false, and on " + variant + " in-switch flows "
        + "need one switch port at once (" + what.substr(7)
        + "); set serialise-conflicts to run such collectives one after the other, or "
          "choose groups (mp, dp, pp, placement) whose flows take other ports");
}

/**
 * Run launches together on a fresh wafer of one variant.
 * \param stats where the run's statistics go (null: none collected)
 */
std::vector<Outcome>
RunTogether(const WaferExperimentConfig& c,
            const std::string& variant,
            const std::vector<Launch>& launches,
            LinkBytes& linkBytes,
            WaferRunStats* stats = nullptr)
{
    SimulationScope scope(c.seed, c.run, c.ns3Attributes);
    WaferConfig wc = c.wafer;
    wc.variant = variant;
    Ptr<const WaferScaleTopology> topology = Create<WaferScaleTopology>(wc);
    Wafer w = topology->BuildWafer();
    // Every collective starts through a registered backend: the in-switch
    // one on fred-b/d (one backend: its switches hold every job's flows), the
    // step schedules elsewhere (one backend per schedule: its engine serves
    // all the collectives of that schedule on the wafer).
    Ptr<CollectiveBackend> fred;
    if (w.InSwitch())
    {
        fred = CollectiveRegistry::Create("fred-in-switch");
        fred->SetAttribute("SerialiseConflicts", BooleanValue(c.serialise));
    }
    std::map<std::string, Ptr<CollectiveBackend>> schedules;
    std::vector<Outcome> out(launches.size());
    CollectiveTimeline timeline;
    if (stats)
    {
        timeline.Connect(w.cluster); // the messages give the NPUs' times
    }
    for (std::size_t i = 0; i < launches.size(); ++i)
    {
        const Launch& l = launches[i];
        l.comm.Validate(w.npus);
        CollectiveRequest req;
        req.op = l.op;
        req.type = DataType::FP32;
        req.bytes = l.bytes;
        if (c.functional)
        {
            for (uint32_t m = 0; m < l.comm.GetSize(); ++m)
            {
                req.inputs.push_back(InputOf(m, l.comm.GetSize(), l.bytes, c.seed));
            }
        }
        Outcome& o = out[i];
        Ptr<CollectiveBackend> backend = fred;
        if (fred && l.op != CollectiveOp::SEND_RECV)
        {
            o.algorithm = IN_SWITCH;
        }
        else
        {
            std::string name = "ring";
            o.algorithm = l.op == CollectiveOp::SEND_RECV ? "send" : "ring";
            if (l.op == CollectiveOp::ALL_REDUCE && IsWaferWide(l.comm, w))
            {
                name = "hierarchical";
                if (w.IsFred())
                {
                    // two-level ring: NPUs of an L1, then the NPUs of one local index
                    req.grid.dim1 = w.npusPerL1;
                    req.grid.dim2 = w.npus / w.npusPerL1;
                    // Pipelining pays where the levels have different bottlenecks
                    // (tapered uplinks); with full uplinks both levels load the
                    // NPU's own link and chunks only add steps.
                    uint64_t npuRate = w.l1[0]->GetPort(w.l1Npu[0][0])->GetDataRate().GetBitRate();
                    uint64_t upRate = w.l1[0]->GetPort(w.l1Up[0][0])->GetDataRate().GetBitRate();
                    bool tapered = upRate < npuRate;
                    req.grid.secondLevelVc = true;
                    req.chunks = tapered ? ChunksFor(c, l.bytes) : 1;
                    req.chunksInFlight = tapered ? c.chunksInFlight : 1;
                    req.staggerChunks = true;
                    o.algorithm = "hierarchical-2-level";
                }
                else
                {
                    // 2D: rows and columns, two chunks starting in different dimensions
                    req.grid.dim1 = w.cols;
                    req.grid.dim2 = w.rows;
                    req.grid.bothOrders = true;
                    req.chunks = ChunksFor(c, l.bytes);
                    req.chunksInFlight = c.chunksInFlight;
                    req.staggerChunks = true;
                    o.algorithm = "hierarchical-2d";
                }
            }
            auto it = schedules.find(name);
            if (it == schedules.end())
            {
                if (!schedules.empty())
                {
                    // each schedule backend's engine takes the endpoints' receive handler
                    throw std::logic_error("wafer experiment: " + name + " and "
                                           + schedules.begin()->first
                                           + " collectives at once on one wafer");
                }
                it = schedules.emplace(name, CollectiveRegistry::Create(name)).first;
            }
            backend = it->second;
            backend->Validate(req, *topology, l.comm);
        }
        try
        {
            backend->Start(w.cluster,
                           *topology,
                           l.comm,
                           std::move(req),
                           CollectiveBackend::DoneCallback(
                               [&o, &l, &c](const CollectiveRecord& r)
                               {
                                   o.start = r.start;
                                   o.end = r.end;
                                   o.sent = r.bytesSent;
                                   o.received = r.bytesReceived;
                                   o.rankEnd = r.rankEnd;
                                   o.finished = true;
                                   o.exact = !r.outputs.empty() && Exact(l, r.outputs, c.seed);
                               }));
        }
        catch (const std::invalid_argument& e)
        {
            RefuseConflict(e, fred && !c.serialise, variant);
        }
    }
    Simulator::Run();
    for (std::size_t i = 0; i < launches.size(); ++i)
    {
        if (!out[i].finished)
        {
            throw std::runtime_error("wafer experiment: " + launches[i].comm.name + " on " + variant
                                     + " did not finish");
        }
    }
    linkBytes = CountLinkBytes(w);
    if (stats && !out.empty())
    {
        Time start = out[0].start;
        Time end = out[0].end;
        for (const auto& o : out)
        {
            start = std::min(start, o.start);
            end = std::max(end, o.end);
        }
        // before the backends go: the FRED programs are still on the switches
        CollectWaferStats(w, timeline, start, end, &launches, &out, *stats);
    }
    if (fred)
    {
        fred->Dispose(); // its programs leave the switches before the wafer goes
    }
    for (auto& [name, backend] : schedules)
    {
        backend->Dispose();
    }
    return out;
}

/// Summarise the launches of one kind into a row.
WaferRow
Summarise(const std::string& variant,
          const std::string& scenario,
          const std::string& group,
          const std::vector<Launch>& launches,
          const std::vector<Outcome>& outcomes,
          const LinkBytes& bytes,
          bool functional)
{
    WaferRow row;
    row.variant = variant;
    row.scenario = scenario;
    row.group = group;
    row.groups = launches.size();
    row.members = launches.empty() ? 0 : launches[0].comm.GetSize();
    row.algorithm = outcomes.empty() ? "" : outcomes[0].algorithm;
    row.npuLinkBytes = bytes.npu;
    row.upperLinkBytes = bytes.upper;
    row.ioLinkBytes = bytes.io;
    row.network = bytes.network;
    row.checked = functional;
    double senders = 0;
    for (std::size_t i = 0; i < launches.size(); ++i)
    {
        const Outcome& o = outcomes[i];
        double seconds = (o.end - o.start).GetSeconds();
        row.time = std::max(row.time, seconds);
        row.timeUs = std::max(row.timeUs, seconds * 1e6);
        for (uint64_t sent : o.sent)
        {
            if (sent == 0)
            {
                continue; // a receiving pipeline stage
            }
            row.injectedPerNpu += sent;
            row.effectiveGBps += sent / seconds / 1e9;
            ++senders;
        }
        row.checked = row.checked && o.exact;
    }
    if (senders > 0)
    {
        row.injectedPerNpu /= senders;
        row.effectiveGBps /= senders;
    }
    return row;
}

std::vector<Launch>
LaunchesOf(const std::vector<Communicator>& groups, CollectiveOp op, uint64_t bytes)
{
    std::vector<Launch> out;
    for (const auto& g : groups)
    {
        if (op == CollectiveOp::SEND_RECV)
        {
            // stage s sends to stage s + 1
            for (uint32_t s = 0; s + 1 < g.GetSize(); ++s)
            {
                Communicator pair = g;
                pair.name = g.name + "/send" + std::to_string(s);
                pair.ranks = {g.ranks[s], g.ranks[s + 1]};
                out.push_back(Launch{pair, op, bytes});
            }
        }
        else
        {
            out.push_back(Launch{g, op, bytes});
        }
    }
    return out;
}

/// An option of the wafer's own config.
template <typename Make>
ExperimentOption<WaferExperimentConfig>
WaferField(Make make)
{
    ExperimentOption<WaferConfig> o = make();
    return {o.name,
            o.help,
            [o](WaferExperimentConfig& c, const std::string& v)
            {
                o.set(c.wafer, v);
            },
            [o](const WaferExperimentConfig& c)
            {
                return o.get(c.wafer);
            },
            o.kind};
}

} // namespace

const std::vector<ExperimentOption<WaferExperimentConfig>>&
WaferOptions()
{
    using C = WaferExperimentConfig;
    using W = WaferConfig;
    static const std::vector<ExperimentOption<C>> options = {
        ListOption<C>("variants",
                      "wafers to compare: mesh, fred-a, fred-b, fred-c, fred-d",
                      &C::variants,
                      &WaferVariants),
        ListOption<C>("scenarios",
                      "allreduce (wafer-wide), groups (the MP, PP and DP collectives), io (weight "
                      "streaming), priority (MP and DP on shared ports), mix (every MP, PP and DP "
                      "collective at once), group (one all-reduce on --ranks)",
                      &C::scenarios,
                      &WaferScenarios),
        BytesOption<C>(
            "bytes",
            "collective size per NPU, e.g. 64MiB: a multiple of 4 (of 16 with scenario priority)",
            &C::bytes,
            80),
        BytesOption<C>("io-bytes", "weight stream per I/O controller, e.g. 4MiB", &C::ioBytes, 1),
        UnsignedOption<C>("mp", "model-parallel degree", &C::mp),
        UnsignedOption<C>("dp", "data-parallel degree", &C::dp),
        UnsignedOption<C>("pp", "pipeline-parallel degree", &C::pp),
        ChoiceOption<C>("placement",
                        "mesh: linear (rank order: a replica's MP x PP NPUs on one row) or blocks "
                        "(MP-wide, PP-tall rectangles where they fit, the rest in rank order)",
                        &C::placement,
                        WaferPlacements()),
        TextOption<C>("ranks",
                      "scenario group: the NPUs of one all-reduce, e.g. 0,4,8 or 0-3 (empty: all)",
                      &C::ranks),
        UnsignedOption<C>("chunks",
                          "hierarchical all-reduce on the mesh and on tapered FRED (A): staggered "
                          "pipelining chunks",
                          &C::chunks),
        UnsignedOption<C>(
            "chunks-in-flight",
            "hierarchical all-reduce: of those chunks, how many a rank works on at once",
            &C::chunksInFlight),
        BoolOption<C>("functional", "carry real data and check every result", &C::functional),
        BoolOption<C>("serialise-conflicts",
                      "in-switch collectives whose flows cannot share the switches at once run "
                      "one after the other (else they are refused)",
                      &C::serialise),
        BoolOption<C>("stats",
                      "per-link, per-switch and per-NPU statistics of every simulation (links.csv, "
                      "switches.csv, ranks.csv; Python: the links, switches and ranks tables; "
                      "doc/statistics.md)",
                      &C::stats),
        SeedOption<C>(&C::seed),
        UnsignedOption<C>("run", "random run number", &C::run),
        WaferField(
            []
            {
                return ChoiceOption<W>(
                    "network", NETWORK_OPTION_HELP, &W::network, {"packet", "flow"});
            }),
        WaferField(
            []
            {
                // (the wafer's own floor, so that 0bps and 1bps get one range)
                return RateOption<W>("npu-bandwidth",
                                     "NPU network bandwidth per direction (mesh: over four links)",
                                     &W::npuBandwidth,
                                     false,
                                     WAFER_MIN_NPU_BPS);
            }),
        WaferField(
            []
            {
                return RateOption<W>("io-rate", "I/O controller link rate", &W::ioRate);
            }),
        WaferField(
            []
            {
                return TimeOption<W>(
                    "link-delay", "every wafer link", &W::linkDelay, dlnet::MAX_DELAY_SECONDS);
            }),
        WaferField(
            []
            {
                return UnsignedOption<W>(
                    "payload-bytes",
                    "bytes per packet behind the 24-byte fabric header (the MTU adds "
                    "it): data, less FRED's 12-byte header in its switches' "
                    "collectives",
                    &W::payloadBytes);
            }),
        WaferField(
            []
            {
                return UnsignedOption<W>("middle-stages",
                                         "FRED switches: middle subnetworks m of Fred_m(P)",
                                         &W::middleStages);
            }),
    };
    return options;
}

const std::vector<std::string>&
WaferPlacements()
{
    static const std::vector<std::string> p = {"linear", "blocks"};
    return p;
}

std::vector<uint32_t>
PlacementOrder(const WaferExperimentConfig& c, const std::string& variant)
{
    std::vector<uint32_t> order;
    std::vector<bool> placed(WAFER_NPUS, false);
    if (c.placement == "blocks" && ParseWaferVariant("variants", variant) == WaferVariant::MESH)
    {
        for (uint32_t by = 0; by + c.pp <= WAFER_MESH_ROWS; by += c.pp)
        {
            for (uint32_t bx = 0; bx + c.mp <= WAFER_MESH_COLS; bx += c.mp)
            {
                for (uint32_t p = 0; p < c.pp; ++p)
                {
                    for (uint32_t m = 0; m < c.mp; ++m)
                    {
                        uint32_t npu = (by + p) * WAFER_MESH_COLS + bx + m;
                        order.push_back(npu);
                        placed[npu] = true;
                    }
                }
            }
        }
    }
    for (uint32_t npu = 0; npu < WAFER_NPUS; ++npu)
    {
        if (!placed[npu])
        {
            order.push_back(npu);
        }
    }
    return order;
}

const std::vector<std::string>&
WaferScenarios()
{
    static const std::vector<std::string> s
        = {"allreduce", "groups", "mix", "io", "priority", "group"};
    return s;
}

void
WaferExperimentConfig::Validate() const
{
    if (variants.empty())
    {
        throw std::invalid_argument("variants: none given; allowed: "
                                    + dlnet::JoinChoices(WaferVariants()));
    }
    for (const auto& v : variants)
    {
        WaferConfig w = wafer;
        w.variant = v;
        w.Validate();
    }
    if (scenarios.empty())
    {
        throw std::invalid_argument("scenarios: none given; allowed: "
                                    + dlnet::JoinChoices(WaferScenarios()));
    }
    for (const auto& s : scenarios)
    {
        if (std::find(WaferScenarios().begin(), WaferScenarios().end(), s)
            == WaferScenarios().end())
        {
            throw std::invalid_argument("scenarios: got '" + s
                                        + "'; allowed: " + dlnet::JoinChoices(WaferScenarios()));
        }
    }
    // before the values are checked: an option the run does not use is refused as such
    RefuseUnusedOptions();
    if (bytes < 4 * WAFER_NPUS || bytes % 4 != 0 || bytes > MAX_BYTES)
    {
        throw std::invalid_argument("bytes: got " + std::to_string(bytes)
                                    + "; a multiple of 4 (fp32) from 80 bytes to 1 TiB");
    }
    if (bytes % 16 != 0
        && std::find(scenarios.begin(), scenarios.end(), "priority") != scenarios.end())
    {
        // its MP all-reduce moves a quarter of bytes: a whole number of fp32 elements
        throw std::invalid_argument("bytes: got " + std::to_string(bytes)
                                    + "; scenario priority runs MP on a quarter of bytes, so a "
                                      "multiple of 16 (from 80 bytes to 1 TiB)");
    }
    if (ioBytes == 0 || ioBytes % 4 != 0 || ioBytes > MAX_BYTES)
    {
        throw std::invalid_argument("io-bytes: got " + std::to_string(ioBytes)
                                    + "; a multiple of 4 from 4 bytes to 1 TiB per I/O controller");
    }
    if (chunks == 0)
    {
        throw std::invalid_argument("chunks: got 0; at least 1");
    }
    if (chunksInFlight == 0 || chunksInFlight > chunks)
    {
        // taken as "all of them" before: a rank never has more chunks to run at once
        throw std::invalid_argument("chunks-in-flight: got " + std::to_string(chunksInFlight)
                                    + "; expected 1 to " + std::to_string(chunks)
                                    + ", the chunks (chunks)");
    }
    const uint64_t elementsPerNpu = bytes / 4 / WAFER_NPUS;
    if (chunks > elementsPerNpu && chunks != WaferExperimentConfig().chunks)
    {
        // a chunk holds at least one element per NPU: more were cut to this silently before
        // (the default is cut to fit a small buffer)
        throw std::invalid_argument("chunks: got " + std::to_string(chunks) + "; expected 1 to "
                                    + std::to_string(elementsPerNpu)
                                    + ", the fp32 elements per NPU of " + std::to_string(bytes)
                                    + " bytes (bytes)");
    }
    if (std::find(WaferPlacements().begin(), WaferPlacements().end(), placement)
        == WaferPlacements().end())
    {
        throw std::invalid_argument("placement: got '" + placement
                                    + "'; allowed: " + dlnet::JoinChoices(WaferPlacements()));
    }
    if (ParseCommunicator(ranks, WAFER_NPUS).GetSize() < 2)
    {
        throw std::invalid_argument("ranks: got '" + ranks
                                    + "'; the group all-reduce needs two or more ranks");
    }
    // placement: throws naming "parallelism"
    std::vector<uint32_t> npus(WAFER_NPUS);
    for (uint32_t i = 0; i < npus.size(); ++i)
    {
        npus[i] = i;
    }
    MakeParallelGroups(mp, dp, pp, npus);
}

namespace
{
/// \return the scenarios that use each option some scenarios do not use
const std::map<std::string, std::vector<std::string>>&
ScenarioUsers()
{
    static const std::vector<std::string> parallel = {"groups", "mix", "priority"};
    static const std::vector<std::string> collective
        = {"allreduce", "group", "groups", "mix", "priority"};
    static const std::map<std::string, std::vector<std::string>> users = {
        {"mp", parallel},
        {"dp", parallel},
        {"pp", parallel},
        {"placement", parallel},
        {"ranks", {"group"}},
        {"io-bytes", {"io"}},
        {"bytes", collective},
        {"chunks", collective},
        {"chunks-in-flight", collective},
    };
    return users;
}
} // namespace

bool
WaferExperimentConfig::ScenarioUses(const std::string& scenario, const std::string& option)
{
    const auto& users = ScenarioUsers();
    auto it = users.find(option);
    return it == users.end()
           || std::find(it->second.begin(), it->second.end(), scenario) != it->second.end();
}

std::vector<std::string>
WaferExperimentConfig::ScenariosUsing(const std::string& option)
{
    auto it = ScenarioUsers().find(option);
    return it == ScenarioUsers().end() ? WaferScenarios() : it->second;
}

WaferExperimentConfig
WaferExperimentConfig::ForScenario(const std::string& scenario) const
{
    WaferExperimentConfig one = *this;
    one.scenarios = {scenario};
    const WaferExperimentConfig defaults;
    for (const auto& o : WaferOptions())
    {
        if (!ScenarioUses(scenario, o.name))
        {
            o.set(one, o.get(defaults));
        }
    }
    return one;
}

uint64_t&
WaferExperimentConfig::BytesOf(const std::string& scenario)
{
    return ScenarioUses(scenario, "io-bytes") ? ioBytes : bytes;
}

void
WaferExperimentConfig::RefuseUnusedOptions() const
{
    // each was taken and ignored where no scenario or variant of the run uses it
    auto runs = [this](const std::string& option)
    {
        return std::any_of(scenarios.begin(),
                           scenarios.end(),
                           [&option](const std::string& s)
                           {
                               return ScenarioUses(s, option);
                           });
    };
    auto compares = [this](const std::string& variant)
    {
        return std::find(variants.begin(), variants.end(), variant) != variants.end();
    };
    const std::string list = dlnet::JoinList(scenarios); // as the options list them
    const WaferExperimentConfig defaults;
    // "to scenarios groups, mix and priority only, and the scenarios are allreduce"
    auto only = [&list](const std::string& option, const std::string& note = "")
    {
        auto users = ScenariosUsing(option);
        return std::string(users.size() == 1 ? "to scenario " : "to scenarios ")
               + dlnet::JoinChoices(users, " and ") + " only" + note + ", and the scenarios are "
               + list;
    };
    RefuseInapplicable("mp", mp, defaults.mp, runs("mp"), only("mp"));
    RefuseInapplicable("dp", dp, defaults.dp, runs("dp"), only("dp"));
    RefuseInapplicable("pp", pp, defaults.pp, runs("pp"), only("pp"));
    RefuseInapplicable("placement",
                       placement,
                       defaults.placement,
                       runs("placement") && compares("mesh"),
                       "to the mesh's groups (variant mesh with scenario "
                           + dlnet::JoinChoices(ScenariosUsing("placement"))
                           + ") only, and this run has variants " + dlnet::JoinList(variants)
                           + " and scenarios " + list);
    RefuseInapplicable("ranks", ranks, defaults.ranks, runs("ranks"), only("ranks"));
    RefuseInapplicable("io-bytes", ioBytes, defaults.ioBytes, runs("io-bytes"), only("io-bytes"));
    RefuseInapplicable(
        "bytes", bytes, defaults.bytes, runs("bytes"), only("bytes", " (io streams io-bytes)"));
    const std::string hierarchicalOnly
        = "to the hierarchical all-reduce of variants mesh and fred-a in scenario "
          + dlnet::JoinChoices(ScenariosUsing("chunks")) + " only, and this run has variants "
          + dlnet::JoinList(variants) + " and scenarios " + list;
    const bool hierarchical = compares("mesh") || compares("fred-a");
    RefuseInapplicable(
        "chunks", chunks, defaults.chunks, hierarchical && runs("chunks"), hierarchicalOnly);
    RefuseInapplicable("chunks-in-flight",
                       chunksInFlight,
                       defaults.chunksInFlight,
                       hierarchical && runs("chunks-in-flight"),
                       hierarchicalOnly);
}

bool
WaferExperimentConfig::Applies(const std::string& option) const
{
    // off: left out of the config (result files as without the option)
    return option != "stats" || stats;
}

WaferResult
RunWafer(const WaferExperimentConfig& c)
{
    auto wallStart = std::chrono::steady_clock::now();
    c.Validate();
    WaferResult result;
    std::vector<WaferRow>& rows = result.rows;
    for (const auto& scenario : c.scenarios)
    {
        for (const auto& variant : c.variants)
        {
            ParallelGroups pg = MakeParallelGroups(c.mp, c.dp, c.pp, PlacementOrder(c, variant));
            LinkBytes bytes;
            // where the statistics of the next simulation go (null: stats off)
            auto statsOf = [&](const std::string& group) -> WaferRunStats*
            {
                if (!c.stats)
                {
                    return nullptr;
                }
                WaferRunStats& run = result.runs.emplace_back();
                run.variant = variant;
                run.scenario = scenario;
                run.group = group;
                return &run;
            };
            if (scenario == "allreduce")
            {
                Communicator world = Communicator::World(WAFER_NPUS);
                world.name = "wafer";
                std::vector<Launch> l{Launch{world, CollectiveOp::ALL_REDUCE, c.bytes}};
                auto o = RunTogether(c, variant, l, bytes, statsOf("wafer"));
                rows.push_back(Summarise(variant, scenario, "wafer", l, o, bytes, c.functional));
            }
            else if (scenario == "group")
            {
                Communicator g = ParseCommunicator(c.ranks, WAFER_NPUS);
                std::vector<Launch> l{Launch{g, CollectiveOp::ALL_REDUCE, c.bytes}};
                auto o = RunTogether(c, variant, l, bytes, statsOf("group"));
                rows.push_back(Summarise(variant, scenario, "group", l, o, bytes, c.functional));
            }
            else if (scenario == "groups")
            {
                struct Kind
                {
                    std::string name;
                    const std::vector<Communicator>* groups;
                    CollectiveOp op;
                };
                for (const Kind& k : {Kind{"MP", &pg.mpGroups, CollectiveOp::ALL_REDUCE},
                                      Kind{"PP", &pg.ppGroups, CollectiveOp::SEND_RECV},
                                      Kind{"DP", &pg.dpGroups, CollectiveOp::ALL_REDUCE}})
                {
                    if (k.groups->empty() || k.groups->front().GetSize() < 2)
                    {
                        continue;
                    }
                    auto l = LaunchesOf(*k.groups, k.op, c.bytes);
                    auto o = RunTogether(c, variant, l, bytes, statsOf(k.name));
                    rows.push_back(Summarise(variant, scenario, k.name, l, o, bytes, c.functional));
                }
            }
            else if (scenario == "mix")
            {
                // every MP, PP and DP collective of the job at once, each kind
                // on its own class (MP 0 > PP 1 > DP 2)
                std::vector<Launch> all;
                std::vector<std::pair<std::string, std::size_t>> kinds;
                std::string names; // MP-mix+PP-mix+DP-mix
                for (const auto& [name, groups, op] :
                     {std::make_tuple("MP", &pg.mpGroups, CollectiveOp::ALL_REDUCE),
                      std::make_tuple("PP", &pg.ppGroups, CollectiveOp::SEND_RECV),
                      std::make_tuple("DP", &pg.dpGroups, CollectiveOp::ALL_REDUCE)})
                {
                    if (groups->empty() || groups->front().GetSize() < 2)
                    {
                        continue;
                    }
                    auto l = LaunchesOf(*groups, op, c.bytes);
                    kinds.emplace_back(name, l.size());
                    names += (names.empty() ? "" : "+") + std::string(name) + "-mix";
                    all.insert(all.end(), l.begin(), l.end());
                }
                auto o = RunTogether(c, variant, all, bytes, statsOf(names));
                std::size_t first = 0;
                for (const auto& [name, count] : kinds)
                {
                    std::vector<Launch> l(all.begin() + first, all.begin() + first + count);
                    std::vector<Outcome> out(o.begin() + first, o.begin() + first + count);
                    rows.push_back(
                        Summarise(variant, scenario, name + "-mix", l, out, bytes, c.functional));
                    first += count;
                }
            }
            else if (scenario == "priority")
            {
                if (pg.mpGroups.front().GetSize() < 2 || pg.dpGroups.front().GetSize() < 2)
                {
                    continue;
                }
                Launch mp{pg.mpGroups.front(), CollectiveOp::ALL_REDUCE, c.bytes / 4};
                Launch dp{pg.dpGroups.front(), CollectiveOp::ALL_REDUCE, c.bytes};
                auto mpAlone = RunTogether(c, variant, {mp}, bytes, statsOf("MP-alone"));
                rows.push_back(
                    Summarise(variant, scenario, "MP-alone", {mp}, mpAlone, bytes, c.functional));
                auto dpAlone = RunTogether(c, variant, {dp}, bytes, statsOf("DP-alone"));
                rows.push_back(
                    Summarise(variant, scenario, "DP-alone", {dp}, dpAlone, bytes, c.functional));
                auto both
                    = RunTogether(c, variant, {mp, dp}, bytes, statsOf("MP-with-DP+DP-with-MP"));
                rows.push_back(Summarise(
                    variant, scenario, "MP-with-DP", {mp}, {both[0]}, bytes, c.functional));
                rows.push_back(Summarise(
                    variant, scenario, "DP-with-MP", {dp}, {both[1]}, bytes, c.functional));
            }
            else if (scenario == "io")
            {
                SimulationScope scope(c.seed, c.run, c.ns3Attributes);
                WaferConfig wc = c.wafer;
                wc.variant = variant;
                Wafer w = BuildWafer(wc);
                StreamingRecord record;
                bool finished = false;
                CollectiveTimeline timeline;
                WaferRunStats* stats = statsOf("IO");
                if (stats)
                {
                    timeline.Connect(w.cluster);
                }
                {
                    WeightStreaming streaming(w);
                    streaming.Start(c.ioBytes,
                                    0,
                                    Callback<void, const StreamingRecord&>(
                                        [&record, &finished](const StreamingRecord& r)
                                        {
                                            record = r;
                                            finished = true;
                                        }));
                    Simulator::Run();
                    if (stats && finished)
                    {
                        // while the streaming's switch programs are installed; no
                        // per-NPU byte counts in a StreamingRecord: null
                        CollectWaferStats(
                            w, timeline, record.start, record.end, nullptr, nullptr, *stats);
                    }
                }
                if (!finished)
                {
                    throw std::runtime_error("weight streaming on " + variant + " did not finish");
                }
                bytes = CountLinkBytes(w);
                WaferRow row;
                row.variant = variant;
                row.scenario = scenario;
                row.group = "IO";
                row.algorithm = w.IsFred() ? "switch-distribution" : "npu-relay-trees";
                row.groups = record.streams;
                row.members = record.receivers;
                double seconds = (record.end - record.start).GetSeconds();
                row.time = seconds;
                row.timeUs = seconds * 1e6;
                row.injectedPerNpu = record.bytesPerStream;
                row.effectiveGBps = record.bytesPerStream / seconds / 1e9;
                row.ioFraction = record.bytesPerStream * 8.0 / seconds
                                 / dlnet::ParseRate("io-rate", wc.ioRate).GetBitRate();
                row.npuLinkBytes = bytes.npu;
                row.upperLinkBytes = bytes.upper;
                row.ioLinkBytes = bytes.io;
                row.network = bytes.network;
                rows.push_back(row);
            }
        }
    }
    result.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

} // namespace ns3
