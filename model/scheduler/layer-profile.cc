/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "layer-profile.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LayerProfile");

uint32_t
LayerProfile::Size() const
{
    return static_cast<uint32_t>(layers.size());
}

void
LayerProfile::Validate() const
{
    if (layers.empty())
    {
        throw std::invalid_argument("profile.layers: empty; a profile needs at least one layer");
    }
    if (layers.size() > UINT32_MAX)
    {
        throw std::invalid_argument("profile.layers: more than 2^32 - 1 layers");
    }
    if (batch < 1)
    {
        throw std::invalid_argument("profile.batch: 0 must be at least 1");
    }
    if (typeNames.empty())
    {
        throw std::invalid_argument("profile.typeNames: empty; a profile needs at least one type");
    }
    for (size_t i = 0; i < layers.size(); ++i)
    {
        const ProfiledLayer& l = layers[i];
        const std::string at = "profile.layers[" + std::to_string(i) + "]";
        if (l.seconds.size() != typeNames.size())
        {
            throw std::invalid_argument(at + ".seconds: " + std::to_string(l.seconds.size())
                                        + " times for " + std::to_string(typeNames.size())
                                        + " types (" + dlnet::JoinChoices(typeNames) + ")");
        }
        for (size_t t = 0; t < l.seconds.size(); ++t)
        {
            if (!(l.seconds[t] > 0) || !std::isfinite(l.seconds[t]))
            {
                throw std::invalid_argument(at + ".seconds[" + std::to_string(t) + "] ("
                                            + dlnet::PrintableText(typeNames[t])
                                            + "): " + dlnet::ShortestText(l.seconds[t])
                                            + " must be a finite number > 0");
            }
        }
        if (!(l.forwardFraction > 0 && l.forwardFraction < 1))
        {
            throw std::invalid_argument(at + ".forwardFraction: "
                                        + dlnet::ShortestText(l.forwardFraction)
                                        + " must be in (0, 1)");
        }
        if (!(l.parallelFraction >= 0 && l.parallelFraction <= 1))
        {
            throw std::invalid_argument(at + ".parallelFraction: "
                                        + dlnet::ShortestText(l.parallelFraction)
                                        + " must be in [0, 1]");
        }
    }
}

void
LayerProfile::CheckAgainst(const ResourceCatalogue& catalogue) const
{
    std::vector<std::string> names = catalogue.Names();
    if (typeNames != names)
    {
        throw std::invalid_argument("profile.typeNames: " + dlnet::JoinChoices(typeNames)
                                    + " differ from the catalogue's types, in order: "
                                    + dlnet::JoinChoices(names));
    }
}

} // namespace ns3
