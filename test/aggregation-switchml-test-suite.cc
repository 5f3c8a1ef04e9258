/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// SwitchML-style dense in-network aggregation against the acceptance items
// of issue 4, with every expected figure computed here from the link
// parameters and the paper's quantisation (not from the library's predictor):
// block-floating-point error within the scaling bound on 2..16 workers, with
// and without packet loss; dense all-reduce time S_wire/B plus one round trip,
// flat in N, and the ring/switchml ratio 2(N-1)/N; window-limited throughput
// window x packet / RTT; hierarchical aggregation on a leaf-spine; jobs sharing
// a switch's slots; bad input naming its field.

#include "ns3/config.h"
#include "ns3/dlnet-module.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

const double B = 100e9;                                         //!< host link rate, bit/s
const double D = 500e-9;                                        //!< propagation delay per link, s
const double FABRIC_HEADER = FabricHeader::SERIALIZED_SIZE;     //!< 24 bytes
const double SWITCHML_HEADER = SwitchmlHeader::SERIALIZED_SIZE; //!< 16 bytes

/// Bytes on the wire of a packet of k int32 values (k = 0: the exponent probe of round 0).
double
PacketWire(uint32_t k)
{
    return 4.0 * k + SWITCHML_HEADER + FABRIC_HEADER;
}

/// Bytes on the wire of S payload bytes cut into packets of k values.
double
SWire(double s, uint32_t k)
{
    return s * PacketWire(k) / (4.0 * k);
}

/// Round trip of one packet of `wire` bytes over one link each way (store and
/// forward, no switching latency).
double
Rtt(double wire, double rate = B, double delay = D)
{
    return 2 * (delay + wire * 8 / rate);
}

TopologyConfig
Star(uint32_t n)
{
    TopologyConfig t;
    t.kind = "star";
    t.hosts = n;
    t.hostLinkRate = "100Gbps";
    t.hostLinkDelay = "500ns";
    t.mtu = 4096;
    return t;
}

TopologyConfig
LeafSpine()
{
    TopologyConfig t;
    t.kind = "leaf-spine";
    t.leaves = 4;
    t.hostsPerLeaf = 4;
    t.spines = 2;
    t.oversubscription = 1; // uplinks 4 x 100 / 2 = 200 Gbps
    t.hostLinkRate = "100Gbps";
    t.hostLinkDelay = "500ns";
    t.fabricLinkDelay = "500ns";
    t.mtu = 4096;
    return t;
}

CollectiveConfig
Collective(const TopologyConfig& t, const std::string& alg, uint64_t bytes)
{
    CollectiveConfig c;
    c.topology = t;
    c.algorithm = alg;
    c.minBytes = c.maxBytes = bytes;
    return c;
}

/// Deterministic xorshift generator (the standard distributions differ between libraries).
struct Rng
{
    uint64_t s;

    uint64_t Next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }

    double Uniform()
    {
        return double(Next() >> 11) * 0x1.0p-53;
    }

    /// Normal-ish in (-1, 1): the mean of four uniforms, centred and stretched.
    double Bell()
    {
        return (Uniform() + Uniform() + Uniform() + Uniform() - 2) / 2;
    }
};

/**
 * Per worker, `elements` floats in chunks of k: each chunk of each worker has
 * its own exponent (chunk base in [-20, 10], lowered by up to 11 per worker),
 * values bell-shaped below 2^e and at most 1e3 in magnitude, some elements 0;
 * every 7th chunk is zero at every worker, every 5th zero at worker 0 only.
 */
std::vector<std::vector<float>>
RandomInputs(uint32_t n, uint64_t elements, uint32_t k, uint64_t seed)
{
    std::vector<std::vector<float>> in(n, std::vector<float>(elements, 0.0f));
    Rng chunkRng{0x9e3779b97f4a7c15ULL ^ seed};
    uint64_t chunks = (elements + k - 1) / k;
    std::vector<int> base(chunks);
    for (auto& b : base)
    {
        b = -20 + int(chunkRng.Next() % 31);
    }
    for (uint32_t w = 0; w < n; ++w)
    {
        Rng rng{(seed + 1) * 0x2545f4914f6cdd1dULL + w * 0x9e3779b97f4a7c15ULL + 1};
        for (uint64_t c = 0; c < chunks; ++c)
        {
            if (c % 7 == 3 || (c % 5 == 1 && w == 0))
            {
                continue;
            }
            int e = base[c] - int(rng.Next() % 12);
            for (uint64_t i = c * k; i < std::min<uint64_t>(elements, (c + 1) * k); ++i)
            {
                if (rng.Next() % 11 == 0)
                {
                    continue;
                }
                double x = std::ldexp(rng.Bell(), e);
                in[w][i] = float(std::clamp(x, -1e3, 1e3));
            }
        }
    }
    return in;
}

/// How a SwitchML result compares with the true sums.
struct ErrorStats
{
    double worstRatio{0};   //!< largest err / bound
    double maxError{0};     //!< largest |err|
    uint64_t outside{0};    //!< elements above the bound
    uint64_t zeroWrong{0};  //!< all-zero chunks whose result is not exactly 0
    uint64_t different{0};  //!< elements where a worker's output differs from worker 0's
    uint64_t missing{0};    //!< workers without an output of the right length
    uint64_t zeroChunks{0}; //!< chunks that were zero at every worker
};

