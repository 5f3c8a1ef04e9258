/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology.h"

#include "topology-helper.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/named-registry.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetTopology");

uint32_t
AggregationTree::GetDepth() const
{
    if (nodes.empty())
    {
        return 0;
    }
    uint32_t depth = 1;
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        uint32_t d = 1;
        for (uint32_t p = nodes[n].parent; p != NO_PARENT; p = nodes[p].parent)
        {
            ++d;
        }
        depth = std::max(depth, d);
    }
    return depth;
}

TopologyGrid
Topology::GetGrid() const
{
    return TopologyGrid{};
}

uint32_t
Topology::GetHostOf(uint32_t rank) const
{
    return rank;
}

AggregationTree
Topology::GetAggregationTree(const std::vector<uint32_t>& ranks, uint32_t job) const
{
    return AggregationTree{};
}

namespace
{
using Kinds = dlnet::NamedRegistry<TopologyKind>;
} // namespace

bool
TopologyRegistry::Add(TopologyKind kind)
{
    if (!kind.make)
    {
        throw std::logic_error("TopologyRegistry: kind '" + kind.name + "' has no maker");
    }
    return Kinds::Add(std::move(kind));
}

std::vector<std::string>
TopologyRegistry::Names()
{
    return Kinds::Names();
}

const TopologyKind&
TopologyRegistry::Get(const std::string& name, const std::string& field)
{
    const TopologyKind* kind = Kinds::Find(name);
    if (!kind)
    {
        dlnet::ParseChoice(field, name, Names()); // throws, listing the kinds
    }
    return *kind;
}

Ptr<const Topology>
MakeTopology(const TopologyConfig& config)
{
    config.ValidateFabric();
    const TopologyKind& kind = TopologyRegistry::Get(config.kind);
    for (const auto& option : config.given)
    {
        const auto& refused = kind.refusedFabricOptions;
        if (std::find(refused.begin(), refused.end(), option) != refused.end())
        {
            throw std::invalid_argument(option + ": does not apply to a " + kind.name + "; "
                                        + kind.refusedWhy);
        }
        if (!TopologyConfig::IsFabricOption(option)
            && std::find(kind.options.begin(), kind.options.end(), option) == kind.options.end())
        {
            throw std::invalid_argument(
                option + ": does not apply to a " + kind.name
                + (!kind.options.empty() ? "; its options are " + dlnet::JoinChoices(kind.options)
                   : kind.refusedWhy.empty() ? std::string("; it has no shape options")
                                             : "; it has no shape options: " + kind.refusedWhy));
        }
    }
    Ptr<const Topology> topology = kind.make(config);
    if (!topology->HasEqualCostPaths())
    {
        // taken and ignored before: with one route between any two ranks there is nothing
        // to hash or to spray over
        const TopologyConfig defaults;
        const std::string where = "where two ranks have two or more equal-cost paths (two "
                                  "or more spines between ranks on different leaves of a "
                                  "leaf-spine, hetero-leaf-spine or GPU-server fabric, a "
                                  "fat-tree of k 4 or more), and this "
                                  + kind.name + " routes every pair one way";
        const std::array<std::array<std::string, 3>, 2> pathOptions{{
            {"load-balancing", config.loadBalancing, defaults.loadBalancing},
            {"ecmp-seed", std::to_string(config.ecmpSeed), std::to_string(defaults.ecmpSeed)},
        }};
        for (const auto& [option, got, standard] : pathOptions)
        {
            if (got != standard)
            {
                throw std::invalid_argument(option + ": got " + got + "; it applies " + where
                                            + " (leave it at " + standard + ")");
            }
        }
    }
    return topology;
}

bool
TopologyOptionApplies(const std::string& kind, const std::string& option)
{
    if (const TopologyKind* k = Kinds::Find(kind))
    {
        const auto& refused = k->refusedFabricOptions;
        if (std::find(refused.begin(), refused.end(), option) != refused.end())
        {
            return false;
        }
    }
    bool shapesSome = false;
    for (const auto& name : Kinds::Names())
    {
        const TopologyKind& k = *Kinds::Find(name);
        bool listed = std::find(k.options.begin(), k.options.end(), option) != k.options.end();
        if (listed && name == kind)
        {
            return true;
        }
        shapesSome = shapesSome || listed;
    }
    return !shapesSome;
}

bool
TopologyOptionApplies(const TopologyConfig& config, const std::string& option)
{
    if (!TopologyOptionApplies(config.kind, option))
    {
        return false;
    }
    const TopologyKind* kind = Kinds::Find(config.kind);
    return !kind || config.given.count(option)
           || std::find(kind->givenOnlyOptions.begin(), kind->givenOnlyOptions.end(), option)
                  == kind->givenOnlyOptions.end();
}

