/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The in-network backends at flow level against their packet-level twins,
// each case run on both networks in the same test (RunCollective with
// network=packet and network=flow, everything else equal): SwitchML on a
// star and on a leaf-spine with pools from line rate down to a
// window-limited one; OmniReduce at densities 1, 0.5 and 0.1 with
// aggregators on dedicated servers, colocated on the workers and in the
// switch. The flow-level time must be within 5 % of the packet-level time (the
// issue's bound), and within a tighter bound where the twin agrees more closely
// (each case's own, a margin over what it measured, so that a change of a fraction of
// the time shows), and the packets, bytes and functional results must be the same.

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

using namespace ns3;

namespace
{

const double TOLERANCE = 0.05; //!< issue 12: within 5 % of packet level
/// The twins whose rounds are the packet level's in closed form (OmniReduce on servers or in
/// the switch: measured within 0.41 %, fused blocks 1.44 %; window-limited on servers within
/// 0.04 %; a single round exact)
const double SERVERS_TOLERANCE = 0.005;
const double FUSED_TOLERANCE = 0.02;
const double WINDOW_SERVERS_TOLERANCE = 0.001;
const double ONE_ROUND_TOLERANCE = 1e-6;
/// SwitchML's twin is its packet pipeline in closed form (every stream, header and the
/// last result's way back): equal to packet level to the picosecond in every case here, so
/// that a change of 85 ns (the last hop left out) or 3.7% (the headers) shows
const double SWITCHML_TOLERANCE = 1e-6;

/// A case to run at both levels, and how close flow level must come.
struct TwinCase
{
    std::string name;
    CollectiveConfig config;
    double tolerance{TOLERANCE};
};

/// One case run at both levels.
struct Twin
{
    CollectiveRow packet;
    CollectiveRow flow;
    double packetWall{0};
    double flowWall{0};
};

CollectiveRow
RunOn(CollectiveConfig c, const std::string& network, double& wall)
{
    c.topology.network = network;
    auto start = std::chrono::steady_clock::now();
    CollectiveResult r = RunCollective(c);
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    NS_ABORT_MSG_UNLESS(r.rows.size() == 1, "one size, one row");
    return r.rows[0];
}

Twin
RunTwin(const CollectiveConfig& c)
{
    Twin t;
    t.packet = RunOn(c, "packet", t.packetWall);
    t.flow = RunOn(c, "flow", t.flowWall);
    return t;
}

/// One row of the agreement table (the doc's table is these lines).
void
PrintRow(const std::string& name, const Twin& t)
{
    double diff = (t.flow.time - t.packet.time) / t.packet.time * 100;
    std::printf("agreement: %-52s packet %11.4f us  flow %11.4f us  %+7.3f %%  "
                "(wall %.2f s / %.3f s)\n",
                name.c_str(),
                t.packet.time * 1e6,
                t.flow.time * 1e6,
                diff,
                t.packetWall,
                t.flowWall);
}

/// A fabric of the default links (100 Gbit/s, 500 ns, mtu 4096; a leaf-spine of 2
/// leaves of 4 hosts under 2 spines, 1:1) whose switches take 100 ns.
TopologyConfig
Fabric(const std::string& kind, uint32_t hosts = 8)
{
    TopologyConfig t;
    t.kind = kind;
    t.hosts = hosts;
    t.switchLatency = "100ns";
    return t;
}

/// A test case comparing the two levels on a list of configurations.
class TwinTestCase : public TestCase
{
public:
    TwinTestCase(std::string name, std::vector<TwinCase> cases)
        : TestCase(name)
        , m_cases(std::move(cases))
    {
    }

protected:
    /// Checks beyond the time (the same work and results).
    virtual void Compare(const std::string& name, const Twin& t)
    {
        NS_TEST_EXPECT_MSG_EQ(t.packet.network, "packet", name << ": the row names its network");
        NS_TEST_EXPECT_MSG_EQ(t.flow.network, "flow", name << ": the row names its network");
        NS_TEST_EXPECT_MSG_EQ(
            t.flow.packets, t.packet.packets, name << ": packets the workers sent");
        NS_TEST_EXPECT_MSG_EQ(t.flow.bytesUp, t.packet.bytesUp, name << ": payload bytes up");
        NS_TEST_EXPECT_MSG_EQ(t.flow.bytesDown, t.packet.bytesDown, name << ": payload bytes down");
        NS_TEST_EXPECT_MSG_EQ(t.flow.checked, t.packet.checked, name << ": checked at both levels");
        NS_TEST_EXPECT_MSG_EQ(t.flow.correct, t.packet.correct, name << ": the same verdict");
        NS_TEST_EXPECT_MSG_EQ_TOL(t.flow.aggregatorUtilisation,
                                  t.packet.aggregatorUtilisation,
                                  TOLERANCE * t.packet.aggregatorUtilisation,
                                  name << ": busiest aggregator link");
    }

