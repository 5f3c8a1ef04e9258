/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Collective timing against the alpha-beta formulas, computed here from the
// link parameters (not from the library's predictor): ring and
// halving-doubling, hierarchical 2D on a torus, collectives sharing or
// not sharing links, and the engine's library latencies.

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cmath>
#include <iostream>

using namespace ns3;

namespace
{

const double B = 100e9;   //!< link rate, bit/s
const double D = 500e-9;  //!< propagation delay per link
const double HEADER = 24; //!< FabricHeader bytes

/// Bytes of a message of m payload bytes on the wire.
double
Wire(double m, double mtu)
{
    return m + HEADER * std::ceil(m / (mtu - HEADER));
}

/// alpha of one step on a star: two links, one switch (store and forward of one packet).
double
StarAlpha(double m, double mtu)
{
    double largest = std::min(m, mtu - HEADER) + HEADER;
    return 2 * D + largest * 8 / B;
}

/// Time of `steps` steps that each move m bytes per rank on a star.
double
Steps(double steps, double m, double mtu)
{
    return steps * (Wire(m, mtu) * 8 / B + StarAlpha(m, mtu));
}

CollectiveConfig
Star(uint32_t n, uint64_t bytes, uint32_t mtu, std::string op, std::string alg)
{
    CollectiveConfig c;
    c.topology.kind = "star";
    c.topology.hosts = n;
    c.topology.mtu = mtu;
    c.op = op;
    c.algorithm = alg;
    c.minBytes = c.maxBytes = bytes;
    return c;
}

class StarFormulaTestCase : public TestCase
{
public:
    StarFormulaTestCase(std::string op, std::string alg, uint32_t n, uint64_t bytes)
        : TestCase(op + " " + alg + " on a star of " + std::to_string(n) + ", "
                   + std::to_string(bytes >> 20) + " MiB, against its alpha-beta formula")
        , m_op(op)
        , m_alg(alg)
        , m_n(n)
        , m_bytes(bytes)
    {
    }

private:
    void DoRun() override
    {
        uint32_t mtu = m_bytes >= (256u << 20) ? 65536 : 4096;
        CollectiveResult r = RunCollective(Star(m_n, m_bytes, mtu, m_op, m_alg));
        double s = double(m_bytes);
        double n = m_n;
        double expected = 0;
        if (m_alg == "ring")
        {
            // 2(N-1) steps of S/N for all-reduce, N-1 for reduce-scatter and all-gather
            double steps = m_op == "allreduce" ? 2 * (n - 1) : n - 1;
            expected = Steps(steps, s / n, mtu);
        }
        else
        {
            // halving-doubling: log2 N steps of S/2, S/4, ..., S/N each way
            double half = 0;
            for (double m = s / 2; m >= s / n - 0.5; m /= 2)
            {
                half += Steps(1, m, mtu);
            }
            expected = m_op == "allreduce" ? 2 * half : half;
        }
        double t = r.rows[0].time;
        double err = std::abs(t - expected) / expected;
        std::cout << "measured: " << GetName() << ": " << t * 1e6 << " us, formula "
                  << expected * 1e6 << " us, error " << err * 100 << " %";
        if (m_op == "allreduce" && m_alg == "ring")
        {
            double payloadRate = B / 8 * (mtu - HEADER) / mtu;
            std::cout << ", busbw " << r.rows[0].busbw / 1e9
                      << " GB/s = " << 100 * r.rows[0].busbw / payloadRate
                      << " % of the payload rate";
            if (m_bytes >= (256u << 20))
            {
                NS_TEST_EXPECT_MSG_GT(r.rows[0].busbw, 0.97 * payloadRate, "busbw near link rate");
            }
        }
        std::cout << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(t, expected, 0.02 * expected, "time against the formula");
    }

