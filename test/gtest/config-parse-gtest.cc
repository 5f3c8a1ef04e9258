/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: the strict parsers, the option tables and config validation.

#include "expect-invalid.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-backend.h"
#include "ns3/collective-experiment.h"
#include "ns3/command-line-options.h"
#include "ns3/communicator.h"
#include "ns3/config-parse.h"
#include "ns3/fabric-header.h"
#include "ns3/packet.h"
#include "ns3/parallel-groups.h"
#include "ns3/reduction.h"
#include "ns3/simulation-scope.h"
#include "ns3/traffic-experiment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

using namespace ns3;
using namespace ns3::dlnet;

TEST(ParseUnsigned, AcceptsRangeRejectsJunkAndNegatives)
{
    EXPECT_EQ(ParseUnsigned("rows", "12", 1, 100), 12u);
    EXPECT_EQ(ParseUnsigned("rows", " 7 ", 1, 100), 7u);
    ExpectInvalid(
        []
        {
            ParseUnsigned("rows", "-1", 1, 100);
        },
        {"rows", "-1", "1 to 100"});
    ExpectInvalid(
        []
        {
            ParseUnsigned("rows", "0", 1, 100);
        },
        {"rows"});
    ExpectInvalid(
        []
        {
            ParseUnsigned("rows", "4x", 1, 100);
        },
        {"rows"});
    ExpectInvalid(
        []
        {
            ParseUnsigned("rows", "", 1, 100);
        },
        {"rows"});
    ExpectInvalid(
        []
        {
            ParseUnsigned("rows", "99999999999999999999999", 1);
        },
        {"rows"});
}

TEST(ParseReal, DecimalOnly)
{
    EXPECT_EQ(ParseReal("efficiency", "0.5", 0, 1), 0.5);
    EXPECT_EQ(ParseReal("memory-bandwidth", "1.8e3", 1, 1e6), 1800);
    EXPECT_EQ(ParseReal("memory-bandwidth", " 16 ", 1, 1e6), 16);
    // a subnormal is in range (std::stod refused it as out of range)
    EXPECT_EQ(ParseReal("densities", "4.9e-324", 0, 1), 4.9e-324);
    // -0 is 0 (it printed as -0)
    EXPECT_FALSE(std::signbit(ParseReal("densities", "-0", 0, 1)));
    EXPECT_FALSE(std::signbit(ParseReal("densities", "-0.0e-400", 0, 1)));
    // a nonzero number below the smallest double is not read as 0 (where 0 means off)
    for (const char* text : {"1e-400", "-1e-400", "0.5e-330"})
    {
        ExpectInvalid(
            [text]
            {
                ParseReal("loss", text, 0, 1);
            },
            {"loss", "0 or at least 4.9e-324"});
    }
    // a loss rate: 1 is out, and the message says so (it said "from 0 to 1")
    EXPECT_EQ(ParseReal("loss-rate", "0.5", 0, 1, true), 0.5);
    for (const char* text : {"1", "nan", "1.5"})
    {
        ExpectInvalid(
            [text]
            {
                ParseReal("loss-rate", text, 0, 1, true);
            },
            {"loss-rate", "a number from 0 to below 1"});
    }
    // (a range from 0: strtod reads most of these as 0, which a range from 1 refuses anyway)
    for (const char* text : {"0x10",
                             "0X1p4",
                             "inf",
                             "nan",
                             "1e400",
                             "-1e400",
                             "16GB",
                             "1,5",
                             "",
                             "e5",
                             ".",
                             "-",
                             "+",
                             "1e",
                             "1.5.5",
                             "0..5",
                             "5-"})
    {
        ExpectInvalid(
            [text]
            {
                ParseReal("densities", text, 0, 1e6);
            },
            {"densities", "a number from 0 to"});
    }
}

TEST(ParseBytes, Units)
{
    EXPECT_EQ(ParseBytes("size", "4096"), 4096u);
    EXPECT_EQ(ParseBytes("size", "4KiB"), 4096u);
    EXPECT_EQ(ParseBytes("size", "1MiB"), 1u << 20);
    EXPECT_EQ(ParseBytes("size", "2GB"), 2000000000u);
    EXPECT_EQ(ParseBytes("size", "10B"), 10u);
    ExpectInvalid(
        []
        {
            ParseBytes("size", "0");
        },
        {"size", "at least 1"});
    ExpectInvalid(
        []
        {
            ParseBytes("size", "1.5MiB");
        },
        {"size"});
    ExpectInvalid(
        []
        {
            ParseBytes("size", "12 parsecs");
        },
        {"size"});
}

TEST(ParseRate, PositiveOnly)
{
    EXPECT_EQ(ParseRate("link-rate", "100Gbps").GetBitRate(), 100000000000u);
    EXPECT_EQ(ParseRate("link-rate", "750GBps").GetBitRate(), 6000000000000u);
    ExpectInvalid(
        []
        {
            ParseRate("link-rate", "0Gbps");
        },
        {"link-rate", "0Gbps", "positive"});
    ExpectInvalid(
        []
        {
            ParseRate("link-rate", "-10Gbps");
        },
        {"link-rate", "-10Gbps"});
    ExpectInvalid(
        []
        {
            ParseRate("link-rate", "fast");
        },
        {"link-rate"});
    // ns-3's own parser would abort on a second word: rejected before it
    for (const std::string bad : {"1 GBps", "100\tGbps", "100Gbps\n", "100Gbps x"})
    {
        ExpectInvalid(
            [&bad]
            {
                ParseRate("link-rate", bad);
            },
            {"link-rate"});
    }
    EXPECT_EQ(ParseRate("link-rate", " 3000GBps ").GetBitRate(), 24000000000000u);
}