    /// Called with each twin before the common checks (extra checks of a case).
    virtual void Check(const std::string& name, const CollectiveConfig& c, const Twin& t) {}

private:
    void DoRun() override
    {
        for (const auto& [name, c, tolerance] : m_cases)
        {
            NS_ABORT_MSG_UNLESS(tolerance <= TOLERANCE, "no case may be looser than the issue");
            Twin t = RunTwin(c);
            PrintRow(name, t);
            NS_TEST_EXPECT_MSG_GT(t.packet.time, 0, name << ": packet level ran");
            NS_TEST_EXPECT_MSG_EQ_TOL(t.flow.time,
                                      t.packet.time,
                                      tolerance * t.packet.time,
                                      name << ": flow level within " << tolerance * 100
                                           << " % of packet level");
            Compare(name, t);
            Check(name, c, t);
        }
    }

    std::vector<TwinCase> m_cases;
};

CollectiveConfig
Switchml(const TopologyConfig& t, uint64_t bytes, uint32_t pool, bool functional = false)
{
    CollectiveConfig c;
    c.topology = t;
    c.algorithm = "switchml";
    c.minBytes = c.maxBytes = bytes;
    c.packetElements = 256;
    c.poolSlots = pool;
    c.functional = functional;
    return c;
}

/// SwitchML: the window must really limit the smallest pool (else the case tests nothing).
class SwitchmlTestCase : public TwinTestCase
{
public:
    SwitchmlTestCase(const std::string& kind,
                     const TopologyConfig& t,
                     uint64_t bytes,
                     const std::vector<uint32_t>& pools)
        : TwinTestCase("switchml on a " + kind
                           + ", flow against packet level, pools from line "
                             "rate to window-limited, and a functional run",
                       Cases(kind, t, bytes, pools))
        , m_window(pools.back())
    {
    }

private:
    static std::vector<TwinCase> Cases(const std::string& kind,
                                       const TopologyConfig& t,
                                       uint64_t bytes,
                                       const std::vector<uint32_t>& pools)
    {
        std::vector<TwinCase> out;
        for (uint32_t pool : pools)
        {
            out.push_back({"switchml " + kind + " " + std::to_string(bytes >> 20) + " MiB pool "
                               + std::to_string(pool),
                           Switchml(t, bytes, pool),
                           SWITCHML_TOLERANCE});
        }
        // functional: the same quantised sums, bit for bit (equal largest error)
        out.push_back({"switchml " + kind + " 256 KiB pool 16 functional",
                       Switchml(t, 256 << 10, 16, true),
                       SWITCHML_TOLERANCE});
        return out;
    }

    void Check(const std::string& name, const CollectiveConfig& c, const Twin& t) override
    {
        if (c.functional)
        {
            NS_TEST_EXPECT_MSG_EQ(t.packet.checked, true, name << ": checked");
            NS_TEST_EXPECT_MSG_EQ(t.packet.correct, true, name << ": packet level correct");
            NS_TEST_EXPECT_MSG_EQ(t.flow.correct, true, name << ": flow level correct");
            NS_TEST_EXPECT_MSG_EQ(
                t.flow.maxError, t.packet.maxError, name << ": the same quantised sums");
        }
        if (c.poolSlots == m_window)
        {
            // the packet level moves well below line rate with this pool
            double wire = c.maxBytes * (1024.0 + 40) / 1024;
            double line = wire / (100e9 / 8);
            NS_TEST_EXPECT_MSG_GT(
                t.packet.time, 1.5 * line, name << ": the window limits the packet level");
        }
    }

