/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// TrainingSimulation and the breakdown on hand-built graphs: computes as
// timers, stream FIFOs, deps and finish delays exactly; a collective and a
// send on a star against closed forms written here from the link parameters
// (as the collective-timing suite does); overlap, two jobs, determinism,
// Setup's errors and weight streaming on a wafer.

#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

const double B = 100e9;   //!< link rate, bit/s
const double D = 500e-9;  //!< propagation delay per link
const double HEADER = 24; //!< FabricHeader bytes
const uint32_t MTU = 4096;
/// Relative agreement with a closed form the simulation meets to the picosecond: below any
/// one term of it (a switch's store and forward is 1.5 % of a ring step of 256 KiB, the
/// headers 0.6 %), so that leaving one out shows
const double CLOSED_FORM = 1e-6;

/// Bytes of a message of m payload bytes on the wire.
double
Wire(double m)
{
    return m + HEADER * std::ceil(m / (MTU - HEADER));
}

/// One step moving m bytes per rank on a star: serialisation of the message,
/// two links' propagation, store and forward of one packet in the switch.
double
StarStep(double m)
{
    double largest = std::min(m, MTU - HEADER) + HEADER;
    return Wire(m) * 8 / B + 2 * D + largest * 8 / B;
}

Ptr<const Topology>
Star(uint32_t hosts)
{
    TopologyConfig c;
    c.kind = "star";
    c.hosts = hosts;
    c.mtu = MTU;
    c.hostLinkRate = "100Gbps";
    c.hostLinkDelay = "500ns";
    return MakeTopology(c);
}

TrainingTask
Compute(uint32_t rank, double us, std::vector<uint32_t> deps = {})
{
    TrainingTask t;
    t.kind = TrainingTaskKind::COMPUTE;
    t.ranks = {rank};
    t.duration = MicroSeconds(us);
    t.deps = deps;
    return t;
}

TrainingTask
Collective(std::vector<uint32_t> ranks,
           uint64_t bytes,
           TrainingDimension d = TrainingDimension::DP,
           std::vector<uint32_t> deps = {})
{
    TrainingTask t;
    t.kind = TrainingTaskKind::COLLECTIVE;
    t.ranks = ranks;
    t.dimension = d;
    t.op = CollectiveOp::ALL_REDUCE;
    t.bytes = bytes;
    t.deps = deps;
    t.group = ToString(d);
    return t;
}

TrainingTask
Send(uint32_t from, uint32_t to, uint64_t bytes, std::vector<uint32_t> deps = {})
{
    TrainingTask t;
    t.kind = TrainingTaskKind::SEND;
    t.ranks = {from, to};
    t.dimension = TrainingDimension::PP;
    t.bytes = bytes;
    t.deps = deps;
    t.group = "pp";
    return t;
}

TrainingJobSetup
Job(TrainingGraph g, std::vector<uint32_t> placement = {}, std::string backend = "ring")
{
    TrainingJobSetup j;
    if (placement.empty())
    {
        for (uint32_t r = 0; r < g.ranks; ++r)
        {
            placement.push_back(r);
        }
    }
    j.graph = std::move(g);
    j.placement = placement;
    for (auto& d : j.dimensions)
    {
        d.backend = backend;
    }
    return j;
}

/// What a run produced.
struct Outcome
{
    bool finished{false};
    std::string stuck;
    std::vector<std::vector<TrainingTaskRun>> runs;
};

Outcome
RunJobs(Ptr<const Topology> topology,
        std::vector<TrainingJobSetup> jobs,
        bool free = false,
        double overlapSlowdown = 0,
        bool rendezvous = false)
{
    Outcome o;
    {
        Cluster cluster = topology->Build();
        Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
        sim->SetAttribute("FreeCommunication", BooleanValue(free));
        sim->SetAttribute("OverlapSlowdown", DoubleValue(overlapSlowdown));
        sim->SetAttribute("SendRendezvous", BooleanValue(rendezvous));
        sim->Setup(cluster, topology, jobs);
        sim->Start();
        Simulator::Run();
        o.finished = sim->IsFinished();
        o.stuck = sim->DescribeStuck();
        for (uint32_t j = 0; j < jobs.size(); ++j)
        {
            o.runs.push_back(sim->GetRuns(j));
        }
        sim->Dispose();
    }
    Simulator::Destroy();
    return o;
}

double
Seconds(const Time& t)
{
    return t.GetSeconds();
}

double
Span(const TrainingTaskRun& r)
{
    return (r.end - r.start).GetSeconds();
}

/// \return the message of the std::invalid_argument a graph of one task throws, or ""
std::string
ValidationError(const TrainingTask& task, uint32_t ranks = 2)
{
    TrainingGraph g;
    g.ranks = ranks;
    g.Add(task);
    try
    {
        g.Validate();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

/// The iteration time of a single-iteration graph.
double
Iteration(const TrainingGraph& g, const std::vector<TrainingTaskRun>& runs)
{
    return IterationSeconds(g, runs).at(0);
}

/// compute + exposed + bubble + idle = the iteration, every rank, within 1e-9 relative.
void
CheckSums(TestCase* tc, const TrainingGraph& g, const std::vector<TrainingTaskRun>& runs, bool pp)
{
    auto check = [&](const TrainingBreakdown& b)
    {
        double sum = b.computeSeconds + b.bubbleSeconds + b.idleSeconds;
        for (double e : b.exposedSeconds)
        {
            sum += e;
        }
        if (std::abs(sum - b.iterationSeconds) > 1e-9 * b.iterationSeconds)
        {
            throw std::runtime_error("breakdown sums to " + std::to_string(sum) + " s, iteration "
                                     + std::to_string(b.iterationSeconds));
        }
    };
    for (const auto& b : ComputeBreakdown(g, runs, pp, 0))
    {
        check(b);
    }
    check(MeanBreakdown(ComputeBreakdown(g, runs, pp, 0)));
}

/// (a) computes: a chain sums, two ranks take the max, a stream serialises.
class ComputeTestCase : public TestCase
{
public:
    ComputeTestCase()
        : TestCase("computes: chain = sum, two ranks = max, one stream serialises")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g;
        g.ranks = 2;
        uint32_t a = g.Add(Compute(0, 3));
        uint32_t b = g.Add(Compute(0, 4, {a}));
        g.Add(Compute(0, 5, {b}));
        g.Add(Compute(1, 7)); // independent rank: 7 < 12
        Outcome o = RunJobs(Star(2), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][2].end, MicroSeconds(12), "chain = 3 + 4 + 5 us");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][3].end, MicroSeconds(7), "other rank alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(Iteration(g, o.runs[0]), 12e-6, 1e-15, "max of ranks");

        TrainingGraph two;
        two.ranks = 2;
        two.Add(Compute(1, 10));
        two.Add(Compute(0, 9));
        two.Add(Compute(1, 6)); // no deps: the stream runs it after the first
        o = RunJobs(Star(2), {Job(two)});
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][2].start, MicroSeconds(10), "FIFO: after the first");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][2].ready, Time(0), "ready at once");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][1].start, Time(0), "other rank's stream free");
        NS_TEST_EXPECT_MSG_EQ_TOL(Iteration(two, o.runs[0]), 16e-6, 1e-15, "10 + 6");
        CheckSums(this, two, o.runs[0], false);
    }
};

/// A graph of computes, collectives and sends over 4 ranks (two iterations).
TrainingGraph
Mixed()
{
    TrainingGraph g;
    g.ranks = 4;
    g.iterations = 2;
    uint32_t prev[4] = {};
    bool first = true;
    for (uint32_t it = 0; it < 2; ++it)
    {
        uint32_t c[4];
        for (uint32_t r = 0; r < 4; ++r)
        {
            TrainingTask t = Compute(
                r, 2 + r, first ? std::vector<uint32_t>{} : std::vector<uint32_t>{prev[r]});
            t.iteration = it;
            c[r] = g.Add(t);
        }
        TrainingTask tp = Collective({0, 1}, 1 << 16, TrainingDimension::TP, {c[0], c[1]});
        tp.iteration = it;
        uint32_t tpi = g.Add(tp);
        TrainingTask s = Send(1, 2, 100000, {tpi});
        s.iteration = it;
        uint32_t si = g.Add(s);
        TrainingTask after = Compute(2, 5, {si, c[2]});
        after.iteration = it;
        uint32_t ai = g.Add(after);
        TrainingTask dp = Collective({0, 1, 2, 3}, 1 << 20, TrainingDimension::DP, {ai, c[3]});
        dp.iteration = it;
        dp.finishDelay = MicroSeconds(1);
        uint32_t dpi = g.Add(dp);
        for (uint32_t r = 0; r < 4; ++r)
        {
            prev[r] = dpi;
        }
        first = false;
    }
    return g;
}

