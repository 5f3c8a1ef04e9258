/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The wafer presets' configuration: validation naming the field, the
// topology each variant is built from, and the variant predicates.

#include "expect-invalid.h"

#include "ns3/wafer-experiment.h"
#include "ns3/wafer-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

WaferConfig
With(void (*edit)(WaferConfig&))
{
    WaferConfig c;
    edit(c);
    return c;
}

} // namespace

TEST(WaferConfig, DefaultsAndEveryVariantValidate)
{
    for (const auto& v : WaferVariants())
    {
        WaferConfig c;
        c.variant = v;
        EXPECT_NO_THROW(c.Validate()) << v;
    }
    EXPECT_EQ(WaferVariants(),
              std::vector<std::string>({"mesh", "fred-a", "fred-b", "fred-c", "fred-d"}));
}

TEST(WaferConfig, RejectsNamingTheField)
{
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.variant = "fred-x";
                })
                .Validate();
        },
        {"variant", "fred-x", "mesh, fred-a, fred-b, fred-c or fred-d"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.npuBandwidth = "6TBps"; // 48 Tbit/s: beyond 40
                })
                .Validate();
        },
        {"npu-bandwidth", "6TBps"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.npuBandwidth = "0GBps";
                })
                .Validate();
        },
        {"npu-bandwidth", "0GBps", "from 8bps to"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.npuBandwidth = "4bps";
                })
                .Validate();
        },
        {"npu-bandwidth", "4bps", "from 8bps to"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.ioRate = "fast";
                })
                .Validate();
        },
        {"io-rate", "fast"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.ioRate = "128 GBps";
                })
                .Validate();
        },
        {"io-rate", "128 GBps"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.linkDelay = "-20ns";
                })
                .Validate();
        },
        {"link-delay", "-20ns"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.linkDelay = "20 parsecs";
                })
                .Validate();
        },
        {"link-delay"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.payloadBytes = 0;
                })
                .Validate();
        },
        {"payload-bytes", "got 0", "64 to 1048552"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.payloadBytes = 63;
                })
                .Validate();
        },
        {"payload-bytes", "got 63"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.payloadBytes = (1 << 20) - 23;
                })
                .Validate();
        },
        {"payload-bytes", "1048553"});
    ExpectInvalid(
        []
        {
            With(
                [](WaferConfig& c)
                {
                    c.middleStages = 0;
                })
                .Validate();
        },
        {"middle-stages", "got 0"});
    // BuildWafer validates first
    ExpectInvalid(
        []
        {
            BuildWafer(With(
                [](WaferConfig& c)
                {
                    c.variant = "torus";
                }));
        },
        {"variant", "torus"});
    // the bounds themselves are accepted
    EXPECT_NO_THROW(With(
                        [](WaferConfig& c)
                        {
                            c.payloadBytes = 64;
                        })
                        .Validate());
    EXPECT_NO_THROW(With(
                        [](WaferConfig& c)
                        {
                            c.payloadBytes = (1 << 20) - 24;
                        })
                        .Validate());
    EXPECT_NO_THROW(With(
                        [](WaferConfig& c)
                        {
                            c.linkDelay = "0ns";
                        })
                        .Validate());
}

