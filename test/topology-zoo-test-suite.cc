/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The topologies papers compare: fat tree, dragonfly, rail-optimised and
// leaf-spine GPU servers, and the heterogeneous leaf-spine plans run on. Shape and link rates
// against counts written here; every rank to every rank, the switches a packet crosses (traced at
// the switches) against the topology's structure computed here; one message between far ranks
// against the store-and-forward figure.

#include "ns3/config-parse.h"
#include "ns3/dlnet-module.h"
#include "ns3/fabric-channel.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

/// What a link of a given tier should be.
struct TierSpec
{
    uint32_t count;  //!< links of the tier
    double rate;     //!< bit/s
    int64_t delayNs; //!< propagation
};

/// A traced route: the switches (by name) and the tiers of the links crossed.
struct Route
{
    std::vector<std::string> switches;
    std::vector<std::string> tiers;
    std::vector<double> rates;
    uint32_t hops{0}; //!< the header's switch count at delivery
};

std::string
Join(const std::vector<std::string>& v)
{
    return dlnet::JoinList(v, " ");
}

/// Build the topology, send one packet from every rank to every other, and
/// trace where each went. \param config the topology \param[out] cluster built
std::map<std::pair<uint32_t, uint32_t>, Route>
TraceAllPairs(const TopologyConfig& config, uint64_t* noRouteDrops, uint64_t* delivered)
{
    Cluster c = BuildCluster(config);
    uint32_t n = c.GetNRanks();
    std::map<std::pair<Node*, Node*>, const Cluster::Link*> linkOf;
    for (const auto& l : c.links)
    {
        Node* a = PeekPointer(l.a->GetNode());
        Node* b = PeekPointer(l.b->GetNode());
        linkOf[{std::min(a, b), std::max(a, b)}] = &l;
    }
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> crossed;
    for (uint32_t s = 0; s < c.switches.size(); ++s)
    {
        c.switches[s]->TraceConnectWithoutContext(
            "Forward",
            Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
                [&crossed, s](Ptr<const Packet> p, uint32_t, uint32_t)
                {
                    FabricHeader h;
                    p->PeekHeader(h);
                    crossed[{h.m_src, h.m_dst}].push_back(s);
                }));
    }
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> hops;
    for (uint32_t r = 0; r < n; ++r)
    {
        c.endpoints[r]->SetReceiveCallback(FabricEndpoint::MessageCallback(
            [&hops](const FabricMessage& m)
            {
                hops[{m.src, m.dst}] = m.hops;
            }));
    }
    for (uint32_t s = 0; s < n; ++s)
    {
        for (uint32_t d = 0; d < n; ++d)
        {
            if (s != d)
            {
                c.endpoints[s]->Send(d, 1000, 0); // one packet
            }
        }
    }
    Simulator::Run();
    *noRouteDrops = 0;
    for (const auto& sw : c.switches)
    {
        *noRouteDrops += sw->GetNoRouteDrops();
    }
    *delivered = hops.size();
    std::map<std::pair<uint32_t, uint32_t>, Route> routes;
    for (const auto& [pair, switches] : crossed)
    {
        Route& route = routes[pair];
        route.hops = hops.count(pair) ? hops[pair] : 0;
        std::vector<Node*> nodes{PeekPointer(c.endpoints[pair.first]->GetDevice()->GetNode())};
        for (uint32_t s : switches)
        {
            route.switches.push_back(c.switchNames[s]);
            nodes.push_back(PeekPointer(c.switches[s]->GetObject<Node>()));
        }
        nodes.push_back(PeekPointer(c.endpoints[pair.second]->GetDevice()->GetNode()));
        // consecutive nodes joined by a link (an endpoint and its router on
        // one node by a "local" link to itself)
        for (std::size_t i = 0; i + 1 < nodes.size(); ++i)
        {
            auto it
                = linkOf.find({std::min(nodes[i], nodes[i + 1]), std::max(nodes[i], nodes[i + 1])});
            route.tiers.push_back(it == linkOf.end() ? "none" : it->second->tier);
            route.rates.push_back(it == linkOf.end() ? 0
                                                     : it->second->a->GetDataRate().GetBitRate());
        }
    }
    return routes;
}

/// \return how the topology's idle-fabric path (the predictors' input)
/// differs from the traced route, or empty when it has the same links
std::string
PathMismatch(const Topology& t, uint32_t a, uint32_t b, const Route& route)
{
    TopologyPath p = t.GetPath(a, b);
    std::vector<double> rates;
    for (const auto& link : p.links)
    {
        rates.push_back(link.rate);
    }
    if (p.switches == route.switches.size() && rates == route.rates)
    {
        return "";
    }
    std::ostringstream os;
    os << a << "->" << b << ": GetPath has " << p.switches << " switches and " << rates.size()
       << " links; the route " << route.switches.size() << " and " << route.rates.size();
    return os.str();
}

/// \return "measured: <what>: <n> pairs checked; switch hops: <count>x<hops> ..."
std::string
HopHistogram(const std::string& what, const std::map<std::pair<uint32_t, uint32_t>, Route>& routes)
{
    std::map<std::size_t, uint32_t> histogram;
    for (const auto& [pair, route] : routes)
    {
        ++histogram[route.switches.size()];
    }
    std::ostringstream os;
    os << "measured: " << what << ": " << routes.size() << " pairs checked; switch hops:";
    for (const auto& [hops, k] : histogram)
    {
        os << " " << k << "x" << hops;
    }
    return os.str();
}