/// (b) free communication: the critical path of the computes.
class FreeCommunicationTestCase : public TestCase
{
public:
    FreeCommunicationTestCase()
        : TestCase("FreeCommunication: computes + collectives + sends = compute critical path")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g = Mixed();
        Outcome o = RunJobs(Star(4), {Job(g)}, true);
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        // per iteration: tp after c0 (2) and c1 (3) at 3 us, the send at once; rank 2's
        // stream runs c2 (4) then the 5 us compute after the send: 9 us; dp at 9 us (c3
        // ends at 5), finished 1 us later: 10 us; iteration 1 starts there: dp ends at 19 us
        NS_TEST_EXPECT_MSG_EQ(o.runs[0].back().end, MicroSeconds(19), "second dp ends");
        auto its = IterationSeconds(g, o.runs[0]);
        NS_TEST_EXPECT_MSG_EQ_TOL(its[0], 10e-6, 1e-15, "iteration 0");
        NS_TEST_EXPECT_MSG_EQ_TOL(its[1], 10e-6, 1e-15, "iteration 1");
        CheckSums(this, g, o.runs[0], false);
        // and with the network: longer, still sums
        Outcome n = RunJobs(Star(4), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(n.finished, true, "finished on the network");
        NS_TEST_EXPECT_MSG_GT(Seconds(n.runs[0].back().end), 19e-6, "network costs time");
        CheckSums(this, g, n.runs[0], false);
        auto b = ComputeBreakdown(g, n.runs[0], false, 1);
        NS_TEST_EXPECT_MSG_GT(b[0].exposedSeconds[uint32_t(TrainingDimension::DP)], 0, "dp");
        NS_TEST_EXPECT_MSG_GT(b[2].exposedSeconds[uint32_t(TrainingDimension::PP)], 0, "recv");
        NS_TEST_EXPECT_MSG_GT(b[1].exposedSeconds[uint32_t(TrainingDimension::PP)], 0, "send");
    }
};

/// (c) one ring all-reduce: the same as alone through the registry, and its closed form.
class CollectiveTestCase : public TestCase
{
public:
    CollectiveTestCase()
        : TestCase("ring all-reduce task on 4 ranks of a star = alone = closed form")
    {
    }

private:
    void DoRun() override
    {
        const uint64_t S = 1 << 20;
        TrainingGraph g;
        g.ranks = 4;
        g.Add(Collective({0, 1, 2, 3}, S));
        Outcome o = RunJobs(Star(4), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][0].backend, "ring", "backend recorded");
        double t = Span(o.runs[0][0]);

        double alone = 0;
        {
            Ptr<const Topology> topology = Star(4);
            Cluster cluster = topology->Build();
            Ptr<CollectiveBackend> ring = CollectiveRegistry::Create("ring");
            Communicator comm;
            comm.ranks = {0, 1, 2, 3};
            CollectiveRequest req;
            req.op = CollectiveOp::ALL_REDUCE;
            req.type = DataType::FP16;
            req.bytes = S;
            ring->Start(cluster,
                        *topology,
                        comm,
                        req,
                        CollectiveBackend::DoneCallback(
                            [&](const CollectiveRecord& r)
                            {
                                alone = (r.end - r.start).GetSeconds();
                            }));
            Simulator::Run();
            ring->Dispose();
        }
        Simulator::Destroy();
        double formula = 2 * 3 * StarStep(S / 4.0);
        std::cout << "measured: task " << t * 1e6 << " us, alone " << alone * 1e6 << " us, formula "
                  << formula * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(t, alone, 1e-12, "same as alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(t, formula, CLOSED_FORM * formula, "closed form");
    }
};

/// (d) a send on a star: one message's serialisation plus latencies.
class SendTestCase : public TestCase
{
public:
    SendTestCase()
        : TestCase("send of B bytes on a star = B over the rate + latencies")
    {
    }

private:
    void DoRun() override
    {
        const uint64_t bytes = 1000000;
        TrainingGraph g;
        g.ranks = 2;
        g.Add(Send(0, 1, bytes));
        uint32_t c = g.Add(Compute(1, 1, {0}));
        Outcome o = RunJobs(Star(2), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        double t = Span(o.runs[0][0]);
        double formula = StarStep(bytes);
        std::cout << "measured: send " << t * 1e6 << " us, formula " << formula * 1e6 << " us"
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(t, formula, CLOSED_FORM * formula, "closed form");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][c].ready, o.runs[0][0].end, "receiver's consumer");
    }
};

/// (d2) pull sends hold the receiver's stream, not the sender's.
class PullSendTestCase : public TestCase
{
public:
    PullSendTestCase()
        : TestCase("pull send occupies the receiver's stream, not the sender's")
    {
    }

private:
    void DoRun() override
    {
        // Rank 1 pulls from 0, then from 2: both hold rank 1's stream, so they serialise
        // although the senders differ; then rank 1 pushes to 2, behind them on the same
        // (pp) stream. Each transfer alone is one star step.
        const uint64_t bytes = 1000000;
        TrainingGraph g;
        g.ranks = 3;
        TrainingTask a = Send(0, 1, bytes);
        a.pull = true;
        TrainingTask b = Send(2, 1, bytes);
        b.pull = true;
        uint32_t ia = g.Add(a);
        uint32_t ib = g.Add(b);
        // a push from rank 1 to rank 2: the sender's stream is rank 1's, behind its pulls
        uint32_t ic = g.Add(Send(1, 2, bytes));
        Outcome o = RunJobs(Star(3), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        double one = StarStep(bytes);
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][ia].start, Time(0), "first pull at once");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][ib].start, o.runs[0][ia].end, "receiver's stream FIFO");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][ic].start, o.runs[0][ib].end, "push behind the pulls");
        NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(o.runs[0][ib].end), 2 * one, 0.01 * 2 * one, "2 steps");
        NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(o.runs[0][ic].end), 3 * one, 0.01 * 3 * one, "3 steps");

        // Two pulls from rank 0 by ranks 1 and 2: rank 0's stream is not held, so both start
        // at 0; they share rank 0's link, so each takes two messages' serialisation.
        TrainingGraph two;
        two.ranks = 3;
        TrainingTask p1 = Send(0, 1, bytes);
        p1.pull = true;
        TrainingTask p2 = Send(0, 2, bytes);
        p2.pull = true;
        two.Add(p1);
        two.Add(p2);
        o = RunJobs(Star(3), {Job(two)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][0].start, Time(0), "pull 1 at once");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][1].start, Time(0), "pull 2 at once: sender not held");
        double shared = 2 * Wire(bytes) * 8 / B + 2 * D + (MTU) *8 / B;
        NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(o.runs[0][1].end),
                                  shared,
                                  CLOSED_FORM * shared,
                                  "two messages share the sender's link");
        // the same two as pushes serialise on the sender's stream
        two.tasks[0].pull = false;
        two.tasks[1].pull = false;
        o = RunJobs(Star(3), {Job(two)});
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][1].start, o.runs[0][0].end, "pushes: sender's FIFO");
        // pull only on sends
        TrainingGraph bad;
        TrainingTask c = Compute(0, 1);
        c.pull = true;
        NS_TEST_EXPECT_MSG_NE(ValidationError(c, 1).find("pull"),
                              std::string::npos,
                              "pull on a compute names the field");
    }
};

