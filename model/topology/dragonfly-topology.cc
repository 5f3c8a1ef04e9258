/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dragonfly-topology.h"

#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetDragonflyTopology");

DragonflyTopology::DragonflyTopology(const TopologyConfig& c)
    : m_config(c)
    , m_a(c.routersPerGroup)
    , m_p(c.hostsPerRouter)
    , m_h(c.globalLinksPerRouter)
    , m_g(c.groups)
    , m_hostRate(dlnet::ParseRate("link-rate", c.hostLinkRate))
    , m_hostDelay(dlnet::ParseTime("link-delay", c.hostLinkDelay))
{
    CheckPositive("routers-per-group", m_a);
    CheckPositive("hosts-per-router", m_p);
    CheckPositive("global-links-per-router", m_h);
    uint64_t maxGroups = uint64_t(m_a) * m_h + 1;
    c.CheckSizeBesideNodes("groups", c.groups, TopologyConfig().groups);
    if (c.nodes != 0)
    {
        uint64_t perGroup = uint64_t(m_a) * m_p;
        if (c.nodes % perGroup != 0)
        {
            throw std::invalid_argument("nodes: " + std::to_string(c.nodes)
                                        + " is not a multiple of routers-per-group x "
                                          "hosts-per-router ("
                                        + std::to_string(perGroup) + ")");
        }
        m_g = c.nodes / perGroup;
    }
    else if (m_g == 0)
    {
        if (maxGroups > UINT32_MAX)
        {
            throw std::invalid_argument("groups: routers-per-group x global-links-per-router + 1 "
                                        "is too large; set groups");
        }
        m_g = maxGroups;
    }
    if (m_g < 2 || m_g > maxGroups)
    {
        throw std::invalid_argument(
            "groups: got " + std::to_string(m_g) + "; expected 2 to routers-per-group x "
            + "global-links-per-router + 1 = " + std::to_string(maxGroups)
            + " (every pair of groups needs a global link; 0 means the largest)");
    }
    CheckRankCount("dragonfly", uint64_t(m_g) * m_a * m_p);
    // every router's group links, and every global port as if used (the port table has them)
    const uint64_t local = uint64_t(m_g) * m_a * (m_a - 1) / 2;
    const uint64_t global = uint64_t(m_g) * m_a * m_h;
    CheckFabricLinkCount(local >= global ? "routers-per-group" : "global-links-per-router",
                         std::to_string(m_g) + " groups of " + std::to_string(m_a)
                             + " routers with " + std::to_string(m_h) + " global links each",
                         local + global / 2);
    m_groupRate = ParseRateOr("fabric-link-rate", c.fabricLinkRate, m_hostRate);
    m_groupDelay = ParseTimeOr("fabric-link-delay", c.fabricLinkDelay, m_hostDelay);
    m_globalRate = ParseRateOr("global-link-rate", c.globalLinkRate, m_groupRate);
    m_globalDelay = ParseTimeOr("global-link-delay", c.globalLinkDelay, m_groupDelay);
}

const TopologyConfig&
DragonflyTopology::GetConfig() const
{
    return m_config;
}

std::string
DragonflyTopology::GetKind() const
{
    return "dragonfly";
}

uint32_t
DragonflyTopology::GetNRanks() const
{
    return m_g * m_a * m_p;
}

uint32_t
DragonflyTopology::GetLinksPerGroupPair() const
{
    return m_a * m_h / (m_g - 1);
}

DragonflyTopology::GlobalPort
DragonflyTopology::GetGlobalPort(uint32_t group, uint32_t port) const
{
    uint32_t m = GetLinksPerGroupPair();
    GlobalPort to;
    if (port >= m * (m_g - 1))
    {
        return to;
    }
    uint32_t t = port / (m_g - 1);
    uint32_t d = port % (m_g - 1) + 1;
    to.used = true;
    to.group = (group + d) % m_g;
    to.port = t * (m_g - 1) + (m_g - d - 1);
    return to;
}

uint32_t
DragonflyTopology::MinimalPort(uint32_t srcGroup, uint32_t dst) const
{
    uint32_t dstRouter = dst / m_p;
    uint32_t dstGroup = dstRouter / m_a;
    uint32_t d = (dstGroup + m_g - srcGroup) % m_g;
    uint32_t t = dstRouter % m_a % GetLinksPerGroupPair();
    return t * (m_g - 1) + d - 1;
}

