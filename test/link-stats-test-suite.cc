/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Per-link and per-rank statistics of a collective (CollectiveConfig::stats):
// a saturated host link against the closed form of its wire bytes, the
// uplinks of a 2:1 leaf-spine as the busiest links of a halving-doubling
// all-reduce (their bytes against a closed form too), and stats leaving the
// main results alone.

#include "one-size-collective.h"

#include "ns3/dlnet-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

using namespace ns3;

namespace
{

const double HEADER = 24; //!< FabricHeader bytes
const double MTU = 4096;  //!< the default largest packet, header included

/// \return the bytes a message of this payload puts on a link: a header per segment
double
WireBytes(double payload)
{
    return payload + HEADER * std::ceil(payload / (MTU - HEADER));
}

/// \return the link from -> to of a row
const LinkResult&
FindLink(const CollectiveRow& row, const std::string& from, const std::string& to)
{
    for (const auto& l : row.links)
    {
        if (l.from == from && l.to == to)
        {
            return l;
        }
    }
    NS_FATAL_ERROR("no link " << from << " -> " << to);
}

/// One message from rank 0 to rank 1 on a star: both links on its path saturated.
class SaturatedLinkTestCase : public TestCase
{
public:
    explicit SaturatedLinkTestCase(const std::string& network)
        : TestCase("sendrecv of 16 MiB on a star, " + network
                   + " level: utilisation >= 0.99, bytes = payload + a header per segment")
        , m_network(network)
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t;
        t.hosts = 2;
        t.network = m_network;
        CollectiveConfig c = OneSizeCollective(t, "sendrecv", "ring", 16 << 20);
        c.stats = true;
        CollectiveResult r = RunCollective(c);
        const CollectiveRow& row = r.rows.at(0);
        NS_TEST_ASSERT_MSG_EQ(row.links.size(), 4, "two links, two directions each");
        NS_TEST_ASSERT_MSG_EQ(row.ranks.size(), 2, "two ranks");
        // what the endpoints sent: rank 0 the payload, rank 1 nothing
        NS_TEST_ASSERT_MSG_EQ(row.ranks[0].bytesSent, uint64_t(16 << 20), "rank 0 sent");
        NS_TEST_ASSERT_MSG_EQ(row.ranks[1].bytesReceived, uint64_t(16 << 20), "rank 1 received");
        NS_TEST_ASSERT_MSG_EQ(row.ranks[1].bytesSent, 0, "rank 1 sent");
        double wire = WireBytes(row.ranks[0].bytesSent);
        for (const auto& l : row.links)
        {
            std::cout << "measured: " << m_network << " " << l.from << " -> " << l.to << ": "
                      << l.txBytes << " B, busy " << l.busy * 1e6 << " us of " << row.time * 1e6
                      << " us, utilisation " << l.utilisation << ", peak queue " << l.maxQueueBytes
                      << " B / " << l.maxQueuePackets << " packets, credit stalls "
                      << l.creditStalls << " (" << l.creditStallTime * 1e6 << " us)" << std::endl;
        }
        const std::string sw = row.links[0].to;
        for (const auto* l : {&FindLink(row, "host0", sw), &FindLink(row, sw, "host1")})
        {
            NS_TEST_ASSERT_MSG_EQ(l->txBytes, uint64_t(wire), l->from + " -> " + l->to + " bytes");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(l->utilisation, 0.99, l->from + " -> " + l->to);
            // busy for the bytes' serialization time (flow level: a flow on it the whole time)
            NS_TEST_ASSERT_MSG_EQ_TOL(l->busy, wire * 8 / 100e9, 0.01 * l->busy, "busy time");
            NS_TEST_ASSERT_MSG_EQ(l->perPacket, (m_network == "packet"), "per packet");
        }
        if (m_network == "packet")
        {
            const LinkResult& l = FindLink(row, "host0", sw);
            NS_TEST_ASSERT_MSG_EQ(
                l.txPackets, uint64_t(std::ceil(16.0 * (1 << 20) / (MTU - HEADER))), "packets");
            NS_TEST_ASSERT_MSG_EQ(l.drops, 0, "lossless: no drops");
            // the endpoint feeds its device a packet or two ahead; peaks agree in bytes
            NS_TEST_ASSERT_MSG_GT_OR_EQ(l.maxQueuePackets, 1, "host queue");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(l.maxQueueBytes, l.maxQueuePackets * 4096, "bytes");
            NS_TEST_ASSERT_MSG_GT(l.maxQueueBytes, (l.maxQueuePackets - 1) * 4096, "bytes");
        }
        NS_TEST_ASSERT_MSG_EQ(FindLink(row, "host1", sw).txBytes, 0, "nothing back (lossless)");
        NS_TEST_ASSERT_MSG_EQ(row.switches.size(), 1, "one switch");
        if (m_network == "packet")
        {
            // the switch forwarded every packet host0 sent
            NS_TEST_ASSERT_MSG_EQ(
                row.switches[0].forwarded, FindLink(row, "host0", sw).txPackets, "switch packets");
        }
    }