TEST(ParseTime, NonNegativeWithUnit)
{
    EXPECT_EQ(ParseTime("delay", "500ns"), NanoSeconds(500));
    EXPECT_EQ(ParseTime("delay", "0ns"), Seconds(0));
    EXPECT_EQ(ParseTime("delay", "1.5us"), NanoSeconds(1500));
    ExpectInvalid(
        []
        {
            ParseTime("delay", "-1us");
        },
        {"delay"});
    ExpectInvalid(
        []
        {
            ParseTime("delay", "1 fortnight");
        },
        {"delay"});
    ExpectInvalid(
        []
        {
            ParseTime("delay", "abc");
        },
        {"delay"});
}

TEST(ParseChoice, NamesTheChoices)
{
    EXPECT_EQ(ParseChoice("topology", "mesh", {"star", "mesh"}), "mesh");
    ExpectInvalid(
        []
        {
            ParseChoice("topology", "ring", {"star", "mesh", "torus"});
        },
        {"topology", "ring", "star, mesh or torus"});
}

// A choice is taken exactly: with its spaces trimmed, 'flow ' passed the check while the
// caller's own copy (megatron-scaling's network) was compared with "flow" and ran packet level.
TEST(ParseChoice, Exact)
{
    for (const char* text : {"flow ", " flow", "Flow", "flow\n"})
    {
        ExpectInvalid(
            [text]
            {
                ParseChoice("network", text, {"packet", "flow"});
            },
            {"network: got '", "expected one of packet or flow"});
    }
}

TEST(ParseBool, Spellings)
{
    EXPECT_TRUE(ParseBool("functional", "yes"));
    EXPECT_TRUE(ParseBool("functional", "True"));
    EXPECT_FALSE(ParseBool("functional", "0"));
    ExpectInvalid(
        []
        {
            ParseBool("functional", "maybe");
        },
        {"functional", "true or false"});
}

TEST(FabricHeader, RoundTripAndSize)
{
    FabricHeader h;
    h.m_src = 0xdeadbeef;
    h.m_dst = 17;
    h.m_msgId = 123456;
    h.m_seq = 99;
    h.m_total = 100;
    h.m_tc = 3;
    h.m_protocol = FabricHeader::ACK;
    h.m_hops = 5;
    h.SetVc(1);
    Ptr<Packet> p = Create<Packet>(100);
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), 100u + FabricHeader::SERIALIZED_SIZE);
    FabricHeader g;
    p->RemoveHeader(g);
    EXPECT_EQ(g.m_src, h.m_src);
    EXPECT_EQ(g.m_dst, h.m_dst);
    EXPECT_EQ(g.m_msgId, h.m_msgId);
    EXPECT_EQ(g.m_seq, h.m_seq);
    EXPECT_EQ(g.m_total, h.m_total);
    EXPECT_EQ(g.m_tc, h.m_tc);
    EXPECT_EQ(g.m_protocol, h.m_protocol);
    EXPECT_EQ(g.m_hops, h.m_hops);
    EXPECT_EQ(g.GetVc(), 1);
    g.SetVc(0);
    EXPECT_EQ(g.GetVc(), 0);
}

TEST(TrafficOptions, SetByNameWithDashesOrUnderscores)
{
    TrafficConfig c;
    SetTrafficOption(c, "hosts_per_leaf", "8");
    SetTrafficOption(c, "link-rate", "25Gbps");
    SetTrafficOption(c, "functional", "true");
    EXPECT_EQ(c.topology.hostsPerLeaf, 8u);
    EXPECT_EQ(c.topology.hostLinkRate, "25Gbps");
    EXPECT_TRUE(c.functional);
    ExpectInvalid(
        [&]
        {
            SetTrafficOption(c, "colour", "red");
        },
        {"colour", "known options", "mtu"});
    ExpectInvalid(
        [&]
        {
            SetTrafficOption(c, "rows", "-3");
        },
        {"rows"});
    ExpectInvalid(
        [&]
        {
            SetTrafficOption(c, "pattern", "gossip");
        },
        {"pattern", "incast"});
}