/// \return true when name matches the pattern ("edge1-0", or "agg1-*": any suffix)
bool
Matches(const std::string& name, const std::string& pattern)
{
    if (!pattern.empty() && pattern.back() == '*')
    {
        return name.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
    }
    return name == pattern;
}

/**
 * Every pair: delivered, no route missing, the header's switch count equals
 * the switches traced, every step crosses a link, the route matches the
 * expectation, and the topology's idle-fabric path (the predictors' input)
 * has the same links.
 */
class RoutesTestCase : public TestCase
{
public:
    /// Expected switch names and tiers of the route from a to b.
    using Expect = std::function<std::pair<std::vector<std::string>, std::vector<std::string>>(
        uint32_t, uint32_t)>;

    RoutesTestCase(std::string what, TopologyConfig config, Expect expect)
        : TestCase(what
                   + ": every rank to every rank crosses the switches and links of the "
                     "topology's structure")
        , m_what(what)
        , m_config(config)
        , m_expect(expect)
    {
    }

    /// Extra check over all routes (e.g. ECMP used every core): an error, or empty.
    std::function<std::string(const std::map<std::pair<uint32_t, uint32_t>, Route>&)> m_extra;

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        Ptr<const Topology> t = MakeTopology(m_config);
        uint32_t n = t->GetNRanks();
        uint64_t drops = 0;
        uint64_t delivered = 0;
        auto routes = TraceAllPairs(m_config, &drops, &delivered);
        NS_TEST_ASSERT_MSG_EQ(delivered, uint64_t(n) * (n - 1), "every message arrives");
        NS_TEST_ASSERT_MSG_EQ(drops, 0, "no switch lacks a route");
        NS_TEST_ASSERT_MSG_EQ(routes.size(), uint64_t(n) * (n - 1), "every pair traced");
        for (const auto& [pair, route] : routes)
        {
            auto [a, b] = pair;
            auto [switches, tiers] = m_expect(a, b);
            NS_TEST_ASSERT_MSG_EQ(
                route.hops, route.switches.size(), "header hops " << a << "->" << b);
            bool same = switches.size() == route.switches.size();
            for (std::size_t i = 0; same && i < switches.size(); ++i)
            {
                same = Matches(route.switches[i], switches[i]);
            }
            NS_TEST_ASSERT_MSG_EQ(same,
                                  true,
                                  a << "->" << b << ": switches " << Join(route.switches)
                                    << "; expected " << Join(switches));
            NS_TEST_ASSERT_MSG_EQ(Join(route.tiers),
                                  Join(tiers),
                                  a << "->" << b << ": links (switches " << Join(route.switches)
                                    << ")");
            NS_TEST_ASSERT_MSG_EQ(PathMismatch(*t, a, b, route), "", "GetPath");
        }
        std::string extra = m_extra ? m_extra(routes) : "";
        NS_TEST_ASSERT_MSG_EQ(extra, "", m_what);
        std::cout << HopHistogram(m_what, routes) << std::endl;
    }

    std::string m_what;
    TopologyConfig m_config;
    Expect m_expect;
};

/// Counts, rates and delays of every tier of links, and the switch count.
class ShapeTestCase : public TestCase
{
public:
    ShapeTestCase(std::string what,
                  TopologyConfig config,
                  uint32_t ranks,
                  uint32_t switches,
                  std::map<std::string, TierSpec> tiers)
        : TestCase(what + ": ranks, switches, and the count, rate and delay of every link")
        , m_config(config)
        , m_ranks(ranks)
        , m_switches(switches)
        , m_tiers(tiers)
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        Cluster c = BuildCluster(m_config);
        NS_TEST_ASSERT_MSG_EQ(c.GetNRanks(), m_ranks, "ranks");
        NS_TEST_ASSERT_MSG_EQ(MakeTopology(m_config)->GetNRanks(), m_ranks, "GetNRanks");
        NS_TEST_ASSERT_MSG_EQ(c.switches.size(), m_switches, "switches");
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            NS_TEST_ASSERT_MSG_EQ(c.endpoints[r]->GetAddress(), r, "address = rank");
        }
        std::map<std::string, uint32_t> count;
        for (const auto& l : c.links)
        {
            ++count[l.tier];
            NS_TEST_ASSERT_MSG_EQ(m_tiers.count(l.tier), 1, "tier " << l.tier);
            const TierSpec& want = m_tiers[l.tier];
            for (const auto& dev : {l.a, l.b})
            {
                NS_TEST_ASSERT_MSG_EQ(double(dev->GetDataRate().GetBitRate()),
                                      want.rate,
                                      l.tier << " link " << l.from << " - " << l.to);
            }
            NS_TEST_ASSERT_MSG_EQ(
                l.a->GetFabricChannel()->GetDelay(), NanoSeconds(want.delayNs), l.tier << " delay");
        }
        for (const auto& [tier, want] : m_tiers)
        {
            NS_TEST_ASSERT_MSG_EQ(count[tier], want.count, tier << " links");
        }
    }

    TopologyConfig m_config;
    uint32_t m_ranks;
    uint32_t m_switches;
    std::map<std::string, TierSpec> m_tiers;
};

/// One link of a timed path: rate in Gbit/s and delay in ns.
struct Hop
{
    double gbps;
    double delayNs;
};

