/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// fabric-bench: the fabric's per-packet cost against bare ns-3 point-to-point,
// measured in the same process.
//
// Part 1 (fabric) runs permutation traffic on a non-blocking leaf-spine in
// timing mode through the experiment API (RunTraffic); every flow crosses the
// spine, so every packet makes 4 link hops. Part 2 (bare) moves the same number
// of packet-hops through ns-3's own PointToPointNetDevice pair(s), raw packets
// of the same size on the wire, no protocol stack. Both report packet-hops
// (link transmissions) per wall second; their ratio is the figure of merit.
//
//   ./dlnet bench
//   ./dlnet bench --packets=500000 --repeat=3 --results=results/bench

#include "ns3/dlnet-module.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/file-io.h"
#include "ns3/node-container.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Link hops of every packet: host, leaf, spine, leaf, host.
constexpr uint32_t FABRIC_HOPS = 4;
/// Bytes the point-to-point device adds (its PPP header).
constexpr uint32_t PPP_HEADER = 2;
/// Packets the bare generator keeps waiting in each device's queue.
constexpr uint32_t BARE_DEPTH = 64;
/// Capacity of the bare devices' DropTail queues (never reached).
constexpr uint32_t BARE_QUEUE = 1024;
/// Largest --packets (days of wall time already).
constexpr uint64_t MAX_PACKETS = 100000000000ULL;
/// Rate and delay of every link in both parts.
const char* const LINK_RATE = "100Gbps";
const char* const LINK_DELAY = "500ns";

/// What the benchmark is asked to do.
struct BenchConfig
{
    uint64_t packets{4000000}; //!< packet-hops each part moves
    uint32_t packetSize{1500}; //!< bytes on the wire, headers included
    uint32_t leaves{4};        //!< leaf-spine: leaf switches
    uint32_t hostsPerLeaf{4};  //!< leaf-spine: hosts under each leaf
    uint32_t spines{2};        //!< leaf-spine: spine switches
    uint32_t pairs{1};         //!< bare: point-to-point device pairs
    uint32_t repeat{1};        //!< runs of both parts
    std::string results;       //!< folder for bench.csv/json; empty: none

    /// Throw std::invalid_argument naming the first bad field.
    void Validate() const
    {
        if (leaves < 2)
        {
            throw std::invalid_argument("leaves: got " + std::to_string(leaves)
                                        + "; expected at least 2 (every flow must cross a spine)");
        }
        if (packets < uint64_t(FABRIC_HOPS) * leaves * hostsPerLeaf)
        {
            throw std::invalid_argument(
                "packets: got " + std::to_string(packets) + "; expected at least "
                + std::to_string(uint64_t(FABRIC_HOPS) * leaves * hostsPerLeaf)
                + " (one packet per host, " + std::to_string(FABRIC_HOPS) + " hops each)");
        }
        if (pairs > packets)
        {
            throw std::invalid_argument("pairs: got " + std::to_string(pairs)
                                        + "; expected at most --packets (" + std::to_string(packets)
                                        + ")");
        }
    }
};

