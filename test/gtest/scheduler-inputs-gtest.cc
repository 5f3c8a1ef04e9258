/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The heterogeneous scheduler's inputs: catalogue presets and files,
 * profile files (CSV and JSON), the built-in CTR models and ProfileModel.
 * Expected values are computed here by hand from the documented formulas.
 */
#include "expect-invalid.h"

#include "ns3/layer-profile.h"
#include "ns3/model-zoo.h"
#include "ns3/resource-catalogue.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

const std::string SOURCE_DIR = DLNET_SOURCE_DIR;

std::string
ReadText(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Replace the first occurrence of what (which must occur) by with
std::string
Replaced(std::string text, const std::string& what, const std::string& with)
{
    std::size_t at = text.find(what);
    EXPECT_NE(at, std::string::npos) << what;
    if (at != std::string::npos)
    {
        text.replace(at, what.size(), with);
    }
    return text;
}

void
ExpectSameCatalogue(const ResourceCatalogue& a, const ResourceCatalogue& b)
{
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.date, b.date);
    ASSERT_EQ(a.types.size(), b.types.size());
    for (std::size_t i = 0; i < a.types.size(); ++i)
    {
        const ResourceType& x = a.types[i];
        const ResourceType& y = b.types[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.pricePerHour, y.pricePerHour);
        EXPECT_EQ(x.available, y.available);
        EXPECT_EQ(x.device.name, y.device.name);
        EXPECT_EQ(x.device.peakFp32, y.device.peakFp32);
        EXPECT_EQ(x.device.peakFp16, y.device.peakFp16);
        EXPECT_EQ(x.device.peakBf16, y.device.peakBf16);
        EXPECT_EQ(x.device.memoryBandwidth, y.device.memoryBandwidth);
        EXPECT_EQ(x.device.efficiency, y.device.efficiency);
        EXPECT_EQ(x.nicRate, y.nicRate);
        EXPECT_EQ(x.memoryBytes, y.memoryBytes);
        EXPECT_EQ(x.hostBandwidth, y.hostBandwidth);
    }
    EXPECT_EQ(a.links, b.links);
}

void
ExpectSameProfile(const LayerProfile& a, const LayerProfile& b)
{
    EXPECT_EQ(a.typeNames, b.typeNames);
    EXPECT_EQ(a.batch, b.batch);
    ASSERT_EQ(a.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < a.layers.size(); ++i)
    {
        const ProfiledLayer& x = a.layers[i];
        const ProfiledLayer& y = b.layers[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.seconds, y.seconds);
        EXPECT_EQ(x.forwardFraction, y.forwardFraction);
        EXPECT_EQ(x.parallelFraction, y.parallelFraction);
        EXPECT_EQ(x.outputBytes, y.outputBytes);
        EXPECT_EQ(x.parameterBytes, y.parameterBytes);
        EXPECT_EQ(x.syncBytes, y.syncBytes);
    }
}

/// A catalogue of three types named as the brief's error example names them
ResourceCatalogue
ThreeTypes()
{
    return MakeCataloguePreset("aws-2026");
}

const std::string CSV_HEADER = "layer,kind,batch,output_bytes,seconds:cpu,seconds:a100,"
                               "seconds:h100\n";

/// A valid three-type CSV profile: a comment, the header on line 2, rows from line 3
std::string
ValidCsv()
{
    return "# comment\n" + CSV_HEADER + "emb,embedding,64,1024,1e-3,2e-3,3e-3\n"
           + "fc,linear,64,256,4e-3,5e-4,2.5e-4\n";
}

} // namespace