/**
 * Compare every worker's output with the true sum (in double): per element
 * |err| <= N 0.5 / scale + |sum| 2^-24, scale = SwitchmlWorker::Scale(e, N)
 * and e the largest block exponent of the chunk over the workers.
 */
ErrorStats
CheckAgainstBound(const std::vector<std::vector<float>>& in,
                  const std::vector<SwitchmlWorkerRecord>& out,
                  uint32_t k)
{
    ErrorStats st;
    uint32_t n = in.size();
    uint64_t elements = in[0].size();
    for (const auto& w : out)
    {
        if (w.output.size() != elements)
        {
            ++st.missing;
        }
    }
    if (st.missing || out.size() != n)
    {
        st.missing = std::max<uint64_t>(st.missing, 1);
        return st;
    }
    for (uint64_t first = 0; first < elements; first += k)
    {
        uint64_t len = std::min<uint64_t>(k, elements - first);
        int8_t e = SwitchmlHeader::NO_EXPONENT;
        for (uint32_t w = 0; w < n; ++w)
        {
            e = std::max(e, SwitchmlWorker::BlockExponent(in[w].data() + first, len));
        }
        double scale = SwitchmlWorker::Scale(e, n);
        st.zeroChunks += e == SwitchmlHeader::NO_EXPONENT;
        for (uint64_t i = first; i < first + len; ++i)
        {
            double sum = 0;
            for (uint32_t w = 0; w < n; ++w)
            {
                sum += in[w][i];
            }
            for (uint32_t w = 0; w < n; ++w)
            {
                float got = out[w].output[i];
                if (got != out[0].output[i])
                {
                    ++st.different;
                }
                double err = std::fabs(double(got) - sum);
                st.maxError = std::max(st.maxError, err);
                if (e == SwitchmlHeader::NO_EXPONENT)
                {
                    st.zeroWrong += got != 0.0f;
                    continue;
                }
                // the 1e-6 covers double rounding in x * scale and sum / scale
                double bound = (n * 0.5 / scale + std::fabs(sum) * 0x1.0p-24) * (1 + 1e-6);
                double ratio = err / bound;
                st.worstRatio = std::max(st.worstRatio, ratio);
                st.outside += ratio > 1;
            }
        }
    }
    return st;
}

/// What a job's done callback delivered.
struct JobRun
{
    bool finished{false};     //!< the callback ran
    SwitchmlJobRecord record; //!< what it delivered
};

/// Run one SwitchML job alone in a fresh simulation; \return its record
JobRun
RunJob(const TopologyConfig& t,
       const Communicator& comm,
       uint64_t elements,
       const SwitchmlSettings& s,
       const std::vector<std::vector<float>>& inputs,
       uint32_t seed = 1)
{
    JobRun run;
    SimulationScope scope(seed, 1);
    Cluster cluster = BuildCluster(t);
    SwitchmlHelper::Start(cluster,
                          *MakeTopology(t),
                          comm,
                          elements,
                          s,
                          inputs,
                          SwitchmlHelper::DoneCallback(
                              [&run](const SwitchmlJobRecord& r)
                              {
                                  run.record = r;
                                  run.finished = true;
                              }));
    Simulator::Run();
    return run;
}

uint64_t
Sum(const std::vector<SwitchmlWorkerRecord>& ws, uint64_t SwitchmlWorkerRecord::*field)
{
    uint64_t s = 0;
    for (const auto& w : ws)
    {
        s += w.*field;
    }
    return s;
}