/**
 * One message of 1000 full packets between two ranks against the
 * store-and-forward figure: the first packet crosses every link
 * (sum of P/B_l + d_l, and the switch latency L at each of S switches), the
 * other 999 follow at the bottleneck rate:
 * T = 1000 P / B_min + sum_l (P / B_l + d_l) - P / B_min + S L.
 */
class TimingTestCase : public TestCase
{
public:
    TimingTestCase(
        std::string what, TopologyConfig config, uint32_t src, uint32_t dst, std::vector<Hop> path)
        : TestCase(what + ": 1000 packets from rank " + std::to_string(src) + " to "
                   + std::to_string(dst) + " against the store-and-forward figure")
        , m_what(what)
        , m_config(config)
        , m_src(src)
        , m_dst(dst)
        , m_path(path)
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        m_config.switchLatency = "100ns";
        Cluster c = BuildCluster(m_config);
        const uint64_t payload = m_config.mtu - FabricHeader::SERIALIZED_SIZE;
        const uint64_t bytes = 1000 * payload;
        Time done;
        uint32_t hops = 0;
        c.endpoints[m_src]->Send(m_dst,
                                 bytes,
                                 0,
                                 FabricEndpoint::MessageCallback(
                                     [&](const FabricMessage& m)
                                     {
                                         done = m.delivered - m.sent;
                                         hops = m.hops;
                                     }));
        Simulator::Run();
        const double packet = 8.0 * m_config.mtu;
        double slowest = 1e300;
        double first = 0;
        for (const auto& hop : m_path)
        {
            slowest = std::min(slowest, hop.gbps * 1e9);
            first += packet / (hop.gbps * 1e9) + hop.delayNs * 1e-9;
        }
        const uint32_t switches = m_path.size() - 1;
        first += switches * 100e-9;
        double expected = 1000 * packet / slowest + first - packet / slowest;
        double t = done.GetSeconds();
        std::cout << "measured: " << m_what << " rank " << m_src << " -> " << m_dst << ": " << bytes
                  << " B in " << t * 1e6 << " us; formula " << expected * 1e6 << " us (error "
                  << 100 * (t - expected) / expected << "%), " << hops << " switches" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(hops, switches, "switches on the path");
        // time is kept in picoseconds: each packet's serialisation on each
        // link is rounded to one (3.6 Tbit/s: 9.1022 ns becomes 9.102 ns)
        double tolerance = std::max(1e-6 * expected, 1e-12 * (1000 + m_path.size()));
        NS_TEST_ASSERT_MSG_EQ_TOL(t, expected, tolerance, "message time");
    }

    std::string m_what;
    TopologyConfig m_config;
    uint32_t m_src;
    uint32_t m_dst;
    std::vector<Hop> m_path;
};

// ---- link delays by option ----------------------------------------------

/**
 * Every link's delay as the options give it: host links link-delay, the others
 * fabric-link-delay, which is link-delay unless set (its default was 500 ns,
 * so on a mesh or torus link-delay was taken and ignored), a mesh's NPU-router
 * link none.
 */
class LinkDelayTestCase : public TestCase
{
public:
    LinkDelayTestCase(std::string kind, std::string fabricDelay)
        : TestCase(kind + ": link delays from link-delay 7us and fabric-link-delay '" + fabricDelay
                   + "'")
        , m_kind(kind)
        , m_fabricDelay(fabricDelay)
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        TopologyConfig t;
        t.kind = m_kind;
        t.hostLinkDelay = "7us";
        if (m_fabricDelay != "default")
        {
            t.fabricLinkDelay = m_fabricDelay;
        }
        Cluster c = BuildCluster(t);
        const Time host = MicroSeconds(7);
        const Time fabric = m_fabricDelay == "3us" ? MicroSeconds(3) : host;
        uint32_t fabricLinks = 0;
        for (const auto& link : c.links)
        {
            Ptr<FabricChannel> channel = DynamicCast<FabricChannel>(link.a->GetChannel());
            Time expected = link.tier == "local" ? Seconds(0) : link.tier == "host" ? host : fabric;
            fabricLinks += link.tier == "fabric";
            NS_TEST_ASSERT_MSG_EQ(channel->GetDelay(),
                                  expected,
                                  link.tier << " link " << link.from << " - " << link.to);
        }
        NS_TEST_ASSERT_MSG_GT(fabricLinks, 0, "the topology has fabric links");
    }

    std::string m_kind;
    std::string m_fabricDelay;
};

// ---- fat tree ------------------------------------------------------------

TopologyConfig
FatTree(uint32_t k)
{
    TopologyConfig c;
    c.kind = "fat-tree";
    c.k = k;
    c.hostLinkRate = "100Gbps";
    c.hostLinkDelay = "500ns";
    c.fabricLinkRate = "200Gbps";
    c.fabricLinkDelay = "1us";
    return c;
}