TEST(SchedulerInputs, PresetIsTheDocumentedAws2026)
{
    ASSERT_EQ(CataloguePresetNames(), std::vector<std::string>{"aws-2026"});
    ResourceCatalogue c = MakeCataloguePreset("aws-2026");
    EXPECT_NO_THROW(c.Validate());
    EXPECT_EQ(c.name, "aws-2026");
    EXPECT_FALSE(c.date.empty());
    ASSERT_EQ(c.types.size(), 3u);
    const ResourceType& cpu = c.types[0];
    const ResourceType& a100 = c.types[1];
    const ResourceType& h100 = c.types[2];
    EXPECT_EQ(cpu.name, "cpu");
    EXPECT_EQ(cpu.kind, ResourceKind::CPU);
    EXPECT_DOUBLE_EQ(cpu.pricePerHour, 64 * 0.085); // c6i.32xlarge = 64 x c6i.large
    EXPECT_EQ(cpu.available, 64u);
    EXPECT_EQ(cpu.device.name, "cpu");
    EXPECT_EQ(cpu.nicRate, 25e9);
    EXPECT_EQ(cpu.memoryBytes, 256ull * 1024 * 1024 * 1024);
    EXPECT_EQ(cpu.hostBandwidth, 0.4e12);
    EXPECT_EQ(a100.name, "a100");
    EXPECT_EQ(a100.kind, ResourceKind::GPU);
    EXPECT_DOUBLE_EQ(a100.pricePerHour, 27.44705 / 8); // p4de.24xlarge / 8
    EXPECT_EQ(a100.available, 32u);
    EXPECT_EQ(a100.device.name, "a100");
    EXPECT_EQ(a100.nicRate, 100e9);
    EXPECT_EQ(a100.memoryBytes, 80ull * 1024 * 1024 * 1024);
    EXPECT_EQ(a100.hostBandwidth, 25e9);
    EXPECT_EQ(h100.name, "h100");
    EXPECT_DOUBLE_EQ(h100.pricePerHour, 55.04 / 8); // p5.48xlarge / 8
    EXPECT_EQ(h100.available, 16u);
    EXPECT_EQ(h100.device.name, "h100");
    EXPECT_EQ(h100.memoryBytes, 80ull * 1024 * 1024 * 1024);
    EXPECT_EQ(h100.hostBandwidth, 50e9);
    EXPECT_TRUE(c.links.empty());
    ExpectInvalid(
        []
        {
            MakeCataloguePreset("gcp-1999");
        },
        {"catalogue", "gcp-1999", "aws-2026"});
}

TEST(SchedulerInputs, CatalogueJsonRoundTrip)
{
    ResourceCatalogue preset = MakeCataloguePreset("aws-2026");
    std::string json = CatalogueToJson(preset);
    EXPECT_NE(json.find("\"device\": \"a100\""), std::string::npos) << json;
    ExpectSameCatalogue(preset, ParseCatalogueJson(json, "preset.json"));

    std::string path = SOURCE_DIR + "/heterps/catalogue-example.json";
    ResourceCatalogue example = ReadCatalogueFile(path);
    ASSERT_EQ(example.types.size(), 2u);
    EXPECT_EQ(example.types[1].device.name, "small-gpu");
    EXPECT_EQ(example.types[1].device.peakFp32, 20e12);
    EXPECT_EQ(example.types[1].device.peakBf16, 300e12); // defaults to the fp16 peak
    EXPECT_EQ(example.types[1].memoryBytes, 40ull << 30);
    EXPECT_EQ(example.types[0].hostBandwidth, 400e9);
    ASSERT_EQ(example.links.size(), 1u);
    EXPECT_EQ(example.links.at({0, 1}), 10e9);
    ExpectSameCatalogue(example, ParseCatalogueJson(CatalogueToJson(example), "again.json"));
    // MakeCatalogue: a preset name or a file
    ExpectSameCatalogue(MakeCatalogue("aws-2026"), preset);
    ExpectSameCatalogue(MakeCatalogue(path), example);
    ExpectInvalid(
        []
        {
            MakeCatalogue("/no/such/catalogue.json");
        },
        {"catalogue", "/no/such/catalogue.json", "aws-2026"});
}