/// \return the message of the std::invalid_argument f throws ("" if none)
template <typename F>
std::string
InvalidArgument(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

// ---------------------------------------------------------------------------

/// 1. Block floating point within the paper's bound, 2..16 workers.
class ExactnessTestCase : public TestCase
{
public:
    ExactnessTestCase(uint32_t n, uint32_t k, uint32_t window)
        : TestCase("switchml on " + std::to_string(n) + " workers (k " + std::to_string(k)
                   + ", window " + std::to_string(window)
                   + "): every output within the block-floating-point bound")
        , m_n(n)
        , m_k(k)
        , m_window(window)
    {
    }

private:
    void DoRun() override
    {
        uint64_t elements = uint64_t(m_k) * 150 + 77; // a partial last chunk
        auto in = RandomInputs(m_n, elements, m_k, m_n);
        SwitchmlSettings s;
        s.elementsPerPacket = m_k;
        s.window = m_window;
        JobRun run = RunJob(Star(m_n), Communicator::World(m_n), elements, s, in);
        NS_TEST_ASSERT_MSG_EQ(run.finished, true, "the job finished");
        ErrorStats st = CheckAgainstBound(in, run.record.workers, m_k);
        uint64_t chunks = (elements + m_k - 1) / m_k;
        uint64_t pool = std::min<uint64_t>(m_window, chunks);
        const auto& w = run.record.workers;
        std::cout << "measured: " << GetName() << ": worst err/bound " << st.worstRatio
                  << ", max |err| " << st.maxError << ", " << st.outside << " outside, "
                  << st.zeroChunks << " zero chunks (" << st.zeroWrong << " not 0), "
                  << st.different << " differing between workers, packets "
                  << Sum(w, &SwitchmlWorkerRecord::packetsSent) << " (expected "
                  << m_n * (chunks + pool) << "), retransmissions "
                  << Sum(w, &SwitchmlWorkerRecord::retransmissions) << std::endl;
        NS_TEST_ASSERT_MSG_EQ(st.missing, 0, "every worker has an output of E elements");
        NS_TEST_EXPECT_MSG_EQ(st.outside, 0, "elements outside the bound");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(st.worstRatio, 1.0, "worst err/bound");
        NS_TEST_EXPECT_MSG_GT(st.zeroChunks, 0, "the inputs have all-zero chunks");
        NS_TEST_EXPECT_MSG_EQ(st.zeroWrong, 0, "all-zero chunks sum to exactly 0");
        NS_TEST_EXPECT_MSG_EQ(st.different, 0, "every worker gets the same aggregate");
        for (uint32_t i = 0; i < m_n; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(w[i].bytesUp, 4 * elements, "bytes up of worker " << i);
            NS_TEST_EXPECT_MSG_EQ(w[i].bytesDown, 4 * elements, "bytes down of worker " << i);
            NS_TEST_EXPECT_MSG_EQ(w[i].packetsSent,
                                  chunks + pool,
                                  "one packet per chunk plus one probe per slot, worker " << i);
            NS_TEST_EXPECT_MSG_EQ(w[i].retransmissions, 0, "no retransmission without loss");
        }
    }

    uint32_t m_n;
    uint32_t m_k;
    uint32_t m_window;
};

/// 1a. The quantisation the bound above is built from, against its definition: a
/// block's exponent e has every |x| < 2^e and the largest >= 2^(e-1); Scale(e, n)
/// maps n values below 2^e, each rounded by at most 1/2, inside int32 and uses at
/// least half of its range.
class ScaleTestCase : public TestCase
{
public:
    ScaleTestCase()
        : TestCase("switchml quantisation: block exponent and scale against their definition")
    {
    }

private:
    void DoRun() override
    {
        const std::vector<std::pair<std::vector<float>, int>> blocks = {
            {{0.75F, -3.0F, 0.1F}, 2}, // 3 < 2^2, 3 >= 2^1
            {{1.0F}, 1},               // 1 < 2^1: the bound is strict
            {{-0.5F, 0.25F}, 0},
            {{1e-30F, 0.0F}, -99},  // 1e-30 is about 2^-99.7
            {{65504.0F, 1.0F}, 16}, // 2^15 < 65504 < 2^16
        };
        for (const auto& [values, expected] : blocks)
        {
            int8_t e = SwitchmlWorker::BlockExponent(values.data(), values.size());
            NS_TEST_EXPECT_MSG_EQ(int(e), expected, "exponent of a block led by " << values[0]);
        }
        const std::vector<float> zeros(8, 0.0F);
        NS_TEST_EXPECT_MSG_EQ(SwitchmlWorker::BlockExponent(zeros.data(), zeros.size()),
                              SwitchmlHeader::NO_EXPONENT,
                              "an all-zero block");
        NS_TEST_EXPECT_MSG_EQ(SwitchmlWorker::Scale(SwitchmlHeader::NO_EXPONENT, 4),
                              0.0,
                              "an all-zero block scales to 0");
        const double int32Max = 2147483647.0;
        for (uint32_t n : {2u, 3u, 8u, 16u, 1024u})
        {
            for (int e : {-40, -1, 0, 7, 30})
            {
                double scale = SwitchmlWorker::Scale(int8_t(e), n);
                double largest = std::ldexp(1.0, e) * scale; // a value just below 2^e, scaled
                NS_TEST_EXPECT_MSG_LT_OR_EQ(n * (largest + 0.5),
                                            int32Max,
                                            n << " workers, e " << e << ": the sum fits int32");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(n * largest,
                                            std::ldexp(1.0, 30),
                                            n << " workers, e " << e
                                              << ": at least half of int32's range used");
            }
        }
    }
};

/// 1b. Tensors of one element, one chunk, a chunk plus one: the edges of the chunking.
class TinyTensorTestCase : public TestCase
{
public:
    TinyTensorTestCase()
        : TestCase("switchml on tensors of 1, 255, 256, 257 and 1000 elements: within the bound")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t n = 3;
        const uint32_t k = 256;
        std::cout << "measured: " << GetName() << ":";
        for (uint64_t elements : {1u, 255u, 256u, 257u, 1000u})
        {
            auto in = RandomInputs(n, elements, k, 40 + elements);
            in[1][0] = 1000.0f; // a large value beside small ones in the first chunk
            SwitchmlSettings s;
            s.window = 2;
            JobRun run = RunJob(Star(n), Communicator::World(n), elements, s, in);
            NS_TEST_ASSERT_MSG_EQ(run.finished, true, "finished, " << elements << " elements");
            ErrorStats st = CheckAgainstBound(in, run.record.workers, k);
            uint64_t chunks = (elements + k - 1) / k;
            uint64_t pool = std::min<uint64_t>(2, chunks);
            std::cout << " E " << elements << ": worst err/bound " << st.worstRatio << ", packets "
                      << run.record.workers[0].packetsSent << ";";
            NS_TEST_ASSERT_MSG_EQ(st.missing, 0, "outputs, " << elements << " elements");
            NS_TEST_EXPECT_MSG_EQ(st.outside, 0, "within the bound, " << elements << " elements");
            NS_TEST_EXPECT_MSG_EQ(st.zeroWrong, 0, "zero chunks");
            NS_TEST_EXPECT_MSG_EQ(st.different, 0, "same aggregate everywhere");
            NS_TEST_EXPECT_MSG_EQ(run.record.workers[0].packetsSent,
                                  chunks + pool,
                                  "packets, " << elements << " elements");
            NS_TEST_EXPECT_MSG_EQ(run.record.workers[0].bytesDown, 4 * elements, "bytes down");
        }
        std::cout << std::endl;
    }
};