    uint32_t m_window;
};

CollectiveConfig
Omni(const std::string& placement, uint32_t n, double density, uint64_t bytes)
{
    CollectiveConfig c;
    c.topology = Fabric("star", placement == "servers" ? 2 * n : n);
    c.topology.mtu = 9000;
    c.ranks = "0-" + std::to_string(n - 1);
    c.algorithm = "omnireduce";
    c.minBytes = c.maxBytes = bytes;
    c.blockElements = 256;
    c.messageBlocks = 1;
    c.poolSlots = 256;
    c.aggregatorPlacement = placement;
    c.density = density;
    return c;
}

std::vector<TwinCase>
OmniCases(const std::string& placement)
{
    // colocated aggregators share the workers' links and memory, which the twin's round cycle
    // approximates (measured within 1.7 %): the bound
    const bool colocated = placement == "colocated";
    const double tolerance = colocated ? TOLERANCE : SERVERS_TOLERANCE;
    std::vector<TwinCase> out;
    for (double d : {1.0, 0.5, 0.1})
    {
        char name[96];
        std::snprintf(
            name, sizeof(name), "omnireduce %s 8 workers 4 MiB d %.1f", placement.c_str(), d);
        out.push_back({name, Omni(placement, 8, d, 4 << 20), tolerance});
    }
    // fused blocks (4 per packet), and a functional run
    CollectiveConfig fused = Omni(placement, 8, 0.1, 4 << 20);
    fused.messageBlocks = 4;
    out.push_back({"omnireduce " + placement + " 8 workers 4 MiB d 0.1 fused 4",
                   fused,
                   colocated ? TOLERANCE : FUSED_TOLERANCE});
    CollectiveConfig functional = Omni(placement, 4, 0.5, 1 << 20);
    functional.functional = true;
    out.push_back(
        {"omnireduce " + placement + " 4 workers 1 MiB d 0.5 functional", functional, tolerance});
    return out;
}

/// OmniReduce on one placement.
class OmniTestCase : public TwinTestCase
{
public:
    OmniTestCase(const std::string& placement)
        : TwinTestCase(
            "omnireduce with aggregators " + placement
                + ", densities 1, 0.5, 0.1, fused and functional: flow against packet level",
            OmniCases(placement))
    {
    }

private:
    void Check(const std::string& name, const CollectiveConfig& c, const Twin& t) override
    {
        if (c.functional)
        {
            NS_TEST_EXPECT_MSG_EQ(t.packet.checked, true, name << ": checked");
            NS_TEST_EXPECT_MSG_EQ(t.packet.correct, true, name << ": packet level exact");
            NS_TEST_EXPECT_MSG_EQ(t.flow.correct, true, name << ": flow level exact");
        }
    }
};

/**
 * OmniReduce limited by its window: one slot and four, aggregators that take
 * 0, 100 ns and 1 us a packet, 1 MiB on 8 workers. Rounds follow each other
 * at packet level as each worker gets its result back: the next round's
 * packets go up beside this round's results coming down (the flow level
 * counted the two trains and the processing one after another: +19% to +36%).
 */
std::vector<TwinCase>
OmniWindowCases()
{
    std::vector<TwinCase> out;
    for (uint32_t slots : {1, 4})
    {
        for (const char* packetTime : {"0ns", "100ns", "1us"})
        {
            for (const std::string placement : {"servers", "colocated"})
            {
                const bool servers = placement == "servers";
                CollectiveConfig c = Omni(placement, 8, servers ? 1.0 : 0.5, 1 << 20);
                c.poolSlots = slots;
                c.aggregatorPacketTime = packetTime;
                out.push_back({"omnireduce " + placement + " 8 workers 1 MiB d "
                                   + (servers ? "1.0, " : "0.5, ") + std::to_string(slots)
                                   + " slot(s), " + packetTime + " a packet",
                               c,
                               servers ? WINDOW_SERVERS_TOLERANCE : TOLERANCE});
            }
        }
    }
    // one round of one slot (1 KiB: a block per worker): the job is one round trip, which the
    // last stage's time after its flow carries (left out, the time fell to the flow's alone)
    for (const std::string placement : {"servers", "colocated", "switch"})
    {
        out.push_back({"omnireduce " + placement + " 8 workers 1 KiB d 0.5, one round",
                       Omni(placement, 8, 0.5, 1024),
                       ONE_ROUND_TOLERANCE});
    }
    // one round on each of the 8 servers (8 KiB: a block per aggregator, so that each worker's
    // train up is as long as each aggregator's) of 1 us a packet: the round's processing
    // counted once (counted twice, this case was +62 %)
    CollectiveConfig slow = Omni("servers", 8, 0.5, 8 << 10);
    slow.aggregatorPacketTime = "1us";
    out.push_back({"omnireduce servers 8 workers 8 KiB d 0.5, one round, 1us a packet",
                   slow,
                   ONE_ROUND_TOLERANCE});
    return out;
}

/// SwitchML's outputs at both levels, bit for bit, on floats of many magnitudes.
class SwitchmlOutputsTestCase : public TestCase
{
public:
    SwitchmlOutputsTestCase()
        : TestCase("switchml on a leaf-spine at flow level: the packet level's quantised sums, "
                   "bit for bit")
    {
    }

private:
    /// Every worker's output after one job on the leaf-spine at the given level.
    static std::vector<std::vector<float>> Outputs(const std::string& network,
                                                   const std::vector<std::vector<float>>& in)
    {
        TopologyConfig t = Fabric("leaf-spine");
        t.network = network;
        std::vector<std::vector<float>> out;
        SimulationScope scope(1, 1);
        Cluster cluster = BuildCluster(t);
        SwitchmlSettings s;
        s.elementsPerPacket = 64;
        s.window = 8;
        SwitchmlHelper::Start(cluster,
                              *MakeTopology(t),
                              Communicator::World(in.size()),
                              in[0].size(),
                              s,
                              in,
                              SwitchmlHelper::DoneCallback(
                                  [&out](const SwitchmlJobRecord& r)
                                  {
                                      for (const auto& w : r.workers)
                                      {
                                          out.push_back(w.output);
                                      }
                                  }));
        Simulator::Run();
        return out;
    }

