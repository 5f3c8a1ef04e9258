/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-routing.h"

#include "ns3/log.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FredRouting");

namespace
{

/// Thrown inside the search when its step budget runs out.
struct GaveUp
{
};

std::string
Fred(uint32_t m, uint32_t ports)
{
    return "Fred_" + std::to_string(m) + "(" + std::to_string(ports) + ")";
}

std::string
Quoted(const std::string& name)
{
    return "'" + name + "'";
}

void
CheckPorts(const FredFlow& flow,
           const std::vector<uint32_t>& list,
           const char* kind,
           uint32_t ports)
{
    if (list.empty())
    {
        throw std::invalid_argument("flow " + Quoted(flow.name) + ": no " + kind
                                    + " ports; a flow needs at least 1 input and 1 output");
    }
    std::set<uint32_t> seen;
    for (uint32_t p : list)
    {
        if (p >= ports)
        {
            throw std::invalid_argument("flow " + Quoted(flow.name) + ": " + kind + " port "
                                        + std::to_string(p) + " is outside the switch's "
                                        + std::to_string(ports) + " ports (0 to "
                                        + std::to_string(ports - 1) + ")");
        }
        if (!seen.insert(p).second)
        {
            throw std::invalid_argument("flow " + Quoted(flow.name) + ": " + kind + " port "
                                        + std::to_string(p) + " appears twice; each port may "
                                        + "appear once in a flow's inputs and once in its outputs");
        }
    }
}

/// Throw if a port serves two flows on the same side.
void
CheckShared(const std::vector<FredFlow>& flows, bool inputs)
{
    std::map<uint32_t, size_t> owner;
    for (size_t f = 0; f < flows.size(); ++f)
    {
        for (uint32_t p : inputs ? flows[f].inputs : flows[f].outputs)
        {
            auto [it, fresh] = owner.emplace(p, f);
            if (!fresh)
            {
                throw std::invalid_argument(
                    "flows: " + Quoted(flows[it->second].name) + " and " + Quoted(flows[f].name)
                    + (inputs ? " both take input port " : " both send to output port ")
                    + std::to_string(p)
                    + (inputs ? "; an input port feeds one flow at a time"
                              : "; an output port carries one flow's result at a time"));
            }
        }
    }
}

void
Validate(uint32_t ports, uint32_t middleStages, const std::vector<FredFlow>& flows)
{
    if (ports == 0)
    {
        throw std::invalid_argument("ports: got 0; a FRED switch has at least 1 port");
    }
    if (middleStages == 0)
    {
        throw std::invalid_argument(
            "middle-stages: got 0; expected at least 1 middle subnetwork (m >= 1)");
    }
    for (const auto& flow : flows)
    {
        CheckPorts(flow, flow.inputs, "input", ports);
        CheckPorts(flow, flow.outputs, "output", ports);
    }
    CheckShared(flows, true);
    CheckShared(flows, false);
}

/**
 * Backtracking over the middle subnetworks of every level. A level's flows
 * are identified by their indices: at level k a port p of the switch is port
 * p >> k of the subnetwork (micro-switch i owns ports 2i and 2i+1), so the
 * indices and the level fix a sub-problem, and failed ones are remembered.
 */
class Search
{
public:
    Search(const std::vector<FredFlow>& flows, uint32_t m, uint32_t levels, uint64_t maxSteps)
        : middle(levels, std::vector<uint32_t>(flows.size(), 0))
        , m_flows(flows)
        , m_m(m)
        , m_levels(levels)
        , m_maxSteps(maxSteps)
    {
    }

