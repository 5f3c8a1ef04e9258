/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Every topology's forwarding tables against the tables the topologies built
// before routes were stored as address ranges (test/data/routing-tables.txt,
// written by this test from the per-destination tables of commit bf55901):
// for each switch its ECMP seed, its load balancing and, for every address
// (every rank, the addresses just past them, the group and "no endpoint"
// addresses), its egress ports in order. The same ports in the same order
// with the same seed give the same ECMP hash choices.
//
// DLNET_WRITE_ROUTING_TABLES=FILE writes the dump of the current build to
// FILE instead of comparing (and fails, so that it cannot pass a run).

#include "ns3/dlnet-module.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

/// One small instance of each topology kind (and the wafers with their I/O).
struct TableCase
{
    std::string name;
    std::function<Cluster()> build;
};

TopologyConfig
Kind(const std::string& kind)
{
    TopologyConfig c;
    c.kind = kind;
    return c;
}

std::vector<TableCase>
Cases()
{
    std::vector<TableCase> cases;
    auto add = [&cases](const std::string& name, const TopologyConfig& c)
    {
        cases.push_back({name,
                         [c]()
                         {
                             return BuildCluster(c);
                         }});
    };
    TopologyConfig c = Kind("star");
    c.hosts = 5;
    add("star 5", c);
    c = Kind("leaf-spine");
    c.leaves = 3;
    c.hostsPerLeaf = 3;
    c.spines = 2;
    add("leaf-spine 3x3 2 spines", c);
    c.loadBalancing = "packet"; // (no seed: spraying hashes nothing, and a seed is refused)
    add("leaf-spine 3x3 2 spines spraying", c);
    c = Kind("leaf-spine");
    c.leaves = 4;
    c.hostsPerLeaf = 2;
    c.spines = 3;
    c.oversubscription = 2;
    add("leaf-spine 4x2 3 spines 2:1", c);
    c = Kind("hetero-leaf-spine");
    c.hostGroups = "3x25Gbps,2x100Gbps";
    c.hostsPerLeaf = 2;
    c.spines = 2;
    add("hetero-leaf-spine 3x25G,2x100G", c);
    c = Kind("fat-tree");
    c.k = 4;
    add("fat-tree k=4", c);
    c.k = 6;
    c.ecmpSeed = 3;
    add("fat-tree k=6 seed 3", c);
    c = Kind("dragonfly");
    c.routersPerGroup = 4;
    c.hostsPerRouter = 2;
    c.globalLinksPerRouter = 2;
    c.groups = 5;
    add("dragonfly a=4 p=2 h=2 g=5", c);
    c.routersPerGroup = 3;
    c.hostsPerRouter = 1;
    c.globalLinksPerRouter = 1;
    c.groups = 0;
    add("dragonfly a=3 p=1 h=1", c);
    c = Kind("rail-optimised");
    c.servers = 3;
    c.gpusPerServer = 4;
    c.spines = 2;
    add("rail-optimised 3x4 2 spines", c);
    c = Kind("gpu-leaf-spine");
    c.servers = 4;
    c.gpusPerServer = 2;
    c.serversPerLeaf = 2;
    c.spines = 3;
    add("gpu-leaf-spine 4x2 2 per leaf 3 spines", c);
    c.serversPerLeaf = 1;
    c.spines = 1;
    add("gpu-leaf-spine 4x2 1 per leaf 1 spine", c);
    c.spines = 2; // (one spine leaves one path: spraying is refused there)
    c.loadBalancing = "packet";
    add("gpu-leaf-spine 4x2 1 per leaf 2 spines spraying", c);
    c = Kind("mesh");
    c.rows = 3;
    c.cols = 4;
    add("mesh 3x4", c);
    c = Kind("torus");
    c.rows = 3;
    c.cols = 4;
    add("torus 3x4", c);
    c.rows = 4;
    c.cols = 5;
    add("torus 4x5", c);
    c.rows = 2;
    c.cols = 3;
    add("torus 2x3", c);
    for (const std::string& variant : WaferVariants())
    {
        WaferConfig w;
        w.variant = variant;
        cases.push_back({"wafer " + variant,
                         [w]()
                         {
                             return BuildWafer(w).cluster;
                         }});
        add("topology " + variant, WaferTopology(w));
    }
    return cases;
}

