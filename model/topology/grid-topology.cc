/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "grid-topology.h"

#include "cluster-builder.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <array>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetGridTopology");

GridTopology::GridTopology(const TopologyConfig& c, bool torus)
    : m_config(c)
    , m_torus(torus)
    , m_rows(c.rows)
    , m_cols(c.cols)
{
    c.CheckSizeBesideNodes("rows", c.rows, TopologyConfig().rows);
    c.CheckSizeBesideNodes("cols", c.cols, TopologyConfig().cols);
    if (c.nodes != 0)
    {
        // the most square factorization: cols >= rows
        m_rows = 1;
        for (uint32_t r = 1; r * r <= c.nodes; ++r)
        {
            if (c.nodes % r == 0)
            {
                m_rows = r;
            }
        }
        m_cols = c.nodes / m_rows;
    }
    CheckPositive("rows", m_rows);
    CheckPositive("cols", m_cols);
    CheckRankCount(GetKind(), uint64_t(m_rows) * m_cols);
    DataRate host = dlnet::ParseRate("link-rate", c.hostLinkRate);
    Time hostDelay = dlnet::ParseTime("link-delay", c.hostLinkDelay);
    m_fabricRate
        = c.fabricLinkRate.empty() ? host : dlnet::ParseRate("fabric-link-rate", c.fabricLinkRate);
    m_fabricDelay = c.fabricLinkDelay.empty()
                        ? hostDelay
                        : dlnet::ParseTime("fabric-link-delay", c.fabricLinkDelay);
    m_localRate = c.localLinkRate.empty() ? DataRate(4 * m_fabricRate.GetBitRate())
                                          : dlnet::ParseRate("local-link-rate", c.localLinkRate);
}

const TopologyConfig&
GridTopology::GetConfig() const
{
    return m_config;
}

std::string
GridTopology::GetKind() const
{
    return m_torus ? "torus" : "mesh";
}

uint32_t
GridTopology::GetNRanks() const
{
    return m_rows * m_cols;
}

Cluster
GridTopology::Build() const
{
    ClusterBuilder b(m_config, GetKind(), GetNRanks());
    uint32_t rows = m_rows;
    uint32_t cols = m_cols;
    bool torus = m_torus;
    b.GetCluster().rows = rows;
    b.GetCluster().cols = cols;
    std::vector<Ptr<Node>> nodes;
    std::vector<Ptr<FabricSwitch>> routers;
    std::vector<uint32_t> localPort;
    auto name = [cols](uint32_t r)
    {
        return "npu" + std::to_string(r) + "-x" + std::to_string(r % cols) + "-y"
               + std::to_string(r / cols);
    };
    // the NPU and its router share a node; links name each end by its device's owner
    auto routerName = [](uint32_t r)
    {
        return "router" + std::to_string(r);
    };
    for (uint32_t r = 0; r < rows * cols; ++r)
    {
        nodes.push_back(b.NewNode());
        routers.push_back(b.NewSwitch(nodes.back(), routerName(r)));
        auto [npuDev, routerDev]
            = b.Link(nodes[r], name(r), nodes[r], routerName(r), m_localRate, Seconds(0), "local");
        localPort.push_back(routers[r]->AddPort(routerDev));
        b.NewEndpoint(nodes[r], npuDev, r);
    }
    // port[r][dir]: dir 0 +X, 1 -X, 2 +Y, 3 -Y; UINT32_MAX where no link.
    std::vector<std::array<uint32_t, 4>> port(rows * cols);
    for (auto& p : port)
    {
        p.fill(UINT32_MAX);
    }
    auto connect = [&](uint32_t a, uint32_t c, int dim, bool dateline)
    {
        auto [da, dc] = b.Link(nodes[a],
                               routerName(a),
                               nodes[c],
                               routerName(c),
                               m_fabricRate,
                               m_fabricDelay,
                               "fabric");
        port[a][2 * dim] = routers[a]->AddPort(da, dim, dateline);     // a -> c is the + direction
        port[c][2 * dim + 1] = routers[c]->AddPort(dc, dim, dateline); // c -> a is the - direction
    };
    for (uint32_t y = 0; y < rows; ++y)
    {
        for (uint32_t x = 0; x < cols; ++x)
        {
            uint32_t r = y * cols + x;
            if (x + 1 < cols)
            {
                connect(r, r + 1, 0, false);
            }
            else if (torus && cols > 2)
            {
                connect(r, y * cols, 0, true);
            }
            if (y + 1 < rows)
            {
                connect(r, r + cols, 1, false);
            }
            else if (torus && rows > 2)
            {
                connect(r, x, 1, true);
            }
        }
    }
    // Dimension-order routing: X first, then Y; on a torus the shorter way
    // round, the + direction on a tie.
    auto step = [torus](uint32_t from, uint32_t to, uint32_t size) -> int
    {
        if (from == to)
        {
            return 0;
        }
        uint32_t forward = (to + size - from) % size;
        if (!torus || size <= 2)
        {
            return to > from ? 1 : -1;
        }
        return forward <= size - forward ? 1 : -1;
    };
    // A router's port depends on the destination's column alone, except in its own column,
    // where it depends on the row: its table is a few runs per row, written as such (a port per
    // rank made mesh and torus builds grow with the square of the ranks).
    struct ColumnRun
    {
        uint32_t first;
        uint32_t last;
        uint32_t port; // UINT32_MAX: the router's own column, routed by row
    };
    std::vector<ColumnRun> columnRuns;
    std::vector<uint32_t> rowPort(rows);
    for (uint32_t r = 0; r < rows * cols; ++r)
    {
        const uint32_t rx = r % cols;
        const uint32_t ry = r / cols;
        columnRuns.clear();
        for (uint32_t dx = 0; dx < cols; ++dx)
        {
            int sx = step(rx, dx, cols);
            uint32_t out = sx == 0 ? UINT32_MAX : port[r][sx > 0 ? 0 : 1];
            NS_ASSERT_MSG(sx == 0 || out != UINT32_MAX, "grid routing found no X port");
            if (!columnRuns.empty() && columnRuns.back().port == out)
            {
                columnRuns.back().last = dx;
            }
            else
            {
                columnRuns.push_back({dx, dx, out});
            }
        }
        for (uint32_t dy = 0; dy < rows; ++dy)
        {
            int sy = step(ry, dy, rows);
            rowPort[dy] = sy == 0 ? localPort[r] : port[r][sy > 0 ? 2 : 3];
            NS_ASSERT_MSG(rowPort[dy] != UINT32_MAX, "grid routing found no Y port");
        }
        RouteRunWriter runs(routers[r]);
        for (uint32_t dy = 0; dy < rows; ++dy)
        {
            const uint32_t base = dy * cols;
            for (const ColumnRun& c : columnRuns)
            {
                runs.Add(
                    base + c.first, base + c.last, c.port == UINT32_MAX ? rowPort[dy] : c.port);
            }
        }
        runs.Flush();
    }
    return b.Finish();
}