TEST(TrafficConfig, ValidationNamesTheField)
{
    TrafficConfig ok;
    EXPECT_NO_THROW(ok.Validate());
    auto bad = [&](auto mutate, std::string field)
    {
        TrafficConfig c;
        mutate(c);
        ExpectInvalid(
            [&]
            {
                c.Validate();
            },
            {field});
    };
    bad(
        [](TrafficConfig& c)
        {
            c.topology.kind = "mesh";
            c.topology.rows = 0;
        },
        "rows");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.kind = "torus";
            c.topology.cols = 0;
        },
        "cols");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.mtu = 20;
        },
        "mtu");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.hostLinkRate = "0bps";
        },
        "link-rate");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.fabricLinkRate = "-1Gbps";
        },
        "fabric-link-rate");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.trafficClasses = 9;
        },
        "traffic-classes");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.flowControl = "pfc";
        },
        "flow-control");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.flowControl = "lossy";
            c.topology.lossRate = 1.5;
        },
        "loss-rate");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.kind = "leaf-spine";
            c.topology.oversubscription = 0;
        },
        "oversubscription");
    bad(
        [](TrafficConfig& c)
        {
            c.pattern = "point-to-point";
            c.src = 3;
            c.dst = 3;
        },
        "dst");
    bad(
        [](TrafficConfig& c)
        {
            c.pattern = "incast";
            c.target = 100;
        },
        "target");
    bad(
        [](TrafficConfig& c)
        {
            c.pattern = "incast";
            c.senders = 8;
        },
        "senders");
    bad(
        [](TrafficConfig& c)
        {
            c.tc = 4;
        },
        "tc");
    bad(
        [](TrafficConfig& c)
        {
            c.seed = 0;
        },
        "seed");
    bad(
        [](TrafficConfig& c)
        {
            c.topology.kind = "star";
            c.topology.hosts = 1;
        },
        "topology");
}

TEST(Communicator, SplitRowsAndColumns)
{
    Communicator world = Communicator::World(12); // a 4 x 3 grid, rank = y * 4 + x
    auto rows = world.Split(4, false);
    auto cols = world.Split(3, true);
    ASSERT_EQ(rows.size(), 3u);
    ASSERT_EQ(cols.size(), 4u);
    EXPECT_EQ(rows[1].ranks, (std::vector<uint32_t>{4, 5, 6, 7}));
    EXPECT_EQ(cols[2].ranks, (std::vector<uint32_t>{2, 6, 10}));
    EXPECT_EQ(cols[2].name, "world/col2");
    ExpectInvalid(
        [&]
        {
            world.Split(5, false);
        },
        {"split size 5", "12 ranks"});
}

TEST(Communicator, ValidateNamesTheProblem)
{
    Communicator c;
    c.ranks = {0, 3, 3};
    ExpectInvalid(
        [&]
        {
            c.Validate(8);
        },
        {"ranks", "rank 3 appears twice"});
    c.ranks = {0, 9};
    ExpectInvalid(
        [&]
        {
            c.Validate(8);
        },
        {"ranks", "rank 9 is out of range", "0 to 7"});
    c.ranks = {};
    ExpectInvalid(
        [&]
        {
            c.Validate(8);
        },
        {"ranks", "empty"});
}

TEST(Reduction, HalfAndBfloatRoundTrip)
{
    for (float v : {0.0f, 1.0f, -2.5f, 1024.0f, 65504.0f, 6.1035156e-05f, 5 * 5.9604645e-08f})
    {
        EXPECT_EQ(HalfToFloat(FloatToHalf(v)), v) << v;
    }
    EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f + 1.0f / 4096)), 1.0f); // ties to even
    EXPECT_EQ(HalfToFloat(FloatToHalf(70000.0f)), INFINITY);
    for (float v : {0.0f, 1.0f, -3.0f, 256.0f, 1.2676506e30f})
    {
        EXPECT_EQ(Bf16ToFloat(FloatToBf16(v)), v) << v;
    }
    EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 1.0f / 256)), 1.0f); // ties to even
}

TEST(AlphaBeta, RingFormulaAndAutoChoice)
{
    NetworkModel m;
    m.alpha = 1e-6;
    m.bandwidth = 10e9;
    double ring = PredictCollectiveTime(
        CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1 << 20, 1, m);
    EXPECT_DOUBLE_EQ(ring, 2 * 7 * 1e-6 + 2.0 * 7 / 8 * (1 << 20) / 10e9);
    double hd = PredictCollectiveTime(
        CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::HALVING_DOUBLING, 8, 1 << 20, 1, m);
    EXPECT_DOUBLE_EQ(hd, 2 * 3 * 1e-6 + 2.0 * 7 / 8 * (1 << 20) / 10e9);
    // auto: the smallest bound among the registered backends that run here
    TopologyConfig star;
    star.hosts = 8;
    Ptr<const Topology> t = MakeTopology(star);
    Communicator world = Communicator::World(8);
    CollectiveRequest request;
    request.bytes = 64;
    // tiny messages: latency decides, and direct has the fewest steps
    EXPECT_EQ(CollectiveRegistry::ChooseAuto(request, *t, world, m), "direct");
    request.bytes = 1 << 30;
    std::string big = CollectiveRegistry::ChooseAuto(request, *t, world, m);
    // hierarchical is never chosen without a grid; in-network backends never (a star's switch
    // aggregates, and switchml's bound is below every schedule's at this size)
    EXPECT_NE(big, "hierarchical");
    EXPECT_NE(big, "switchml");
    EXPECT_NE(big, "omnireduce");
    Ptr<CollectiveBackend> switchml = CollectiveRegistry::Create("switchml");
    EXPECT_LT(switchml->Bound(request, world, m),
              CollectiveRegistry::Create(big)->Bound(request, world, m));
}