/// 2. Packet loss: still within the bound, retransmissions counted; ring exact on the same fabric.
class LossTestCase : public TestCase
{
public:
    LossTestCase(std::string kind, uint32_t n, double loss)
        : TestCase("switchml on a lossy " + kind + " of " + std::to_string(n) + " workers, loss "
                   + std::to_string(int(loss * 100 + 0.5))
                   + " %: within the bound, retransmissions counted")
        , m_kind(kind)
        , m_n(n)
        , m_loss(loss)
    {
    }

private:
    void DoRun() override
    {
        TopologyConfig t = m_kind == "star" ? Star(m_n) : LeafSpine();
        t.flowControl = "lossy";
        t.lossRate = m_loss;
        const uint32_t k = 256;
        uint64_t elements = uint64_t(k) * 400 + 5;
        auto in = RandomInputs(m_n, elements, k, 100 + m_n);
        SwitchmlSettings s;
        s.window = 64;
        s.timeout = MicroSeconds(50);
        JobRun run = RunJob(t, Communicator::World(m_n), elements, s, in);
        NS_TEST_ASSERT_MSG_EQ(run.finished, true, "the job finished despite the loss");
        ErrorStats st = CheckAgainstBound(in, run.record.workers, k);
        const auto& w = run.record.workers;
        uint64_t retx = Sum(w, &SwitchmlWorkerRecord::retransmissions);
        uint64_t packets = Sum(w, &SwitchmlWorkerRecord::packetsSent);
        std::cout << "measured: " << GetName() << ": worst err/bound " << st.worstRatio << ", "
                  << st.outside << " outside, " << st.zeroWrong << " zero chunks not 0, "
                  << st.different << " differing, packets " << packets << ", retransmissions "
                  << retx << " (" << 100.0 * retx / packets << " %), results resent "
                  << run.record.resultsResent << ", time "
                  << (run.record.end - run.record.start).GetSeconds() * 1e6 << " us";
        NS_TEST_ASSERT_MSG_EQ(st.missing, 0, "every worker has an output");
        NS_TEST_EXPECT_MSG_EQ(st.outside, 0, "elements outside the bound");
        NS_TEST_EXPECT_MSG_EQ(st.zeroWrong, 0, "all-zero chunks sum to exactly 0");
        NS_TEST_EXPECT_MSG_EQ(st.different, 0, "every worker gets the same aggregate");
        NS_TEST_EXPECT_MSG_GT(retx, 0, "retransmissions counted");
        NS_TEST_EXPECT_MSG_GT(run.record.resultsResent, 0, "lost results resent by the switch");
        for (uint32_t i = 0; i < m_n; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(w[i].bytesDown, 4 * elements, "each result taken once");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(w[i].bytesUp, 4 * elements, "bytes up");
        }
        // determinism: the same configuration and seed, the same losses and result
        JobRun again = RunJob(t, Communicator::World(m_n), elements, s, in);
        bool same = again.finished && again.record.end == run.record.end
                    && Sum(again.record.workers, &SwitchmlWorkerRecord::retransmissions) == retx;
        for (uint32_t i = 0; same && i < m_n; ++i)
        {
            same = again.record.workers[i].output == w[i].output;
        }
        std::cout << ", the same again " << same;
        NS_TEST_EXPECT_MSG_EQ(same, true, "the same seed gives the same run");
        if (m_kind == "star")
        {
            // the ring on the same lossy fabric (endpoint ACK/retransmission): exact
            CollectiveConfig c = Collective(t, "ring", 256 << 10);
            c.functional = true;
            CollectiveResult ring = RunCollective(c);
            std::cout << ", ring on the same fabric: correct " << ring.rows[0].correct
                      << ", max error " << ring.rows[0].maxError;
            NS_TEST_EXPECT_MSG_EQ(ring.rows[0].checked, true, "ring checked");
            NS_TEST_EXPECT_MSG_EQ(ring.rows[0].correct, true, "ring exact on the lossy fabric");
        }
        std::cout << std::endl;
    }

    std::string m_kind;
    uint32_t m_n;
    double m_loss;
};