/// The options of the benchmark, in the experiment API's form.
const std::vector<ExperimentOption<BenchConfig>>&
BenchOptions()
{
    using dlnet::ParseUnsigned;
    using C = BenchConfig;
    auto u32 = [](const std::string& f, const std::string& v, uint64_t min, uint64_t max)
    {
        return static_cast<uint32_t>(ParseUnsigned(f, v, min, max));
    };
    static const std::vector<ExperimentOption<C>> options = {
        {"packets",
         "packet-hops (link transmissions) each part moves",
         [](C& c, const std::string& v)
         {
             c.packets = ParseUnsigned("packets", v, 1, MAX_PACKETS);
         },
         [](const C& c)
         {
             return std::to_string(c.packets);
         }},
        {"packet-size",
         "bytes of every packet on the wire, headers included (25 to 65535)",
         [u32](C& c, const std::string& v)
         {
             c.packetSize = u32("packet-size", v, FabricHeader::SERIALIZED_SIZE + 1, 65535);
         },
         [](const C& c)
         {
             return std::to_string(c.packetSize);
         }},
        {"leaves",
         "fabric: leaf switches (at least 2)",
         [u32](C& c, const std::string& v)
         {
             c.leaves = u32("leaves", v, 2, 4096);
         },
         [](const C& c)
         {
             return std::to_string(c.leaves);
         }},
        {"hosts-per-leaf",
         "fabric: hosts under each leaf",
         [u32](C& c, const std::string& v)
         {
             c.hostsPerLeaf = u32("hosts-per-leaf", v, 1, 4096);
         },
         [](const C& c)
         {
             return std::to_string(c.hostsPerLeaf);
         }},
        {"spines",
         "fabric: spine switches",
         [u32](C& c, const std::string& v)
         {
             c.spines = u32("spines", v, 1, 4096);
         },
         [](const C& c)
         {
             return std::to_string(c.spines);
         }},
        {"pairs",
         "bare: point-to-point device pairs sharing the packets",
         [u32](C& c, const std::string& v)
         {
             c.pairs = u32("pairs", v, 1, 4096);
         },
         [](const C& c)
         {
             return std::to_string(c.pairs);
         }},
        {"repeat",
         "runs of both parts (the table adds the median)",
         [u32](C& c, const std::string& v)
         {
             c.repeat = u32("repeat", v, 1, 100);
         },
         [](const C& c)
         {
             return std::to_string(c.repeat);
         }},
    };
    return options;
}

/// One part of one run, as measured.
struct PartResult
{
    std::string part;       //!< "fabric" or "bare"
    uint64_t packetHops{0}; //!< link transmissions
    double wallSeconds{0};  //!< around the whole part: build, run, clean up
    uint64_t events{0};     //!< simulator events executed
    double simSeconds{0};   //!< simulated time at the end

    double HopsPerSecond() const
    {
        return wallSeconds > 0 ? packetHops / wallSeconds : 0;
    }

    double EventsPerSecond() const
    {
        return wallSeconds > 0 ? events / wallSeconds : 0;
    }

    double EventsPerHop() const
    {
        return packetHops > 0 ? double(events) / packetHops : 0;
    }
};

double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The traffic experiment of part 1.
TrafficConfig
FabricConfig(const BenchConfig& b)
{
    TrafficConfig c;
    c.topology.kind = "leaf-spine";
    c.topology.leaves = b.leaves;
    c.topology.hostsPerLeaf = b.hostsPerLeaf;
    c.topology.spines = b.spines;
    c.topology.oversubscription = 1; // non-blocking
    c.topology.hostLinkRate = LINK_RATE;
    c.topology.hostLinkDelay = LINK_DELAY;
    c.topology.fabricLinkDelay = LINK_DELAY;
    c.topology.mtu = b.packetSize;
    c.topology.flowControl = "lossless";
    c.pattern = "permutation";
    c.shift = b.hostsPerLeaf; // rank r sends to the same slot under the next leaf
    c.functional = false;     // timing mode: virtual bytes
    uint64_t hosts = uint64_t(b.leaves) * b.hostsPerLeaf;
    uint64_t perFlow = (b.packets + FABRIC_HOPS * hosts - 1) / (FABRIC_HOPS * hosts);
    c.messageBytes = std::max<uint64_t>(1, perFlow)
                     * (b.packetSize - FabricHeader::SERIALIZED_SIZE); // full packets only
    c.messages = 1;
    c.stopTime = "1000s";
    return c;
}

