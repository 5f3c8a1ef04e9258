/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "wafer-helper.h"

#include "wafer-topology.h"

#include "ns3/config-parse.h"
#include "ns3/fabric-header.h"

#include <stdexcept>

namespace ns3
{

namespace
{

/// \return the rate in exact ns-3 syntax
std::string
RateString(DataRate rate)
{
    return std::to_string(rate.GetBitRate()) + "bps";
}

/// The one table of the variants: enum, name as configured, topology kind.
struct VariantName
{
    WaferVariant variant;
    const char* name;
    const char* kind;
};

constexpr VariantName VARIANT_NAMES[] = {
    {WaferVariant::MESH, "mesh", "wafer-mesh"},
    {WaferVariant::FRED_A, "fred-a", "fred-a"},
    {WaferVariant::FRED_B, "fred-b", "fred-b"},
    {WaferVariant::FRED_C, "fred-c", "fred-c"},
    {WaferVariant::FRED_D, "fred-d", "fred-d"},
};

const VariantName&
NamesOf(WaferVariant variant)
{
    for (const auto& v : VARIANT_NAMES)
    {
        if (v.variant == variant)
        {
            return v;
        }
    }
    throw std::logic_error("WaferVariant: not in the table");
}

} // namespace

WaferVariant
ParseWaferVariant(const std::string& field, const std::string& text)
{
    dlnet::ParseChoice(field, text, WaferVariants()); // throws, listing them
    for (const auto& v : VARIANT_NAMES)
    {
        if (text == v.name)
        {
            return v.variant;
        }
    }
    throw std::logic_error("ParseWaferVariant: '" + text + "' is allowed but not in the table");
}

std::string
ToString(WaferVariant variant)
{
    return NamesOf(variant).name;
}

std::string
WaferKindName(WaferVariant variant)
{
    return NamesOf(variant).kind;
}

bool
IsFred(WaferVariant variant)
{
    return variant != WaferVariant::MESH;
}

bool
InSwitch(WaferVariant variant)
{
    return variant == WaferVariant::FRED_B || variant == WaferVariant::FRED_D;
}

bool
IsTapered(WaferVariant variant)
{
    return variant == WaferVariant::FRED_A || variant == WaferVariant::FRED_B;
}

const std::vector<std::string>&
WaferVariants()
{
    static const std::vector<std::string> variants = []
    {
        std::vector<std::string> names;
        for (const auto& v : VARIANT_NAMES)
        {
            names.emplace_back(v.name);
        }
        return names;
    }();
    return variants;
}

void
WaferConfig::Validate() const
{
    ParseWaferVariant("variant", variant);
    // FRED-A/B uplinks get an eighth of it and the mesh's links a quarter: at
    // least 1 bit/s each
    dlnet::ParseRate("npu-bandwidth", npuBandwidth, WAFER_MIN_NPU_BPS);
    dlnet::ParseRate("io-rate", ioRate);
    dlnet::ParseTime("link-delay", linkDelay, dlnet::MAX_DELAY_SECONDS);
    const uint32_t maxPayload = MAX_MTU - FabricHeader::SERIALIZED_SIZE;
    if (payloadBytes < WAFER_MIN_PAYLOAD || payloadBytes > maxPayload)
    {
        throw std::invalid_argument("payload-bytes: got " + std::to_string(payloadBytes)
                                    + "; expected " + std::to_string(WAFER_MIN_PAYLOAD) + " to "
                                    + std::to_string(maxPayload) + " bytes (the "
                                    + std::to_string(FabricHeader::SERIALIZED_SIZE)
                                    + "-byte FabricHeader makes packets of at most 1 MiB)");
    }
    dlnet::ParseChoice("network", network, {"packet", "flow"});
    if (middleStages < 1)
    {
        throw std::invalid_argument("middle-stages: got 0; expected a whole number of at least 1");
    }
    dlnet::ParseChoice("network", network, {"packet", "flow"});
}

bool
Wafer::IsFred() const
{
    return ns3::IsFred(variant);
}

bool
Wafer::InSwitch() const
{
    return ns3::InSwitch(variant);
}

TopologyConfig
WaferTopology(const WaferConfig& config)
{
    config.Validate();
    DataRate npu = dlnet::ParseRate("npu-bandwidth", config.npuBandwidth, WAFER_MIN_NPU_BPS);
    TopologyConfig t;
    t.hostLinkRate = config.npuBandwidth;
    t.hostLinkDelay = config.linkDelay;
    t.fabricLinkDelay = config.linkDelay;
    t.switchLatency = "0ns";
    t.mtu = config.payloadBytes + FabricHeader::SERIALIZED_SIZE;
    t.trafficClasses = 4;
    t.flowControl = "lossless";
    t.network = config.network;
    WaferVariant variant = ParseWaferVariant("variant", config.variant);
    if (variant == WaferVariant::MESH)
    {
        t.kind = "mesh";
        t.rows = WAFER_MESH_ROWS;
        t.cols = WAFER_MESH_COLS;
        t.fabricLinkRate = RateString(DataRate(npu.GetBitRate() / 4));
        t.localLinkRate = config.npuBandwidth;
    }
    else
    {
        bool thin = IsTapered(variant);
        t.kind = "leaf-spine";
        t.leaves = FRED_L1;
        t.hostsPerLeaf = FRED_NPUS_PER_L1;
        t.spines = FRED_L2;
        t.fabricLinkRate = thin ? RateString(DataRate(npu.GetBitRate() / 8)) : config.npuBandwidth;
    }
    return t;
}

Wafer
BuildWafer(const WaferConfig& config)
{
    return WaferScaleTopology(config).BuildWafer();
}

} // namespace ns3