/// Detached sends hold no stream: a sender's two pushes run at once and share its link.
class DetachedSendTestCase : public TestCase
{
public:
    DetachedSendTestCase()
        : TestCase("detached sends hold no stream: one sender's two run at once")
    {
    }

private:
    void DoRun() override
    {
        // Rank 0 sends to 1 and to 2, both detached: both start at 0 and share rank 0's
        // link (two messages' serialisation); the same two attached would serialise.
        const uint64_t bytes = 1000000;
        TrainingGraph g;
        g.ranks = 3;
        TrainingTask a = Send(0, 1, bytes);
        a.detached = true;
        TrainingTask b = Send(0, 2, bytes);
        b.detached = true;
        g.Add(a);
        g.Add(b);
        Outcome o = RunJobs(Star(3), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][0].start, Time(0), "first at once");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][1].start, Time(0), "second at once: no stream held");
        g.tasks[0].detached = false;
        g.tasks[1].detached = false;
        Outcome attached = RunJobs(Star(3), {Job(g)});
        NS_TEST_EXPECT_MSG_EQ(
            attached.runs[0][1].start, attached.runs[0][0].end, "attached: the sender's FIFO");
        double shared = 2 * Wire(bytes) * 8 / B + 2 * D + (MTU) *8 / B;
        NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(o.runs[0][1].end),
                                  shared,
                                  CLOSED_FORM * shared,
                                  "two messages share the sender's link");
        // detached only on a send that does not pull
        TrainingTask c = Send(0, 1, bytes);
        c.detached = true;
        c.pull = true;
        NS_TEST_EXPECT_MSG_NE(ValidationError(c).find("detached"),
                              std::string::npos,
                              "detached on a pull names the field");
    }
};

/// (e) a compute beside a DP collective: the iteration is the max, DP exposed the rest.
class OverlapTestCase : public TestCase
{
public:
    OverlapTestCase()
        : TestCase("overlap: compute beside dp all-reduce, exposed dp = max(0, comm - compute)")
    {
    }

private:
    void DoRun() override
    {
        for (double us : {20.0, 200.0})
        {
            TrainingGraph g;
            g.ranks = 4;
            for (uint32_t r = 0; r < 4; ++r)
            {
                g.Add(Compute(r, us));
            }
            uint32_t dp = g.Add(Collective({0, 1, 2, 3}, 4 << 20));
            Outcome o = RunJobs(Star(4), {Job(g)});
            NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
            double comm = Span(o.runs[0][dp]);
            double compute = us * 1e-6;
            NS_TEST_EXPECT_MSG_EQ(o.runs[0][dp].start, Time(0), "at once, beside the compute");
            double it = Iteration(g, o.runs[0]);
            NS_TEST_EXPECT_MSG_EQ_TOL(it, std::max(comm, compute), 1e-15, "iteration = max");
            auto b = ComputeBreakdown(g, o.runs[0], false, 0);
            for (uint32_t r = 0; r < 4; ++r)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(b[r].exposedSeconds[uint32_t(TrainingDimension::DP)],
                                          std::max(0.0, comm - compute),
                                          1e-12,
                                          "exposed dp");
                NS_TEST_EXPECT_MSG_EQ_TOL(
                    b[r].commSeconds[uint32_t(TrainingDimension::DP)], comm, 1e-12, "busy dp");
                NS_TEST_EXPECT_MSG_EQ_TOL(b[r].computeSeconds, compute, 1e-12, "compute");
                NS_TEST_EXPECT_MSG_EQ_TOL(b[r].idleSeconds, 0, 1e-12, "no idle");
            }
            CheckSums(this, g, o.runs[0], false);
            CheckSums(this, g, o.runs[0], true);
        }
    }
};

/// OverlapSlowdown: compute beside a send runs at 1 / (1 + x) while the send is in flight.
class ContentionTestCase : public TestCase
{
public:
    ContentionTestCase()
        : TestCase("overlap slowdown: compute beside a send stretched by (1 + x) while it runs")
    {
    }

private:
    void DoRun() override
    {
        const uint64_t bytes = 1000000;
        const double x = 0.5;
        const double send = StarStep(bytes); // about 81 us, alone on the star
        TrainingGraph g;
        g.ranks = 3;
        uint32_t s = g.Add(Send(0, 1, bytes));
        uint32_t a = g.Add(Compute(0, 100)); // outlasts the send: 100 us + send x / (1 + x)
        uint32_t b = g.Add(Compute(1, 20));  // inside it: 20 (1 + x) us
        uint32_t c = g.Add(Compute(1, 40));  // starts inside, ends after the send
        uint32_t d = g.Add(Compute(2, 40));  // no communication on rank 2: 40 us
        for (double slowdown : {0.0, x})
        {
            Outcome o = RunJobs(Star(3), {Job(g)}, false, slowdown);
            NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
            const auto& r = o.runs[0];
            NS_TEST_EXPECT_MSG_EQ_TOL(Span(r[s]), send, CLOSED_FORM * send, "the send as alone");
            const double t = Span(r[s]); // the compute's stretch follows the send's own time
            const double bEnd = 20e-6 * (1 + slowdown);
            const double cWork = 40e-6;
            const double cInside = (t - bEnd) / (1 + slowdown); // work done before the send ends
            const double cEnd
                = cInside >= cWork ? bEnd + cWork * (1 + slowdown) : t + (cWork - cInside);
            const double aEnd = 100e-6 + t * slowdown / (1 + slowdown);
            std::cout << "slowdown " << slowdown << ": send " << t * 1e6 << " us, ends a "
                      << Seconds(r[a].end) * 1e6 << " b " << Seconds(r[b].end) * 1e6 << " c "
                      << Seconds(r[c].end) * 1e6 << " d " << Seconds(r[d].end) * 1e6 << " us"
                      << std::endl;
            NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(r[a].end), aEnd, 2e-12, "outlasting compute");
            NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(r[b].end), bEnd, 2e-12, "compute inside the send");
            NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(r[c].end), cEnd, 3e-12, "compute across its end");
            NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(r[d].end), 40e-6, 1e-15, "a rank without comm");
        }
    }
};

/// (f) finishDelay delays the dependant, not the stream.
class FinishDelayTestCase : public TestCase
{
public:
    FinishDelayTestCase()
        : TestCase("finishDelay delays the dependant but not the stream")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g;
        g.ranks = 1;
        TrainingTask a = Compute(0, 1);
        a.finishDelay = MicroSeconds(5);
        g.Add(a);
        g.Add(Compute(0, 1));      // same stream, no dep: at 1 us
        g.Add(Compute(0, 1, {0})); // dependant: ready at 6 us
        Outcome o = RunJobs(Star(2), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][0].end, MicroSeconds(1), "end = work end");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][1].start, MicroSeconds(1), "stream free at work end");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][2].ready, MicroSeconds(6), "dependant after the delay");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][2].end, MicroSeconds(7), "and runs then");
        CheckSums(this, g, o.runs[0], false);
        auto b = ComputeBreakdown(g, o.runs[0], false, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(b[0].idleSeconds, 4e-6, 1e-15, "idle while delayed");
    }
};

/// (g) two jobs on disjoint ranks of one star: concurrent, each as alone.
class TwoJobsTestCase : public TestCase
{
public:
    TwoJobsTestCase()
        : TestCase("two jobs on disjoint ranks of a star run concurrently, each as alone")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g;
        g.ranks = 4;
        g.Add(Collective({0, 1, 2, 3}, 1 << 20));
        TrainingGraph h;
        h.ranks = 2;
        h.Add(Send(0, 1, 500000));
        TrainingJobSetup a = Job(g, {0, 2, 4, 6});
        TrainingJobSetup b = Job(h, {1, 3});
        b.name = "job1";
        Outcome both = RunJobs(Star(8), {a, b});
        Outcome aloneA = RunJobs(Star(8), {a});
        Outcome aloneB = RunJobs(Star(8), {b});
        NS_TEST_ASSERT_MSG_EQ(both.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(both.runs[0][0].start, Time(0), "job0 at 0");
        NS_TEST_EXPECT_MSG_EQ(both.runs[1][0].start, Time(0), "job1 at 0, concurrently");
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(both.runs[0][0]),
                                  Span(aloneA.runs[0][0]),
                                  1e-3 * Span(aloneA.runs[0][0]),
                                  "job0 as alone (disjoint hosts, non-blocking switch)");
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(both.runs[1][0]),
                                  Span(aloneB.runs[0][0]),
                                  1e-3 * Span(aloneB.runs[0][0]),
                                  "job1 as alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(aloneB.runs[0][0]),
                                  StarStep(500000),
                                  CLOSED_FORM * StarStep(500000),
                                  "job1's send closed form");
    }
};