/// Part 1: permutation traffic across the leaf-spine, through the experiment API.
PartResult
RunFabric(const BenchConfig& b)
{
    TrafficConfig c = FabricConfig(b);
    // RunTraffic runs inside its own SimulationScope: ns-3 is clean before and after.
    auto start = std::chrono::steady_clock::now();
    TrafficResult r = RunTraffic(c);
    PartResult p;
    p.part = "fabric";
    p.wallSeconds = SecondsSince(start);
    if (!r.allDelivered || r.drops > 0)
    {
        throw std::runtime_error("fabric part: " + std::to_string(r.deliveredMessages) + " of "
                                 + std::to_string(r.expectedMessages) + " messages delivered, "
                                 + std::to_string(r.drops) + " drops");
    }
    for (const auto& l : r.links)
    {
        p.packetHops += l.txPackets;
    }
    p.events = r.events;
    p.simSeconds = r.makespan;
    return p;
}

/**
 * Feeds one PointToPointNetDevice: keeps BARE_DEPTH packets waiting in its
 * queue, refilling every half-depth's serialization time, so that the link
 * never idles and packets are made only shortly before they are sent.
 */
class BareGenerator
{
public:
    BareGenerator(Ptr<PointToPointNetDevice> device,
                  Address dest,
                  uint32_t payload,
                  uint64_t packets,
                  Time refill)
        : m_device(device)
        , m_queue(device->GetQueue())
        , m_dest(dest)
        , m_payload(payload)
        , m_remaining(packets)
        , m_refill(refill)
    {
    }

    void Fill()
    {
        while (m_remaining > 0 && m_queue->GetNPackets() < BARE_DEPTH)
        {
            if (!m_device->Send(Create<Packet>(m_payload), m_dest, 0x0800))
            {
                ++m_failed;
            }
            --m_remaining;
        }
        if (m_remaining > 0)
        {
            Simulator::Schedule(m_refill, &BareGenerator::Fill, this);
        }
    }

    uint64_t GetFailed() const
    {
        return m_failed;
    }

private:
    Ptr<PointToPointNetDevice> m_device;
    Ptr<Queue<Packet>> m_queue;
    Address m_dest;
    uint32_t m_payload;
    uint64_t m_remaining;
    Time m_refill;
    uint64_t m_failed{0};
};

/// Counts what a receiving device hands up.
class BareSink
{
public:
    bool Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from)
    {
        ++m_received;
        return true;
    }

    uint64_t GetReceived() const
    {
        return m_received;
    }

private:
    uint64_t m_received{0};
};

/// Part 2: raw packets through bare ns-3 point-to-point device pairs, one hop each.
PartResult
RunBare(const BenchConfig& b, uint64_t packets)
{
    PartResult p;
    p.part = "bare";
    BareSink sink;
    uint64_t failed = 0;
    auto start = std::chrono::steady_clock::now();
    {
        SimulationScope scope(1, 1);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue(LINK_RATE));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(b.packetSize - PPP_HEADER));
        p2p.SetChannelAttribute("Delay", StringValue(LINK_DELAY));
        p2p.SetQueue("ns3::DropTailQueue<Packet>",
                     "MaxSize",
                     QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, BARE_QUEUE)));
        NodeContainer nodes;
        nodes.Create(2 * b.pairs);
        uint32_t payload = b.packetSize - PPP_HEADER;
        Time txTime = DataRate(LINK_RATE).CalculateBytesTxTime(b.packetSize);
        std::vector<std::unique_ptr<BareGenerator>> generators;
        for (uint32_t i = 0; i < b.pairs; ++i)
        {
            NetDeviceContainer devices = p2p.Install(nodes.Get(2 * i), nodes.Get(2 * i + 1));
            Ptr<PointToPointNetDevice> tx = DynamicCast<PointToPointNetDevice>(devices.Get(0));
            Ptr<NetDevice> rx = devices.Get(1);
            // Replace the node's protocol demultiplexer: the sink is the whole stack.
            rx->SetReceiveCallback(MakeCallback(&BareSink::Receive, &sink));
            uint64_t share = packets / b.pairs + (i < packets % b.pairs ? 1 : 0);
            generators.push_back(std::make_unique<BareGenerator>(
                tx, rx->GetAddress(), payload, share, txTime * (BARE_DEPTH / 2)));
            Simulator::ScheduleWithContext(
                tx->GetNode()->GetId(), Seconds(0), &BareGenerator::Fill, generators.back().get());
        }
        Simulator::Run();
        p.events = Simulator::GetEventCount();
        p.simSeconds = Simulator::Now().GetSeconds();
        for (const auto& g : generators)
        {
            failed += g->GetFailed();
        }
    }
    p.wallSeconds = SecondsSince(start);
    p.packetHops = sink.GetReceived();
    if (failed > 0 || p.packetHops != packets)
    {
        throw std::runtime_error("bare part: " + std::to_string(p.packetHops) + " of "
                                 + std::to_string(packets) + " packets received, "
                                 + std::to_string(failed) + " refused by the device");
    }
    return p;
}