    /**
     * \param level the recursion level
     * \param members flow indices, ascending, port-disjoint at this level
     * \return true (and middle filled for them) if they route from here down
     */
    bool Route(uint32_t level, const std::vector<uint32_t>& members)
    {
        if (level == m_levels)
        {
            return true; // one micro-switch: port-disjoint flows fit
        }
        if (m_failed.count({level, members}))
        {
            return false;
        }
        // Flows on one micro-switch, by side; each clique must differ.
        std::map<uint32_t, std::vector<uint32_t>> in;
        std::map<uint32_t, std::vector<uint32_t>> out;
        for (uint32_t i = 0; i < members.size(); ++i)
        {
            for (uint32_t p : m_flows[members[i]].inputs)
            {
                AddOnce(in[p >> (level + 1)], i);
            }
            for (uint32_t p : m_flows[members[i]].outputs)
            {
                AddOnce(out[p >> (level + 1)], i);
            }
        }
        std::vector<std::set<uint32_t>> adjacent(members.size());
        for (const auto* side : {&in, &out})
        {
            for (const auto& [sw, users] : *side)
            {
                for (uint32_t a : users)
                {
                    for (uint32_t b : users)
                    {
                        if (a != b)
                        {
                            adjacent[a].insert(b);
                        }
                    }
                }
            }
        }
        // Most-constrained first fails fast; ties by index keep it deterministic.
        std::vector<uint32_t> order(members.size());
        for (uint32_t i = 0; i < order.size(); ++i)
        {
            order[i] = i;
        }
        std::stable_sort(order.begin(),
                         order.end(),
                         [&](uint32_t a, uint32_t b)
                         {
                             return adjacent[a].size() > adjacent[b].size();
                         });
        std::vector<uint32_t> position(members.size());
        for (uint32_t k = 0; k < order.size(); ++k)
        {
            position[order[k]] = k;
        }
        Level l{level, {}, {}, std::vector<int>(members.size(), -1)};
        l.flows.resize(members.size());
        l.earlier.resize(members.size());
        for (uint32_t k = 0; k < order.size(); ++k)
        {
            l.flows[k] = members[order[k]];
            for (uint32_t j : adjacent[order[k]])
            {
                if (position[j] < k)
                {
                    l.earlier[k].push_back(position[j]);
                }
            }
        }
        if (Colour(l, 0, 0))
        {
            return true;
        }
        m_failed.insert({level, members});
        return false;
    }

    std::vector<std::vector<uint32_t>> middle; //!< [level][flow], valid after a success

private:
    /// One level's colouring problem, flows in the order they are coloured.
    struct Level
    {
        uint32_t level;
        std::vector<uint32_t> flows;                //!< flow index at each position
        std::vector<std::vector<uint32_t>> earlier; //!< conflicting earlier positions
        std::vector<int> colour;                    //!< by position, -1 while open
    };

    static void AddOnce(std::vector<uint32_t>& users, uint32_t i)
    {
        if (users.empty() || users.back() != i)
        {
            users.push_back(i);
        }
    }

    /// Colour positions k.. with `used` colours taken so far, then recurse.
    bool Colour(Level& l, uint32_t k, uint32_t used)
    {
        if (k == l.flows.size())
        {
            for (uint32_t c = 0; c < used; ++c)
            {
                std::vector<uint32_t> cls;
                for (uint32_t pos = 0; pos < l.flows.size(); ++pos)
                {
                    if (l.colour[pos] == int(c))
                    {
                        cls.push_back(l.flows[pos]);
                    }
                }
                std::sort(cls.begin(), cls.end());
                if (!Route(l.level + 1, cls))
                {
                    return false;
                }
            }
            for (uint32_t pos = 0; pos < l.flows.size(); ++pos)
            {
                middle[l.level][l.flows[pos]] = l.colour[pos];
            }
            return true;
        }
        // The middle subnetworks are identical: of the colours not used yet,
        // any would do as well as the first, so only the first is tried.
        uint32_t limit = std::min(used + 1, m_m);
        for (uint32_t c = 0; c < limit; ++c)
        {
            if (++m_steps > m_maxSteps)
            {
                throw GaveUp{};
            }
            bool clash = false;
            for (uint32_t j : l.earlier[k])
            {
                clash = clash || l.colour[j] == int(c);
            }
            if (clash)
            {
                continue;
            }
            l.colour[k] = c;
            if (Colour(l, k + 1, std::max(used, c + 1)))
            {
                return true;
            }
        }
        l.colour[k] = -1;
        return false;
    }