    void DoRun() override
    {
        const uint32_t n = 8;
        const uint64_t elements = 5000; // 78 chunks and a short one
        std::vector<std::vector<float>> in(n, std::vector<float>(elements));
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        for (uint32_t w = 0; w < n; ++w)
        {
            for (uint64_t i = 0; i < elements; ++i)
            {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // chunk i / 64 spans 2^-20 .. 2^10; a tenth of the values are 0
                int e = -20 + int((i / 64) % 31) - int(x % 8);
                double u = double(x >> 11) * 0x1.0p-53 * 2 - 1;
                in[w][i] = (x >> 3) % 10 == 0 ? 0.0f : float(std::ldexp(u, e));
            }
        }
        std::vector<std::vector<float>> packet = Outputs("packet", in);
        std::vector<std::vector<float>> flow = Outputs("flow", in);
        NS_TEST_ASSERT_MSG_EQ(packet.size(), n, "every worker's output at packet level");
        NS_TEST_ASSERT_MSG_EQ(flow.size(), n, "every worker's output at flow level");
        uint64_t differing = 0;
        uint64_t inexact = 0;
        for (uint32_t w = 0; w < n; ++w)
        {
            NS_TEST_ASSERT_MSG_EQ(flow[w].size(), elements, "elements of worker " << w);
            differing += std::memcmp(flow[w].data(), packet[w].data(), 4 * elements) != 0;
        }
        for (uint64_t i = 0; i < elements; ++i)
        {
            float exact = 0;
            for (uint32_t w = 0; w < n; ++w)
            {
                exact += in[w][i];
            }
            inexact += packet[0][i] != exact;
        }
        std::printf("measured: %llu of %u workers' outputs differ between the levels; "
                    "%llu of %llu elements differ from the float sum (quantisation)\n",
                    static_cast<unsigned long long>(differing),
                    n,
                    static_cast<unsigned long long>(inexact),
                    static_cast<unsigned long long>(elements));
        NS_TEST_EXPECT_MSG_EQ(differing, 0, "the same bits at both levels");
        NS_TEST_EXPECT_MSG_GT(inexact, 0, "the quantisation shows (the check can fail)");
    }
};

} // namespace

class FlowAggregationTestSuite : public TestSuite
{
public:
    FlowAggregationTestSuite()
        : TestSuite("dlnet-flow-aggregation", UNIT)
    {
        AddTestCase(new SwitchmlTestCase("star", Fabric("star"), 4 << 20, {256, 16, 8, 4}),
                    TestCase::QUICK);
        AddTestCase(new SwitchmlTestCase("leaf-spine", Fabric("leaf-spine"), 4 << 20, {256, 16, 4}),
                    TestCase::QUICK);
        AddTestCase(new SwitchmlOutputsTestCase, TestCase::QUICK);
        for (std::string placement : {"servers", "colocated", "switch"})
        {
            AddTestCase(new OmniTestCase(placement), TestCase::QUICK);
        }
        AddTestCase(new TwinTestCase("omnireduce limited by its window (1 and 4 slots) and by its "
                                     "aggregators' packet time, and one round: flow against packet "
                                     "level",
                                     OmniWindowCases()),
                    TestCase::QUICK);
    }
};

static FlowAggregationTestSuite g_flowAggregationTestSuite;