/// The addresses probed: every rank, a few past them, group and special addresses.
std::vector<uint32_t>
Addresses(uint32_t ranks)
{
    std::vector<uint32_t> a;
    for (uint32_t d = 0; d < ranks + 8; ++d)
    {
        a.push_back(d);
    }
    for (uint32_t d :
         {0x7fffffffu, 0x80000000u, 0x80000001u, 0x80000007u, 0xfffffffeu, 0xffffffffu})
    {
        a.push_back(d);
    }
    return a;
}

std::string
Ports(const std::vector<uint32_t>& ports)
{
    std::string s;
    for (uint32_t p : ports)
    {
        s += (s.empty() ? "" : ",") + std::to_string(p);
    }
    return s.empty() ? "-" : s;
}

/// The tables of one cluster: per switch a header line and runs of addresses with equal ports.
std::string
Dump(const Cluster& c)
{
    std::ostringstream out;
    std::vector<uint32_t> addresses = Addresses(c.GetNRanks());
    for (std::size_t s = 0; s < c.switches.size(); ++s)
    {
        Ptr<FabricSwitch> sw = c.switches[s];
        EnumValue lb;
        sw->GetAttribute("LoadBalancing", lb);
        UintegerValue seed;
        sw->GetAttribute("EcmpSeed", seed);
        out << "switch " << c.switchNames[s] << " ports " << sw->GetNPorts() << " lb " << lb.Get()
            << " seed " << seed.Get() << "\n";
        std::size_t i = 0;
        while (i < addresses.size())
        {
            std::string ports = Ports(sw->GetRoute(addresses[i]));
            std::size_t j = i + 1;
            while (j < addresses.size() && addresses[j] == addresses[j - 1] + 1
                   && Ports(sw->GetRoute(addresses[j])) == ports)
            {
                ++j;
            }
            out << "  " << addresses[i];
            if (j - i > 1)
            {
                out << "-" << addresses[j - 1];
            }
            out << " " << ports << "\n";
            i = j;
        }
    }
    return out.str();
}

std::string
DumpAll()
{
    std::ostringstream out;
    for (const TableCase& tc : Cases())
    {
        out << "# " << tc.name << "\n";
        {
            Cluster c = tc.build();
            out << Dump(c);
        }
        Simulator::Destroy();
    }
    return out.str();
}

/// Sections of a dump by case name.
std::map<std::string, std::string>
Sections(const std::string& dump)
{
    std::map<std::string, std::string> sections;
    std::istringstream in(dump);
    std::string line;
    std::string name;
    while (std::getline(in, line))
    {
        if (line.rfind("# ", 0) == 0)
        {
            name = line.substr(2);
            sections[name];
            continue;
        }
        sections[name] += line + "\n";
    }
    return sections;
}