TEST(AlphaBeta, SmallMessagesStoreAndForwardTheirOwnBytes)
{
    // alpha = 2 us without store and forward, 2 us + 4096-byte packets' 3 us with it
    NetworkModel m;
    m.alpha = 5e-6;
    m.alphaBase = 2e-6;
    m.bandwidth = 10e9;
    m.packetBytes = 4096;
    EXPECT_DOUBLE_EQ(WithPacket(m, 4096).alpha, 5e-6);
    EXPECT_DOUBLE_EQ(WithPacket(m, 1024).alpha, 2e-6 + 3e-6 / 4);
    EXPECT_DOUBLE_EQ(WithPacket(m, 1 << 20).alpha, 5e-6) << "never scaled up";
    EXPECT_DOUBLE_EQ(WithPacket(m, 0).alpha, 2e-6);
    EXPECT_EQ(WithPacket(m, 1024).packetBytes, 0) << "not scaled twice";
    // a ring of 8 on 1 KiB: the smallest message any algorithm sends is 1024 / (2 x 8)
    // = 64 bytes, stored and forwarded with its 24-byte header
    const double a = 2e-6 + 3e-6 * (64 + 24) / 4096;
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1024, 1, m),
        2 * 7 * a + 2.0 * 7 / 8 * 1024 / 10e9);
    // large buffers keep the full packet
    EXPECT_DOUBLE_EQ(PredictCollectiveTime(
                         CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1 << 24, 1, m),
                     2 * 7 * 5e-6 + 2.0 * 7 / 8 * (1 << 24) / 10e9);
    // a send/receive sends its buffer in c messages of S / c, on its own path when the
    // model has it (here 1 us without store and forward, 1 us + 2 us with it)
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(CollectiveOp::SEND_RECV, CollectiveAlgorithm::RING, 2, 1024, 1, m),
        2e-6 + 3e-6 * (1024 + 24) / 4096 + 1024 / 10e9);
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(CollectiveOp::SEND_RECV, CollectiveAlgorithm::RING, 2, 1024, 4, m),
        2e-6 + 3e-6 * (256 + 24) / 4096 + 1024 / 10e9);
    NetworkModel pair = m;
    pair.sendAlpha = 3e-6;
    pair.sendAlphaBase = 1e-6;
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(CollectiveOp::SEND_RECV, CollectiveAlgorithm::RING, 2, 1024, 1, pair),
        1e-6 + 2e-6 * (1024 + 24) / 4096 + 1024 / 10e9);
    // a grid's dimensions scale each from its own base: hierarchical on 4 x 2 with 1 KiB,
    // smallest message 1024 / (2 x 8) = 64 bytes
    NetworkModel grid = m;
    grid.grid.dim1 = 4;
    grid.grid.dim2 = 2;
    grid.alpha1 = 4e-6;
    grid.alpha1Base = 1e-6;
    grid.alpha2 = 9e-6;
    grid.alpha2Base = 5e-6;
    const double f = (64.0 + 24) / 4096;
    const double a1 = 1e-6 + f * 3e-6;
    const double a2 = 5e-6 + f * 4e-6;
    // 2 R_4(S) + 2 R_2(S / 4): (m - 1) alpha + (m - 1) / m S / B per half
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(
            CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::HIERARCHICAL, 8, 1024, 1, grid),
        2 * (3 * a1 + 0.75 * 1024 / 10e9) + 2 * (1 * a2 + 0.5 * 256 / 10e9));
}