    std::string m_op;
    std::string m_alg;
    uint32_t m_n;
    uint64_t m_bytes;
};

/// Hierarchical 2D all-reduce against flat ring on a 4x4 torus.
class TorusHierarchicalTestCase : public TestCase
{
public:
    TorusHierarchicalTestCase()
        : TestCase(
            "hierarchical 2D all-reduce beats flat ring on a 4x4 torus by the predicted factor")
    {
    }

private:
    void DoRun() override
    {
        CollectiveConfig c;
        c.topology.kind = "torus";
        c.topology.rows = 4;
        c.topology.cols = 4;
        c.minBytes = c.maxBytes = 64 << 20;
        c.algorithm = "ring";
        CollectiveResult ring = RunCollective(c);
        c.algorithm = "hierarchical";
        CollectiveResult hier = RunCollective(c);
        double measured = ring.rows[0].time / hier.rows[0].time;
        // Formulas with B the per-direction link rate: flat ring 2(N-1)/N S/B over one ring;
        // hierarchical: rings in X then Y, each direction carrying half the data.
        double s = 64 << 20;
        double wire = s * 4096 / (4096 - HEADER) * 8 / B;
        double flat = 2.0 * 15 / 16 * wire;
        double twoD = (2.0 * 3 / 4 * wire + 2.0 * 3 / 4 * wire / 4) / 2;
        double predicted = flat / twoD;
        std::cout << "measured: flat ring " << ring.rows[0].time * 1e6 << " us, hierarchical "
                  << hier.rows[0].time * 1e6 << " us, speed-up " << measured << ", formulas "
                  << predicted << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(measured, predicted, 0.05 * predicted, "speed-up");
    }
};

/// Two all-reduces at once on two communicators.
class ConcurrentTestCase : public TestCase
{
public:
    explicit ConcurrentTestCase(bool shared)
        : TestCase(shared ? "two all-reduces through one bottleneck link each get half"
                          : "two all-reduces on disjoint links run as fast as each alone")
        , m_shared(shared)
    {
    }

private:
    /// Run the communicators at once; \return each one's time
    std::vector<double> Run(const TopologyConfig& t, const std::vector<Communicator>& comms)
    {
        SimulationScope scope(1, 1);
        Cluster cluster = BuildCluster(t);
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetEndpoints(cluster.endpoints);
        std::vector<double> times(comms.size(), 0);
        for (std::size_t i = 0; i < comms.size(); ++i)
        {
            CollectiveRequest req;
            req.bytes = 32 << 20;
            engine->Start(comms[i],
                          req,
                          CollectiveEngine::DoneCallback(
                              [&times, i](const CollectiveRecord& r)
                              {
                                  times[i] = (r.end - r.start).GetSeconds();
                              }));
        }
        Simulator::Run();
        engine->Dispose();
        return times;
    }

    void DoRun() override
    {
        TopologyConfig t;
        Communicator a;
        Communicator b;
        a.name = "a";
        b.name = "b";
        if (m_shared)
        {
            // two leaves of two hosts under one spine; each communicator pairs a
            // host of leaf 0 with one of leaf 1, so both cross the same uplinks
            t.kind = "leaf-spine";
            t.leaves = 2;
            t.hostsPerLeaf = 2;
            t.spines = 1;
            t.fabricLinkRate = "100Gbps";
            a.ranks = {0, 2};
            b.ranks = {1, 3};
        }
        else
        {
            t.kind = "star";
            t.hosts = 8;
            a.ranks = {0, 1, 2, 3};
            b.ranks = {4, 5, 6, 7};
            b.tc = 1; // a class of its own: nothing shared, nothing to yield
        }
        double aloneA = Run(t, {a})[0];
        double aloneB = Run(t, {b})[0];
        std::vector<double> both = Run(t, {a, b});
        std::cout << "measured: alone " << aloneA * 1e6 << " and " << aloneB * 1e6
                  << " us, together " << both[0] * 1e6 << " and " << both[1] * 1e6 << " us"
                  << std::endl;
        double factor = m_shared ? 2 : 1;
        NS_TEST_ASSERT_MSG_EQ_TOL(both[0], factor * aloneA, 0.05 * factor * aloneA, "first");
        NS_TEST_ASSERT_MSG_EQ_TOL(both[1], factor * aloneB, 0.05 * factor * aloneB, "second");
    }

    bool m_shared;
};

} // namespace