std::vector<TopologyConfig>
SplitTopologyList(const TopologyConfig& config, const std::vector<std::string>& kinds)
{
    for (const auto& kind : kinds)
    {
        TopologyRegistry::Get(kind); // (names the kinds)
    }
    const std::string list = dlnet::JoinList(kinds); // as the option lists them
    for (const auto& option : config.given)
    {
        if (std::none_of(kinds.begin(),
                         kinds.end(),
                         [&option](const std::string& k)
                         {
                             return TopologyOptionApplies(k, option);
                         }))
        {
            throw std::invalid_argument(option + ": shapes none of the topologies " + list);
        }
    }
    const TopologyConfig defaults;
    std::vector<TopologyConfig> out;
    std::vector<bool> balanced; // whether the kind has equal-cost paths
    for (const auto& kind : kinds)
    {
        TopologyConfig c = config;
        c.kind = kind;
        c.given.insert("topology");
        for (auto it = c.given.begin(); it != c.given.end();)
        {
            it = TopologyOptionApplies(kind, *it) ? std::next(it) : c.given.erase(it);
        }
        TopologyConfig probe = c; // (the path options would be refused where one path)
        probe.loadBalancing = defaults.loadBalancing;
        probe.ecmpSeed = defaults.ecmpSeed;
        balanced.push_back(MakeTopology(probe)->HasEqualCostPaths());
        out.push_back(c);
    }
    if (std::find(balanced.begin(), balanced.end(), true) != balanced.end())
    {
        for (std::size_t k = 0; k < out.size(); ++k)
        {
            if (!balanced[k])
            {
                out[k].loadBalancing = defaults.loadBalancing;
                out[k].ecmpSeed = defaults.ecmpSeed;
                out[k].given.erase("load-balancing");
                out[k].given.erase("ecmp-seed");
            }
        }
    }
    return out;
}

double
PathLatency(const TopologyPath& path, double switchLatency, double packetBits, double rankRate)
{
    if (path.links.empty())
    {
        return 0;
    }
    // The bandwidth term counts one link's serialisation: a link at the rank
    // rate when the path has one, else (a path that never meets the link the
    // rank rate stands for, e.g. inside a GPU server) its slowest link.
    double counted = 0;
    double slowest = path.links.front().rate;
    for (const auto& link : path.links)
    {
        counted = link.rate == rankRate ? rankRate : counted;
        slowest = std::min(slowest, link.rate);
    }
    counted = counted > 0 ? counted : slowest;
    // Links of equal delay and of equal rate are summed as count x value, the
    // counted rate's links first, so that a path's latency is one expression
    // whatever order its links are listed in.
    std::vector<std::pair<double, uint32_t>> delays;
    std::vector<std::pair<double, uint32_t>> rates{{counted, 0}};
    auto add = [](std::vector<std::pair<double, uint32_t>>& groups, double value)
    {
        for (auto& g : groups)
        {
            if (g.first == value)
            {
                ++g.second;
                return;
            }
        }
        groups.emplace_back(value, 1);
    };
    for (const auto& link : path.links)
    {
        add(delays, link.delay);
        add(rates, link.rate);
    }
    double seconds = 0;
    for (const auto& [delay, count] : delays)
    {
        seconds += count * delay;
    }
    seconds += path.switches * switchLatency;
    rates.front().second -= 1; // the one the bandwidth term counts
    for (const auto& [rate, count] : rates)
    {
        if (count > 0)
        {
            seconds += count * packetBits / rate;
        }
    }
    return seconds;
}

void
CheckRankCount(const std::string& kind, uint64_t ranks)
{
    if (ranks > MAX_RANKS)
    {
        throw std::invalid_argument("topology: " + std::to_string(ranks) + " ranks; at most "
                                    + std::to_string(MAX_RANKS) + " are supported");
    }
    if (ranks < 2)
    {
        throw std::invalid_argument("topology: a " + kind + " of " + std::to_string(ranks)
                                    + " rank needs at least 2 ranks");
    }
}

void
CheckFabricLinkCount(const std::string& field, const std::string& what, uint64_t links)
{
    if (links > MAX_FABRIC_LINKS)
    {
        throw std::invalid_argument(field + ": " + what + " make " + std::to_string(links)
                                    + " switch-to-switch links; at most "
                                    + std::to_string(MAX_FABRIC_LINKS) + " are supported");
    }
}

DataRate
ParseRateOr(const std::string& field, const std::string& text, DataRate otherwise)
{
    return text.empty() ? otherwise : dlnet::ParseRate(field, text);
}

Time
ParseTimeOr(const std::string& field, const std::string& text, Time otherwise)
{
    return text.empty() ? otherwise : dlnet::ParseTime(field, text);
}

void
CheckPositive(const std::string& field, uint64_t value)
{
    if (value == 0)
    {
        throw std::invalid_argument(field + ": got 0; expected a whole number of at least 1");
    }
}

} // namespace ns3