RoutesTestCase*
FatTreeRoutes(uint32_t k)
{
    uint32_t half = k / 2;
    auto expect = [half](uint32_t a, uint32_t b)
    {
        uint32_t pa = a / (half * half);
        uint32_t pb = b / (half * half);
        std::string ea = "edge" + std::to_string(pa) + "-" + std::to_string(a / half % half);
        std::string eb = "edge" + std::to_string(pb) + "-" + std::to_string(b / half % half);
        using V = std::vector<std::string>;
        if (a / half == b / half)
        {
            return std::make_pair(V{ea}, V{"host", "host"});
        }
        if (pa == pb)
        {
            return std::make_pair(V{ea, "agg" + std::to_string(pa) + "-*", eb},
                                  V{"host", "fabric", "fabric", "host"});
        }
        return std::make_pair(V{ea,
                                "agg" + std::to_string(pa) + "-*",
                                "core*",
                                "agg" + std::to_string(pb) + "-*",
                                eb},
                              V{"host", "fabric", "fabric", "fabric", "fabric", "host"});
    };
    auto* tc = new RoutesTestCase("fat-tree k=" + std::to_string(k), FatTree(k), expect);
    // ECMP up: the cross-pod messages use every core, and every aggregation
    // switch of a pod
    tc->m_extra = [half](const std::map<std::pair<uint32_t, uint32_t>, Route>& routes)
    {
        std::set<std::string> cores;
        std::set<std::string> aggs;
        for (const auto& [pair, route] : routes)
        {
            if (route.switches.size() == 5)
            {
                cores.insert(route.switches[2]);
                aggs.insert(route.switches[1]);
            }
        }
        std::ostringstream error;
        if (cores.size() != half * half || aggs.size() != 2 * half * half)
        {
            error << "ECMP used " << cores.size() << " of " << half * half << " cores and "
                  << aggs.size() << " of " << 2 * half * half << " aggregation switches";
        }
        return error.str();
    };
    return tc;
}

// ---- heterogeneous leaf-spine ---------------------------------------------

/// 3 hosts at 25G then 2 at 100G, 2 per leaf, 2 spines: leaves {0,1}, {2}, {3,4}.
TopologyConfig
Hetero()
{
    TopologyConfig c;
    c.kind = "hetero-leaf-spine";
    c.hostGroups = "3x25Gbps,2x100Gbps";
    c.hostsPerLeaf = 2;
    c.spines = 2;
    c.hostLinkDelay = "500ns";
    c.fabricLinkDelay = "1us";
    return c;
}

/// Hetero() at 2:1 oversubscription.
TopologyConfig
HeteroOver()
{
    TopologyConfig c = Hetero();
    c.oversubscription = 2;
    return c;
}

/// The leaf of each rank of Hetero(): a group starts on a new leaf.
const uint32_t kHeteroLeaf[] = {0, 0, 1, 2, 2};

