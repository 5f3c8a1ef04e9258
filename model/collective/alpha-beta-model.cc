/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "alpha-beta-model.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AlphaBetaModel");

namespace
{

uint32_t
CeilLog2(uint32_t n)
{
    uint32_t k = 0;
    while ((1u << k) < n)
    {
        ++k;
    }
    return k;
}

/// Ring reduce-scatter or all-gather of S bytes over m ranks.
double
RingHalf(uint32_t m, double s, double a, double b)
{
    return m <= 1 ? 0 : (m - 1) * a + (m - 1) * s / m / b;
}

} // namespace

NetworkModel
WithPacket(const NetworkModel& model, double packetBytes)
{
    NetworkModel m = model;
    if (model.packetBytes > 0 && packetBytes < model.packetBytes)
    {
        double f = std::max(0.0, packetBytes) / model.packetBytes;
        m.alpha = model.alphaBase + f * (model.alpha - model.alphaBase);
        m.alpha1 = model.alpha1Base + f * (model.alpha1 - model.alpha1Base);
        m.alpha2 = model.alpha2Base + f * (model.alpha2 - model.alpha2Base);
        m.sendAlpha = model.sendAlphaBase + f * (model.sendAlpha - model.sendAlphaBase);
    }
    m.packetBytes = 0;
    return m;
}

double
PredictCollectiveTime(CollectiveOp op,
                      CollectiveAlgorithm alg,
                      uint32_t n,
                      uint64_t bytes,
                      uint32_t chunks,
                      const NetworkModel& m)
{
    if (m.packetBytes > 0 && n > 1)
    {
        // No algorithm here sends a message smaller than S / (2 c n) (a hierarchical
        // step on both ring directions of a grid), and a message below a packet is
        // stored and forwarded in its own bytes, not an Mtu's: the alphas are those of
        // the smallest message. A send/receive sends S in c messages of S / c.
        const double c = std::max<uint32_t>(chunks, 1);
        double message
            = op == CollectiveOp::SEND_RECV ? double(bytes) / c : double(bytes) / (2.0 * c * n);
        return PredictCollectiveTime(
            op,
            alg,
            n,
            bytes,
            chunks,
            WithPacket(m, std::ceil(message) + FabricHeader::SERIALIZED_SIZE));
    }
    if (op != CollectiveOp::SEND_RECV
        && (m.launch > 0 || m.libraryStep > 0 || m.libraryStep1 > 0 || m.libraryStep2 > 0))
    {
        // The library's step latency rides on every alpha of a collective's steps. In
        // several chunks the other chunks' transfers hide part of it, so the bound is
        // the larger of the network's and the first chunk's alone with the latencies.
        // (The engine launches a collective of one rank too.)
        NetworkModel plain = m;
        plain.launch = plain.libraryStep = plain.libraryStep1 = plain.libraryStep2 = 0;
        NetworkModel library = plain;
        library.alpha = m.alpha + m.libraryStep;
        library.alpha1 = (m.alpha1 > 0 ? m.alpha1 : m.alpha)
                         + (m.libraryStep1 > 0 ? m.libraryStep1 : m.libraryStep);
        library.alpha2 = (m.alpha2 > 0 ? m.alpha2 : m.alpha)
                         + (m.libraryStep2 > 0 ? m.libraryStep2 : m.libraryStep);
        const uint32_t c = std::max<uint32_t>(chunks, 1);
        if (c == 1)
        {
            return m.launch + PredictCollectiveTime(op, alg, n, bytes, 1, library);
        }
        return m.launch
               + std::max(PredictCollectiveTime(op, alg, n, bytes, c, plain),
                          PredictCollectiveTime(op, alg, n, bytes / c, 1, library));
    }
    double s = double(bytes);
    double a = m.alpha;
    double b = m.bandwidth;
    double c = std::max<uint32_t>(chunks, 1);
    if (n <= 1)
    {
        return 0;
    }
    if (op == CollectiveOp::SEND_RECV)
    {
        return (m.sendAlpha > 0 ? m.sendAlpha : a) + s / b;
    }
    uint32_t p = 1u << (CeilLog2(n + 1) - 1); // largest power of two <= n
    bool pow2 = p == n;
    uint32_t logp = CeilLog2(p);
    switch (alg)
    {
        case CollectiveAlgorithm::RING:
            switch (op)
            {
                case CollectiveOp::ALL_REDUCE:
                    return 2 * RingHalf(n, s, a, b);
                case CollectiveOp::BROADCAST:
                case CollectiveOp::REDUCE:
                    // a chain of n-1 links, the buffer cut into c chunks
                    return (n - 2 + c) * (a + s / c / b);
                default: // reduce-scatter, all-gather, all-to-all (pairwise)
                    return RingHalf(n, s, a, b);
            }
        case CollectiveAlgorithm::DIRECT:
            switch (op)
            {
                case CollectiveOp::ALL_REDUCE:
                    return 2 * (a + (n - 1) * s / n / b);
                case CollectiveOp::BROADCAST:
                case CollectiveOp::REDUCE:
                    return a + (n - 1) * s / b; // the root's link carries n-1 copies
                default:
                    return a + (n - 1) * s / n / b;
            }
        case CollectiveAlgorithm::HALVING_DOUBLING:
        {
            // the fix for n not a power of two: one extra exchange of S before and after
            double fold = pow2 ? 0 : a + s / b;
            double half = logp * a + (p - 1) * s / p / b;
            switch (op)
            {
                case CollectiveOp::ALL_REDUCE:
                    return 2 * half + 2 * fold;
                case CollectiveOp::BROADCAST:
                case CollectiveOp::REDUCE:
                    return CeilLog2(n) * (a + s / b);
                default: // reduce-scatter, all-gather: the fold, and a redistribution of S/n
                    return half + fold + (pow2 ? 0 : a + s / n / b);
            }
        }
        case CollectiveAlgorithm::DOUBLE_BINARY_TREE:
        {
            // Two trees on half the data each, pipelined in c chunks. A rank
            // that is an inner node of one tree (two children) and a leaf of
            // the other sends 2S in all, as in a ring; the first chunk also
            // pays the depth of the tree, up and down.
            double depth = std::floor(std::log2(double(n)));
            double chunk = s / 2 / c;
            double fill = depth * (a + chunk / b);
            return (op == CollectiveOp::ALL_REDUCE ? 2 * fill : fill) + 2 * s / b;
        }
        case CollectiveAlgorithm::HIERARCHICAL:
        case CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE:
        {
            const CollectiveGrid& g = m.grid;
            double b1 = m.dim1Bandwidth > 0 ? m.dim1Bandwidth : b;
            double b2 = m.dim2Bandwidth > 0 ? m.dim2Bandwidth : b;
            double a2 = m.alpha2 > 0 ? m.alpha2 : a;
            uint32_t d1 = g.dim1;
            uint32_t d2 = g.dim2;
            double a1 = m.alpha1 > 0 ? m.alpha1 : a;
            if (alg == CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE && g.dim2First)
            {
                std::swap(d1, d2);
                std::swap(b1, b2);
                std::swap(a1, a2);
            }
            double lanes = g.bidirectional ? 2 : 1;
            double sl = s / lanes;
            return 2 * RingHalf(d1, sl, a1, b1) + 2 * RingHalf(d2, sl / d1, a2, b2);
        }
        default:
            return std::numeric_limits<double>::infinity();
    }
}