TEST(AlphaBeta, LibraryLatencies)
{
    NetworkModel m;
    m.alpha = 1e-6;
    m.bandwidth = 10e9;
    const double s = 1 << 20;
    double plain = PredictCollectiveTime(
        CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1 << 20, 1, m);
    double send = PredictCollectiveTime(
        CollectiveOp::SEND_RECV, CollectiveAlgorithm::RING, 2, 1 << 20, 1, m);
    m.launch = 8.4e-6;
    m.libraryStep = m.libraryStep1 = m.libraryStep2 = 3.4e-6;
    // launch once, the step latency beside every alpha of the 2(N - 1) steps
    EXPECT_DOUBLE_EQ(PredictCollectiveTime(
                         CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1 << 20, 1, m),
                     8.4e-6 + 2 * 7 * (1e-6 + 3.4e-6) + 2.0 * 7 / 8 * s / 10e9);
    EXPECT_DOUBLE_EQ(plain + 8.4e-6 + 14 * 3.4e-6,
                     PredictCollectiveTime(
                         CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1 << 20, 1, m));
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(
            CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::HALVING_DOUBLING, 8, 1 << 20, 1, m),
        8.4e-6 + 2 * 3 * (1e-6 + 3.4e-6) + 2.0 * 7 / 8 * s / 10e9);
    // in 4 chunks the others' transfers hide part of the steps' latencies: the larger of
    // the network's bound and the first chunk's alone with them
    NetworkModel plainModel;
    plainModel.alpha = 1e-6;
    plainModel.bandwidth = 10e9;
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(CollectiveOp::BROADCAST, CollectiveAlgorithm::RING, 8, 1 << 20, 4, m),
        8.4e-6
            + std::max(
                PredictCollectiveTime(
                    CollectiveOp::BROADCAST, CollectiveAlgorithm::RING, 8, 1 << 20, 4, plainModel),
                7 * (1e-6 + 3.4e-6 + s / 4 / 10e9)));
    // a model that sets only libraryStep: every dimension takes it
    NetworkModel only;
    only.alpha = 1e-6;
    only.bandwidth = 10e9;
    only.libraryStep = 3.4e-6;
    only.grid.dim1 = 4;
    only.grid.dim2 = 2;
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(
            CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::HIERARCHICAL, 8, 1 << 20, 1, only),
        2 * (3 * 4.4e-6 + 3 * s / 4 / 10e9) + 2 * (4.4e-6 + (s / 4) / 2 / 10e9));
    // the engine launches a collective of one rank too
    EXPECT_DOUBLE_EQ(PredictCollectiveTime(
                         CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::RING, 1, 1 << 20, 1, m),
                     8.4e-6);
    // a send takes neither, as in the engine
    EXPECT_DOUBLE_EQ(
        PredictCollectiveTime(CollectiveOp::SEND_RECV, CollectiveAlgorithm::RING, 2, 1 << 20, 1, m),
        send);

    // the hosts: two servers of 4 GPUs, a ring's neighbours 3 -> 4 and 7 -> 0 cross
    TopologyConfig rail;
    rail.kind = "rail-optimised";
    rail.servers = 2;
    rail.gpusPerServer = 4;
    Ptr<const Topology> t = MakeTopology(rail);
    std::vector<uint32_t> world{0, 1, 2, 3, 4, 5, 6, 7};
    LibraryLatencies nccl{8.4e-6, 3.4e-6, 9.6e-6};
    NetworkModel g = MakeNetworkModel(*t, world, 0, 4096, nccl);
    EXPECT_DOUBLE_EQ(g.launch, 8.4e-6);
    EXPECT_DOUBLE_EQ(g.libraryStep, (2 * 9.6e-6 + 6 * 3.4e-6) / 8);
    EXPECT_DOUBLE_EQ(g.libraryStep1, 3.4e-6); // inside a server
    EXPECT_DOUBLE_EQ(g.libraryStep2, 9.6e-6); // GPU i of each server
    // NetworkStepLatency 0: every step takes StepLatency
    EXPECT_DOUBLE_EQ(MakeNetworkModel(*t, world, 0, 4096, {8.4e-6, 3.4e-6, 0}).libraryStep, 3.4e-6);
    EXPECT_DOUBLE_EQ(MakeNetworkModel(*t, world, 0, 4096).libraryStep, 0);
    // hierarchical: each dimension's ring steps with its own latency
    double hier = PredictCollectiveTime(
        CollectiveOp::ALL_REDUCE, CollectiveAlgorithm::HIERARCHICAL, 8, 1 << 20, 1, g);
    double b1 = g.dim1Bandwidth;
    double b2 = g.dim2Bandwidth;
    double a1 = g.alpha1 + 3.4e-6;
    double a2 = g.alpha2 + 9.6e-6;
    EXPECT_NEAR(
        hier, 8.4e-6 + 2 * (3 * a1 + 3 * s / 4 / b1) + 2 * (1 * a2 + 1 * (s / 4) / 2 / b2), 1e-15);

    // the latencies a run will have: the engine's defaults, then its attributes
    LibraryLatencies l = LatenciesOf({{"ns3::CollectiveEngine::StepLatency", "3.4us"},
                                      {"ns3::CollectiveEngine::NetworkStepLatency", "1us"},
                                      {"ns3::CollectiveEngine::NetworkStepLatency", "9.6us"}});
    EXPECT_EQ(l.launch, 0);
    EXPECT_NEAR(l.step, 3.4e-6, 1e-15); // (a Time: picoseconds)
    EXPECT_NEAR(l.networkStep, 9.6e-6, 1e-15);
    ExpectInvalid(
        []
        {
            LatenciesOf({{"ns3::CollectiveEngine::StepLatency", "-1us"}});
        },
        {"ns3::CollectiveEngine::StepLatency"});
    // as the run reads them: spaces around, picoseconds
    LibraryLatencies fine = LatenciesOf({{"ns3::CollectiveEngine::StepLatency", " 3us "},
                                         {"ns3::CollectiveEngine::LaunchLatency", "1500ps"}});
    EXPECT_NEAR(fine.step, 3e-6, 1e-15);
    EXPECT_NEAR(fine.launch, 1.5e-9, 1e-18);
}