/// A library's own latencies (LaunchLatency, StepLatency) on every rank of a
/// symmetric schedule in one chunk: each of the ranks' steps starts later by
/// the same amount, so the time grows by exactly launch + steps x step; a
/// point-to-point send takes neither.
class LibraryLatencyTestCase : public TestCase
{
public:
    LibraryLatencyTestCase(std::string op, std::string alg, std::string network, bool functional)
        : TestCase(op + " " + alg + " on a star of 8 at " + network + " level"
                   + (functional ? ", functional" : "")
                   + (op == "sendrecv"
                          ? ": LaunchLatency and StepLatency leave a send as it was"
                          : ": LaunchLatency 8.4 us and StepLatency 3.4 us add launch + steps x "
                            "step"))
        , m_op(op)
        , m_alg(alg)
        , m_network(network)
        , m_functional(functional)
    {
    }

private:
    CollectiveRow Run(bool latencies)
    {
        CollectiveConfig c = Star(8, 4 << 20, 4096, m_op, m_alg);
        c.topology.network = m_network;
        c.functional = m_functional;
        if (latencies)
        {
            c.ns3Attributes = {{"ns3::CollectiveEngine::LaunchLatency", "8.4us"},
                               {"ns3::CollectiveEngine::StepLatency", "3.4us"}};
        }
        CollectiveResult r = RunCollective(c);
        if (m_functional)
        {
            // the delayed sends carry their payloads
            NS_TEST_EXPECT_MSG_EQ(r.rows[0].checked, true, "the result was checked");
            NS_TEST_EXPECT_MSG_EQ(r.rows[0].correct, true, "every rank holds the sum");
        }
        return r.rows[0];
    }

    void DoRun() override
    {
        CollectiveRow without = Run(false);
        CollectiveRow with = Run(true);
        // 2(N-1) steps for the ring, 2 log2 N for halving-doubling
        double steps = m_alg == "ring" ? 2 * 7 : 2 * 3;
        double added = m_op == "sendrecv" ? 0 : 8.4e-6 + steps * 3.4e-6;
        std::cout << "measured: " << GetName() << ": " << without.time * 1e6 << " us without, "
                  << with.time * 1e6 << " us with, formula " << (without.time + added) * 1e6
                  << " us; bound " << without.bound * 1e6 << " -> " << with.bound * 1e6
                  << " us, estimate " << without.estimate * 1e6 << " -> " << with.estimate * 1e6
                  << " us" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(
            with.time, without.time + added, 2e-9, "launch + steps x step, to the ns");
        // the bound and the estimate count the same steps (every rank alike on the star)
        NS_TEST_ASSERT_MSG_EQ_TOL(with.bound, without.bound + added, 1e-12, "bound");
        NS_TEST_ASSERT_MSG_EQ_TOL(with.estimate, without.estimate + added, 1e-12, "estimate");
    }

    std::string m_op;
    std::string m_alg;
    std::string m_network;
    bool m_functional;
};

/// NetworkStepLatency for the steps that send to another host, StepLatency for
/// the others: a ring of 8 on a star whose ranks 0-3 and 4-7 are two hosts.
/// Rank r's step k starts when rank r-1's step k-1 message has arrived, so
/// rank r ends after the latencies of the 2(N-1) senders before it on the
/// ring, and the collective after the largest such sum (computed here).
class HostLatencyTestCase : public TestCase
{
public:
    explicit HostLatencyTestCase(std::string network)
        : TestCase("allreduce ring on a star of 8 at " + network
                   + " level in two hosts of 4: steps that leave a host take "
                     "NetworkStepLatency, the others StepLatency")
        , m_network(network)
    {
    }

private:
    /// \return the all-reduce's time on comm with the given hosts and latencies (us; 0: unset)
    double Run(const Communicator& comm,
               const std::vector<uint32_t>& hosts,
               double step,
               double network)
    {
        SimulationScope scope(1, 1);
        TopologyConfig t;
        t.kind = "star";
        t.hosts = 8;
        t.network = m_network;
        Cluster cluster = BuildCluster(t);
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetEndpoints(cluster.endpoints);
        engine->SetHosts(hosts);
        if (step > 0)
        {
            engine->SetAttribute("LaunchLatency", TimeValue(NanoSeconds(8400)));
            engine->SetAttribute("StepLatency", TimeValue(NanoSeconds(std::llround(step * 1000))));
        }
        if (network > 0)
        {
            engine->SetAttribute("NetworkStepLatency",
                                 TimeValue(NanoSeconds(std::llround(network * 1000))));
        }
        double time = 0;
        CollectiveRequest req;
        req.bytes = 4 << 20;
        engine->Start(comm,
                      req,
                      CollectiveEngine::DoneCallback(
                          [&time](const CollectiveRecord& r)
                          {
                              time = (r.end - r.start).GetSeconds();
                          }));
        Simulator::Run();
        engine->Dispose();
        return time * 1e6;
    }

