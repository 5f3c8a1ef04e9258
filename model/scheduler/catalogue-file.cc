/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-json.h"
#include "resource-catalogue.h"

#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/json-document.h"
#include "ns3/log.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CatalogueFile");

namespace
{

using nlohmann::json;

/// More types would make the plan space (|T|^L) and every scheduler's tables pointless to search
constexpr uint64_t MAX_TYPES = 64;
/// A bound on instance counts (and so on any provisioning search over them)
constexpr uint64_t MAX_AVAILABLE = 1000000;
constexpr double MAX_PRICE_PER_HOUR = 1e6;
/// Gbit/s: config-parse's largest rate (40 Tbit/s)
const double MAX_GBPS = static_cast<double>(dlnet::MAX_RATE_BPS) / 1e9;
constexpr double MAX_MEMORY_GIB = 1 << 20;   // 1 PiB
constexpr double MAX_BANDWIDTH_GBPS = 1e6;   // GB/s: 1 PB/s
constexpr double MAX_TFLOPS = 1e6;           // 1 EFLOP/s
constexpr double GIB = 1024.0 * 1024 * 1024; // bytes

const std::vector<std::string> g_topKeys = {"name", "date", "types", "links"};
const std::vector<std::string> g_typeKeys = {
    "name", "kind", "price_per_hour", "available", "device", "nic_gbps", "memory_gib", "host_gbps"};
const std::vector<std::string> g_deviceKeys = {"name",
                                               "peak_fp32_tflops",
                                               "peak_fp16_tflops",
                                               "peak_bf16_tflops",
                                               "memory_gbps",
                                               "efficiency"};
const std::vector<std::string> g_linkKeys = {"a", "b", "gbps"};

/// \return the device of types[i].device: a preset name or an object
DeviceSpec
ReadDevice(const json& value, const std::string& source, const std::string& path)
{
    if (value.is_string())
    {
        std::string name = value.get<std::string>();
        const auto& presets = DevicePresetNames();
        if (std::find(presets.begin(), presets.end(), name) == presets.end())
        {
            dlnet::InputFail(source,
                             path,
                             "'" + dlnet::PrintableText(name) + "' is not a device preset ("
                                 + dlnet::JoinChoices(presets) + ") nor an object {"
                                 + dlnet::JoinChoices(g_deviceKeys) + "}");
        }
        return MakeDevice(name);
    }
    dlnet::CheckJsonKeys(value, source, path, g_deviceKeys);
    DeviceSpec d;
    d.name = value.contains("name") ? dlnet::JsonName(value["name"], source, path + ".name")
                                    : std::string("custom");
    d.peakFp32 = 1e12
                 * dlnet::JsonPositive(dlnet::JsonRequire(value, source, path, "peak_fp32_tflops"),
                                       source,
                                       path + ".peak_fp32_tflops",
                                       MAX_TFLOPS);
    d.peakFp16 = 1e12
                 * dlnet::JsonPositive(dlnet::JsonRequire(value, source, path, "peak_fp16_tflops"),
                                       source,
                                       path + ".peak_fp16_tflops",
                                       MAX_TFLOPS);
    // bf16 runs at the fp16 rate on every device the presets model
    d.peakBf16
        = value.contains("peak_bf16_tflops")
              ? 1e12
                    * dlnet::JsonPositive(
                        value["peak_bf16_tflops"], source, path + ".peak_bf16_tflops", MAX_TFLOPS)
              : d.peakFp16;
    d.memoryBandwidth
        = 1e9
          * dlnet::JsonPositive(dlnet::JsonRequire(value, source, path, "memory_gbps"),
                                source,
                                path + ".memory_gbps",
                                MAX_BANDWIDTH_GBPS);
    d.efficiency = dlnet::JsonPositive(
        dlnet::JsonRequire(value, source, path, "efficiency"), source, path + ".efficiency", 1);
    return d;
}

/// \return the type at types[i]
ResourceType
ReadType(const json& value, const std::string& source, const std::string& path)
{
    dlnet::CheckJsonKeys(value, source, path, g_typeKeys);
    auto require = [&](const std::string& key) -> const json&
    {
        return dlnet::JsonRequire(value, source, path, key);
    };
    ResourceType t;
    t.name = dlnet::JsonName(require("name"), source, path + ".name");
    const json& kind = require("kind");
    if (kind == "cpu")
    {
        t.kind = ResourceKind::CPU;
    }
    else if (kind == "gpu")
    {
        t.kind = ResourceKind::GPU;
    }
    else
    {
        dlnet::InputFail(source,
                         path + ".kind",
                         dlnet::PrintableText(dlnet::JsonText(kind))
                             + " is not \"cpu\" or \"gpu\"");
    }
    t.pricePerHour = dlnet::JsonPositive(
        require("price_per_hour"), source, path + ".price_per_hour", MAX_PRICE_PER_HOUR);
    t.available = static_cast<uint32_t>(
        dlnet::JsonUnsigned(require("available"), source, path + ".available", 1, MAX_AVAILABLE));
    t.device = ReadDevice(require("device"), source, path + ".device");
    t.nicRate
        = 1e9 * dlnet::JsonPositive(require("nic_gbps"), source, path + ".nic_gbps", MAX_GBPS);
    double gib
        = dlnet::JsonPositive(require("memory_gib"), source, path + ".memory_gib", MAX_MEMORY_GIB);
    t.memoryBytes = static_cast<uint64_t>(std::llround(gib * GIB));
    if (t.memoryBytes == 0)
    {
        dlnet::InputFail(source, path + ".memory_gib", "is less than a byte");
    }
    t.hostBandwidth = 1e9
                      * dlnet::JsonPositive(
                          require("host_gbps"), source, path + ".host_gbps", MAX_BANDWIDTH_GBPS);
    return t;
}

/// \return the index of the type a link names
uint32_t
LinkEnd(const json& value,
        const ResourceCatalogue& catalogue,
        const std::string& source,
        const std::string& path)
{
    std::string name = dlnet::JsonName(value, source, path);
    try
    {
        return catalogue.IndexOf(path, name);
    }
    catch (const std::invalid_argument& e)
    {
        dlnet::InputFail(source, "", e.what());
    }
}

/// \return value / scale as the shortest JSON number that reads back as it
json
Scaled(double value, double scale)
{
    return value / scale;
}

/// \return the device as its preset's name when it is that preset unchanged, else as an object
json
DeviceJson(const DeviceSpec& d)
{
    const auto& presets = DevicePresetNames();
    if (std::find(presets.begin(), presets.end(), d.name) != presets.end())
    {
        DeviceSpec p = MakeDevice(d.name);
        if (p.peakFp32 == d.peakFp32 && p.peakFp16 == d.peakFp16 && p.peakBf16 == d.peakBf16
            && p.memoryBandwidth == d.memoryBandwidth && p.efficiency == d.efficiency)
        {
            return d.name;
        }
    }
    nlohmann::ordered_json o;
    o["name"] = d.name;
    o["peak_fp32_tflops"] = Scaled(d.peakFp32, 1e12);
    o["peak_fp16_tflops"] = Scaled(d.peakFp16, 1e12);
    o["peak_bf16_tflops"] = Scaled(d.peakBf16, 1e12);
    o["memory_gbps"] = Scaled(d.memoryBandwidth, 1e9);
    o["efficiency"] = d.efficiency;
    return o;
}

/**
 * The aws-2026 preset: AWS us-east-1 on-demand (Linux) prices, per instance
 * for the CPU server and per GPU (an eighth of an 8-GPU instance) for the
 * GPUs. Sources (read 2026-11-30; doc/heterps-inputs.md cites them in full):
 * - p4de.24xlarge (8 x A100 SXM 80 GB) $27.44705/h and p5.48xlarge
 *   (8 x H100 SXM 80 GB) $55.04/h: data-receipts' hyperscaler table
 *   (github.com/datareceipts/data-receipts, 109-gpu-pricing/hyperscalers.json,
 *   "retrieved": "2026-11-09"), the prices after AWS's June 2025 cut of P4/P5
 *   on-demand prices (usage.ai, "LLM Cost Optimization on AWS", which reports
 *   the cut). p4de rather than p4d: its A100s have the 80 GB the type models.
 * - c6i.32xlarge (128 vCPU = 64 cores, 256 GiB): $5.44/h = 64 x c6i.large's
 *   $0.085/h (infracost's example, $62.05 for 730 h; AWS prices a family
 *   linearly in size); not read on AWS's own page (see the doc).
 */
ResourceCatalogue
Aws2026()
{
    ResourceCatalogue c;
    c.name = "aws-2026";
    c.date = "2026-11-09";

    ResourceType cpu;
    cpu.name = "cpu";
    cpu.kind = ResourceKind::CPU;
    cpu.pricePerHour = 5.44;
    cpu.available = 64;
    cpu.device = MakeDevice("cpu");
    cpu.nicRate = 25e9; // the CPU Ethernet (c6i.32xlarge itself has 50 Gbit/s)
    cpu.memoryBytes = 256ull << 30;
    cpu.hostBandwidth = cpu.device.memoryBandwidth; // its tables live in its own DRAM
    c.types.push_back(cpu);

    ResourceType a100;
    a100.name = "a100";
    a100.kind = ResourceKind::GPU;
    a100.pricePerHour = 27.44705 / 8;
    a100.available = 32;
    a100.device = MakeDevice("a100");
    a100.nicRate = 100e9; // p4de: 400 Gbit/s EFA for 8 GPUs, rounded to the 100 per GPU
    a100.memoryBytes = 80ull << 30;
    a100.hostBandwidth = 25e9; // PCIe 4.0 x16: 32 GB/s raw, ~25 GB/s achieved
    c.types.push_back(a100);

    ResourceType h100;
    h100.name = "h100";
    h100.kind = ResourceKind::GPU;
    h100.pricePerHour = 55.04 / 8;
    h100.available = 16;
    h100.device = MakeDevice("h100");
    h100.nicRate = 100e9; // p5: 3200 Gbit/s for 8 GPUs; the 100 keeps GPUs comparable
    h100.memoryBytes = 80ull << 30;
    h100.hostBandwidth = 50e9; // PCIe 5.0 x16: 64 GB/s raw, ~50 GB/s achieved
    c.types.push_back(h100);
    return c;
}

} // namespace