/// Host links at their group's rate, each leaf's uplinks at its hosts' sum / spines.
class HeteroShapeTestCase : public TestCase
{
public:
    HeteroShapeTestCase()
        : TestCase("hetero-leaf-spine 3x25G,2x100G: ranks, leaves per group, host and uplink "
                   "rates")
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        Cluster c = BuildCluster(Hetero());
        NS_TEST_ASSERT_MSG_EQ(c.GetNRanks(), 5, "ranks");
        NS_TEST_ASSERT_MSG_EQ(c.switches.size(), 2 + 3, "2 spines, 3 leaves");
        // uplinks: leaf0 2 x 25G / 2 spines; leaf1 holds one 25G host, its uplinks as if
        // full (2 x 25G / 2); leaf2 2 x 100G / 2
        std::map<std::string, double> uplink{{"leaf0", 25e9}, {"leaf1", 25e9}, {"leaf2", 100e9}};
        const double host[] = {25e9, 25e9, 25e9, 100e9, 100e9};
        uint32_t hosts = 0;
        uint32_t fabric = 0;
        for (const auto& l : c.links)
        {
            double rate = double(l.a->GetDataRate().GetBitRate());
            NS_TEST_ASSERT_MSG_EQ(double(l.b->GetDataRate().GetBitRate()), rate, "both ends");
            if (l.tier == "host")
            {
                uint32_t r = std::stoul(l.from.substr(4)); // host<rank>
                NS_TEST_ASSERT_MSG_EQ(rate, host[r], "host link of rank " << r);
                NS_TEST_ASSERT_MSG_EQ(l.to, "leaf" + std::to_string(kHeteroLeaf[r]), "its leaf");
                ++hosts;
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(l.tier, "fabric", "tiers");
                NS_TEST_ASSERT_MSG_EQ(rate, uplink[l.from], "uplink of " << l.from);
                ++fabric;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(hosts, 5, "host links");
        NS_TEST_ASSERT_MSG_EQ(fabric, 3 * 2, "a link per leaf and spine");
        Ptr<const Topology> t = MakeTopology(Hetero());
        NS_TEST_ASSERT_MSG_EQ(t->GetRankRate(), 25e9, "the slowest host");
        NS_TEST_ASSERT_MSG_EQ(t->GetGrid().dim1, 0, "no grid");
        NS_TEST_ASSERT_MSG_EQ(t->GetAggregationTree({0, 3}, 0).nodes.size(), 0, "no tree");
        // oversubscription 2 halves the derived uplinks; fabric-link-rate fixes them
        TopologyConfig over = Hetero();
        over.oversubscription = 2;
        Ptr<const Topology> held = MakeTopology(over); // alive while h is used
        const auto* h = dynamic_cast<const HeteroLeafSpineTopology*>(PeekPointer(held));
        NS_TEST_ASSERT_MSG_EQ((h != nullptr), true, "its class");
        NS_TEST_ASSERT_MSG_EQ(h->GetUplinkRate(2), 50e9, "2 x 100G / (2 spines x 2)");
        TopologyConfig fixed = Hetero();
        fixed.fabricLinkRate = "40Gbps";
        held = MakeTopology(fixed);
        h = dynamic_cast<const HeteroLeafSpineTopology*>(PeekPointer(held));
        NS_TEST_ASSERT_MSG_EQ(h->GetUplinkRate(1), 40e9, "fabric-link-rate");
        // bad host groups name the field and the item
        for (const char* bad : {"",
                                "4",
                                "x25Gbps",
                                "4x",
                                "0x25Gbps",
                                "4x25",
                                "4x25Gbps,,1x1Gbps",
                                "70000x1Gbps",
                                "40000x1Gbps,40000x1Gbps",
                                "1x25Gbps",
                                "-1x1Gbps"})
        {
            TopologyConfig b = Hetero();
            b.hostGroups = bad;
            std::string what;
            try
            {
                MakeTopology(b);
            }
            catch (const std::invalid_argument& e)
            {
                what = e.what();
            }
            std::string want = std::string(bad) == "1x25Gbps" ? "hetero-leaf-spine" : "host-groups";
            NS_TEST_EXPECT_MSG_NE(what.find(want),
                                  std::string::npos,
                                  "'" << bad << "' refused naming " << want << ": " << what);
        }
        TopologyConfig nodes = Hetero();
        nodes.nodes = 4;
        bool threw = false;
        try
        {
            MakeTopology(nodes);
        }
        catch (const std::invalid_argument& e)
        {
            threw = std::string(e.what()).find("nodes") == 0;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "nodes unlike the groups' hosts");
    }
};

RoutesTestCase*
HeteroRoutes()
{
    auto expect = [](uint32_t a, uint32_t b)
    {
        using V = std::vector<std::string>;
        std::string la = "leaf" + std::to_string(kHeteroLeaf[a]);
        std::string lb = "leaf" + std::to_string(kHeteroLeaf[b]);
        if (la == lb)
        {
            return std::make_pair(V{la}, V{"host", "host"});
        }
        return std::make_pair(V{la, "spine*", lb}, V{"host", "fabric", "fabric", "host"});
    };
    return new RoutesTestCase("hetero-leaf-spine 3x25G,2x100G", Hetero(), expect);
}

// ---- dragonfly -----------------------------------------------------------

TopologyConfig
Dragonfly(uint32_t a, uint32_t p, uint32_t h, uint32_t g)
{
    TopologyConfig c;
    c.kind = "dragonfly";
    c.routersPerGroup = a;
    c.hostsPerRouter = p;
    c.globalLinksPerRouter = h;
    c.groups = g;
    c.hostLinkRate = "100Gbps";
    c.hostLinkDelay = "500ns";
    c.fabricLinkRate = "200Gbps";
    c.fabricLinkDelay = "1us";
    c.globalLinkRate = "50Gbps";
    c.globalLinkDelay = "2us";
    return c;
}

/**
 * Dragonfly routes, checked against the global links as built (read from
 * the cluster here): a route crosses at most a group link, the global link
 * to the destination group, a group link; with one global link per pair of
 * groups it is the shortest such route through that link.
 */
class DragonflyRoutesTestCase : public TestCase
{
public:
    DragonflyRoutesTestCase(uint32_t a, uint32_t p, uint32_t h, uint32_t g)
        : TestCase("dragonfly a=" + std::to_string(a) + " p=" + std::to_string(p)
                   + " h=" + std::to_string(h) + " g=" + std::to_string(g)
                   + ": every group pair joined by global links, minimal routes for every pair")
        , m_a(a)
        , m_p(p)
        , m_h(h)
        , m_g(g)
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig config = Dragonfly(m_a, m_p, m_h, m_g);
        uint32_t g = m_g ? m_g : m_a * m_h + 1;
        uint32_t m = m_a * m_h / (g - 1); // links per pair of groups
        // router "router<G>-<r>" -> (G, r)
        auto parse = [](const std::string& name)
        {
            std::size_t dash = name.find('-');
            return std::make_pair(uint32_t(std::stoul(name.substr(6, dash - 6))),
                                  uint32_t(std::stoul(name.substr(dash + 1))));
        };
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> perGroupPair;
        std::map<std::pair<uint32_t, uint32_t>, std::set<std::string>> ends; // (G, G') -> routers
        std::map<std::string, uint32_t> perRouter;
        {
            SimulationScope scope(1, 1);
            Cluster c = BuildCluster(config);
            for (const auto& l : c.links)
            {
                if (l.tier == "global")
                {
                    auto [ga, ra] = parse(l.from);
                    auto [gb, rb] = parse(l.to);
                    NS_TEST_ASSERT_MSG_NE(ga, gb, "a global link joins two groups");
                    ++perGroupPair[{std::min(ga, gb), std::max(ga, gb)}];
                    ends[{ga, gb}].insert(l.from);
                    ends[{gb, ga}].insert(l.to);
                    ++perRouter[l.from];
                    ++perRouter[l.to];
                }
                else if (l.tier == "group")
                {
                    NS_TEST_ASSERT_MSG_EQ(parse(l.from).first, parse(l.to).first, "group link");
                }
            }
            NS_TEST_ASSERT_MSG_EQ(perGroupPair.size(), g * (g - 1) / 2, "every pair of groups");
            for (const auto& [pair, links] : perGroupPair)
            {
                NS_TEST_ASSERT_MSG_EQ(
                    links, m, "links between groups " << pair.first << ", " << pair.second);
            }
            for (const auto& [router, links] : perRouter)
            {
                NS_TEST_ASSERT_MSG_LT_OR_EQ(links, m_h, "global links of " << router);
            }
        }
        SimulationScope scope(1, 1);
        uint64_t drops = 0;
        uint64_t delivered = 0;
        auto routes = TraceAllPairs(config, &drops, &delivered);
        uint32_t n = g * m_a * m_p;
        NS_TEST_ASSERT_MSG_EQ(delivered, uint64_t(n) * (n - 1), "every message arrives");
        NS_TEST_ASSERT_MSG_EQ(drops, 0, "no switch lacks a route");
        Ptr<const Topology> t = MakeTopology(config);
        auto routerName = [this](uint32_t rank)
        {
            uint32_t r = rank / m_p;
            return "router" + std::to_string(r / m_a) + "-" + std::to_string(r % m_a);
        };
        for (const auto& [pair, route] : routes)
        {
            auto [x, y] = pair;
            uint32_t gx = x / m_p / m_a;
            uint32_t gy = y / m_p / m_a;
            const auto& s = route.switches;
            NS_TEST_ASSERT_MSG_EQ(route.hops, s.size(), "header hops");
            NS_TEST_ASSERT_MSG_EQ(s.front(), routerName(x), "starts at the source's router");
            NS_TEST_ASSERT_MSG_EQ(s.back(), routerName(y), "ends at the destination's router");
            std::string tiers = Join(route.tiers);
            if (routerName(x) == routerName(y))
            {
                NS_TEST_ASSERT_MSG_EQ(tiers, "host host", x << "->" << y);
            }
            else if (gx == gy)
            {
                NS_TEST_ASSERT_MSG_EQ(tiers, "host group host", x << "->" << y);
            }
            else
            {
                // [group] global [group]
                bool shape = tiers == "host global host" || tiers == "host group global host"
                             || tiers == "host global group host"
                             || tiers == "host group global group host";
                NS_TEST_ASSERT_MSG_EQ(shape, true, x << "->" << y << ": " << tiers);
                uint32_t gi = std::find(route.tiers.begin(), route.tiers.end(), "global")
                              - route.tiers.begin();
                // the global link crossed leaves the source group for the destination's
                NS_TEST_ASSERT_MSG_EQ(parse(s[gi - 1]).first, gx, "global link from");
                NS_TEST_ASSERT_MSG_EQ(parse(s[gi]).first, gy, "global link to");
                if (m == 1)
                {
                    // the one link between the groups: a group link before it
                    // exactly when the source router does not own it
                    std::string near = *ends[{gx, gy}].begin();
                    std::string far = *ends[{gy, gx}].begin();
                    uint32_t want = 2 + (near != routerName(x)) + (far != routerName(y));
                    NS_TEST_ASSERT_MSG_EQ(s.size(), want, x << "->" << y << ": shortest");
                }
            }
            NS_TEST_ASSERT_MSG_EQ(PathMismatch(*t, x, y, route), "", "GetPath");
        }
        std::ostringstream what;
        what << "dragonfly a=" << m_a << " p=" << m_p << " h=" << m_h << " g=" << g << " (" << m
             << " global link(s) per group pair)";
        std::cout << HopHistogram(what.str(), routes) << std::endl;
    }