/// (h) a run that does not finish names a task that never started and what it waits for.
class StuckTestCase : public TestCase
{
public:
    StuckTestCase()
        : TestCase("an unfinished run names the first stuck task and what it waits for")
    {
    }

private:
    void DoRun() override
    {
        // Streams run in graph order and deps point to earlier tasks, so a
        // valid graph cannot deadlock (the lowest unfinished task can always
        // start): "A then B on rank 0, B then A on rank 1" is not expressible.
        // What a caller sees when a run ends early (a backend that never
        // completes, a stop time): the executor names the blocked task.
        TrainingGraph g;
        g.ranks = 2;
        g.Add(Compute(0, 100));
        g.Add(Collective({0, 1}, 1 << 16, TrainingDimension::DP, {0})); // waits for task 0
        g.Add(Collective({0, 1}, 1 << 16, TrainingDimension::DP));      // behind task 1 on dp
        Ptr<const Topology> topology = Star(2);
        std::string stuck;
        bool finished = true;
        {
            Cluster cluster = topology->Build();
            Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
            sim->Setup(cluster, topology, {Job(g)});
            sim->Start();
            Simulator::Stop(MicroSeconds(50));
            Simulator::Run();
            finished = sim->IsFinished();
            stuck = sim->DescribeStuck();
            sim->Dispose();
        }
        Simulator::Destroy();
        std::cout << "stuck: " << stuck << std::endl;
        NS_TEST_EXPECT_MSG_EQ(finished, false, "not finished at 50 us");
        NS_TEST_EXPECT_MSG_NE(stuck.find("task 1"), std::string::npos, "names task 1");
        NS_TEST_EXPECT_MSG_NE(stuck.find("task 0"), std::string::npos, "and its dep");
        Outcome o = RunJobs(topology, {Job(g)});
        NS_TEST_EXPECT_MSG_EQ(o.finished, true, "finishes when run to the end");
        NS_TEST_EXPECT_MSG_EQ(o.stuck, "", "nothing stuck");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][2].start, o.runs[0][1].end, "FIFO on the dp stream");
    }
};

/// (i) the breakdown sums to the iteration on a pipelined graph with sends.
class BreakdownTestCase : public TestCase
{
public:
    BreakdownTestCase()
        : TestCase("breakdown: compute + exposed + bubble + idle = iteration (pipeline, sends)")
    {
    }

private:
    void DoRun() override
    {
        // two stages, three micro-batches forward and backward, a dp all-reduce per stage pair
        TrainingGraph g;
        g.ranks = 4; // stage s, replica d: rank 2 d + s
        g.iterations = 2;
        std::vector<uint32_t> last; // the previous iteration's dp all-reduces
        for (uint32_t it = 0; it < 2; ++it)
        {
            std::vector<uint32_t> ends(4);
            for (uint32_t d = 0; d < 2; ++d)
            {
                uint32_t s0 = 2 * d;
                uint32_t s1 = 2 * d + 1;
                std::vector<uint32_t> bwd;
                for (uint32_t mb = 0; mb < 3; ++mb)
                {
                    TrainingTask f0 = Compute(s0, 3, last);
                    f0.iteration = it;
                    uint32_t a = g.Add(f0);
                    TrainingTask send = Send(s0, s1, 200000, {a});
                    send.iteration = it;
                    uint32_t sa = g.Add(send);
                    TrainingTask f1 = Compute(s1, 3, {sa});
                    f1.iteration = it;
                    uint32_t b = g.Add(f1);
                    TrainingTask b1 = Compute(s1, 6, {b});
                    b1.iteration = it;
                    uint32_t bb = g.Add(b1);
                    TrainingTask back = Send(s1, s0, 200000, {bb});
                    back.iteration = it;
                    uint32_t sb = g.Add(back);
                    TrainingTask b0 = Compute(s0, 6, {sb});
                    b0.iteration = it;
                    bwd.push_back(g.Add(b0));
                    ends[s1] = bb;
                }
                ends[s0] = bwd.back();
            }
            last.clear();
            for (uint32_t s = 0; s < 2; ++s)
            {
                TrainingTask dp = Collective(
                    {s, 2 + s}, 1 << 20, TrainingDimension::DP, {ends[s], ends[2 + s]});
                dp.group = "dp" + std::to_string(s);
                dp.iteration = it;
                last.push_back(g.Add(dp));
            }
        }
        Outcome o = RunJobs(Star(4), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        CheckSums(this, g, o.runs[0], true);
        auto b1 = ComputeBreakdown(g, o.runs[0], true, 1);
        NS_TEST_EXPECT_MSG_EQ_TOL(b1[0].iterationSeconds,
                                  IterationSeconds(g, o.runs[0])[1],
                                  1e-15,
                                  "measured iteration 1 only");
        NS_TEST_EXPECT_MSG_GT(b1[1].bubbleSeconds, 0, "stage 1 waits for stage 0: bubble");
        NS_TEST_EXPECT_MSG_EQ_TOL(b1[0].computeSeconds, 27e-6, 1e-12, "3 x (3 + 6) us");
        Outcome f = RunJobs(Star(4), {Job(g)}, true);
        CheckSums(this, g, f.runs[0], true);

        // priority: tp over dp when both are in progress (both start at 0, tp shorter: its
        // traffic class goes first)
        TrainingGraph two;
        two.ranks = 2;
        uint32_t dp = two.Add(Collective({0, 1}, 4 << 20, TrainingDimension::DP));
        uint32_t tp = two.Add(Collective({0, 1}, 1 << 13, TrainingDimension::TP));
        TrainingJobSetup prio = Job(two);
        prio.dimensions[uint32_t(TrainingDimension::DP)].trafficClass = 1; // tp's class first
        Outcome p = RunJobs(Star(2), {prio});
        NS_TEST_ASSERT_MSG_EQ(p.finished, true, "finished");
        double tTp = Span(p.runs[0][tp]);
        double tDp = Span(p.runs[0][dp]);
        NS_TEST_EXPECT_MSG_LT(tTp, tDp, "tp shorter");
        auto pb = ComputeBreakdown(two, p.runs[0], false, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(
            pb[1].exposedSeconds[uint32_t(TrainingDimension::TP)], tTp, 1e-12, "tp first");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            pb[1].exposedSeconds[uint32_t(TrainingDimension::DP)], tDp - tTp, 1e-12, "dp the rest");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            pb[1].commSeconds[uint32_t(TrainingDimension::DP)], tDp, 1e-12, "dp busy throughout");
        CheckSums(this, two, p.runs[0], false);
    }
};

/// (j) the same graph twice: identical runs.
class DeterminismTestCase : public TestCase
{
public:
    DeterminismTestCase()
        : TestCase("determinism: the same graph twice gives identical runs")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g = Mixed();
        Outcome a = RunJobs(Star(4), {Job(g, {}, "auto")});
        Outcome b = RunJobs(Star(4), {Job(g, {}, "auto")});
        NS_TEST_ASSERT_MSG_EQ(a.finished, true, "finished");
        for (uint32_t t = 0; t < g.tasks.size(); ++t)
        {
            NS_TEST_EXPECT_MSG_EQ(a.runs[0][t].start, b.runs[0][t].start, "start");
            NS_TEST_EXPECT_MSG_EQ(a.runs[0][t].end, b.runs[0][t].end, "end");
            NS_TEST_EXPECT_MSG_EQ(a.runs[0][t].ready, b.runs[0][t].ready, "ready");
            NS_TEST_EXPECT_MSG_EQ(a.runs[0][t].backend, b.runs[0][t].backend, "backend");
        }
        NS_TEST_EXPECT_MSG_NE(a.runs[0][4].backend, "", "auto resolved to a backend");
    }
};

/// (k) Setup's errors name the job, the dimension and the field.
class SetupErrorTestCase : public TestCase
{
public:
    SetupErrorTestCase()
        : TestCase("Setup refuses bad placements, backends and weight streams off a wafer")
    {
    }

private:
    /// \return Setup's message ("" if it accepted)
    std::string Error(Ptr<const Topology> topology, std::vector<TrainingJobSetup> jobs)
    {
        std::string what;
        {
            Cluster cluster = topology->Build();
            Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
            try
            {
                sim->Setup(cluster, topology, jobs);
            }
            catch (const std::invalid_argument& e)
            {
                what = e.what();
            }
            sim->Dispose();
        }
        Simulator::Destroy();
        std::cout << "error: " << what << std::endl;
        return what;
    }