    std::string m_network;
};

/// Halving-doubling all-reduce on the 2:1 leaf-spine: the uplinks are the busiest links.
class LeafSpineBusiestTestCase : public TestCase
{
public:
    explicit LeafSpineBusiestTestCase(const std::string& network)
        : TestCase("halving-doubling all-reduce of 1 MiB on a 2:1 leaf-spine, " + network
                   + " level: the leaf-spine links are the busiest; uplink bytes by closed form")
        , m_network(network)
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t;
        t.kind = "leaf-spine";
        t.leaves = 4;
        t.hostsPerLeaf = 4;
        t.spines = 2;
        t.oversubscription = 2;
        t.loadBalancing = "packet"; // the two uplinks of a leaf share its load evenly
        t.network = m_network;
        const uint64_t bytes = 1 << 20;
        CollectiveConfig c = OneSizeCollective(t, "allreduce", "halving-doubling", bytes);
        c.stats = true;
        CollectiveResult r = RunCollective(c);
        const CollectiveRow& row = r.rows.at(0);
        // Closed form: ranks k and k^8, then k and k^4, are on different leaves
        // (4 hosts per leaf); recursive halving sends B/2 then B/4 to them, and
        // recursive doubling the same back. Each leaf's 4 hosts send that over
        // its 2 uplinks (100 Gb/s each: 400 Gb/s of hosts at 2:1).
        double perHost = 2 * (WireBytes(bytes / 2.0) + WireBytes(bytes / 4.0));
        std::map<std::string, double> upBytes; // leaf -> bytes over its uplinks
        double hostMax = 0;
        double fabricMin = 1e300;
        std::vector<LinkResult> sorted = row.links;
        // busiest: by busy time at packet level (serializing); at flow level by
        // utilisation, as a link's busy time there is the time it has a flow on it,
        // and a flow held back by an uplink occupies its host link the whole time
        bool packet = m_network == "packet";
        auto load = [packet](const LinkResult& l)
        {
            return packet ? l.busy : l.utilisation;
        };
        std::sort(sorted.begin(),
                  sorted.end(),
                  [&load](const LinkResult& a, const LinkResult& b)
                  {
                      return load(a) > load(b);
                  });
        for (const auto& l : sorted)
        {
            std::cout << "measured: " << m_network << " " << l.tier << " " << l.from << " -> "
                      << l.to << ": " << l.txBytes << " B, busy " << l.busy * 1e6
                      << " us, utilisation " << l.utilisation << std::endl;
            if (l.tier == "fabric")
            {
                fabricMin = std::min(fabricMin, load(l));
                if (l.from.rfind("leaf", 0) == 0)
                {
                    upBytes[l.from] += l.txBytes;
                }
            }
            else
            {
                hostMax = std::max(hostMax, load(l));
            }
        }
        std::cout << "measured: collective " << row.time * 1e6 << " us" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(upBytes.size(), 4, "four leaves with uplinks");
        for (const auto& [leaf, b] : upBytes)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(b, 4 * perHost, 2, leaf + " uplink bytes");
        }
        NS_TEST_ASSERT_MSG_GT(fabricMin, hostMax, "every fabric link busier than any host link");
        NS_TEST_ASSERT_MSG_EQ(sorted.front().tier, "fabric", "the busiest link");
        // the uplinks limit the run: the busiest is busy most of it
        NS_TEST_ASSERT_MSG_GT(sorted.front().utilisation, 0.8, "busiest utilisation");
    }

    std::string m_network;
};