    uint32_t m_a;
    uint32_t m_p;
    uint32_t m_h;
    uint32_t m_g;
};

/// Every host sends to every other at once with credits of two packets:
/// minimal routes (group, global, group link) form cyclic buffer
/// dependencies between groups; the global links' dateline virtual channel
/// breaks them, and every message must arrive.
class DragonflyDeadlockTestCase : public TestCase
{
public:
    DragonflyDeadlockTestCase()
        : TestCase("dragonfly a=4 p=2 h=2 all-to-all under tight credits completes (VC 1 after "
                   "the global link)")
    {
    }

private:
    void DoRun() override
    {
        TrafficConfig c;
        c.topology = Dragonfly(4, 2, 2, 0);
        c.topology.rxBufferBytes = 2 * 4096;
        c.pattern = "all-to-all";
        c.messageBytes = 64 << 10;
        TrafficResult r = RunTraffic(c);
        NS_TEST_ASSERT_MSG_EQ(r.deliveredMessages, r.expectedMessages, "all delivered");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "lossless");
    }
};

// ---- GPU servers ---------------------------------------------------------

TopologyConfig
GpuServers(bool rail, uint32_t servers, uint32_t gpus, uint32_t perLeaf)
{
    TopologyConfig c;
    c.kind = rail ? "rail-optimised" : "gpu-leaf-spine";
    c.servers = servers;
    c.gpusPerServer = gpus;
    if (!rail)
    {
        c.serversPerLeaf = perLeaf;
    }
    c.spines = 2;
    c.hostLinkDelay = "500ns";
    c.fabricLinkDelay = "1us";
    return c; // nvlink 450 GB/s, NIC 400 Gbit/s: the defaults
}

RoutesTestCase*
GpuRoutes(bool rail, uint32_t servers, uint32_t gpus, uint32_t perLeaf)
{
    auto leafOf = [=](uint32_t r)
    {
        return rail ? "rail" + std::to_string(r % gpus)
                    : "leaf" + std::to_string(r / gpus / perLeaf);
    };
    auto expect = [=](uint32_t a, uint32_t b)
    {
        using V = std::vector<std::string>;
        std::string ra = "router" + std::to_string(a);
        std::string rb = "router" + std::to_string(b);
        if (a / gpus == b / gpus)
        {
            return std::make_pair(V{ra, "nvswitch" + std::to_string(a / gpus), rb},
                                  V{"local", "nvlink", "nvlink", "local"});
        }
        if (leafOf(a) == leafOf(b))
        {
            return std::make_pair(V{ra, leafOf(a), rb}, V{"local", "nic", "nic", "local"});
        }
        return std::make_pair(V{ra, leafOf(a), "spine*", leafOf(b), rb},
                              V{"local", "nic", "fabric", "fabric", "nic", "local"});
    };
    std::ostringstream what;
    what << (rail ? "rail-optimised" : "gpu-leaf-spine") << " " << servers << " servers x " << gpus
         << " GPUs";
    if (!rail)
    {
        what << ", " << perLeaf << " servers per leaf";
    }
    return new RoutesTestCase(what.str(), GpuServers(rail, servers, gpus, perLeaf), expect);
}