    /// \return 8.4 + the largest sum over ranks of the 14 senders' latencies before it (us)
    static double Expected(const Communicator& comm,
                           const std::vector<uint32_t>& hosts,
                           double step,
                           double network)
    {
        const uint32_t n = comm.GetSize();
        // by member index, hosts by cluster rank
        auto host = [&](uint32_t i)
        {
            return hosts.empty() ? comm.ranks[i] : hosts[comm.ranks[i]];
        };
        double largest = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            double sum = 0;
            for (uint32_t j = 1; j <= 2 * (n - 1); ++j)
            {
                uint32_t sender = (r + 2 * n - j) % n; // a member; sends to the next
                bool leaves = host(sender) != host((sender + 1) % n);
                sum += leaves && network > 0 ? network : step;
            }
            largest = std::max(largest, sum);
        }
        return 8.4 + largest;
    }

    void DoRun() override
    {
        std::vector<uint32_t> two{0, 0, 0, 0, 1, 1, 1, 1};
        const Communicator world = Communicator::World(8);
        Communicator middle; // cluster ranks 2-5: 3 -> 4 and 5 -> 2 leave their hosts
        middle.ranks = {2, 3, 4, 5};
        struct Case
        {
            Communicator comm;
            std::vector<uint32_t> hosts;
            double network;
            std::string what;
        };
        for (const Case& c : {Case{world, two, 9.6, "two hosts"},
                              Case{world, {}, 9.6, "every rank a host"},
                              Case{world, two, 0, "NetworkStepLatency unset"},
                              Case{middle, two, 9.6, "ranks 2-5 of two hosts"}})
        {
            double without = Run(c.comm, c.hosts, 0, 0);
            double with = Run(c.comm, c.hosts, 3.4, c.network);
            double expected = without + Expected(c.comm, c.hosts, 3.4, c.network);
            std::cout << "measured: " << m_network << ", " << c.what << ": " << without
                      << " us without, " << with << " us with, formula " << expected << " us"
                      << std::endl;
            NS_TEST_ASSERT_MSG_EQ_TOL(with, expected, 2e-3, c.what + ", to the ns");
        }
        // the formula's cases: two ranks of eight leave their host (3 -> 4, 7 -> 0) and a
        // rank's 14 senders count them up to four times; every rank a host: 14 x 9.6
        NS_TEST_ASSERT_MSG_EQ_TOL(
            Expected(world, two, 3.4, 9.6), 8.4 + 4 * 9.6 + 10 * 3.4, 1e-9, "");
        NS_TEST_ASSERT_MSG_EQ_TOL(Expected(world, {}, 3.4, 9.6), 8.4 + 14 * 9.6, 1e-9, "");
        // ranks 2-5: senders 3 and 5 leave, every other member, in a ring of 6 steps
        NS_TEST_ASSERT_MSG_EQ_TOL(
            Expected(middle, two, 3.4, 9.6), 8.4 + 3 * 9.6 + 3 * 3.4, 1e-9, "");
        SimulationScope scope(1, 1);
        TopologyConfig t;
        t.kind = "star";
        t.hosts = 8;
        Cluster cluster = BuildCluster(t);
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetEndpoints(cluster.endpoints);
        bool refused = false;
        try
        {
            engine->SetHosts({0, 0, 1});
        }
        catch (const std::invalid_argument& e)
        {
            refused = std::string(e.what()).find("hosts: got 3 entries") != std::string::npos;
        }
        engine->Dispose();
        NS_TEST_ASSERT_MSG_EQ(refused, true, "a host map of the wrong size is refused");
    }

    std::string m_network;
};