const std::vector<std::string>&
CataloguePresetNames()
{
    static const std::vector<std::string> names = {"aws-2026"};
    return names;
}

ResourceCatalogue
MakeCataloguePreset(const std::string& name)
{
    dlnet::ParseChoice("catalogue", name, CataloguePresetNames());
    return Aws2026();
}

ResourceCatalogue
ParseCatalogueJson(const std::string& text, const std::string& source)
{
    json doc = dlnet::ParseJsonDocument(text, source);
    dlnet::CheckJsonKeys(doc, source, "", g_topKeys);
    ResourceCatalogue c;
    c.name = dlnet::JsonName(dlnet::JsonRequire(doc, source, "", "name"), source, "name");
    if (doc.contains("date"))
    {
        c.date = dlnet::JsonName(doc["date"], source, "date");
    }
    const json& types = dlnet::JsonRequire(doc, source, "", "types");
    if (!types.is_array() || types.empty() || types.size() > MAX_TYPES)
    {
        dlnet::InputFail(
            source, "types", "must be a list of 1 to " + std::to_string(MAX_TYPES) + " types");
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < types.size(); ++i)
    {
        std::string path = "types[" + std::to_string(i) + "]";
        c.types.push_back(ReadType(types[i], source, path));
        if (!names.insert(c.types.back().name).second)
        {
            dlnet::InputFail(
                source, path + ".name", "'" + c.types.back().name + "' names an earlier type too");
        }
    }
    if (doc.contains("links"))
    {
        const json& links = doc["links"];
        if (!links.is_array() || links.size() > MAX_TYPES * (MAX_TYPES + 1) / 2)
        {
            dlnet::InputFail(source, "links", "must be a list of {a, b, gbps}");
        }
        for (std::size_t i = 0; i < links.size(); ++i)
        {
            std::string path = "links[" + std::to_string(i) + "]";
            dlnet::CheckJsonKeys(links[i], source, path, g_linkKeys);
            uint32_t a
                = LinkEnd(dlnet::JsonRequire(links[i], source, path, "a"), c, source, path + ".a");
            uint32_t b
                = LinkEnd(dlnet::JsonRequire(links[i], source, path, "b"), c, source, path + ".b");
            double gbps = dlnet::JsonPositive(dlnet::JsonRequire(links[i], source, path, "gbps"),
                                              source,
                                              path + ".gbps",
                                              MAX_GBPS);
            auto key = std::make_pair(std::min(a, b), std::max(a, b));
            if (!c.links.emplace(key, gbps * 1e9).second)
            {
                dlnet::InputFail(source,
                                 path,
                                 "a second link between '" + c.types[a].name + "' and '"
                                     + c.types[b].name + "'");
            }
        }
    }
    try
    {
        c.Validate();
    }
    catch (const std::invalid_argument& e)
    {
        dlnet::InputFail(source, "", e.what());
    }
    return c;
}