/// Hierarchical collectives read the grid: G along dimension 1 at the NVLink
/// rate, the servers along dimension 2 at the NIC rate (a share of the leaf
/// uplinks off the rails).
class GpuGridTestCase : public TestCase
{
public:
    GpuGridTestCase()
        : TestCase("GPU servers: the grid is GPUs x servers at the NVLink and NIC rates; a "
                   "server is a host")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig rail = GpuServers(true, 4, 8, 0);
        TopologyGrid g = MakeTopology(rail)->GetGrid();
        NS_TEST_ASSERT_MSG_EQ(g.dim1, 8u, "dim1 = GPUs per server");
        NS_TEST_ASSERT_MSG_EQ(g.dim2, 4u, "dim2 = servers");
        NS_TEST_ASSERT_MSG_EQ(g.dim1Rate, 450e9 * 8, "NVLink");
        NS_TEST_ASSERT_MSG_EQ(g.dim2Rate, 400e9, "NIC");
        NS_TEST_ASSERT_MSG_EQ(MakeTopology(rail)->GetRankRate(), 400e9, "rank rate: the NIC");
        // a server is a host (NCCL's node): GPUs 0-7, 8-15, ...; elsewhere every rank its own
        Ptr<const Topology> t = MakeTopology(rail);
        NS_TEST_ASSERT_MSG_EQ(t->GetHostOf(7), 0u, "GPU 7 on server 0");
        NS_TEST_ASSERT_MSG_EQ(t->GetHostOf(8), 1u, "GPU 8 on server 1");
        NS_TEST_ASSERT_MSG_EQ(t->GetHostOf(31), 3u, "GPU 31 on server 3");
        TopologyConfig star;
        star.kind = "star";
        star.hosts = 4;
        NS_TEST_ASSERT_MSG_EQ(MakeTopology(star)->GetHostOf(3), 3u, "a star's host 3");
        // 2:1 oversubscribed leaves: 16 NICs of 400G share 2 spines x 1.6T
        TopologyConfig ls = GpuServers(false, 4, 8, 2);
        ls.fabricLinkRate = "1600Gbps";
        NS_TEST_ASSERT_MSG_EQ(MakeTopology(ls)->GetGrid().dim2Rate, 200e9, "NIC share of uplinks");
    }
};

} // namespace