/// 3. Dense time S_wire/B + RTT, flat in N; ring/switchml = 2(N-1)/N.
class DenseTimeTestCase : public TestCase
{
public:
    DenseTimeTestCase()
        : TestCase("dense switchml time is S_wire over B plus one round trip, flat for 4, 8, 16 "
                   "workers; ring over switchml is 2(N-1) over N")
    {
    }

private:
    void DoRun() override
    {
        const double s = 64 << 20;
        const uint32_t k = 256;
        double expected = SWire(s, k) * 8 / B + Rtt(PacketWire(k));
        std::vector<double> times;
        for (uint32_t n : {4u, 8u, 16u})
        {
            CollectiveResult sw = RunCollective(Collective(Star(n), "switchml", 64 << 20));
            CollectiveResult ring = RunCollective(Collective(Star(n), "ring", 64 << 20));
            const CollectiveRow& r = sw.rows[0];
            double t = r.time;
            times.push_back(t);
            double ratio = ring.rows[0].time / t;
            double ratioWant = 2.0 * (n - 1) / n;
            std::cout << "measured: N " << n << ": switchml " << t * 1e6 << " us, formula "
                      << expected * 1e6 << " us (error " << 100 * (t - expected) / expected
                      << " %), ring " << ring.rows[0].time * 1e6 << " us, ring/switchml " << ratio
                      << " against 2(N-1)/N = " << ratioWant << " (error "
                      << 100 * (ratio - ratioWant) / ratioWant << " %), packets " << r.packets
                      << ", bytes up/down per worker " << r.bytesUp << "/" << r.bytesDown
                      << ", aggregator utilisation " << r.aggregatorUtilisation << std::endl;
            NS_TEST_EXPECT_MSG_EQ(r.algorithm, "switchml", "the algorithm that ran");
            NS_TEST_EXPECT_MSG_EQ_TOL(t, expected, 0.05 * expected, "time, N " << n);
            NS_TEST_EXPECT_MSG_EQ_TOL(ratio, ratioWant, 0.05 * ratioWant, "ring/switchml, N " << n);
            NS_TEST_EXPECT_MSG_EQ(r.bytesUp, s, "each worker sends S");
            NS_TEST_EXPECT_MSG_EQ(r.bytesDown, s, "each worker receives S");
            NS_TEST_EXPECT_MSG_EQ(r.retransmissions, 0, "no retransmission");
            NS_TEST_EXPECT_MSG_GT(r.aggregatorUtilisation, 0.95, "the downlinks are busy");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.aggregatorUtilisation, 1.0 + 1e-9, "a fraction");
        }
        double hi = *std::max_element(times.begin(), times.end());
        double lo = *std::min_element(times.begin(), times.end());
        std::cout << "measured: flatness max/min over N = 4, 8, 16: " << hi / lo << std::endl;
        NS_TEST_EXPECT_MSG_LT_OR_EQ(hi / lo, 1.03, "flat in N");
    }
};

/// 4. Window-limited throughput, and saturation with a large pool.
class WindowTestCase : public TestCase
{
public:
    WindowTestCase()
        : TestCase("with a small pool throughput is window x packet over RTT; a large pool "
                   "saturates the link's payload rate")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t n = 4;
        const uint32_t k = 256;
        double packet = 4.0 * k;
        // worker -> switch -> worker: one host link up and one down, each a
        // serialisation of the whole packet (store and forward) and a propagation
        double rtt = (PacketWire(k) * 8 / B + D) + (PacketWire(k) * 8 / B + D);
        double payloadRate = B / 8 * packet / PacketWire(k);
        for (uint32_t pool : {1u, 2u, 4u, 8u, 16u, 64u, 256u})
        {
            uint64_t bytes = pool <= 8 ? (1 << 20) : (16 << 20);
            CollectiveConfig c = Collective(Star(n), "switchml", bytes);
            c.poolSlots = pool;
            CollectiveResult r = RunCollective(c);
            double thr = bytes / r.rows[0].time;
            double windowRate = pool * packet / rtt;
            double want = std::min(windowRate, payloadRate);
            std::cout << "measured: pool " << pool << ": throughput " << thr / 1e9
                      << " GB/s, window x packet / RTT " << windowRate / 1e9 << " GB/s (RTT "
                      << rtt * 1e9 << " ns), payload rate " << payloadRate / 1e9 << " GB/s, error "
                      << 100 * (thr - want) / want << " %" << std::endl;
            NS_TEST_EXPECT_MSG_EQ_TOL(thr, want, 0.05 * want, "throughput with pool " << pool);
        }
    }
};

/// 5. Hierarchical aggregation on a leaf-spine.
class HierarchicalTestCase : public TestCase
{
public:
    HierarchicalTestCase()
        : TestCase("hierarchical switchml on a 4x4 leaf-spine: within the bound, time S_wire "
                   "over B plus the round trip through leaf and spine")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t k = 256;
        TopologyConfig t = LeafSpine();
        // functional, small integers (amplitude 4: block exponent 3), whole
        // fabric, an uneven spread over the leaves, and one leaf alone
        for (std::string ranks : {"", "0,1,2,5,9,10,11,15", "4-7"})
        {
            CollectiveConfig c = Collective(t, "switchml", 64 << 10);
            c.functional = true;
            c.ranks = ranks;
            CollectiveResult r = RunCollective(c);
            uint32_t n = r.ranks;
            double amplitude = std::max(1.0, std::min(4.0, 128.0 / n));
            int e = 0;
            std::frexp(amplitude, &e);
            double bound = n * 0.5 / SwitchmlWorker::Scale(e, n) + n * amplitude * 0x1.0p-24;
            std::cout << "measured: leaf-spine functional, ranks '" << ranks << "' (" << n
                      << "): max error " << r.rows[0].maxError << ", bound " << bound
                      << ", bit-exact " << r.rows[0].correct << std::endl;
            NS_TEST_EXPECT_MSG_EQ(r.rows[0].checked, true, "checked");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.rows[0].maxError, bound, "within the bound");
        }
        // random inputs, whole fabric
        {
            uint32_t n = 16;
            uint64_t elements = uint64_t(k) * 200 + 3;
            auto in = RandomInputs(n, elements, k, 7);
            SwitchmlSettings s;
            s.window = 32;
            JobRun run = RunJob(t, Communicator::World(n), elements, s, in);
            NS_TEST_ASSERT_MSG_EQ(run.finished, true, "finished");
            ErrorStats st = CheckAgainstBound(in, run.record.workers, k);
            std::cout << "measured: leaf-spine random inputs: worst err/bound " << st.worstRatio
                      << ", " << st.outside << " outside, " << st.zeroWrong
                      << " zero chunks not 0, " << st.different << " differing" << std::endl;
            NS_TEST_ASSERT_MSG_EQ(st.missing, 0, "outputs");
            NS_TEST_EXPECT_MSG_EQ(st.outside, 0, "within the bound");
            NS_TEST_EXPECT_MSG_EQ(st.zeroWrong, 0, "zero chunks");
            NS_TEST_EXPECT_MSG_EQ(st.different, 0, "same aggregate everywhere");
        }
        // time
        const double s = 16 << 20;
        double bf = B * 4 / 2; // non-blocking: 4 hosts of 100 Gbps over 2 spines
        double rttHier = Rtt(PacketWire(k)) + Rtt(PacketWire(k), bf, D);
        double expected = SWire(s, k) * 8 / B + rttHier;
        CollectiveResult r = RunCollective(Collective(t, "switchml", 16 << 20));
        double time = r.rows[0].time;
        std::cout << "measured: leaf-spine 16 workers, 16 MiB: " << time * 1e6 << " us, formula "
                  << expected * 1e6 << " us (RTT through leaf and spine " << rttHier * 1e9
                  << " ns), error " << 100 * (time - expected) / expected << " %" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(time, expected, 0.05 * expected, "hierarchical time");
    }
};