    void Expect(const std::string& what, const std::vector<std::string>& parts)
    {
        NS_TEST_EXPECT_MSG_EQ(what.empty(), false, "refused");
        for (const auto& p : parts)
        {
            NS_TEST_EXPECT_MSG_NE(what.find(p), std::string::npos, "names " + p + ": " + what);
        }
    }

    void DoRun() override
    {
        TrainingGraph g;
        g.ranks = 2;
        g.Add(Collective({0, 1}, 1 << 16));
        Expect(Error(Star(4), {Job(g, {1, 1})}), {"job0", "placement", "twice"});
        Expect(Error(Star(4), {Job(g, {1, 4})}), {"job0", "placement", "cluster rank 4"});
        TrainingJobSetup other = Job(g, {1, 2});
        other.name = "job1";
        Expect(Error(Star(4), {Job(g, {0, 1}), other}), {"job1", "placement", "job0"});
        Expect(Error(Star(4), {Job(g, {}, "no-such")}),
               {"job0 dimension tp", "backend", "no-such"});
        TrainingGraph rs;
        rs.ranks = 2;
        TrainingTask t = Collective({0, 1}, 1 << 16);
        t.op = CollectiveOp::REDUCE_SCATTER;
        rs.Add(t);
        Expect(Error(Star(4), {Job(rs, {}, "switchml")}),
               {"job0 dimension dp", "switchml", "does not implement reducescatter"});
        TrainingGraph ws;
        ws.ranks = 2;
        TrainingTask s;
        s.kind = TrainingTaskKind::STREAM;
        s.ranks = {0, 1};
        s.dimension = TrainingDimension::WS;
        s.bytes = 1 << 20;
        ws.Add(s);
        Expect(Error(Star(4), {Job(ws)}), {"job0 dimension ws", "wafer topology"});
        NS_TEST_EXPECT_MSG_EQ(Error(Star(4), {Job(g)}), "", "a good job is accepted");
    }
};

/// Weight streaming on a wafer: completes, no faster than the I/O links allow.
class StreamTestCase : public TestCase
{
public:
    StreamTestCase()
        : TestCase("weight stream on wafer-mesh and fred-d: done, no faster than bytes over 18 "
                   "I-O links of 128 GBps")
    {
    }

private:
    void DoRun() override
    {
        for (std::string kind : {"wafer-mesh", "fred-d"})
        {
            TopologyConfig c;
            c.kind = kind;
            Ptr<const Topology> topology = MakeTopology(c);
            const uint64_t bytes = 18 * 65536;
            TrainingGraph g;
            g.ranks = 4;
            TrainingTask s;
            s.kind = TrainingTaskKind::STREAM;
            s.ranks = {0, 1, 2, 3};
            s.dimension = TrainingDimension::WS;
            s.bytes = bytes;
            uint32_t st = g.Add(s);
            g.Add(Compute(0, 1, {st}));
            Outcome o = RunJobs(topology, {Job(g, {0, 5, 10, 19})});
            NS_TEST_ASSERT_MSG_EQ(o.finished, true, kind + " finished");
            // Each rank's bytes come in 18 equal shares, one per I/O controller,
            // each over that controller's own 128 GB/s link: no faster than one share
            // through one link.
            double bound = bytes / 18.0 / 128e9;
            double t = Span(o.runs[0][st]);
            std::cout << "measured: " << kind << " stream " << t * 1e6 << " us, bound "
                      << bound * 1e6 << " us" << std::endl;
            NS_TEST_EXPECT_MSG_GT_OR_EQ(t, bound, "I/O link bound");
            NS_TEST_EXPECT_MSG_EQ(o.runs[0][st].backend, "weight-streaming", "recorded");
        }
    }
};

/// In-network aggregation (switchml) runs one collective at a time: concurrent groups queue.
class SerialInNetworkTestCase : public TestCase
{
public:
    SerialInNetworkTestCase()
        : TestCase("switchml: two dp groups issued at once run one after the other")
    {
    }

private:
    void DoRun() override
    {
        TrainingGraph g;
        g.ranks = 4;
        TrainingTask a = Collective({0, 1}, 1 << 18);
        a.type = DataType::FP32;
        a.group = "dp0";
        TrainingTask b = Collective({2, 3}, 1 << 18);
        b.type = DataType::FP32;
        b.group = "dp1";
        g.Add(a);
        g.Add(b);
        Outcome o = RunJobs(Star(4), {Job(g, {}, "switchml")});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][0].backend, "switchml", "backend");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][1].start, Time(0), "streams free at once");
        NS_TEST_EXPECT_MSG_GT(o.runs[0][1].end, o.runs[0][0].end, "after the first");
        // the second's span: its wait for the first, then its own run (about as long)
        NS_TEST_EXPECT_MSG_GT(Span(o.runs[0][1]), 1.9 * Span(o.runs[0][0]), "queued");
        // and the same groups by ring run side by side
        Outcome r = RunJobs(Star(4), {Job(g)});
        NS_TEST_EXPECT_MSG_EQ_TOL(
            Span(r.runs[0][1]), Span(r.runs[0][0]), 1e-3 * Span(r.runs[0][0]), "ring: concurrent");
    }
};

/// A large graph runs (event-driven, no per-event scan) and gives the exact critical path.
class ScaleTestCase : public TestCase
{
public:
    ScaleTestCase()
        : TestCase("scale: 16 ranks x 5000 computes with barriers, free communication, exact")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t ranks = 16;
        const uint32_t steps = 5000;
        TrainingGraph g;
        g.ranks = ranks;
        std::vector<uint32_t> all;
        for (uint32_t r = 0; r < ranks; ++r)
        {
            all.push_back(r);
        }
        std::vector<uint32_t> last(ranks, UINT32_MAX);
        uint32_t barrier = UINT32_MAX;
        for (uint32_t k = 0; k < steps; ++k)
        {
            for (uint32_t r = 0; r < ranks; ++r)
            {
                std::vector<uint32_t> deps;
                if (barrier != UINT32_MAX)
                {
                    deps.push_back(barrier);
                }
                // rank r's compute k lasts 1 us, 2 us on rank k % ranks
                last[r] = g.Add(Compute(r, r == k % ranks ? 2 : 1, deps));
            }
            barrier = UINT32_MAX;
            if (k % 50 == 49)
            {
                barrier = g.Add(Collective(all, 1 << 20, TrainingDimension::DP, last));
            }
        }
        Outcome o = RunJobs(Star(ranks), {Job(g)}, true);
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        // between barriers (blocks of 50 computes per rank) the block lasts 50 us plus
        // 1 us for each 2 us compute of its slowest rank
        Time expected(0);
        for (uint32_t block = 0; block < steps / 50; ++block)
        {
            uint32_t most = 0;
            for (uint32_t r = 0; r < ranks; ++r)
            {
                uint32_t twos = 0;
                for (uint32_t k = block * 50; k < block * 50 + 50; ++k)
                {
                    twos += k % ranks == r;
                }
                most = std::max(most, twos);
            }
            expected += MicroSeconds(50 + most);
        }
        Time end(0);
        for (const auto& run : o.runs[0])
        {
            end = std::max(end, run.end);
        }
        NS_TEST_EXPECT_MSG_EQ(end, expected, "critical path");
    }
};