TEST(SchedulerInputs, CatalogueErrorsNameTheJsonPath)
{
    const std::string good = ReadText(SOURCE_DIR + "/heterps/catalogue-example.json");
    ASSERT_FALSE(good.empty());
    auto bad = [&](const std::string& what,
                   const std::string& with,
                   std::initializer_list<std::string> needles)
    {
        std::string text = Replaced(good, what, with);
        ExpectInvalid(
            [&]
            {
                ParseCatalogueJson(text, "cat.json");
            },
            needles);
    };
    bad("\"price_per_hour\": 4",
        "\"price_per_hour\": 0",
        {"cat.json", "types[1].price_per_hour", "> 0"});
    bad("\"price_per_hour\": 2", "\"price_per_hour\": -2", {"types[0].price_per_hour", "-2"});
    bad("\"available\": 16", "\"available\": 0", {"types[0].available", "whole number from 1"});
    bad("\"available\": 16", "\"available\": 1.5", {"types[0].available"});
    bad("\"kind\": \"gpu\"", "\"kind\": \"tpu\"", {"types[1].kind", "\"cpu\" or \"gpu\""});
    bad("\"device\": \"cpu\"", "\"device\": \"tpu\"", {"types[0].device", "'tpu'", "a100"});
    bad("\"efficiency\": 0.75", "\"efficiency\": 1.5", {"types[1].device.efficiency"});
    bad("\"nic_gbps\": 25,",
        "\"colour\": 1, \"nic_gbps\": 25,",
        {"types[0]", "unknown key 'colour'", "price_per_hour"});
    bad("\"nic_gbps\": 25,", "", {"types[0].nic_gbps", "missing"});
    bad("\"memory_gib\": 40", "\"memory_gib\": \"forty\"", {"types[1].memory_gib", "\"forty\""});
    bad("\"name\": \"gpu\"", "\"name\": \"cpu\"", {"types[1].name", "'cpu'", "earlier"});
    // names reach the plots' titles in gnuplot's double quotes, which run `...` as a command
    bad("\"name\": \"gpu\"",
        "\"name\": \"g`touch x`\"",
        {"types[1].name", "without a comma, double quote, backquote or backslash"});
    bad("\"name\": \"gpu\"", "\"name\": \"g\\\"pu\"", {"types[1].name", "double quote"});
    bad("\"name\": \"gpu\"", "\"name\": \"g\\\\pu\"", {"types[1].name", "backslash"});
    bad("\"b\": \"gpu\"", "\"b\": \"tpu\"", {"links[0].b", "unknown type 'tpu'", "cpu or gpu"});
    bad("\"gbps\": 10", "\"gbps\": 0", {"links[0].gbps", "> 0"});
    bad("\"date\"", "\"when\"", {"unknown key 'when'", "name, date, types or links"});
    bad("\"host_gbps\": 25", "\"host_gbps\": 25,", {"cat.json:", "not valid JSON"});
    // nlohmann keeps the last of a key given twice: 200 USD/h was taken without a word
    bad("\"price_per_hour\": 2,",
        "\"price_per_hour\": 2, \"price_per_hour\": 200,",
        {"cat.json:", "'price_per_hour' is given twice"});
    ExpectInvalid(
        []
        {
            ParseCatalogueJson("{\"name\": \"x\", \"types\": []}", "e.json");
        },
        {"e.json", "types", "1 to 64"});
    ExpectInvalid(
        []
        {
            ParseCatalogueJson("[1]", "e.json");
        },
        {"e.json", "not an object"});
    ExpectInvalid(
        []
        {
            ParseCatalogueJson("{\"name\": 1e999}", "e.json");
        },
        {"e.json", "JSON"});
    ExpectInvalid(
        []
        {
            ReadCatalogueFile("/dev/zero");
        },
        {"catalogue", "not a regular file"});
}