Cluster
DragonflyTopology::Build() const
{
    const uint32_t nRanks = GetNRanks();
    const uint32_t nRouters = m_g * m_a;
    ClusterBuilder b(m_config, GetKind(), nRanks);
    std::vector<Ptr<Node>> node;
    std::vector<Ptr<FabricSwitch>> router;
    std::vector<std::string> name;
    for (uint32_t r = 0; r < nRouters; ++r)
    {
        name.push_back("router" + std::to_string(r / m_a) + "-" + std::to_string(r % m_a));
        node.push_back(b.NewNode());
        router.push_back(b.NewSwitch(node.back(), name.back()));
    }
    // Group and global ports are dimension 0 and global ports a dateline: a
    // packet rides virtual channel 0 up to its global link and 1 from there,
    // which breaks the cyclic buffer dependencies of minimal routing.
    std::vector<uint32_t> hostPort(nRanks);
    for (uint32_t x = 0; x < nRanks; ++x)
    {
        uint32_t r = x / m_p;
        Ptr<Node> host = b.NewNode();
        auto [hostDev, routerDev]
            = b.Link(host, HostName(x), node[r], name[r], m_hostRate, m_hostDelay, "host");
        hostPort[x] = router[r]->AddPort(routerDev);
        b.NewEndpoint(host, hostDev, x);
    }
    // groupPort[r][s]: router r's port to router s of its group
    std::vector<std::vector<uint32_t>> groupPort(nRouters, std::vector<uint32_t>(m_a, UINT32_MAX));
    for (uint32_t g = 0; g < m_g; ++g)
    {
        for (uint32_t i = 0; i < m_a; ++i)
        {
            for (uint32_t j = i + 1; j < m_a; ++j)
            {
                uint32_t ri = g * m_a + i;
                uint32_t rj = g * m_a + j;
                auto [di, dj] = b.Link(
                    node[ri], name[ri], node[rj], name[rj], m_groupRate, m_groupDelay, "group");
                groupPort[ri][j] = router[ri]->AddPort(di, 0, false);
                groupPort[rj][i] = router[rj]->AddPort(dj, 0, false);
            }
        }
    }
    // globalPort[g * a * h + j]: the switch port of group g's global port j
    const uint32_t ports = m_a * m_h;
    std::vector<uint32_t> globalPort(m_g * ports, UINT32_MAX);
    for (uint32_t g = 0; g < m_g; ++g)
    {
        for (uint32_t j = 0; j < ports; ++j)
        {
            GlobalPort to = GetGlobalPort(g, j);
            if (!to.used || std::make_pair(to.group, to.port) < std::make_pair(g, j))
            {
                continue; // spare, or built from the other end
            }
            uint32_t ra = g * m_a + j / m_h;
            uint32_t rb = to.group * m_a + to.port / m_h;
            auto [da, db] = b.Link(
                node[ra], name[ra], node[rb], name[rb], m_globalRate, m_globalDelay, "global");
            globalPort[g * ports + j] = router[ra]->AddPort(da, 0, true);
            globalPort[to.group * ports + to.port] = router[rb]->AddPort(db, 0, true);
        }
    }
    // A port per destination router (its hosts are a block of ranks), and in another group a
    // port per router modulo the links between the two groups: with one link, one run for the
    // whole group (a port per rank made large dragonflies grow with the square of the ranks)
    const uint32_t pairLinks = GetLinksPerGroupPair();
    std::vector<uint32_t> remotePort(pairLinks);
    for (uint32_t r = 0; r < nRouters; ++r)
    {
        const uint32_t g = r / m_a;
        RouteRunWriter runs(router[r]);
        for (uint32_t dg = 0; dg < m_g; ++dg)
        {
            const uint32_t firstRouter = dg * m_a;
            if (dg == g)
            {
                for (uint32_t dr = firstRouter; dr < firstRouter + m_a; ++dr)
                {
                    if (dr == r)
                    {
                        for (uint32_t x = dr * m_p; x < (dr + 1) * m_p; ++x)
                        {
                            runs.Add(x, x, hostPort[x]);
                        }
                    }
                    else
                    {
                        runs.Add(dr * m_p, (dr + 1) * m_p - 1, groupPort[r][dr % m_a]);
                    }
                }
                continue;
            }
            // MinimalPort depends on the destination router's index in its group modulo
            // pairLinks
            bool one = true;
            for (uint32_t t = 0; t < pairLinks && t < m_a; ++t)
            {
                uint32_t j = MinimalPort(g, (firstRouter + t) * m_p);
                remotePort[t]
                    = j / m_h == r % m_a ? globalPort[g * ports + j] : groupPort[r][j / m_h];
                NS_ASSERT_MSG(remotePort[t] != UINT32_MAX, "dragonfly routing found no port");
                one = one && remotePort[t] == remotePort[0];
            }
            if (one)
            {
                runs.Add(firstRouter * m_p, (firstRouter + m_a) * m_p - 1, remotePort[0]);
                continue;
            }
            for (uint32_t i = 0; i < m_a; ++i)
            {
                const uint32_t dr = firstRouter + i;
                runs.Add(dr * m_p, (dr + 1) * m_p - 1, remotePort[i % pairLinks]);
            }
        }
        runs.Flush();
    }
    return b.Finish();
}