/// 6. Jobs sharing one switch's slots.
class SharedSwitchTestCase : public TestCase
{
public:
    SharedSwitchTestCase()
        : TestCase("two jobs share one switch; a third whose pool does not fit is refused")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t k = 256;
        const uint32_t window = 64;
        uint64_t elements = uint64_t(k) * 300;
        TopologyConfig t = Star(8);
        Communicator a;
        Communicator b;
        a.name = "a";
        b.name = "b";
        a.ranks = {0, 1, 2, 3};
        b.ranks = {7, 5, 6, 4}; // not in rank order
        auto inA = RandomInputs(4, elements, k, 21);
        auto inB = RandomInputs(4, elements, k, 22);

        SimulationScope scope(1, 1);
        Config::SetDefault("ns3::SwitchmlProgram::Slots", UintegerValue(2 * window + window / 2));
        Cluster cluster = BuildCluster(t);
        std::vector<JobRun> runs(2);
        for (uint16_t j = 0; j < 2; ++j)
        {
            SwitchmlSettings s;
            s.job = j + 1;
            s.window = window;
            SwitchmlHelper::Start(cluster,
                                  *MakeTopology(t),
                                  j == 0 ? a : b,
                                  elements,
                                  s,
                                  j == 0 ? inA : inB,
                                  SwitchmlHelper::DoneCallback(
                                      [&runs, j](const SwitchmlJobRecord& r)
                                      {
                                          runs[j].record = r;
                                          runs[j].finished = true;
                                      }));
        }
        // a third job: its pool of 64 does not fit the 32 slots left
        Communicator c;
        c.name = "c";
        c.ranks = {0, 4};
        SwitchmlSettings third;
        third.job = 3;
        third.window = window;
        std::string tooBig = InvalidArgument(
            [&]()
            {
                SwitchmlHelper::Start(cluster, *MakeTopology(t), c, elements, third, {}, {});
            });
        // a job id already on the switch
        SwitchmlSettings again;
        again.job = 1;
        again.window = 4;
        std::string twice = InvalidArgument(
            [&]()
            {
                SwitchmlHelper::Start(cluster, *MakeTopology(t), c, elements, again, {}, {});
            });
        Simulator::Run();
        std::cout << "measured: third job refused: '" << tooBig << "'; job id twice: '" << twice
                  << "'";
        NS_TEST_EXPECT_MSG_NE(tooBig.find("window"), std::string::npos, "names the window");
        NS_TEST_EXPECT_MSG_NE(tooBig.find("slots"), std::string::npos, "names the slots");
        NS_TEST_EXPECT_MSG_NE(twice.find("job"), std::string::npos, "names the job");
        for (uint32_t j = 0; j < 2; ++j)
        {
            NS_TEST_ASSERT_MSG_EQ(runs[j].finished, true, "job " << j + 1 << " finished");
            ErrorStats st = CheckAgainstBound(j == 0 ? inA : inB, runs[j].record.workers, k);
            double time = (runs[j].record.end - runs[j].record.start).GetSeconds();
            std::cout << "; job " << j + 1 << ": worst err/bound " << st.worstRatio << ", "
                      << st.outside << " outside, time " << time * 1e6 << " us";
            NS_TEST_EXPECT_MSG_EQ(st.missing, 0, "outputs");
            NS_TEST_EXPECT_MSG_EQ(st.outside, 0, "within the bound");
            NS_TEST_EXPECT_MSG_EQ(st.zeroWrong, 0, "zero chunks");
            NS_TEST_EXPECT_MSG_EQ(st.different, 0, "same aggregate everywhere");
            // disjoint host links: each job at the line rate, as if alone; on a
            // tensor this small the probe round (header-only packets that agree
            // on the first exponents) is part of the time
            double expected
                = SWire(4.0 * elements, k) * 8 / B + Rtt(PacketWire(k)) + Rtt(PacketWire(0));
            NS_TEST_EXPECT_MSG_EQ_TOL(time, expected, 0.05 * expected, "job " << j + 1 << " time");
        }
        std::cout << std::endl;
    }
};