/// fred-in-switch on fred-d: one instance for two jobs, concurrent groups; weight streams beside.
class FredTestCase : public TestCase
{
public:
    FredTestCase()
        : TestCase("fred-d: fred-in-switch groups of two jobs at once; streams beside them")
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig c;
        c.kind = "fred-d";
        Ptr<const Topology> topology = MakeTopology(c);
        TrainingGraph g;
        g.ranks = 8;
        TrainingTask a = Collective({0, 1, 2, 3}, 1 << 20);
        a.type = DataType::FP32;
        a.group = "dp0";
        TrainingTask b = Collective({4, 5, 6, 7}, 1 << 20);
        b.type = DataType::FP32;
        b.group = "dp1";
        g.Add(a);
        g.Add(b);
        TrainingJobSetup one = Job(g, {0, 1, 2, 3, 4, 5, 6, 7}, "fred-in-switch");
        TrainingJobSetup two = Job(g, {8, 9, 10, 11, 12, 13, 14, 15}, "fred-in-switch");
        two.name = "job1";
        Outcome alone = RunJobs(topology, {one});
        Outcome o = RunJobs(topology, {one, two});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[1][1].backend, "fred-in-switch", "backend");
        for (uint32_t j = 0; j < 2; ++j)
        {
            for (uint32_t t = 0; t < 2; ++t)
            {
                NS_TEST_EXPECT_MSG_EQ(o.runs[j][t].start, Time(0), "all at once");
            }
        }
        // groups under their own L1 switches: as fast together as one group alone
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(o.runs[1][1]),
                                  Span(alone.runs[0][0]),
                                  0.01 * Span(alone.runs[0][0]),
                                  "concurrent, each as alone");

        // A weight stream beside in-switch all-reduces: both go through the one FRED
        // engine (fred-in-switch's) and both finish; the stream shares the switches
        // and the NPU links, so it is never faster than alone. (Here its distribution
        // flow conflicts with the all-reduces' flows in the L1 switches, so it waits for
        // them: 1.93 us alone, 2.33 us beside = the 0.39 us all-reduce + 1.93 us.)
        TrainingTask st;
        st.kind = TrainingTaskKind::STREAM;
        st.ranks = {0, 1, 2, 3, 4, 5, 6, 7};
        st.dimension = TrainingDimension::WS;
        // 4 MiB over 18 I/O controllers is not whole 4-byte words per controller: the
        // executor rounds the share up (FRED refused such a share mid-run before)
        st.bytes = 4 << 20;
        st.group = "ws";
        TrainingGraph streamOnly;
        streamOnly.ranks = 8;
        streamOnly.Add(st);
        TrainingGraph both = g; // dp0 and dp1 (tasks 0, 1), the stream (task 2)
        both.Add(st);
        Outcome streamAlone = RunJobs(topology, {Job(streamOnly, {}, "fred-in-switch")});
        Outcome together = RunJobs(topology, {Job(both, {}, "fred-in-switch")});
        NS_TEST_ASSERT_MSG_EQ(streamAlone.finished, true, "the stream alone finished");
        NS_TEST_ASSERT_MSG_EQ(together.finished, true, "the stream and the all-reduces finished");
        std::cout << "measured: fred-d 4 MiB stream alone " << Span(streamAlone.runs[0][0]) * 1e6
                  << " us, beside two all-reduces " << Span(together.runs[0][2]) * 1e6
                  << " us; all-reduce alone " << Span(alone.runs[0][0]) * 1e6 << " us, beside "
                  << Span(together.runs[0][0]) * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(together.runs[0][0].backend, "fred-in-switch", "in-switch");
        NS_TEST_EXPECT_MSG_EQ(together.runs[0][2].start, Time(0), "the stream ran at once");
        NS_TEST_EXPECT_MSG_GT(Span(together.runs[0][2]), 0.0, "the stream took time");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(Span(together.runs[0][2]),
                                    Span(streamAlone.runs[0][0]),
                                    "a stream beside all-reduces is not faster than alone");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(Span(together.runs[0][0]),
                                    Span(alone.runs[0][0]),
                                    "an all-reduce beside a stream is not faster than alone");
        // and a second run on a fresh cluster (a new engine) behaves the same
        Outcome again = RunJobs(topology, {Job(both, {}, "fred-in-switch")});
        NS_TEST_EXPECT_MSG_EQ(Span(again.runs[0][2]), Span(together.runs[0][2]), "deterministic");
    }
};

/// The hierarchical schedules get the wafer's grid for a wafer-wide group (they refused
/// every training collective before: the executor's requests carried no grid).
class HierarchicalGridTestCase : public TestCase
{
public:
    HierarchicalGridTestCase()
        : TestCase("wafer-wide hierarchical all-reduce on wafer-mesh and fred-c; subsets refused")
    {
    }

private:
    void DoRun() override
    {
        for (std::string kind : {"wafer-mesh", "fred-c"})
        {
            TopologyConfig c;
            c.kind = kind;
            Ptr<const Topology> topology = MakeTopology(c);
            std::vector<uint32_t> all;
            for (uint32_t r = 0; r < WAFER_NPUS; ++r)
            {
                all.push_back(r);
            }
            TrainingGraph g;
            g.ranks = WAFER_NPUS;
            g.Add(Collective(all, 4 << 20));
            Outcome hier = RunJobs(topology, {Job(g, {}, "hierarchical")});
            Outcome ring = RunJobs(topology, {Job(g, {}, "ring")});
            NS_TEST_ASSERT_MSG_EQ(hier.finished, true, kind + ": finished");
            NS_TEST_EXPECT_MSG_EQ(hier.runs[0][0].backend, "hierarchical", kind);
            std::cout << "measured: " << kind << " 4 MiB all-reduce of 20: hierarchical "
                      << Span(hier.runs[0][0]) * 1e6 << " us, ring " << Span(ring.runs[0][0]) * 1e6
                      << " us" << std::endl;
            // both move 2 (n-1)/n of the data per NPU; the hierarchical one has 2 (4 + 5 - 2)
            // = 14 steps against the ring's 38, each with its latency
            NS_TEST_EXPECT_MSG_LT(
                Span(hier.runs[0][0]), Span(ring.runs[0][0]), kind + ": fewer steps than the ring");

            TrainingGraph sub;
            sub.ranks = 4;
            sub.Add(Collective({0, 1, 2, 3}, 1 << 20));
            std::string what;
            {
                Cluster cluster = topology->Build();
                Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
                try
                {
                    sim->Setup(cluster, topology, {Job(sub, {}, "hierarchical")});
                }
                catch (const std::invalid_argument& e)
                {
                    what = e.what();
                }
                sim->Dispose();
            }
            Simulator::Destroy();
            NS_TEST_EXPECT_MSG_NE(what.find("hierarchical"), std::string::npos, what);
        }
    }
};

/// Consecutive weight streams on fred-c (their own FredCollectives): every one finishes
/// (the second never did: a FredCollectives per stream lost the NPUs' handlers).
class ConsecutiveStreamsTestCase : public TestCase
{
public:
    ConsecutiveStreamsTestCase()
        : TestCase("fred-c and fred-d: three consecutive weight streams finish, each as long")
    {
    }

private:
    void DoRun() override
    {
        for (std::string kind : {"fred-c", "fred-d"})
        {
            TopologyConfig c;
            c.kind = kind;
            Ptr<const Topology> topology = MakeTopology(c);
            TrainingGraph g;
            g.ranks = 4;
            for (uint32_t k = 0; k < 3; ++k)
            {
                TrainingTask st;
                st.kind = TrainingTaskKind::STREAM;
                st.ranks = {0, 1, 2, 3};
                st.dimension = TrainingDimension::WS;
                st.bytes = 1 << 20;
                st.group = "ws";
                if (k > 0)
                {
                    st.deps = {k - 1};
                }
                g.Add(st);
            }
            Outcome o = RunJobs(topology, {Job(g)});
            NS_TEST_ASSERT_MSG_EQ(o.finished, true, kind + ": every stream finished");
            for (uint32_t k = 1; k < 3; ++k)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(Span(o.runs[0][k]),
                                          Span(o.runs[0][0]),
                                          0.01 * Span(o.runs[0][0]),
                                          kind + ": stream " + std::to_string(k) + " as the first");
            }
        }
    }
};