namespace
{

/// Mean alpha between ring neighbours of a group: a step's data dependency
/// passes from each rank to the next, so over the steps a ring pays every
/// neighbour's cost in turn.
double
RingAlpha(const Topology& t,
          const std::vector<uint32_t>& group,
          double switchLatency,
          double packetBits)
{
    if (group.size() < 2)
    {
        return 0;
    }
    double sum = 0;
    for (std::size_t i = 0; i < group.size(); ++i)
    {
        sum += PathLatency(t.GetPath(group[i], group[(i + 1) % group.size()]),
                           switchLatency,
                           packetBits,
                           t.GetRankRate());
    }
    return sum / group.size();
}

/// Mean library step latency between ring neighbours of a group, as RingAlpha
/// averages the network's: NetworkStepLatency for a neighbour on another host.
double
RingLibraryStep(const Topology& t,
                const std::vector<uint32_t>& group,
                const LibraryLatencies& library)
{
    if (group.size() < 2)
    {
        return 0;
    }
    double sum = 0;
    for (std::size_t i = 0; i < group.size(); ++i)
    {
        sum += library.StepOf(t.GetHostOf(group[i]) != t.GetHostOf(group[(i + 1) % group.size()]));
    }
    return sum / group.size();
}

} // namespace

NetworkModel
MakeNetworkModel(const Topology& t,
                 const std::vector<uint32_t>& ranks,
                 double switchLatency,
                 uint32_t mtu,
                 const LibraryLatencies& library)
{
    double bits = mtu * 8.0;
    double efficiency = double(mtu - FabricHeader::SERIALIZED_SIZE) / mtu;
    NetworkModel m;
    m.bandwidth = t.GetRankRate() * efficiency / 8;
    m.linkRate = t.GetRankRate() / 8;
    m.alpha = RingAlpha(t, ranks, switchLatency, bits);
    m.alphaBase = RingAlpha(t, ranks, switchLatency, 0);
    m.packetBytes = mtu;
    if (ranks.size() >= 2)
    {
        const auto path = t.GetPath(ranks[0], ranks[1]);
        m.sendAlpha = PathLatency(path, switchLatency, bits, t.GetRankRate());
        m.sendAlphaBase = PathLatency(path, switchLatency, 0, t.GetRankRate());
    }
    m.launch = library.launch;
    m.libraryStep = m.libraryStep1 = m.libraryStep2 = RingLibraryStep(t, ranks, library);
    TopologyGrid grid = t.GetGrid();
    bool world = ranks.size() == t.GetNRanks();
    for (uint32_t i = 0; world && i < ranks.size(); ++i)
    {
        world = ranks[i] == i;
    }
    if (!world || grid.dim1 == 0)
    {
        return m;
    }
    m.grid.dim1 = grid.dim1;
    m.grid.dim2 = grid.dim2;
    m.grid.bidirectional = grid.bidirectional;
    // localBWAware: the dimension whose ranks have more bandwidth goes first
    m.grid.dim2First = grid.dim2Rate > grid.dim1Rate;
    std::vector<uint32_t> row;
    std::vector<uint32_t> col;
    for (uint32_t x = 0; x < grid.dim1; ++x)
    {
        row.push_back(x);
    }
    for (uint32_t y = 0; y < grid.dim2; ++y)
    {
        col.push_back(y * grid.dim1);
    }
    m.alpha1 = RingAlpha(t, row, switchLatency, bits);
    m.alpha2 = RingAlpha(t, col, switchLatency, bits);
    m.alpha1Base = RingAlpha(t, row, switchLatency, 0);
    m.alpha2Base = RingAlpha(t, col, switchLatency, 0);
    m.libraryStep1 = RingLibraryStep(t, row, library);
    m.libraryStep2 = RingLibraryStep(t, col, library);
    m.dim1Bandwidth = grid.dim1Rate * efficiency / 8;
    m.dim2Bandwidth = grid.dim2Rate * efficiency / 8;
    return m;
}

} // namespace ns3