TopologyPath
GridTopology::GetPath(uint32_t a, uint32_t b) const
{
    auto dist = [this](uint32_t x, uint32_t y, uint32_t size)
    {
        uint32_t d = x > y ? x - y : y - x;
        return m_torus && size > 2 ? std::min(d, size - d) : d;
    };
    uint32_t hops = dist(a % m_cols, b % m_cols, m_cols) + dist(a / m_cols, b / m_cols, m_rows);
    PathLink local{double(m_localRate.GetBitRate()), 0};
    PathLink fabric{double(m_fabricRate.GetBitRate()), m_fabricDelay.GetSeconds()};
    TopologyPath path;
    path.links.push_back(local);
    path.links.insert(path.links.end(), hops, fabric);
    path.links.push_back(local);
    path.switches = hops + 1; // a router per node on the path
    return path;
}

bool
GridTopology::HasEqualCostPaths() const
{
    return false; // dimension-ordered routes: one per pair
}

double
GridTopology::GetRankRate() const
{
    return m_fabricRate.GetBitRate();
}

TopologyGrid
GridTopology::GetGrid() const
{
    TopologyGrid g;
    g.dim1 = m_cols;
    g.dim2 = m_rows;
    g.bidirectional = m_torus && m_cols >= 3 && m_rows >= 3;
    g.dim1Rate = m_fabricRate.GetBitRate();
    g.dim2Rate = m_fabricRate.GetBitRate();
    return g;
}

static const bool g_meshRegistered = TopologyRegistry::Add(
    {"mesh",
     2,
     "2D mesh of NPUs, each with a router; X-Y routing",
     {"rows", "cols", "fabric-link-rate", "fabric-link-delay", "local-link-rate"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<GridTopology>(c, false));
     }});

static const bool g_torusRegistered = TopologyRegistry::Add(
    {"torus",
     3,
     "2D torus of NPUs (rows and columns of 3 or more wrap); shortest-way X-Y routing",
     {"rows", "cols", "fabric-link-rate", "fabric-link-delay", "local-link-rate"},
     [](const TopologyConfig& c)
     {
         return Ptr<const Topology>(Create<GridTopology>(c, true));
     }});

} // namespace ns3