class TopologyZooTestSuite : public TestSuite
{
public:
    TopologyZooTestSuite()
        : TestSuite("dlnet-topology-zoo", UNIT)
    {
        // fat tree k=4: 16 hosts, 4 cores + 8 aggregation + 8 edge switches;
        // 16 host links, 16 edge-aggregation + 16 aggregation-core links
        AddTestCase(new ShapeTestCase("fat-tree k=4",
                                      FatTree(4),
                                      16,
                                      20,
                                      {{"host", {16, 100e9, 500}}, {"fabric", {32, 200e9, 1000}}}),
                    TestCase::QUICK);
        // k=6: 54 hosts, 9 + 18 + 18 switches, 54 + 54 + 54 links
        AddTestCase(new ShapeTestCase("fat-tree k=6",
                                      FatTree(6),
                                      54,
                                      45,
                                      {{"host", {54, 100e9, 500}}, {"fabric", {108, 200e9, 1000}}}),
                    TestCase::QUICK);
        AddTestCase(FatTreeRoutes(4), TestCase::QUICK);
        AddTestCase(FatTreeRoutes(6), TestCase::QUICK);
        // 0 -> 15 crosses pods: host, 4 fabric links, host; 5 switches
        TopologyConfig slowFabric = FatTree(4);
        slowFabric.fabricLinkRate = "40Gbps";
        AddTestCase(new TimingTestCase(
                        "fat-tree k=4, 40G fabric",
                        slowFabric,
                        0,
                        15,
                        {{100, 500}, {40, 1000}, {40, 1000}, {40, 1000}, {40, 1000}, {100, 500}}),
                    TestCase::QUICK);

        for (const char* kind : {"mesh", "torus", "leaf-spine"})
        {
            AddTestCase(new LinkDelayTestCase(kind, "default"), TestCase::QUICK);
            AddTestCase(new LinkDelayTestCase(kind, ""), TestCase::QUICK);
            AddTestCase(new LinkDelayTestCase(kind, "3us"), TestCase::QUICK);
        }
        AddTestCase(new HeteroShapeTestCase, TestCase::QUICK);
        AddTestCase(HeteroRoutes(), TestCase::QUICK);
        // rank 2 (25G, alone on leaf 1: 25G uplinks) to rank 3 (100G, leaf 2: 100G uplinks);
        // 2:1 oversubscription halves them, so the message crosses a 12.5G uplink
        AddTestCase(new TimingTestCase("hetero-leaf-spine 3x25G,2x100G",
                                       Hetero(),
                                       2,
                                       3,
                                       {{25, 500}, {25, 1000}, {100, 1000}, {100, 500}}),
                    TestCase::QUICK);
        AddTestCase(new TimingTestCase("hetero-leaf-spine 3x25G,2x100G 2:1",
                                       HeteroOver(),
                                       2,
                                       3,
                                       {{25, 500}, {12.5, 1000}, {50, 1000}, {100, 500}}),
                    TestCase::QUICK);

        // dragonfly a=4 p=2 h=2, g = 9: 72 hosts, 36 routers; 9 x 6 group
        // links, 36 global links (one per pair of groups)
        AddTestCase(new ShapeTestCase("dragonfly a=4 p=2 h=2",
                                      Dragonfly(4, 2, 2, 0),
                                      72,
                                      36,
                                      {{"host", {72, 100e9, 500}},
                                       {"group", {54, 200e9, 1000}},
                                       {"global", {36, 50e9, 2000}}}),
                    TestCase::QUICK);
        // g = 5 < 9: two global links per pair of groups (20 links, 20 routers)
        AddTestCase(new ShapeTestCase("dragonfly a=4 p=1 h=2 g=5",
                                      Dragonfly(4, 1, 2, 5),
                                      20,
                                      20,
                                      {{"host", {20, 100e9, 500}},
                                       {"group", {30, 200e9, 1000}},
                                       {"global", {20, 50e9, 2000}}}),
                    TestCase::QUICK);
        AddTestCase(new DragonflyRoutesTestCase(4, 2, 2, 0), TestCase::QUICK);
        AddTestCase(new DragonflyRoutesTestCase(4, 1, 2, 5), TestCase::QUICK);
        AddTestCase(new DragonflyRoutesTestCase(3, 1, 1, 3), TestCase::QUICK);
        AddTestCase(new DragonflyDeadlockTestCase, TestCase::QUICK);
        // a=2 p=1 h=1 g=3, consecutive arrangement: group G's port j (router
        // j) leads to group G + j + 1: group 0 router 1 - group 2 router 0.
        // Rank 0 (group 0 router 0) to rank 5 (group 2 router 1): group link,
        // global link, group link; 4 routers.
        AddTestCase(
            new TimingTestCase("dragonfly a=2 p=1 h=1 g=3",
                               Dragonfly(2, 1, 1, 3),
                               0,
                               5,
                               {{100, 500}, {200, 1000}, {50, 2000}, {200, 1000}, {100, 500}}),
            TestCase::QUICK);

        // rail-optimised 4 x 4, 2 spines: local 3.6T + 400G, NVLink 450 GB/s,
        // NIC 400G; uplinks non-blocking: 4 NICs x 400G / 2 spines = 800G
        AddTestCase(new ShapeTestCase("rail-optimised 4x4",
                                      GpuServers(true, 4, 4, 0),
                                      16,
                                      16 + 4 + 4 + 2,
                                      {{"local", {16, 4000e9, 0}},
                                       {"nvlink", {16, 3600e9, 0}},
                                       {"nic", {16, 400e9, 500}},
                                       {"fabric", {8, 800e9, 1000}}}),
                    TestCase::QUICK);
        // gpu-leaf-spine 4 x 4, 2 servers per leaf: 2 leaves of 8 NICs,
        // uplinks 8 x 400G / 2 = 1.6T
        AddTestCase(new ShapeTestCase("gpu-leaf-spine 4x4",
                                      GpuServers(false, 4, 4, 2),
                                      16,
                                      16 + 4 + 2 + 2,
                                      {{"local", {16, 4000e9, 0}},
                                       {"nvlink", {16, 3600e9, 0}},
                                       {"nic", {16, 400e9, 500}},
                                       {"fabric", {4, 1600e9, 1000}}}),
                    TestCase::QUICK);
        AddTestCase(GpuRoutes(true, 4, 4, 0), TestCase::QUICK);
        AddTestCase(GpuRoutes(false, 4, 4, 2), TestCase::QUICK);
        AddTestCase(GpuRoutes(false, 3, 2, 1), TestCase::QUICK);
        AddTestCase(new GpuGridTestCase, TestCase::QUICK);
        // server 0 GPU 0 to server 1 GPU 1: different rails
        AddTestCase(new TimingTestCase(
                        "rail-optimised 2x2",
                        GpuServers(true, 2, 2, 0),
                        0,
                        3,
                        {{4000, 0}, {400, 500}, {400, 1000}, {400, 1000}, {400, 500}, {4000, 0}}),
                    TestCase::QUICK);
        // inside a server: NVLink both ways through the NVSwitch
        AddTestCase(new TimingTestCase("rail-optimised 2x2",
                                       GpuServers(true, 2, 2, 0),
                                       0,
                                       1,
                                       {{4000, 0}, {3600, 0}, {3600, 0}, {4000, 0}}),
                    TestCase::QUICK);
        // server 0 (leaf 0) to server 3 (leaf 1); uplinks 4 x 400G / 2 = 800G
        AddTestCase(new TimingTestCase(
                        "gpu-leaf-spine 4x2",
                        GpuServers(false, 4, 2, 2),
                        0,
                        7,
                        {{4000, 0}, {400, 500}, {800, 1000}, {800, 1000}, {400, 500}, {4000, 0}}),
                    TestCase::QUICK);
    }
};

static TopologyZooTestSuite g_topologyZooTestSuite;