TEST(ParallelGroups, FredPlacementMp2Dp5Pp2)
{
    std::vector<uint32_t> npus;
    for (uint32_t r = 0; r < 20; ++r)
    {
        npus.push_back(r);
    }
    ParallelGroups g = MakeParallelGroups(2, 5, 2, npus);
    ASSERT_EQ(g.mpGroups.size(), 10u); // dp x pp groups of 2
    ASSERT_EQ(g.ppGroups.size(), 10u); // mp x dp groups of 2
    ASSERT_EQ(g.dpGroups.size(), 4u);  // mp x pp groups of 5
    // MP on consecutive NPUs, then PP, then DP
    EXPECT_EQ(g.mpGroups[0].ranks, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(g.mpGroups[1].ranks, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(g.ppGroups[0].ranks, (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(g.dpGroups[0].ranks, (std::vector<uint32_t>{0, 4, 8, 12, 16}));
    EXPECT_EQ(g.dpGroups[3].ranks, (std::vector<uint32_t>{3, 7, 11, 15, 19}));
    EXPECT_EQ(g.RankOf(1, 1, 4), 19u);
    // every NPU is in exactly one group of each kind
    for (const auto* groups : {&g.mpGroups, &g.ppGroups, &g.dpGroups})
    {
        std::vector<int> seen(20, 0);
        for (const auto& c : *groups)
        {
            c.Validate(20);
            for (uint32_t r : c.ranks)
            {
                ++seen[r];
            }
        }
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 20);
    }
    EXPECT_EQ(g.mpGroups[0].tc, MP_CLASS);
    EXPECT_EQ(g.ppGroups[0].tc, PP_CLASS);
    EXPECT_EQ(g.dpGroups[0].tc, DP_CLASS);
}

TEST(ParallelGroups, BadInputNamesParallelism)
{
    std::vector<uint32_t> npus(20);
    for (uint32_t r = 0; r < 20; ++r)
    {
        npus[r] = r;
    }
    ExpectInvalid(
        [&]
        {
            MakeParallelGroups(2, 3, 3, npus);
        },
        {"parallelism", "2 x 3 x 3 = 18", "20 NPUs"});
    ExpectInvalid(
        [&]
        {
            MakeParallelGroups(0, 5, 4, npus);
        },
        {"parallelism", "at least 1"});
    npus[3] = 0;
    ExpectInvalid(
        [&]
        {
            MakeParallelGroups(2, 5, 2, npus);
        },
        {"parallelism", "twice"});
}

TEST(ParseTime, NeedsAUnitAndStaysInRange)
{
    EXPECT_EQ(ParseTime("link-delay", "500ns", MAX_DELAY_SECONDS), NanoSeconds(500));
    EXPECT_EQ(ParseTime("link-delay", "1s", MAX_DELAY_SECONDS), Seconds(1));
    EXPECT_EQ(ParseTime("stop-time", "1d"), Seconds(86400));
    try
    {
        ParseTime("link-delay", "500");
        ADD_FAILURE() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()), "link-delay: got '500'; write a unit, e.g. 500ns");
    }
    for (const char* bad : {"9e9s", "2562047h", "1e30s", "1.000001s", "1e400s"})
    {
        ExpectInvalid(
            [bad]
            {
                ParseTime("link-delay", bad, MAX_DELAY_SECONDS);
            },
            {"link-delay: got '", "expected a time from 0ns to 1s"});
    }
    for (const char* bad : {"nan s", "infs", "-1ns", "0x10ns", "1 ns", "ns", "1sec", ".s"})
    {
        ExpectInvalid(
            [bad]
            {
                ParseTime("t", bad);
            },
            {"t: got '"});
    }
    ExpectInvalid(
        []
        {
            ParseTime("t", std::string(5000, '9') + "s");
        },
        {"t: got '999", "(5001 characters)"});
}

TEST(ParseTime, MinimumIsInTheRangeItStates)
{
    EXPECT_EQ(ParseTime("timeout", "1ns", MAX_TIMEOUT_SECONDS, MIN_POSITIVE_TIME_SECONDS),
              NanoSeconds(1));
    // 0.001us is 1ns up to the rounding of the unit's scale
    EXPECT_EQ(ParseTime("timeout", "0.001us", MAX_TIMEOUT_SECONDS, MIN_POSITIVE_TIME_SECONDS),
              NanoSeconds(1));
    for (const char* bad : {"0s", "0.5ns", "999ps"})
    {
        ExpectInvalid(
            [bad]
            {
                ParseTime("timeout", bad, MAX_TIMEOUT_SECONDS, MIN_POSITIVE_TIME_SECONDS);
            },
            {"timeout: got '", "expected a time from 1ns to 10s"});
    }
    // an attribute's time gets the same message
    CheckTime("timeout", MilliSeconds(3), MIN_POSITIVE_TIME_SECONDS, MAX_TIMEOUT_SECONDS);
    ExpectInvalid(
        []
        {
            CheckTime("timeout", Seconds(0), MIN_POSITIVE_TIME_SECONDS, MAX_TIMEOUT_SECONDS);
        },
        {"timeout: got 0s; expected a time from 1ns to 10s"});
    ExpectInvalid(
        []
        {
            CheckTime("timeout", Seconds(11), MIN_POSITIVE_TIME_SECONDS, MAX_TIMEOUT_SECONDS);
        },
        {"timeout: got 11s; expected a time from 1ns to 10s"});
}

TEST(ParseUnsigned, SaysItsLargestInFull)
{
    EXPECT_EQ(ParseUnsigned("run", "18446744073709551615"), UINT64_MAX);
    ExpectInvalid(
        []
        {
            ParseUnsigned("run", "18446744073709551616");
        },
        {"run: got '18446744073709551616'; expected a whole number from 0 to "
         "18446744073709551615 (2^64 - 1)"});
}

TEST(TimeText, LargestUnitThatKeepsAtLeastOne)
{
    EXPECT_EQ(TimeText(86400), "1d");
    EXPECT_EQ(TimeText(172800), "2d");
    EXPECT_EQ(TimeText(90000), "90000s");
    EXPECT_EQ(TimeText(10), "10s");
    EXPECT_EQ(TimeText(1.5), "1.5s");
    EXPECT_EQ(TimeText(0.0001), "100us");
    EXPECT_EQ(TimeText(8.512e-3), "8.512ms");
    EXPECT_EQ(TimeText(1e-9), "1ns");
    EXPECT_EQ(TimeText(5e-13), "0.5ps");
    EXPECT_EQ(TimeText(0), "0s");
}

TEST(ParseRate, NeedsAUnitAndStaysInRange)
{
    EXPECT_EQ(ParseRate("link-rate", "100Gbps").GetBitRate(), 100000000000ULL);
    EXPECT_EQ(ParseRate("link-rate", "1bps").GetBitRate(), 1u);
    EXPECT_EQ(ParseRate("link-rate", "40000Gbps").GetBitRate(), MAX_RATE_BPS);
    EXPECT_EQ(ParseRate("link-rate", "3000GBps").GetBitRate(), 24000000000000ULL);
    try
    {
        ParseRate("link-rate", "100");
        ADD_FAILURE() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()), "link-rate: got '100'; write a unit, e.g. 100Gbps");
    }
    // the example is a rate that is taken: 100000000000Gbps is above 40000Gbps
    ExpectInvalid(
        []
        {
            ParseRate("link-rate", "100000000000");
        },
        {"link-rate: got '100000000000'; write a unit, e.g. 100000000000bps"});
    ExpectInvalid(
        []
        {
            ParseTime("link-delay", "2e9", MAX_DELAY_SECONDS);
        },
        {"link-delay: got '2e9'; write a unit, e.g. 2e9ps"});
    // below the clock's step in ns, the example is in a unit that is taken
    ExpectInvalid(
        []
        {
            ParseTime("link-delay", "0.0000001", MAX_DELAY_SECONDS);
        },
        {"link-delay: got '0.0000001'; write a unit, e.g. 0.0000001s"});
    // no unit makes 1e20 a rate that is taken: the range
    ExpectInvalid(
        []
        {
            ParseRate("link-rate", "1e20");
        },
        {"link-rate: got '1e20'; expected a positive data rate from 1bps to 40000Gbps"});
    for (const char* bad :
         {"18446744073709551615bps",
          "40001Gbps",
          "0bps",
          "0.4bps",
          "1e30Gbps",
          "-1Gbps",
          "1 Gbps",
          "0",
          "-5"}) // (a bare 0 was told "write a unit, e.g. 0Gbps", which is refused too)
    {
        ExpectInvalid(
            [bad]
            {
                ParseRate("link-rate", bad);
            },
            {"link-rate: got '", "1bps to 40000Gbps"});
    }
    // the top the message names, 40 Tbit/s, in terabits too (it was refused for its unit)
    EXPECT_EQ(ParseRate("link-rate", "40Tbps").GetBitRate(), MAX_RATE_BPS);
    EXPECT_EQ(ParseRate("link-rate", "5TBps").GetBitRate(), MAX_RATE_BPS);
    EXPECT_EQ(ParseRate("link-rate", "1.5Tb/s").GetBitRate(), 1500000000000ULL);
}