/// 6b. Two jobs on the leaves of a leaf-spine, each with its own root spine.
class SharedLeafSpineTestCase : public TestCase
{
public:
    SharedLeafSpineTestCase()
        : TestCase("two hierarchical jobs share the leaves of a leaf-spine: both within the "
                   "bound, each at the line rate")
    {
    }

private:
    void DoRun() override
    {
        const uint32_t k = 256;
        uint64_t elements = uint64_t(k) * 300;
        TopologyConfig t = LeafSpine();
        std::vector<Communicator> comms(2);
        comms[0].ranks = {0, 1, 4, 5, 12};
        comms[1].ranks = {2, 3, 6, 7, 8, 13};
        std::vector<std::vector<std::vector<float>>> in;
        in.push_back(RandomInputs(5, elements, k, 31));
        in.push_back(RandomInputs(6, elements, k, 32));
        SimulationScope scope(1, 1);
        Cluster cluster = BuildCluster(t);
        std::vector<JobRun> runs(2);
        for (uint16_t j = 0; j < 2; ++j)
        {
            SwitchmlSettings s;
            s.job = j + 1; // root spines 1 and 0
            s.window = 64;
            SwitchmlHelper::Start(cluster,
                                  *MakeTopology(t),
                                  comms[j],
                                  elements,
                                  s,
                                  in[j],
                                  SwitchmlHelper::DoneCallback(
                                      [&runs, j](const SwitchmlJobRecord& r)
                                      {
                                          runs[j].record = r;
                                          runs[j].finished = true;
                                      }));
        }
        Simulator::Run();
        double bf = B * 4 / 2;
        // through leaf and spine, and the probe round (header-only packets) first
        double expected = SWire(4.0 * elements, k) * 8 / B + Rtt(PacketWire(k))
                          + Rtt(PacketWire(k), bf, D) + Rtt(PacketWire(0))
                          + Rtt(PacketWire(0), bf, D);
        std::cout << "measured: " << GetName() << ":";
        for (uint32_t j = 0; j < 2; ++j)
        {
            NS_TEST_ASSERT_MSG_EQ(runs[j].finished, true, "job " << j + 1 << " finished");
            ErrorStats st = CheckAgainstBound(in[j], runs[j].record.workers, k);
            double time = (runs[j].record.end - runs[j].record.start).GetSeconds();
            std::cout << " job " << j + 1 << ": worst err/bound " << st.worstRatio << ", "
                      << st.outside << " outside, time " << time * 1e6 << " us (formula "
                      << expected * 1e6 << " us);";
            NS_TEST_EXPECT_MSG_EQ(st.missing, 0, "outputs");
            NS_TEST_EXPECT_MSG_EQ(st.outside, 0, "within the bound");
            NS_TEST_EXPECT_MSG_EQ(st.zeroWrong, 0, "zero chunks");
            NS_TEST_EXPECT_MSG_EQ(st.different, 0, "same aggregate everywhere");
            NS_TEST_EXPECT_MSG_EQ_TOL(time, expected, 0.05 * expected, "job " << j + 1 << " time");
        }
        std::cout << std::endl;
    }
};

/// 7. Bad input names its field.
/// Iterations: each all-reduce starts the next one from its done callback,
/// with the same job id on the same workers (a training loop does this), for
/// SwitchML and for OmniReduce in the switch.
class BackToBackTestCase : public TestCase
{
public:
    BackToBackTestCase()
        : TestCase("three all-reduces back to back on the same workers and job id")
    {
    }

private:
    void DoRun() override
    {
        SimulationScope scope(1, 1);
        TopologyConfig t;
        t.kind = "star";
        t.hosts = 4;
        t.mtu = 9000;
        Cluster cluster = BuildCluster(t);
        Communicator comm = Communicator::World(4);
        uint32_t switchmlDone = 0;
        uint32_t omniDone = 0;
        std::function<void()> nextSwitchml = [&]()
        {
            SwitchmlHelper::Start(cluster,
                                  *MakeTopology(t),
                                  comm,
                                  4096,
                                  SwitchmlSettings(),
                                  {},
                                  SwitchmlHelper::DoneCallback(
                                      [&](const SwitchmlJobRecord&)
                                      {
                                          if (++switchmlDone < 3)
                                          {
                                              nextSwitchml();
                                          }
                                      }));
        };
        nextSwitchml();
        Simulator::Run();
        OmniReduceSettings o;
        o.placement = "switch";
        std::vector<std::vector<bool>> dense(4, std::vector<bool>(16, true));
        std::function<void()> nextOmni = [&]()
        {
            OmniReduceHelper::Start(cluster,
                                    *MakeTopology(t),
                                    comm,
                                    4096,
                                    o,
                                    dense,
                                    {},
                                    OmniReduceHelper::DoneCallback(
                                        [&](const OmniReduceJobRecord&)
                                        {
                                            if (++omniDone < 3)
                                            {
                                                nextOmni();
                                            }
                                        }));
        };
        nextOmni();
        Simulator::Run();
        std::cout << "measured: back to back: switchml " << switchmlDone << " of 3, omnireduce "
                  << omniDone << " of 3; switch programs left "
                  << cluster.switches[0]->GetNPrograms() << std::endl;
        NS_TEST_ASSERT_MSG_EQ(switchmlDone, 3, "every switchml iteration finished");
        NS_TEST_ASSERT_MSG_EQ(omniDone, 3, "every omnireduce iteration finished");
        // switchml's program stays on the switch and serves every job (one, not three);
        // each omnireduce job takes its program away when it is done
        NS_TEST_ASSERT_MSG_EQ(cluster.switches[0]->GetNPrograms(), 1, "programs left");
        NS_TEST_EXPECT_MSG_NE(DynamicCast<SwitchmlProgram>(cluster.switches[0]->GetProgram(0)),
                              nullptr,
                              "the one left is switchml's");
    }
};