/// Stats on: the main rows are those of the run without stats.
class StatsLeaveResultsTestCase : public TestCase
{
public:
    StatsLeaveResultsTestCase()
        : TestCase("stats on or off: the same collective rows; off: no tables")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t;
        t.kind = "leaf-spine";
        t.oversubscription = 2;
        CollectiveConfig c = OneSizeCollective(t, "allreduce", "ring", 1 << 20);
        c.maxBytes = 4 << 20;
        CollectiveResult off = RunCollective(c);
        c.stats = true;
        CollectiveResult on = RunCollective(c);
        nlohmann::json a = ToJson(off);
        nlohmann::json b = ToJson(on);
        NS_TEST_ASSERT_MSG_EQ(a.contains("link_stats"), false, "off: no links table");
        NS_TEST_ASSERT_MSG_EQ(b.contains("link_stats"), true, "on: a links table");
        NS_TEST_ASSERT_MSG_EQ(
            b["link_stats"].size(), on.rows.size() * 2 * 12, "rows x 24 link directions");
        NS_TEST_ASSERT_MSG_EQ(b["rank_stats"].size(), on.rows.size() * 8, "rows x 8 ranks");
        b.erase("link_stats");
        b.erase("rank_stats");
        b.erase("switch_stats");
        NS_TEST_ASSERT_MSG_EQ(a.dump(), b.dump(), "the main rows");
        c.stats = false;
        NS_TEST_ASSERT_MSG_EQ(ToJson(c).contains("stats"), false, "off: not in the config");
        c.stats = true;
        NS_TEST_ASSERT_MSG_EQ(ToJson(c).contains("stats"), true, "on: in the config");
    }
};

/// The timeline of a halving-doubling all-reduce: a track per rank, a slice per send and receive.
class TimelineTestCase : public TestCase
{
public:
    TimelineTestCase()
        : TestCase("timeline: Chrome trace JSON, one track per rank, 2 slices per step message")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t;
        t.kind = "leaf-spine";
        t.leaves = 4;
        t.hostsPerLeaf = 4;
        CollectiveConfig c = OneSizeCollective(t, "allreduce", "halving-doubling", 1 << 20);
        c.timeline = CreateTempDirFilename("timeline.json");
        CollectiveResult r = RunCollective(c);
        std::ifstream in(c.timeline);
        nlohmann::json j = nlohmann::json::parse(in); // throws if it is not JSON
        std::set<uint32_t> pids;
        std::map<uint32_t, uint32_t> sends;                  // rank -> slices on its send threads
        std::map<uint32_t, std::set<std::string>> stepNames; // rank -> names of its sends
        uint32_t slices = 0;
        for (const auto& e : j.at("traceEvents"))
        {
            if (e.at("ph") == "X")
            {
                ++slices;
                pids.insert(e.at("pid").get<uint32_t>());
                bool send = e.at("tid").get<uint32_t>() % 2 == 0;
                sends[e.at("pid").get<uint32_t>()] += send;
                if (send)
                {
                    stepNames[e.at("pid").get<uint32_t>()].insert(e.at("name").get<std::string>());
                    NS_TEST_ASSERT_MSG_EQ(
                        e.at("name").get<std::string>(),
                        "step " + std::to_string(e.at("args").at("step").get<uint32_t>()),
                        "a slice is named after its step");
                }
                double end = e.at("ts").get<double>() + e.at("dur").get<double>();
                NS_TEST_ASSERT_MSG_LT_OR_EQ(end, r.rows[0].time * 1e6 + 1e-6, "within the run");
            }
        }
        // 16 ranks, log2(16) = 4 steps of recursive halving and 4 of doubling, one
        // message each per rank: a send slice and a receive slice per message
        NS_TEST_ASSERT_MSG_EQ(pids.size(), 16, "one track per rank");
        NS_TEST_ASSERT_MSG_EQ(slices, 2 * 16 * 8, "slices");
        for (const auto& [rank, n] : sends)
        {
            NS_TEST_ASSERT_MSG_EQ(n, 8, "send slices of rank " + std::to_string(rank));
            std::set<std::string> eight;
            for (uint32_t s = 0; s < 8; ++s)
            {
                eight.insert("step " + std::to_string(s));
            }
            NS_TEST_ASSERT_MSG_EQ((stepNames[rank] == eight), true, "steps 0 to 7, one send each");
        }
        c.maxBytes = 2 << 20;
        bool refused = false;
        try
        {
            c.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            refused = std::string(e.what()).rfind("timeline:", 0) == 0;
        }
        NS_TEST_ASSERT_MSG_EQ(refused, true, "a sweep of sizes is refused, naming the field");
    }
};

class LinkStatsTestSuite : public TestSuite
{
public:
    LinkStatsTestSuite()
        : TestSuite("dlnet-link-stats", UNIT)
    {
        AddTestCase(new SaturatedLinkTestCase("packet"), TestCase::QUICK);
        AddTestCase(new SaturatedLinkTestCase("flow"), TestCase::QUICK);
        AddTestCase(new LeafSpineBusiestTestCase("packet"), TestCase::QUICK);
        AddTestCase(new LeafSpineBusiestTestCase("flow"), TestCase::QUICK);
        AddTestCase(new StatsLeaveResultsTestCase, TestCase::QUICK);
        AddTestCase(new TimelineTestCase, TestCase::QUICK);
    }
};

static LinkStatsTestSuite g_linkStatsTestSuite;

} // namespace