/// One run: both parts, the bare one moving exactly the fabric's packet-hops.
struct RunResult
{
    PartResult fabric;
    PartResult bare;

    double Ratio() const
    {
        double bareRate = bare.HopsPerSecond();
        return bareRate > 0 ? fabric.HopsPerSecond() / bareRate : 0;
    }
};

double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The median of each figure over the runs (wall time, hence rates).
RunResult
MedianRun(const std::vector<RunResult>& runs)
{
    RunResult m = runs.front();
    std::vector<double> fabricWall;
    std::vector<double> bareWall;
    for (const auto& r : runs)
    {
        fabricWall.push_back(r.fabric.wallSeconds);
        bareWall.push_back(r.bare.wallSeconds);
    }
    m.fabric.wallSeconds = Median(fabricWall);
    m.bare.wallSeconds = Median(bareWall);
    return m;
}

double
MedianRatio(const std::vector<RunResult>& runs)
{
    std::vector<double> ratios;
    for (const auto& r : runs)
    {
        ratios.push_back(r.Ratio());
    }
    return Median(ratios);
}

void
PrintHeader()
{
    std::printf("%-8s %-7s %13s %9s %15s %13s %11s\n",
                "run",
                "part",
                "packet-hops",
                "wall s",
                "packet-hops/s",
                "events/s",
                "events/hop");
}

void
PrintPart(const std::string& run, const PartResult& p)
{
    std::printf("%-8s %-7s %13llu %9.3f %15.0f %13.0f %11.2f\n",
                run.c_str(),
                p.part.c_str(),
                static_cast<unsigned long long>(p.packetHops),
                p.wallSeconds,
                p.HopsPerSecond(),
                p.EventsPerSecond(),
                p.EventsPerHop());
}

nlohmann::json
ToJson(const PartResult& p)
{
    return {{"packet_hops", p.packetHops},
            {"wall_s", p.wallSeconds},
            {"packet_hops_per_s", p.HopsPerSecond()},
            {"events", p.events},
            {"events_per_s", p.EventsPerSecond()},
            {"events_per_hop", p.EventsPerHop()},
            {"sim_s", p.simSeconds}};
}

std::ofstream
OpenFile(const std::string& path)
{
    return dlnet::OpenOutputFile("results", path);
}