TEST(ParseRate, OwnRangeInItsMessage)
{
    // a narrower range: its floor and top are accepted, and every refusal names them
    EXPECT_EQ(ParseRate("nvlink-rate", "1Gbps", 1000000000ULL).GetBitRate(), 1000000000ULL);
    EXPECT_EQ(ParseRate("nvlink-rate", "40Tbps", 1000000000ULL).GetBitRate(), MAX_RATE_BPS);
    EXPECT_EQ(ParseRate("r", "2Mbps", 1500000, 2000000).GetBitRate(), 2000000u);
    for (const char* bad : {"0bps", "999Mbps", "41Tbps", "fast", "1 Gbps"})
    {
        ExpectInvalid(
            [bad]
            {
                ParseRate("nvlink-rate", bad, 1000000000ULL);
            },
            {"nvlink-rate: got '", "from 1Gbps to 40000Gbps (40 Tbit/s)"});
    }
    ExpectInvalid(
        []
        {
            ParseRate("r", "3Mbps", 1500000, 2000000);
        },
        {"r: got '3Mbps'; expected a positive data rate from 1500kbps to 2Mbps, e.g."});
}

TEST(ParseList, StrictAndWithoutDuplicates)
{
    EXPECT_EQ(ParseList("variants", "mesh, fred-a", {"mesh", "fred-a"}),
              (std::vector<std::string>{"mesh", "fred-a"}));
    for (const char* bad : {"", "mesh,", ",mesh", "mesh,,fred-a", " , "})
    {
        ExpectInvalid(
            [bad]
            {
                ParseList("variants", bad, {"mesh", "fred-a"});
            },
            {"variants: got '", "comma-separated"});
    }
    ExpectInvalid(
        []
        {
            ParseList("variants", "mesh,fred-a,mesh");
        },
        {"variants: 'mesh' is listed twice"});
    ExpectInvalid(
        []
        {
            ParseList("variants", "mesh,fred-x", {"mesh", "fred-a"});
        },
        {"variants: got 'fred-x'; allowed: mesh or fred-a"});
    // in any case: returned as allowed spells it; two spellings of one item are one item twice
    EXPECT_EQ(ParseList("rows", "all, 1.7b", {"all", "1.7B"}, true),
              (std::vector<std::string>{"all", "1.7B"}));
    ExpectInvalid(
        []
        {
            ParseList("rows", "1.7B,1.7b", {"all", "1.7B"}, true);
        },
        {"rows: '1.7B' is listed twice"});
    ExpectInvalid(
        []
        {
            ParseList("rows", "1.7b", {"all", "1.7B"});
        },
        {"rows: got '1.7b'; allowed: all or 1.7B (comma-separated)"});
    ExpectInvalid(
        []
        {
            ParseList("rows", "", {"all", "1.7B"}, true);
        },
        {"rows: got ''; expected a comma-separated list of all or 1.7B, each item once"});
}