/// Blocking sends also hold the sender's compute stream; the breakdown counts that time as
/// exposed pp, not compute.
class BlockingSendTestCase : public TestCase
{
public:
    BlockingSendTestCase()
        : TestCase("blocking send holds the sender's compute: its next compute waits, exposed pp")
    {
    }

private:
    void DoRun() override
    {
        // rank 0: compute 10 us, a send of 1 MB to rank 1 after it, and another compute of
        // 10 us that depends on nothing: asynchronous, it runs beside the send; blocking, it
        // starts when the send has completed
        const uint64_t bytes = 1000000;
        TrainingGraph g;
        g.ranks = 2;
        uint32_t c0 = g.Add(Compute(0, 10));
        TrainingTask send = Send(0, 1, bytes, {c0});
        uint32_t s = g.Add(send);
        uint32_t c1 = g.Add(Compute(0, 10));
        Outcome async = RunJobs(Star(2), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(async.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(async.runs[0][c1].start, MicroSeconds(10), "asynchronous: at once");

        g.tasks[s].blocking = true;
        g.Validate();
        Outcome o = RunJobs(Star(2), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        const double step = StarStep(bytes);
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][s].start, MicroSeconds(10), "after its compute");
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(o.runs[0][s]), step, CLOSED_FORM * step, "one star step");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][c1].start, o.runs[0][s].end, "the next compute waits");
        const double iteration = 20e-6 + Span(o.runs[0][s]);
        NS_TEST_EXPECT_MSG_EQ_TOL(Iteration(g, o.runs[0]), iteration, 1e-12, "10 + send + 10");
        auto b = ComputeBreakdown(g, o.runs[0], true, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(b[0].computeSeconds, 20e-6, 1e-12, "compute: the two only");
        NS_TEST_EXPECT_MSG_EQ_TOL(b[0].exposedSeconds[uint32_t(TrainingDimension::PP)],
                                  Span(o.runs[0][s]),
                                  1e-12,
                                  "the blocked time is exposed pp");
        CheckSums(this, g, o.runs[0], true);

        // blocking only on a send that neither pulls nor is detached
        for (int variant = 0; variant < 3; ++variant)
        {
            TrainingTask t = variant == 0 ? Compute(0, 1) : Send(0, 1, bytes);
            t.blocking = true;
            t.pull = variant == 1;
            t.detached = variant == 2;
            const std::string message = ValidationError(t);
            NS_TEST_EXPECT_MSG_NE(message.find("blocking"),
                                  std::string::npos,
                                  "variant " << variant << " names the field: " << message);
        }
    }
};

/// SendRendezvous: a blocking send starts once its receiver is not computing.
class SendRendezvousTestCase : public TestCase
{
public:
    SendRendezvousTestCase()
        : TestCase("send rendezvous: a blocking send waits for its receiver's compute to end")
    {
    }

private:
    void DoRun() override
    {
        // rank 0 computes 10 us, then a blocking 1 MB send to rank 1, then 10 us more; rank 1
        // computes 30 us, then a compute that needs the message
        const uint64_t bytes = 1000000;
        const double step = StarStep(bytes);
        TrainingGraph g;
        g.ranks = 2;
        uint32_t a0 = g.Add(Compute(0, 10));
        uint32_t b0 = g.Add(Compute(1, 30));
        TrainingTask send = Send(0, 1, bytes, {a0});
        send.blocking = true;
        uint32_t s = g.Add(send);
        uint32_t a1 = g.Add(Compute(0, 10));
        uint32_t b1 = g.Add(Compute(1, 5, {s}));
        g.Validate();
        Outcome eager = RunJobs(Star(2), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(eager.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(eager.runs[0][s].start, MicroSeconds(10), "off: after its compute");
        Outcome o = RunJobs(Star(2), {Job(g)}, false, 0, true);
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][s].start, MicroSeconds(30), "on: when rank 1 is done");
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(o.runs[0][s]), step, CLOSED_FORM * step, "one star step");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][a1].start, o.runs[0][s].end, "the sender waits for it");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][b1].start, o.runs[0][s].end, "the receiver computes next");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            Iteration(g, o.runs[0]), 30e-6 + Span(o.runs[0][s]) + 10e-6, 1e-12, "30 + send + 10");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][b0].end, MicroSeconds(30), "rank 1's first compute");
        CheckSums(this, g, o.runs[0], true);

        // a receiver that is not computing takes it at once; an asynchronous send never waits
        TrainingGraph idle = g;
        idle.tasks[b0].duration = MicroSeconds(5);
        Outcome early = RunJobs(Star(2), {Job(idle)}, false, 0, true);
        NS_TEST_EXPECT_MSG_EQ(early.runs[0][s].start, MicroSeconds(10), "receiver idle: at once");
        TrainingGraph async = g;
        async.tasks[s].blocking = false;
        Outcome free = RunJobs(Star(2), {Job(async)}, false, 0, true);
        NS_TEST_EXPECT_MSG_EQ(free.runs[0][s].start, MicroSeconds(10), "asynchronous: at once");
    }
};

/// A batched blocking send goes out beside the blocking send before it (Megatron's
/// batch_isend_irecv of a step's two messages): both share the sender's link.
class BatchedSendTestCase : public TestCase
{
public:
    BatchedSendTestCase()
        : TestCase("batched send: goes out beside the blocking send before it, the sender's "
                   "next compute waits for both (closed forms)")
    {
    }

private:
    void DoRun() override
    {
        // rank 0 computes 10 us, then blocking 1 MB sends to ranks 1 and 2, then 10 us that
        // lists the second send in its deps; ranks 1 and 2 consume the messages
        const uint64_t bytes = 1000000;
        TrainingGraph g;
        g.ranks = 3;
        uint32_t c0 = g.Add(Compute(0, 10));
        TrainingTask first = Send(0, 1, bytes, {c0});
        first.blocking = true;
        uint32_t a = g.Add(first);
        TrainingTask second = Send(0, 2, bytes, {c0});
        second.blocking = true;
        second.batched = true;
        uint32_t b = g.Add(second);
        uint32_t c1 = g.Add(Compute(0, 10, {b}));
        uint32_t r1 = g.Add(Compute(1, 5, {a}));
        uint32_t r2 = g.Add(Compute(2, 5, {b}));
        g.Validate();
        Outcome o = RunJobs(Star(3), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][a].start, MicroSeconds(10), "the first after its compute");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][b].start, MicroSeconds(10), "the second beside it");
        // the two share rank 0's link: the later ends after both messages' wire bytes, two
        // links' propagation and one packet's store and forward
        const double MB = 1e6;
        const double both = 2 * Wire(MB) * 8 / B + 2 * D + MTU * 8 / B;
        const double later = std::max(Span(o.runs[0][a]), Span(o.runs[0][b]));
        std::cout << "measured: first " << Span(o.runs[0][a]) * 1e6 << " us, second "
                  << Span(o.runs[0][b]) * 1e6 << " us, formula for both " << both * 1e6 << " us"
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(later, both, CLOSED_FORM * both, "both messages on one link");
        NS_TEST_EXPECT_MSG_GT(std::min(Span(o.runs[0][a]), Span(o.runs[0][b])),
                              0.9 * both,
                              "the link is shared, not one message after the other");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][c1].start,
                              std::max(o.runs[0][a].end, o.runs[0][b].end),
                              "the next compute waits for both");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][r1].start, o.runs[0][a].end, "rank 1 computes next");
        NS_TEST_EXPECT_MSG_EQ(o.runs[0][r2].start, o.runs[0][b].end, "rank 2 computes next");
        CheckSums(this, g, o.runs[0], true);

        // not batched: the second waits for the first on the sender's streams
        TrainingGraph serial = g;
        serial.tasks[b].batched = false;
        Outcome s = RunJobs(Star(3), {Job(serial)});
        NS_TEST_ASSERT_MSG_EQ(s.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(s.runs[0][b].start, s.runs[0][a].end, "serial: one after the other");
        const double one = StarStep(MB);
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(s.runs[0][b]), one, 0.01 * one, "serial: one star step");

        // SendRendezvous: each waits for its own receiver (rank 2 computes until 30 us)
        TrainingGraph busy = g;
        busy.tasks[r2].deps.clear();
        busy.tasks[r2].duration = MicroSeconds(30);
        TrainingTask consume = Compute(2, 5, {b});
        busy.Add(consume);
        busy.Validate();
        Outcome w = RunJobs(Star(3), {Job(busy)}, false, 0, true);
        NS_TEST_ASSERT_MSG_EQ(w.finished, true, "finished");
        NS_TEST_EXPECT_MSG_EQ(w.runs[0][a].start, MicroSeconds(10), "rendezvous: rank 1 idle");
        NS_TEST_EXPECT_MSG_EQ(w.runs[0][b].start, MicroSeconds(30), "rendezvous: rank 2 at 30 us");

        // only a blocking send may be batched
        for (int variant = 0; variant < 2; ++variant)
        {
            TrainingTask t = variant == 0 ? Compute(0, 1) : Send(0, 1, bytes);
            t.batched = true;
            const std::string message = ValidationError(t);
            NS_TEST_EXPECT_MSG_NE(message.find("batched"),
                                  std::string::npos,
                                  "variant " << variant << " names the field: " << message);
        }
    }
};