TEST(SchedulerInputs, ProfileCsvParseAndRoundTrip)
{
    ResourceCatalogue catalogue = ReadCatalogueFile(SOURCE_DIR + "/heterps/catalogue-example.json");
    std::string path = SOURCE_DIR + "/heterps/profile-example.csv";
    LayerProfile p = ReadProfileFile(path, catalogue);
    ASSERT_EQ(p.Size(), 8u);
    EXPECT_EQ(p.typeNames, (std::vector<std::string>{"cpu", "gpu"}));
    EXPECT_EQ(p.batch, 4096u);
    EXPECT_EQ(p.layers[0].name, "user-embeddings");
    EXPECT_EQ(p.layers[0].kind, "embedding");
    EXPECT_EQ(p.layers[0].parameterBytes, 51200000000u);
    EXPECT_EQ(p.layers[0].outputBytes, 4096u * 8 * 32 * 4);
    EXPECT_EQ(p.layers[0].seconds, (std::vector<double>{5.2e-5, 8.4e-4}));
    EXPECT_EQ(p.layers[0].forwardFraction, 0.4);
    EXPECT_EQ(p.layers[3].parallelFraction, 0.95);
    // round trip through ProfileToCsv, and the JSON example holds the same profile
    ExpectSameProfile(p, ParseProfileCsv(ProfileToCsv(p), "again.csv", catalogue));
    LayerProfile j = ReadProfileFile(SOURCE_DIR + "/heterps/profile-example.json", catalogue);
    EXPECT_EQ(j.name, "ctr-example");
    ExpectSameProfile(p, j);

    // defaults: parameter 0, sync = parameter, forward 1/3, parallel 1
    LayerProfile d = ParseProfileCsv(ValidCsv(), "d.csv", ThreeTypes());
    EXPECT_EQ(d.layers[1].parameterBytes, 0u);
    EXPECT_EQ(d.layers[1].syncBytes, 0u);
    EXPECT_EQ(d.layers[1].forwardFraction, 1.0 / 3);
    EXPECT_EQ(d.layers[1].parallelFraction, 1.0);
    // columns in another order: seconds follow the catalogue's order
    LayerProfile r = ParseProfileCsv("seconds:h100,layer,seconds:cpu,kind,batch,output_bytes,"
                                     "parameter_bytes,seconds:a100\n3,l,1,linear,8,0,80,2\n",
                                     "r.csv",
                                     ThreeTypes());
    EXPECT_EQ(r.layers[0].seconds, (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(r.layers[0].syncBytes, 80u);
}

TEST(SchedulerInputs, ProfileCsvErrorsNameLineAndField)
{
    const ResourceCatalogue c = ThreeTypes();
    auto bad = [&](const std::string& text, std::initializer_list<std::string> needles)
    {
        ExpectInvalid(
            [&]
            {
                ParseProfileCsv(text, "profile.csv", c);
            },
            needles);
    };
    std::string rows = "# comment\n" + CSV_HEADER;
    for (int i = 0; i < 4; ++i)
    {
        rows += "l" + std::to_string(i) + ",linear,64,8,1,1,1\n"; // lines 3 to 6
    }
    bad(rows + "x,linear,64,8,1,-1,1\n",
        {"profile.csv:7: seconds:a100: '-1' must be a number > 0"});
    bad(rows + "x,linear,64,8,1,0,1\n", {"profile.csv:7: seconds:a100: '0'"});
    bad(rows + "x,linear,64,8,nan,1,1\n", {"profile.csv:7: seconds:cpu: 'nan'"});
    bad(rows + "x,linear,64,8,inf,1,1\n", {"profile.csv:7: seconds:cpu: 'inf'"});
    bad(rows + "x,linear,64,8,0x10,1,1\n", {"profile.csv:7: seconds:cpu: '0x10'"});
    bad(rows + "x,linear,64,8,1e999,1,1\n", {"profile.csv:7: seconds:cpu: '1e999'"});
    // > 0, but below what a double holds in full: "must be > 0" alone was wrong
    bad(rows + "x,linear,64,8,1e-320,1,1\n",
        {"profile.csv:7: seconds:cpu: '1e-320' is beyond the range of a double"});
    bad(rows + "x,linear,64,8,fast,1,1\n", {"profile.csv:7: seconds:cpu: 'fast'"});
    bad(rows + "x,linear,64,-8,1,1,1\n", {"profile.csv:7: output_bytes: '-8'", "whole number"});
    bad(rows + "x,linear,32,8,1,1,1\n", {"profile.csv:7: batch: '32'", "differs", "64"});
    bad(rows + "x,linear,64,8,1,1\n", {"profile.csv:7: 6 fields; the header has 7"});
    bad(rows + "x,linear,64,8,1,1,1,1\n", {"profile.csv:7: 8 fields"});
    bad(rows + ",linear,64,8,1,1,1\n", {"profile.csv:7: layer: ''"});
    bad("layer,kind,batch,output_bytes,seconds:cpu,seconds:a100,seconds:h100,seconds:tpu\n",
        {"profile.csv:1: unknown type 'tpu' in column 8 (types: cpu, a100 or h100)"});
    bad("layer,kind,batch,output_bytes,seconds:cpu,seconds:a100\n",
        {"profile.csv:1:", "seconds:h100"});
    bad("layer,kind,output_bytes,seconds:cpu,seconds:a100,seconds:h100\n",
        {"profile.csv:1:", "'batch'"});
    bad("layer,kind,batch,batch,output_bytes,seconds:cpu,seconds:a100,seconds:h100\n",
        {"profile.csv:1: column 'batch' appears twice", "column 4"});
    bad("layer,kind,batch,output_bytes,colour,seconds:cpu,seconds:a100,seconds:h100\n",
        {"profile.csv:1: unknown column 'colour' in column 5"});
    bad("", {"profile.csv: empty"});
    bad("# only a comment\n\n", {"profile.csv: empty"});
    bad(CSV_HEADER, {"profile.csv: no layer rows"});
    bad("layer,kind,batch,output_bytes,forward_fraction,seconds:cpu,seconds:a100,seconds:h100\n"
        "x,linear,1,1,1,1,1,1\n",
        {"profile.csv:2: forward_fraction: '1'", "(0, 1)"});
    bad("layer,kind,batch,output_bytes,parallel_fraction,seconds:cpu,seconds:a100,seconds:h100\n"
        "x,linear,1,1,1.5,1,1,1\n",
        {"profile.csv:2: parallel_fraction: '1.5'", "from 0 to 1"});
    // more than 100000 layers: refused at the row that exceeds them
    std::string many = CSV_HEADER;
    many.reserve(100001 * 24);
    for (int i = 0; i <= 100000; ++i)
    {
        many += "l,linear,1,1,1,1,1\n";
    }
    bad(many, {"profile.csv:100002: more than 100000 layers"});
}

TEST(SchedulerInputs, ProfileJsonErrorsNameThePath)
{
    const ResourceCatalogue c = ThreeTypes();
    const std::string good = "{\"batch\": 8, \"layers\": [{\"name\": \"a\", \"kind\": \"linear\", "
                             "\"output_bytes\": 4, \"seconds\": {\"cpu\": 1, \"a100\": 2, "
                             "\"h100\": 3}}]}";
    LayerProfile p = ParseProfileJson(good, "p.json", c);
    EXPECT_EQ(p.name, "p.json");
    EXPECT_EQ(p.layers[0].seconds, (std::vector<double>{1, 2, 3}));
    auto bad = [&](const std::string& what,
                   const std::string& with,
                   std::initializer_list<std::string> needles)
    {
        std::string text = Replaced(good, what, with);
        ExpectInvalid(
            [&]
            {
                ParseProfileJson(text, "p.json", c);
            },
            needles);
    };
    bad("\"a100\": 2", "\"a100\": -2", {"p.json: layers[0].seconds.a100: -2 must be a number > 0"});
    bad("\"a100\": 2",
        "\"tpu\": 2",
        {"layers[0].seconds", "unknown key 'tpu'", "cpu, a100 or h100"});
    bad(", \"h100\": 3", "", {"layers[0].seconds.h100", "missing"});
    bad("\"batch\": 8", "\"batch\": 0", {"p.json: batch: 0"});
    bad("\"output_bytes\": 4", "\"output_bytes\": -4", {"layers[0].output_bytes"});
    bad("\"output_bytes\": 4",
        "\"output_bytes\": 4, \"forward_fraction\": 0",
        {"layers[0].forward_fraction"});
    bad("\"output_bytes\": 4",
        "\"output_bytes\": 4, \"parallel_fraction\": null",
        {"layers[0].parallel_fraction", "null"});
    bad("\"kind\": \"linear\"",
        "\"kind\": \"linear\", \"colour\": 1",
        {"layers[0]", "unknown key 'colour'"});
    bad("[{", "[7, {", {"layers[0]", "not an object"});
    bad("\"layers\": [", "\"layers\": [], \"x\": [", {"unknown key 'x'"});
    ExpectInvalid(
        [&]
        {
            ParseProfileJson("{\"batch\": 8, \"layers\": []}", "p.json", c);
        },
        {"p.json: layers", "1 to 100000"});
    ExpectInvalid(
        [&]
        {
            ParseProfileJson("{\"batch\": 8,\n\"layers\": [}", "p.json", c);
        },
        {"p.json:2: not valid JSON"});
}

TEST(SchedulerInputs, CtrModelParametersByHand)
{
    EXPECT_EQ(CtrModelNames(),
              (std::vector<std::string>{"wide-deep", "deepfm", "two-tower", "dlrm"}));
    const uint64_t M = 1000000;
    // wide-deep: wide 52 x 20M x 1; two embedding layers of 13 x 20M x 32; deep MLP
    // over 26 x 32 + 13 = 845 inputs: 1024, 512, 256 with biases; output 257 -> 1
    Model wd = MakeCtrModel("wide-deep");
    uint64_t wdEmbeddings = 52 * 20 * M + 2 * (13 * 20 * M * 32);
    uint64_t wdDense = (845 * 1024 + 1024) + (1024 * 512 + 512) + (512 * 256 + 256) + (257 + 1);
    EXPECT_EQ(wd.TotalParameters(), wdEmbeddings + wdDense);
    ASSERT_EQ(wd.layers.size(), 7u);
    EXPECT_EQ(wd.layers[1].activationElements, 13u * 32);
    EXPECT_EQ(wd.layers[3].forwardFlops, 2.0 * 845 * 1024);
    // deepfm: 39 fields x 40M rows x 16; FM (no weights); deep 625 -> 400 -> 400 -> 400; 400 -> 1
    Model fm = MakeCtrModel("deepfm");
    uint64_t fmParameters = 39 * 40 * M * 16 + (625 * 400 + 400) + 2 * (400 * 400 + 400) + 401;
    EXPECT_EQ(fm.TotalParameters(), fmParameters);
    EXPECT_EQ(fm.layers[1].kind, LayerKind::INTERACTION);
    EXPECT_EQ(fm.layers[1].forwardFlops, 4.0 * 39 * 16);
    // its table is 99.84 GB of fp32: more than an 80 GiB GPU holds
    EXPECT_EQ(fm.layers[0].parameters * 4, 99840000000u);
    EXPECT_GT(fm.layers[0].parameters * 4, 80ull << 30);
    // two-tower: 8 x 50M x 64 and 6 x 10M x 64; towers 512 and 384 -> 1024 -> 512 -> 128
    Model tt = MakeCtrModel("two-tower");
    uint64_t ttParameters = 8 * 50 * M * 64 + 6 * 10 * M * 64 + (512 * 1024 + 1024)
                            + (1024 * 512 + 512) + (512 * 128 + 128) + (384 * 1024 + 1024)
                            + (1024 * 512 + 512) + (512 * 128 + 128);
    EXPECT_EQ(tt.TotalParameters(), ttParameters);
    EXPECT_EQ(tt.layers.back().name, "dot");
    // dlrm is the training zoo's
    EXPECT_EQ(MakeCtrModel("dlrm").TotalParameters(), MakeModel("dlrm").TotalParameters());
    ExpectInvalid(
        []
        {
            MakeCtrModel("resnet50");
        },
        {"model", "resnet50", "wide-deep"});
}

TEST(SchedulerInputs, SchedulingModelNames)
{
    const auto& names = SchedulingModelNames();
    ASSERT_GE(names.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 4), CtrModelNames());
    EXPECT_EQ(std::count(names.begin(), names.end(), "dlrm"), 1);
    EXPECT_NE(std::find(names.begin(), names.end(), "resnet50"), names.end());
    EXPECT_EQ(MakeSchedulingModel("resnet50").TotalParameters(),
              MakeModel("resnet50").TotalParameters());
    EXPECT_EQ(MakeSchedulingModel("deepfm").name, "deepfm");
    ExpectInvalid(
        []
        {
            MakeSchedulingModel("gpt5");
        },
        {"model", "gpt5", "two-tower"});
    // every built-in CTR model profiles on the preset
    for (const std::string& n : CtrModelNames())
    {
        EXPECT_NO_THROW(ProfileModel(MakeCtrModel(n), MakeCataloguePreset("aws-2026"), 1024)) << n;
    }
}

namespace
{

/// A CPU (1 TFLOP/s at 50%, 100 GB/s) and a GPU (10 TFLOP/s at 100%, 1 TB/s, 8 GiB, 1 GB/s host)
ResourceCatalogue
HandCatalogue(uint64_t gpuMemory)
{
    ResourceCatalogue c;
    c.name = "hand";
    ResourceType cpu;
    cpu.name = "cpu";
    cpu.kind = ResourceKind::CPU;
    cpu.pricePerHour = 1;
    cpu.available = 4;
    cpu.device.name = "c";
    cpu.device.peakFp32 = cpu.device.peakFp16 = cpu.device.peakBf16 = 1e12;
    cpu.device.memoryBandwidth = 1e11;
    cpu.device.efficiency = 0.5;
    cpu.nicRate = 25e9;
    cpu.memoryBytes = 64ull << 30;
    cpu.hostBandwidth = 1e11;
    ResourceType gpu = cpu;
    gpu.name = "gpu";
    gpu.kind = ResourceKind::GPU;
    gpu.device.name = "g";
    gpu.device.peakFp32 = gpu.device.peakFp16 = gpu.device.peakBf16 = 1e13;
    gpu.device.memoryBandwidth = 1e12;
    gpu.device.efficiency = 1;
    gpu.memoryBytes = gpuMemory;
    gpu.hostBandwidth = 1e9;
    c.types = {cpu, gpu};
    return c;
}

} // namespace

TEST(SchedulerInputs, ProfileModelTimesByHand)
{
    // an embedding of 1e9 fp32 parameters (4 GB), 64 elements out per sample,
    // and a linear layer 1000 -> 1000 with bias, over a batch of 100
    Model m;
    m.name = "hand";
    m.layers.push_back(EmbeddingLayer("emb", 1000000000, 64));
    AddLinear(m, "fc", 1000, 1000, true, false);
    const double tol = 2e-12; // three passes rounded to picoseconds

    // the GPU holds 8 GiB: both layers fit
    LayerProfile fits = ProfileModel(m, HandCatalogue(8ull << 30), 100, 0.9);
    EXPECT_EQ(fits.typeNames, (std::vector<std::string>{"cpu", "gpu"}));
    EXPECT_EQ(fits.batch, 100u);
    const ProfiledLayer& emb = fits.layers[0];
    // touched bytes 64 x 4 x 100 = 25600: forward 2x, backward 3x
    EXPECT_EQ(emb.kind, "embedding");
    EXPECT_NEAR(emb.seconds[0], 5 * 25600 / 1e11, tol); // 1.28 us at the CPU's DRAM
    EXPECT_NEAR(emb.seconds[1], 5 * 25600 / 1e12, tol); // 128 ns at HBM
    EXPECT_DOUBLE_EQ(emb.forwardFraction, 0.4);
    EXPECT_EQ(emb.parallelFraction, 0.9);
    EXPECT_EQ(emb.outputBytes, 25600u);
    EXPECT_EQ(emb.parameterBytes, 4000000000u);
    EXPECT_EQ(emb.syncBytes, 25600u); // the rows a batch touches, not the table
    const ProfiledLayer& fc = fits.layers[1];
    // each pass: 2e3 x 1e3 x 100 = 2e8 FLOPs; bytes: weights 4004000 (x2 in the
    // weight gradient) + activations 2 x 1000 x 4 x 100 = 800000
    EXPECT_EQ(fc.kind, "linear");
    // CPU: compute 2e8 / 5e11 = 4e-4 s per pass beats memory (<= 8.8e-5 s)
    EXPECT_NEAR(fc.seconds[0], 3 * 4e-4, tol);
    // GPU: compute 2e8 / 1e13 = 2e-5 s per pass; memory <= 8.8e-6 s
    EXPECT_NEAR(fc.seconds[1], 3 * 2e-5, tol);
    EXPECT_NEAR(fc.forwardFraction, (4e-4 + 2e-5) / (1.2e-3 + 6e-5), 1e-12);
    EXPECT_EQ(fc.outputBytes, 400000u);
    EXPECT_EQ(fc.parameterBytes, 4004000u);
    EXPECT_EQ(fc.syncBytes, 4004000u);

    // the GPU holds 1 MB: neither layer's weights fit; bytes move at 1 GB/s
    LayerProfile spills = ProfileModel(m, HandCatalogue(1000000), 100);
    EXPECT_NEAR(spills.layers[0].seconds[1], 5 * 25600 / 1e9, tol); // 128 us
    // forward and input gradient (4004000 + 800000) / 1e9, weight gradient (8008000 + 800000) / 1e9
    EXPECT_NEAR(spills.layers[1].seconds[1], (2 * 4804000 + 8808000) / 1e9, tol);
    EXPECT_NEAR(spills.layers[1].seconds[0], 3 * 4e-4, tol); // the CPU is unchanged
    EXPECT_EQ(spills.layers[0].parallelFraction, 0.95);

    ExpectInvalid(
        [&]
        {
            ProfileModel(m, HandCatalogue(1 << 30), 0);
        },
        {"batch"});
    ExpectInvalid(
        [&]
        {
            ProfileModel(m, HandCatalogue(1 << 30), 8, 1.5);
        },
        {"parallel-fraction"});
}

TEST(SchedulerInputs, DeepFmTableSpillsOnThePresetGpus)
{
    // deepfm's 99.8 GB table exceeds the 80 GiB of an A100 and an H100: its rows
    // move over PCIe (25 and 50 GB/s), on the CPU at its 0.4 TB/s DRAM
    LayerProfile p = ProfileModel(MakeCtrModel("deepfm"), MakeCataloguePreset("aws-2026"), 1024);
    const double touched = 39.0 * 16 * 4 * 1024;
    EXPECT_NEAR(p.layers[0].seconds[0], 5 * touched / 0.4e12, 2e-12);
    EXPECT_NEAR(p.layers[0].seconds[1], 5 * touched / 25e9, 2e-12);
    EXPECT_NEAR(p.layers[0].seconds[2], 5 * touched / 50e9, 2e-12);
    // and the CPU is the fastest type for it, the GPUs for the dense layers
    EXPECT_LT(p.layers[0].seconds[0], p.layers[0].seconds[2]);
    EXPECT_LT(p.layers[2].seconds[2], p.layers[2].seconds[0]);
}

TEST(SchedulerInputs, ProfileToCsvRefusesUnwritableNames)
{
    LayerProfile p = ParseProfileCsv(ValidCsv(), "v.csv", ThreeTypes());
    p.layers[0].name = "a,b";
    ExpectInvalid(
        [&]
        {
            ProfileToCsv(p);
        },
        {"layers.name", "'a,b'", "comma"});
    p.layers[0].name = "#x";
    ExpectInvalid(
        [&]
        {
            ProfileToCsv(p);
        },
        {"layers.name", "'#x'"});
}