class BadInputTestCase : public TestCase
{
public:
    BadInputTestCase()
        : TestCase("bad switchml input: std::invalid_argument naming the field")
    {
    }

private:
    void Expect(const std::string& what, const CollectiveConfig& c, const std::string& field)
    {
        std::string msg = InvalidArgument(
            [&]()
            {
                RunCollective(c);
            });
        std::cout << "measured: " << what << ": '" << msg << "'" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(
            msg.rfind(field + ":", 0), std::size_t(0), what << ": message starts with the field");
    }

    void DoRun() override
    {
        CollectiveConfig base = Collective(Star(4), "switchml", 1 << 20);
        CollectiveConfig c = base;
        c.topology.kind = "mesh";
        Expect("switchml on a mesh", c, "algorithm");
        c = base;
        c.topology.kind = "torus";
        Expect("switchml on a torus", c, "algorithm");
        c = base;
        c.type = "fp16";
        Expect("fp16", c, "type");
        c = base;
        c.packetElements = (4096 - 40) / 4 + 1; // 1015 values: 4100 bytes
        Expect("packet-elements 1015 on mtu 4096", c, "packet-elements");
        c = base;
        c.packetElements = 0;
        Expect("packet-elements 0", c, "packet-elements");
        c = base;
        c.poolSlots = 0;
        Expect("pool-slots 0", c, "pool-slots");
        c = base;
        c.aggregationTimeout = "0ms";
        Expect("aggregation-timeout 0", c, "aggregation-timeout");
        // the largest packet that fits runs
        c = base;
        c.packetElements = (4096 - 40) / 4;
        c.minBytes = c.maxBytes = 4 * 1014 * 3;
        c.functional = true;
        CollectiveResult r = RunCollective(c);
        std::cout << "measured: packet-elements 1014 on mtu 4096 runs: max error "
                  << r.rows[0].maxError << std::endl;
        NS_TEST_EXPECT_MSG_EQ(r.rows[0].checked, true, "1014 values fit");
        NS_TEST_EXPECT_MSG_EQ(r.rows[0].correct, true, "1014 values: within the bound");
        // the helper's own checks
        SimulationScope scope(1, 1);
        TopologyConfig t = Star(4);
        Cluster cluster = BuildCluster(t);
        SwitchmlSettings s;
        s.window = 0;
        std::string msg = InvalidArgument(
            [&]()
            {
                SwitchmlHelper::Start(
                    cluster, *MakeTopology(t), Communicator::World(4), 1024, s, {}, {});
            });
        std::cout << "measured: helper window 0: '" << msg << "'" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(msg.rfind("window:", 0), std::size_t(0), "window 0");
        s = SwitchmlSettings();
        s.elementsPerPacket = 1015;
        msg = InvalidArgument(
            [&]()
            {
                SwitchmlHelper::Start(
                    cluster, *MakeTopology(t), Communicator::World(4), 1024, s, {}, {});
            });
        std::cout << "measured: helper 1015 elements per packet: '" << msg << "'" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(
            msg.rfind("elements-per-packet:", 0), std::size_t(0), "too many elements");
    }
};

} // namespace

class AggregationSwitchmlTestSuite : public TestSuite
{
public:
    AggregationSwitchmlTestSuite()
        : TestSuite("dlnet-aggregation-switchml", UNIT)
    {
        AddTestCase(new ExactnessTestCase(2, 256, 16), TestCase::QUICK);
        AddTestCase(new ExactnessTestCase(3, 64, 7), TestCase::QUICK);
        AddTestCase(new ExactnessTestCase(4, 256, 256), TestCase::QUICK);
        AddTestCase(new ExactnessTestCase(8, 256, 16), TestCase::QUICK);
        AddTestCase(new ExactnessTestCase(16, 64, 32), TestCase::QUICK);
        AddTestCase(new ScaleTestCase, TestCase::QUICK);
        AddTestCase(new TinyTensorTestCase, TestCase::QUICK);
        AddTestCase(new LossTestCase("star", 2, 0.01), TestCase::QUICK);
        AddTestCase(new LossTestCase("star", 4, 0.05), TestCase::QUICK);
        AddTestCase(new LossTestCase("star", 8, 0.01), TestCase::QUICK);
        AddTestCase(new LossTestCase("star", 16, 0.05), TestCase::QUICK);
        AddTestCase(new LossTestCase("leaf-spine", 16, 0.01), TestCase::QUICK);
        AddTestCase(new DenseTimeTestCase, TestCase::QUICK);
        AddTestCase(new WindowTestCase, TestCase::QUICK);
        AddTestCase(new HierarchicalTestCase, TestCase::QUICK);
        AddTestCase(new SharedSwitchTestCase, TestCase::QUICK);
        AddTestCase(new SharedLeafSpineTestCase, TestCase::QUICK);
        AddTestCase(new BackToBackTestCase, TestCase::QUICK);
        AddTestCase(new BadInputTestCase, TestCase::QUICK);
    }
};

static AggregationSwitchmlTestSuite g_aggregationSwitchmlTestSuite;
