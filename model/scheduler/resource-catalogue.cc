/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "resource-catalogue.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResourceCatalogue");

std::string
ToString(ResourceKind kind)
{
    switch (kind)
    {
        case ResourceKind::CPU:
            return "cpu";
        case ResourceKind::GPU:
            return "gpu";
    }
    return "unknown";
}

double
ResourceCatalogue::Bandwidth(uint32_t a, uint32_t b) const
{
    if (a >= types.size() || b >= types.size())
    {
        throw std::invalid_argument("catalogue: type index " + std::to_string(std::max(a, b))
                                    + " out of range (" + std::to_string(types.size()) + " types)");
    }
    auto it = links.find({std::min(a, b), std::max(a, b)});
    if (it != links.end())
    {
        return it->second;
    }
    return std::min(types[a].nicRate, types[b].nicRate);
}

uint32_t
ResourceCatalogue::IndexOf(const std::string& field, const std::string& name) const
{
    for (uint32_t i = 0; i < types.size(); ++i)
    {
        if (types[i].name == name)
        {
            return i;
        }
    }
    throw std::invalid_argument(field + ": unknown type '" + dlnet::PrintableText(name)
                                + "' (types: " + dlnet::JoinChoices(Names()) + ")");
}

std::vector<std::string>
ResourceCatalogue::Names() const
{
    std::vector<std::string> names;
    names.reserve(types.size());
    for (const auto& t : types)
    {
        names.push_back(t.name);
    }
    return names;
}

void
ResourceCatalogue::Validate() const
{
    if (types.empty())
    {
        throw std::invalid_argument("catalogue.types: empty; a catalogue needs at least one type");
    }
    // Field names follow the catalogue's JSON keys (doc/dlnet.rst) so that a
    // message points at what the user wrote; values are shown in those units.
    auto positive = [](const std::string& field, double value, const std::string& unit)
    {
        if (!(value > 0) || !std::isfinite(value))
        {
            throw std::invalid_argument(field + ": " + dlnet::ShortestText(value) + unit
                                        + " must be a finite number > 0");
        }
    };
    std::set<std::string> seen;
    for (size_t i = 0; i < types.size(); ++i)
    {
        const ResourceType& t = types[i];
        const std::string at = "catalogue.types[" + std::to_string(i) + "]";
        if (t.name.empty())
        {
            throw std::invalid_argument(at + ".name: empty; a type needs a unique name");
        }
        if (!seen.insert(t.name).second)
        {
            throw std::invalid_argument(at + ".name: '" + dlnet::PrintableText(t.name)
                                        + "' names two types; names must be unique");
        }
        positive(at + ".price_per_hour", t.pricePerHour, " USD/h");
        if (t.available < 1)
        {
            throw std::invalid_argument(at + ".available: 0 must be at least 1");
        }
        positive(at + ".nic_gbps", t.nicRate / 1e9, " Gbit/s");
        if (t.memoryBytes < 1)
        {
            throw std::invalid_argument(at + ".memory_gib: 0 must be > 0");
        }
        positive(at + ".host_gbps", t.hostBandwidth / 1e9, " GB/s");
        try
        {
            t.device.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(at + "." + e.what());
        }
    }
    for (const auto& [pair, rate] : links)
    {
        const std::string at = "catalogue.links (" + std::to_string(pair.first) + ", "
                               + std::to_string(pair.second) + ")";
        if (pair.first > pair.second || pair.second >= types.size())
        {
            throw std::invalid_argument(at + ": a link names type indices a <= b below "
                                        + std::to_string(types.size()));
        }
        positive(at + ".gbps", rate / 1e9, " Gbit/s");
    }
}

} // namespace ns3