void
WriteResults(const BenchConfig& b,
             const TrafficConfig& fabric,
             const std::vector<RunResult>& runs,
             const std::string& dir)
{
    MakeResultsDir(dir);
    RunResult median = MedianRun(runs);
    double ratio = MedianRatio(runs);
    {
        std::ofstream out = OpenFile(dir + "/bench.csv");
        out << "run,part,packet_hops,wall_s,packet_hops_per_s,events,events_per_s,events_per_hop,"
               "sim_s,ratio\n";
        auto row = [&out](const std::string& run, const PartResult& p, double ratio)
        {
            char line[256];
            std::snprintf(line,
                          sizeof(line),
                          "%s,%s,%llu,%.6f,%.1f,%llu,%.1f,%.4f,%.9g,%.4f\n",
                          run.c_str(),
                          p.part.c_str(),
                          static_cast<unsigned long long>(p.packetHops),
                          p.wallSeconds,
                          p.HopsPerSecond(),
                          static_cast<unsigned long long>(p.events),
                          p.EventsPerSecond(),
                          p.EventsPerHop(),
                          p.simSeconds,
                          ratio);
            out << line;
        };
        for (std::size_t i = 0; i < runs.size(); ++i)
        {
            row(std::to_string(i + 1), runs[i].fabric, runs[i].Ratio());
            row(std::to_string(i + 1), runs[i].bare, runs[i].Ratio());
        }
        row("median", median.fabric, ratio);
        row("median", median.bare, ratio);
    }
    nlohmann::json j;
    j["config"] = nlohmann::json::object();
    for (const auto& o : BenchOptions())
    {
        j["config"][o.name] = o.get(b);
    }
    j["fabric_traffic"] = ToJson(fabric);
    j["runs"] = nlohmann::json::array();
    for (const auto& r : runs)
    {
        j["runs"].push_back(
            {{"fabric", ToJson(r.fabric)}, {"bare", ToJson(r.bare)}, {"ratio", r.Ratio()}});
    }
    j["median"]
        = {{"fabric", ToJson(median.fabric)}, {"bare", ToJson(median.bare)}, {"ratio", ratio}};
    OpenFile(dir + "/bench.json") << j.dump(2) << '\n';
}

} // namespace

int
main(int argc, char* argv[])
{
    return GuardedMain(
        [&]()
        {
            BenchConfig config;
            ExperimentCommandLine cmd(__FILE__);
            cmd.AddOptions(BenchOptions(), config);
            cmd.AddValue(
                "results", "folder for bench.csv and bench.json (empty: none)", config.results);
            cmd.Parse(argc, argv);
            config.Validate();
            TrafficConfig fabric = FabricConfig(config);
            fabric.Validate();

            std::printf("fabric-bench: %u-byte packets on the wire, %s links, %s delay\n",
                        config.packetSize,
                        LINK_RATE,
                        LINK_DELAY);
            std::printf("  fabric: leaf-spine %u leaves x %u hosts, %u spines, non-blocking, "
                        "lossless; permutation (shift %u), one %llu-byte message per host\n",
                        config.leaves,
                        config.hostsPerLeaf,
                        config.spines,
                        fabric.shift,
                        static_cast<unsigned long long>(fabric.messageBytes));
            std::printf("  bare:   %u ns-3 PointToPointNetDevice pair(s), raw packets, same "
                        "packet-hops as the fabric\n\n",
                        config.pairs);
            PrintHeader();

            std::vector<RunResult> runs;
            for (uint32_t i = 0; i < config.repeat; ++i)
            {
                RunResult r;
                r.fabric = RunFabric(config);
                PrintPart(std::to_string(i + 1), r.fabric);
                r.bare = RunBare(config, r.fabric.packetHops);
                PrintPart(std::to_string(i + 1), r.bare);
                std::fflush(stdout);
                runs.push_back(r);
            }
            double ratio = MedianRatio(runs);
            if (runs.size() > 1)
            {
                RunResult median = MedianRun(runs);
                PrintPart("median", median.fabric);
                PrintPart("median", median.bare);
            }
            std::printf("\nratio fabric/bare (packet-hops per wall second)%s: %.3f   "
                        "(target >= 0.5: %s)\n",
                        runs.size() > 1 ? ", median" : "",
                        ratio,
                        ratio >= 0.5 ? "met" : "NOT met");
            if (!config.results.empty())
            {
                WriteResults(config, fabric, runs, config.results);
                std::printf("results: %s/bench.csv, %s/bench.json\n",
                            config.results.c_str(),
                            config.results.c_str());
            }
            return 0;
        });
}