    const std::vector<FredFlow>& m_flows;
    uint32_t m_m;
    uint32_t m_levels;
    uint64_t m_maxSteps;
    uint64_t m_steps{0};
    std::set<std::pair<uint32_t, std::vector<uint32_t>>> m_failed;
};

/// \return true only when the members provably cannot route through `levels` levels
bool
Fails(const std::vector<FredFlow>& flows,
      uint32_t m,
      uint32_t levels,
      uint64_t maxSteps,
      const std::vector<uint32_t>& members)
{
    try
    {
        return !Search(flows, m, levels, maxSteps).Route(0, members);
    }
    catch (const GaveUp&)
    {
        return false;
    }
}

/// The error for flows that cannot route: a minimal blocking set and where it blocks.
std::string
Unroutable(const std::vector<FredFlow>& flows,
           uint32_t ports,
           uint32_t m,
           const std::vector<uint32_t>& levelPorts,
           uint64_t maxSteps)
{
    auto levels = uint32_t(levelPorts.size());
    std::vector<uint32_t> blocking(flows.size());
    for (uint32_t f = 0; f < blocking.size(); ++f)
    {
        blocking[f] = f;
    }
    // Dropping flows that are not needed for the failure names the culprits
    // rather than everyone.
    for (uint32_t f = 0; f < flows.size(); ++f)
    {
        std::vector<uint32_t> rest;
        std::copy_if(blocking.begin(),
                     blocking.end(),
                     std::back_inserter(rest),
                     [f](uint32_t g)
                     {
                         return g != f;
                     });
        if (Fails(flows, m, levels, maxSteps, rest))
        {
            blocking = rest;
        }
    }
    uint32_t failing = levels - 1;
    for (uint32_t l = 1; l < levels; ++l)
    {
        if (Fails(flows, m, l, maxSteps, blocking))
        {
            failing = l - 1;
            break;
        }
    }
    std::string names;
    uint32_t named = blocking.size() <= 4 ? blocking.size() : 2;
    for (uint32_t i = 0; i < named; ++i)
    {
        names += (i == 0 ? "" : i + 1 == named ? " and " : ", ") + Quoted(flows[blocking[i]].name);
    }
    if (named < blocking.size())
    {
        names += " (and " + std::to_string(blocking.size() - named) + " others)";
    }
    std::string where = failing == 0
                            ? "they share micro-switches of its outer stages and need more than "
                                  + std::to_string(m) + " middle subnetwork" + (m == 1 ? "" : "s")
                            : "however the outer levels assign them, they collide inside a "
                                  + Fred(m, levelPorts[failing]) + " " + std::to_string(failing)
                                  + " level" + (failing == 1 ? "" : "s") + " down";
    // middle-stages is what a user changes (the flows come from the scenario)
    return "middle-stages: flows " + names + " cannot be routed at once through " + Fred(m, ports)
           + " (middle-stages m = " + std::to_string(m) + "): " + where
           + "; use more middle stages or serialise the flows";
}

} // namespace

std::vector<uint32_t>
FredRouting::RouteOf(uint32_t flow) const
{
    std::vector<uint32_t> route;
    for (const auto& level : middle)
    {
        route.push_back(level.at(flow));
    }
    return route;
}

FredRouting
RouteFredFlows(uint32_t ports,
               uint32_t middleStages,
               const std::vector<FredFlow>& flows,
               uint64_t maxSearchSteps)
{
    NS_LOG_FUNCTION(ports << middleStages << flows.size() << maxSearchSteps);
    Validate(ports, middleStages, flows);
    FredRouting routing;
    routing.ports = ports;
    routing.middleStages = middleStages;
    for (const auto& flow : flows)
    {
        routing.flowNames.push_back(flow.name);
    }
    for (uint32_t p = ports; p > 2; p = (p + 1) / 2)
    {
        routing.levelPorts.push_back(p);
    }
    auto levels = uint32_t(routing.levelPorts.size());
    std::vector<uint32_t> all(flows.size());
    for (uint32_t f = 0; f < all.size(); ++f)
    {
        all[f] = f;
    }
    Search search(flows, middleStages, levels, maxSearchSteps);
    try
    {
        if (search.Route(0, all))
        {
            routing.middle = search.middle;
            return routing;
        }
    }
    catch (const GaveUp&)
    {
        throw std::invalid_argument("middle-stages: the search for a conflict-free routing of "
                                    + std::to_string(flows.size()) + " flows through "
                                    + Fred(middleStages, ports) + " gave up after "
                                    + std::to_string(maxSearchSteps)
                                    + " steps; use more middle stages or fewer flows");
    }
    throw std::invalid_argument(
        Unroutable(flows, ports, middleStages, routing.levelPorts, maxSearchSteps));
}

std::string
ToString(const FredRouting& routing)
{
    std::string s = Fred(routing.middleStages, routing.ports) + ":";
    if (routing.flowNames.empty())
    {
        return s + " no flows";
    }
    for (uint32_t f = 0; f < routing.flowNames.size(); ++f)
    {
        std::string route;
        for (uint32_t c : routing.RouteOf(f))
        {
            route += (route.empty() ? "" : ".") + std::to_string(c);
        }
        s += (f == 0 ? " " : ", ") + routing.flowNames[f] + " " + (route.empty() ? "-" : route);
    }
    return s;
}

} // namespace ns3