TEST(PrintableText, EscapesBytesAndCutsLongText)
{
    EXPECT_EQ(PrintableText(std::string("a\x00\xff\n", 4)), "a\\x00\\xff\\x0a");
    EXPECT_EQ(PrintableText(std::string(100, 'x')), std::string(80, 'x') + "... (100 characters)");
    ExpectInvalid(
        []
        {
            ParseUnsigned("rows", "\xff\xfe", 1, 10);
        },
        {"rows: got '\\xff\\xfe'"});
}

TEST(OptionTables, SeedRangeMatchesItsCheck)
{
    TrafficConfig c;
    ExpectInvalid(
        [&c]
        {
            SetTrafficOption(c, "seed", "0");
        },
        {"seed: got '0'; expected a whole number from 1 to 4294944442"});
    // ns-3's MRG32k3a takes seeds below its modulus 4294944443 (beyond, its first draw aborts)
    ExpectInvalid(
        [&c]
        {
            SetTrafficOption(c, "seed", "4294944443");
        },
        {"seed: got '4294944443'; expected a whole number from 1 to 4294944442"});
    SetTrafficOption(c, "seed", "4294944442");
    EXPECT_EQ(c.seed, 4294944442u);
}

TEST(ShortestText, RealsReadBackTheSame)
{
    EXPECT_EQ(dlnet::ShortestText(0.12345649), "0.12345649"); // 6 digits would lose it
    EXPECT_EQ(dlnet::ShortestText(0.1), "0.1");
    EXPECT_EQ(dlnet::ShortestText(1), "1");
    for (double v : {1.0 / 3, 2e-300, 123456789.123, 0.30000000000000004})
    {
        EXPECT_EQ(std::strtod(dlnet::ShortestText(v).c_str(), nullptr), v) << v;
    }
}

/// \return the exception Validate threw: "" for none, "n/a" for NotApplicable, else "invalid"
std::string
ValidateOutcome(const CollectiveConfig& c)
{
    try
    {
        c.Validate();
    }
    catch (const NotApplicable&)
    {
        return "n/a";
    }
    catch (const std::invalid_argument&)
    {
        return "invalid";
    }
    return "";
}

// NotApplicable marks an algorithm that does not apply to the op, topology or group (what
// flow-validation prints as n/a); a bad value of the user's own options stays a plain
// invalid_argument (an error there).
TEST(NotApplicable, OnlyForAnAlgorithmThatDoesNotApply)
{
    CollectiveConfig c;
    c.topology.kind = "star";
    c.topology.hosts = 8;
    c.minBytes = c.maxBytes = 1 << 20;
    EXPECT_EQ(ValidateOutcome(c), "");
    c.algorithm = "hierarchical"; // needs a two-dimensional topology
    EXPECT_EQ(ValidateOutcome(c), "n/a");
    c.algorithm = "switchml";
    c.op = "alltoall"; // an allreduce only
    EXPECT_EQ(ValidateOutcome(c), "n/a");
    c.algorithm = "omnireduce";
    c.op = "allreduce"; // dedicated aggregator servers: no host outside the communicator
    EXPECT_EQ(ValidateOutcome(c), "n/a");
    c.algorithm = "ring";
    c.minBytes = c.maxBytes = 6; // not a whole number of fp32 elements
    EXPECT_EQ(ValidateOutcome(c), "invalid");
    c.minBytes = c.maxBytes = 1 << 20;
    c.topology.rxBufferBytes = 100; // below the mtu
    EXPECT_EQ(ValidateOutcome(c), "invalid");
}

// A refused attribute names its option only while the program that has it is in hand: the
// command line that parsed it names the program's options, and forgets them when it goes.
namespace
{
/// A command line of one string option, parsed with no arguments.
void
ParseProgramWith(ExperimentCommandLine& cmd, const std::string& option, std::string& value)
{
    cmd.AddValue(option, "an option", value);
    char program[] = "program";
    char* argv[] = {program, nullptr};
    cmd.Parse(1, argv);
}
} // namespace

TEST(RefuseSetByOptions, NamesAnOptionOnlyWhereTheProgramHasIt)
{
    auto refusal = []()
    {
        RefuseSetByOptions({{"ns3::CollectiveEngine::Chunks", "4"}},
                           {{"ns3::CollectiveEngine::Chunks", "chunks"}},
                           false);
    };
    auto mtu = []()
    {
        CheckNs3Attribute("ns3::FabricNetDevice::Mtu", "9000");
    };
    std::string value;
    ExpectInvalid(refusal, {"from its option 'chunks'", "use chunks instead"});
    {
        ExperimentCommandLine cmd("program-without-chunks");
        ParseProgramWith(cmd, "tc", value);
        ExpectInvalid(refusal,
                      {"this run sets it itself", "no option 'chunks', which others take"});
        ExpectInvalid(mtu, {"no option 'mtu'"});
    }
    ExpectInvalid(refusal, {"from its option 'chunks'", "use chunks instead"});
    ExpectInvalid(mtu, {"where a program has that option"});
    {
        ExperimentCommandLine cmd("program-with-chunks");
        ParseProgramWith(cmd, "chunks", value);
        ExpectInvalid(refusal, {"use chunks instead"});
    }
}