TopologyPath
DragonflyTopology::GetPath(uint32_t a, uint32_t b) const
{
    PathLink host{double(m_hostRate.GetBitRate()), m_hostDelay.GetSeconds()};
    PathLink group{double(m_groupRate.GetBitRate()), m_groupDelay.GetSeconds()};
    PathLink global{double(m_globalRate.GetBitRate()), m_globalDelay.GetSeconds()};
    uint32_t ra = a / m_p;
    uint32_t rb = b / m_p;
    TopologyPath path;
    path.links.push_back(host);
    if (ra / m_a == rb / m_a)
    {
        if (ra != rb)
        {
            path.links.push_back(group);
        }
    }
    else
    {
        uint32_t j = MinimalPort(ra / m_a, b);
        GlobalPort to = GetGlobalPort(ra / m_a, j);
        if (j / m_h != ra % m_a)
        {
            path.links.push_back(group);
        }
        path.links.push_back(global);
        if (to.port / m_h != rb % m_a)
        {
            path.links.push_back(group);
        }
    }
    path.links.push_back(host);
    path.switches = path.links.size() - 1;
    return path;
}

bool
DragonflyTopology::HasEqualCostPaths() const
{
    return false; // minimal routes: one per pair
}

double
DragonflyTopology::GetRankRate() const
{
    return m_hostRate.GetBitRate();
}

TopologyGrid
DragonflyTopology::GetGrid() const
{
    TopologyGrid grid;
    grid.dim1 = m_a * m_p; // the hosts of a group
    grid.dim2 = m_g;       // the groups
    double host = m_hostRate.GetBitRate();
    double group = m_groupRate.GetBitRate();
    // a ring inside a group: one flow on the group link between consecutive routers
    grid.dim1Rate = m_a > 1 ? std::min(host, group) : host;
    // a step of the rings across groups: rank (G, router r, host i) sends to
    // (G + 1, r, i), over global link r mod m; the p hosts of a router share
    // a group link to that link's router, and the p x ceil(a / m) hosts whose
    // routers map to it share the global link
    uint32_t m = GetLinksPerGroupPair();
    uint32_t perGlobal = m_p * ((m_a + m - 1) / m);
    grid.dim2Rate = std::min(host, double(m_globalRate.GetBitRate()) / perGlobal);
    if (m_a > 1)
    {
        grid.dim2Rate = std::min(grid.dim2Rate, group / m_p);
    }
    return grid;
}

static const bool g_registered = TopologyRegistry::Add(
    {"dragonfly",
     5,
     "dragonfly: groups of fully connected routers with hosts, global links between every pair of "
     "groups (consecutive arrangement); minimal routing",
     {"routers-per-group",
      "hosts-per-router",
      "global-links-per-router",
      "groups",
      "global-link-rate",
      "global-link-delay",
      "fabric-link-rate",
      "fabric-link-delay"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<DragonflyTopology>(c));
     }});

} // namespace ns3