/// The topology tells the engine its hosts (Topology::GetHostOf): a ring of 8
/// GPUs in one server takes StepLatency at every step, a ring of 8 one-GPU
/// servers NetworkStepLatency (both symmetric: launch + 14 steps x latency).
class ServerHostsLatencyTestCase : public TestCase
{
public:
    explicit ServerHostsLatencyTestCase(uint32_t servers)
        : TestCase("allreduce ring on rail-optimised " + std::to_string(servers) + " x "
                   + std::to_string(8 / servers) + " GPUs: every step takes "
                   + (servers == 1 ? "StepLatency (one host)" : "NetworkStepLatency (8 hosts)"))
        , m_servers(servers)
    {
    }

private:
    double Run(bool latencies)
    {
        CollectiveConfig c;
        c.topology.kind = "rail-optimised";
        c.topology.servers = m_servers;
        c.topology.gpusPerServer = 8 / m_servers;
        c.topology.network = "flow";
        c.op = "allreduce";
        c.algorithm = "ring";
        c.minBytes = c.maxBytes = 4 << 20;
        if (latencies)
        {
            c.ns3Attributes = {{"ns3::CollectiveEngine::LaunchLatency", "8.4us"},
                               {"ns3::CollectiveEngine::StepLatency", "3.4us"},
                               {"ns3::CollectiveEngine::NetworkStepLatency", "9.6us"}};
        }
        return RunCollective(c).rows[0].time;
    }

    void DoRun() override
    {
        double without = Run(false);
        double with = Run(true);
        double expected = without + 8.4e-6 + 14 * (m_servers == 1 ? 3.4e-6 : 9.6e-6);
        std::cout << "measured: " << GetName() << ": " << without * 1e6 << " us without, "
                  << with * 1e6 << " us with, formula " << expected * 1e6 << " us" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(with, expected, 2e-9, "launch + 14 steps, to the ns");
    }

    uint32_t m_servers;
};

class CollectiveTimingTestSuite : public TestSuite
{
public:
    CollectiveTimingTestSuite()
        : TestSuite("dlnet-collective-timing", UNIT)
    {
        for (uint32_t n : {4u, 7u, 16u})
        {
            for (uint64_t mib : {1u, 16u, 256u, 1024u})
            {
                AddTestCase(new StarFormulaTestCase("allreduce", "ring", n, mib << 20),
                            TestCase::QUICK);
            }
            AddTestCase(new StarFormulaTestCase("reducescatter", "ring", n, 16 << 20),
                        TestCase::QUICK);
            AddTestCase(new StarFormulaTestCase("allgather", "ring", n, 16 << 20), TestCase::QUICK);
        }
        for (uint32_t n : {4u, 16u})
        {
            for (const char* op : {"allreduce", "reducescatter", "allgather"})
            {
                AddTestCase(new StarFormulaTestCase(op, "halving-doubling", n, 16 << 20),
                            TestCase::QUICK);
            }
        }
        AddTestCase(new TorusHierarchicalTestCase, TestCase::QUICK);
        for (const char* network : {"packet", "flow"})
        {
            for (const char* alg : {"ring", "halving-doubling"})
            {
                AddTestCase(new LibraryLatencyTestCase("allreduce", alg, network, false),
                            TestCase::QUICK);
            }
            AddTestCase(new LibraryLatencyTestCase("sendrecv", "ring", network, false),
                        TestCase::QUICK);
        }
        AddTestCase(new LibraryLatencyTestCase("allreduce", "ring", "packet", true),
                    TestCase::QUICK);
        for (const char* network : {"packet", "flow"})
        {
            AddTestCase(new HostLatencyTestCase(network), TestCase::QUICK);
        }
        for (uint32_t servers : {1u, 8u})
        {
            AddTestCase(new ServerHostsLatencyTestCase(servers), TestCase::QUICK);
        }
        AddTestCase(new ConcurrentTestCase(false), TestCase::QUICK);
        AddTestCase(new ConcurrentTestCase(true), TestCase::QUICK);
    }
};

static CollectiveTimingTestSuite g_collectiveTimingTestSuite;