ResourceCatalogue
ReadCatalogueFile(const std::string& path)
{
    return ParseCatalogueJson(dlnet::ReadInputFile("catalogue", path), path);
}

std::string
CatalogueToJson(const ResourceCatalogue& catalogue)
{
    nlohmann::ordered_json doc;
    doc["name"] = catalogue.name;
    doc["date"] = catalogue.date;
    doc["types"] = nlohmann::ordered_json::array();
    for (const ResourceType& t : catalogue.types)
    {
        nlohmann::ordered_json o;
        o["name"] = t.name;
        o["kind"] = ToString(t.kind);
        o["price_per_hour"] = t.pricePerHour;
        o["available"] = t.available;
        o["device"] = DeviceJson(t.device);
        o["nic_gbps"] = Scaled(t.nicRate, 1e9);
        o["memory_gib"] = Scaled(static_cast<double>(t.memoryBytes), GIB);
        o["host_gbps"] = Scaled(t.hostBandwidth, 1e9);
        doc["types"].push_back(o);
    }
    if (!catalogue.links.empty())
    {
        doc["links"] = nlohmann::ordered_json::array();
        for (const auto& [pair, rate] : catalogue.links)
        {
            nlohmann::ordered_json o;
            o["a"] = pair.first < catalogue.types.size() ? catalogue.types[pair.first].name : "";
            o["b"] = pair.second < catalogue.types.size() ? catalogue.types[pair.second].name : "";
            o["gbps"] = Scaled(rate, 1e9);
            doc["links"].push_back(o);
        }
    }
    return dlnet::JsonText(doc, 2) + "\n";
}

ResourceCatalogue
MakeCatalogue(const std::string& text)
{
    const auto& presets = CataloguePresetNames();
    if (std::find(presets.begin(), presets.end(), text) != presets.end())
    {
        return MakeCataloguePreset(text);
    }
    std::error_code error;
    if (!std::filesystem::exists(text, error))
    {
        throw std::invalid_argument("catalogue: '" + dlnet::PrintableText(text)
                                    + "' is neither a preset (" + dlnet::JoinChoices(presets)
                                    + ") nor a file");
    }
    return ReadCatalogueFile(text);
}

} // namespace ns3