class RoutingTablesTestCase : public TestCase
{
public:
    RoutingTablesTestCase()
        : TestCase("every topology's forwarding tables equal the per-destination tables")
    {
    }

private:
    void DoRun() override
    {
        std::string dump = DumpAll();
        if (const char* file = std::getenv("DLNET_WRITE_ROUTING_TABLES"))
        {
            std::ofstream(file) << dump;
            NS_TEST_ASSERT_MSG_EQ(true, false, "wrote " << file << "; not compared");
            return;
        }
        std::string path = std::string(DLNET_SOURCE_DIR) + "/test/data/routing-tables.txt";
        std::ifstream in(path);
        NS_TEST_ASSERT_MSG_EQ(bool(in), true, "cannot read " << path);
        std::stringstream golden;
        golden << in.rdbuf();
        std::map<std::string, std::string> want = Sections(golden.str());
        std::map<std::string, std::string> got = Sections(dump);
        NS_TEST_ASSERT_MSG_EQ(got.size(), want.size(), "cases in " << path);
        for (const auto& [name, tables] : got)
        {
            auto it = want.find(name);
            NS_TEST_ASSERT_MSG_EQ((it != want.end()), true, "case " << name << " not in " << path);
            if (it->second != tables)
            {
                // the first line that differs
                std::istringstream a(it->second);
                std::istringstream b(tables);
                std::string la;
                std::string lb;
                std::string where;
                while (std::getline(a, la) && std::getline(b, lb))
                {
                    if (la.rfind("switch ", 0) == 0)
                    {
                        where = la;
                    }
                    if (la != lb)
                    {
                        break;
                    }
                }
                NS_TEST_ASSERT_MSG_EQ(
                    lb, la, name << ", " << where << ": table differs from the reference");
                NS_TEST_ASSERT_MSG_EQ(tables.size(), it->second.size(), name << ": table length");
            }
        }
    }
};

/// SetRoute and SetRoutes in a random order against a table of one entry per
/// address: overlapping ranges, removals (no ports), the ends of the address space.
class RouteRangesTestCase : public TestCase
{
public:
    RouteRangesTestCase()
        : TestCase("route ranges: random SetRoute and SetRoutes against one entry per address")
    {
    }

private:
    void DoRun() override
    {
        Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>();
        for (uint32_t p = 0; p < 4; ++p)
        {
            sw->AddPort(CreateObject<FabricNetDevice>());
        }
        const std::vector<std::vector<uint32_t>> sets{{}, {0}, {1}, {2, 3}, {3, 2}, {0, 1, 2, 3}};
        // addresses 0..63 and the top 64 of the 32-bit space
        auto address = [](uint32_t i)
        {
            return i < 64 ? i : 0xffffffffu - (127 - i);
        };
        std::vector<int> want(128, 0); // index into sets
        uint64_t x = 12345;
        auto next = [&x](uint32_t n)
        {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            return uint32_t((x >> 33) % n);
        };
        for (uint32_t round = 0; round < 2000; ++round)
        {
            uint32_t a = next(128);
            uint32_t b = std::min<uint32_t>(127, a + (next(4) == 0 ? next(128) : next(6)));
            if (a < 64 && b >= 64)
            {
                b = 63; // a range does not cross from the low to the high addresses
            }
            int set = next(sets.size());
            if (a == b && next(2) == 0)
            {
                sw->SetRoute(address(a), sets[set]);
            }
            else
            {
                sw->SetRoutes(address(a), address(b), sets[set]);
            }
            for (uint32_t i = a; i <= b; ++i)
            {
                want[i] = set;
            }
            for (uint32_t i = 0; i < 128; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(Ports(sw->GetRoute(address(i))),
                                      Ports(sets[want[i]]),
                                      "round " << round << ", address " << address(i));
            }
            // merged: no more ranges than runs of equal, non-empty routes
            uint32_t runs = 0;
            for (uint32_t i = 0; i < 128; ++i)
            {
                bool adjacent = i > 0 && address(i) == address(i - 1) + 1;
                runs += want[i] != 0 && !(adjacent && want[i] == want[i - 1]);
            }
            NS_TEST_ASSERT_MSG_EQ(sw->GetNRouteRanges(), runs, "round " << round);
        }
        sw->Dispose();
    }
};

class RoutingTableTestSuite : public TestSuite
{
public:
    RoutingTableTestSuite()
        : TestSuite("dlnet-routing-tables", UNIT)
    {
        AddTestCase(new RoutingTablesTestCase, TestCase::QUICK);
        AddTestCase(new RouteRangesTestCase, TestCase::QUICK);
    }
};

static RoutingTableTestSuite g_routingTableTestSuite;

} // namespace