/// A generated plan with Megatron's pipeline messages (TP 2, PP 2, GPipe, 2 microbatches) on
/// a star: scatter-gather sends half the activation, the receiving stage all-gathers it, and
/// blocking sends hold the sender's next forward; every time against the star's closed form.
class PipelineMessagesTestCase : public TestCase
{
public:
    PipelineMessagesTestCase()
        : TestCase("plan: scatter-gather sends a tp-th and all-gathers; blocking sends hold the "
                   "sender's next forward (closed forms)")
    {
    }

private:
    /// \return the index of the first task matching pred
    static uint32_t Find(const TrainingGraph& g,
                         const std::function<bool(const TrainingTask&)>& pred)
    {
        for (uint32_t i = 0; i < g.tasks.size(); ++i)
        {
            if (pred(g.tasks[i]))
            {
                return i;
            }
        }
        throw std::runtime_error("no such task");
    }

    void DoRun() override
    {
        // 4 layers, h 256, 8 heads, s 128; microbatch 4: the activation is 4 x 128 x 256
        // fp16 elements = 262144 bytes
        const TransformerConfig shape{4, 256, 8, 128, 1000};
        const Model model = MakeTransformer("tiny", shape);
        const double activation = 4.0 * 128 * 256 * 2;
        TrainingPlan p;
        p.tp = 2;
        p.pp = 2;
        p.microbatches = 2;
        p.microbatchSize = 4;
        p.schedule = PipelineSchedule::GPIPE;
        // job rank = tp + 2 pp: stage 0 is ranks 0 and 1, stage 1 ranks 2 and 3
        auto send = [](uint32_t from, int32_t mb)
        {
            return [from, mb](const TrainingTask& t)
            {
                return t.kind == TrainingTaskKind::SEND && t.ranks[0] == from && t.microbatch == mb
                       && t.phase == TrainingPhase::FORWARD;
            };
        };
        auto forward = [](uint32_t rank, int32_t mb)
        {
            return [rank, mb](const TrainingTask& t)
            {
                return t.kind == TrainingTaskKind::COMPUTE && t.ranks[0] == rank
                       && t.microbatch == mb && t.phase == TrainingPhase::FORWARD;
            };
        };
        const TrainingGraph before = MakeTrainingGraph(model, MakeDevice("h100"), p);
        p.pipelineScatterGather = true;
        p.pipelineSendsBlock = true;
        const TrainingGraph g = MakeTrainingGraph(model, MakeDevice("h100"), p);
        Outcome o = RunJobs(Star(4), {Job(g)});
        NS_TEST_ASSERT_MSG_EQ(o.finished, true, "finished");
        const auto& runs = o.runs[0];
        const uint32_t s0 = Find(g, send(0, 0));
        const uint32_t s1 = Find(g, send(1, 0));
        NS_TEST_EXPECT_MSG_EQ(g.tasks[s0].bytes, activation / 2, "half the activation");
        // the two halves cross the star side by side (disjoint links): one step of half each
        const double half = StarStep(activation / 2);
        for (uint32_t s : {s0, s1})
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(Span(runs[s]), half, CLOSED_FORM * half, "half a message");
        }
        // stage 1 all-gathers the halves (a ring of 2: one step of S/2 each way), then computes
        const uint32_t ag = Find(g,
                                 [](const TrainingTask& t)
                                 {
                                     return t.kind == TrainingTaskKind::COLLECTIVE
                                            && t.op == CollectiveOp::ALL_GATHER && t.microbatch == 0
                                            && t.phase == TrainingPhase::FORWARD;
                                 });
        NS_TEST_EXPECT_MSG_EQ(g.tasks[ag].bytes, activation, "the whole activation gathered");
        NS_TEST_EXPECT_MSG_EQ(runs[ag].start, std::max(runs[s0].end, runs[s1].end), "after both");
        NS_TEST_EXPECT_MSG_EQ_TOL(Span(runs[ag]), half, CLOSED_FORM * half, "ring all-gather of 2");
        for (uint32_t r : {2u, 3u})
        {
            NS_TEST_EXPECT_MSG_EQ(runs[Find(g, forward(r, 0))].start,
                                  runs[ag].end,
                                  "stage 1 computes after the gather");
        }
        // blocking: stage 0's forward of microbatch 1 starts when its send of 0 completes
        NS_TEST_EXPECT_MSG_EQ(runs[Find(g, forward(0, 1))].start,
                              runs[s0].end,
                              "the sender's next compute waits for its send");
        NS_TEST_EXPECT_MSG_EQ(runs[Find(g, forward(1, 1))].start,
                              runs[s1].end,
                              "the sender's next compute waits for its send");
        NS_TEST_EXPECT_MSG_EQ_TOL(Seconds(runs[Find(g, forward(2, 0))].start)
                                      - Seconds(runs[s0].start),
                                  2 * half,
                                  0.01 * 2 * half,
                                  "from the send to stage 1's compute: half a message, then the "
                                  "gather's step");

        // both off: the whole activation per TP rank, no gather, the sender goes on at once
        Outcome a = RunJobs(Star(4), {Job(before)});
        NS_TEST_ASSERT_MSG_EQ(a.finished, true, "finished");
        const uint32_t w = Find(before, send(0, 0));
        NS_TEST_EXPECT_MSG_EQ(before.tasks[w].bytes, activation, "the whole activation");
        NS_TEST_EXPECT_MSG_EQ(a.runs[0][Find(before, forward(2, 0))].ready,
                              std::max(a.runs[0][w].end, a.runs[0][Find(before, send(1, 0))].end),
                              "stage 1 waits for the sends only");
        NS_TEST_EXPECT_MSG_LT(a.runs[0][Find(before, forward(0, 1))].start,
                              a.runs[0][w].end,
                              "asynchronous: the sender's next forward beside its send");
    }
};

class TrainingSimulationTestSuite : public TestSuite
{
public:
    TrainingSimulationTestSuite()
        : TestSuite("dlnet-training-simulation", UNIT)
    {
        AddTestCase(new ComputeTestCase, TestCase::QUICK);
        AddTestCase(new FreeCommunicationTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveTestCase, TestCase::QUICK);
        AddTestCase(new SendTestCase, TestCase::QUICK);
        AddTestCase(new PullSendTestCase, TestCase::QUICK);
        AddTestCase(new DetachedSendTestCase, TestCase::QUICK);
        AddTestCase(new OverlapTestCase, TestCase::QUICK);
        AddTestCase(new ContentionTestCase, TestCase::QUICK);
        AddTestCase(new FinishDelayTestCase, TestCase::QUICK);
        AddTestCase(new TwoJobsTestCase, TestCase::QUICK);
        AddTestCase(new StuckTestCase, TestCase::QUICK);
        AddTestCase(new BreakdownTestCase, TestCase::QUICK);
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
        AddTestCase(new SetupErrorTestCase, TestCase::QUICK);
        AddTestCase(new StreamTestCase, TestCase::QUICK);
        AddTestCase(new SerialInNetworkTestCase, TestCase::QUICK);
        AddTestCase(new ScaleTestCase, TestCase::QUICK);
        AddTestCase(new FredTestCase, TestCase::QUICK);
        AddTestCase(new HierarchicalGridTestCase, TestCase::QUICK);
        AddTestCase(new ConsecutiveStreamsTestCase, TestCase::QUICK);
        AddTestCase(new BlockingSendTestCase, TestCase::QUICK);
        AddTestCase(new SendRendezvousTestCase, TestCase::QUICK);
        AddTestCase(new BatchedSendTestCase, TestCase::QUICK);
        AddTestCase(new PipelineMessagesTestCase, TestCase::QUICK);
    }
};

static TrainingSimulationTestSuite g_trainingSimulationTestSuite;

} // namespace