TEST(WaferTopology, RatesShapeAndMtuPerVariant)
{
    WaferConfig c;
    TopologyConfig mesh = WaferTopology(c);
    EXPECT_EQ(mesh.kind, "mesh");
    EXPECT_EQ(mesh.rows, 5u);
    EXPECT_EQ(mesh.cols, 4u);
    EXPECT_EQ(mesh.fabricLinkRate, "6000000000000bps"); // 750 GB/s
    EXPECT_EQ(mesh.localLinkRate, "3000GBps");
    EXPECT_EQ(mesh.mtu, 4096u + 24);
    EXPECT_EQ(mesh.trafficClasses, 4u);
    EXPECT_EQ(mesh.flowControl, "lossless");
    EXPECT_EQ(mesh.fabricLinkDelay, "20ns");
    EXPECT_EQ(mesh.switchLatency, "0ns");
    EXPECT_NO_THROW(mesh.Validate());
    for (const std::string v : {"fred-a", "fred-b", "fred-c", "fred-d"})
    {
        c.variant = v;
        TopologyConfig t = WaferTopology(c);
        EXPECT_EQ(t.kind, "leaf-spine") << v;
        EXPECT_EQ(t.leaves, 5u);
        EXPECT_EQ(t.hostsPerLeaf, 4u);
        EXPECT_EQ(t.spines, 4u);
        EXPECT_EQ(t.hostLinkRate, "3000GBps");
        bool thin = v == "fred-a" || v == "fred-b";
        EXPECT_EQ(t.fabricLinkRate, thin ? "3000000000000bps" : "3000GBps") << v; // 375 GB/s
        EXPECT_NO_THROW(t.Validate());
    }
}

TEST(Wafer, VariantPredicates)
{
    Wafer w;
    for (const auto& v : WaferVariants())
    {
        w.variant = ParseWaferVariant("variant", v);
        EXPECT_EQ(ToString(w.variant), v); // the names round-trip
        EXPECT_EQ(w.IsFred(), v != "mesh") << v;
        EXPECT_EQ(w.InSwitch(), v == "fred-b" || v == "fred-d") << v;
    }
    EXPECT_EQ(w.L1Of(0), 0u);
    EXPECT_EQ(w.L1Of(7), 1u);
    EXPECT_EQ(w.L1Of(19), 4u);
}

TEST(WaferExperiment, ForScenarioKeepsWhatTheScenarioUses)
{
    WaferExperimentConfig all; // every scenario, each option away from its default
    all.scenarios = WaferScenarios();
    all.bytes = 1 << 20;
    all.ioBytes = 2 << 20;
    all.mp = 4;
    all.dp = 5;
    all.pp = 1;
    all.ranks = "0-3";
    all.chunks = 16;
    all.chunksInFlight = 4;
    ASSERT_NO_THROW(all.Validate());
    const WaferExperimentConfig defaults;
    for (const auto& scenario : WaferScenarios())
    {
        WaferExperimentConfig one = all.ForScenario(scenario);
        EXPECT_EQ(one.scenarios, std::vector<std::string>{scenario});
        EXPECT_NO_THROW(one.Validate()) << scenario; // nothing left that it does not use
        const bool io = scenario == "io";
        const bool groups = scenario == "groups" || scenario == "mix" || scenario == "priority";
        EXPECT_EQ(one.ioBytes, io ? all.ioBytes : defaults.ioBytes) << scenario;
        EXPECT_EQ(one.bytes, io ? defaults.bytes : all.bytes) << scenario;
        EXPECT_EQ(one.chunks, io ? defaults.chunks : all.chunks) << scenario;
        EXPECT_EQ(one.chunksInFlight, io ? defaults.chunksInFlight : all.chunksInFlight)
            << scenario;
        EXPECT_EQ(one.mp, groups ? all.mp : defaults.mp) << scenario;
        EXPECT_EQ(one.pp, groups ? all.pp : defaults.pp) << scenario;
        EXPECT_EQ(one.ranks, scenario == "group" ? all.ranks : defaults.ranks) << scenario;
        EXPECT_EQ(&one.BytesOf(scenario), io ? &one.ioBytes : &one.bytes) << scenario;
    }
    WaferExperimentConfig io;
    io.scenarios = {"io"}; // what ForScenario spares a caller: bytes is the collectives'
    io.bytes = all.bytes;
    ExpectInvalid(
        [&io]()
        {
            io.Validate();
        },
        {"bytes: got 1048576; it applies to scenarios allreduce, group, groups, mix and priority "
         "only (io streams io-bytes)"});
}
