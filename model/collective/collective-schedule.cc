/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-schedule.h"

#include "ns3/config-parse.h"
#include "ns3/interrupt.h"
#include "ns3/log.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveSchedule");

namespace
{

/// A byte range of the buffer.
struct Range
{
    uint64_t offset;
    uint64_t bytes;
};

/// Part k of n of a range (as Split cuts it).
Range
Part(Range r, uint32_t k, uint32_t n, uint32_t es)
{
    uint64_t elements = r.bytes / es;
    uint64_t lo = elements * k / n;
    uint64_t hi = elements * (k + 1) / n;
    return Range{r.offset + lo * es, (hi - lo) * es};
}

/// Split a range into n element-aligned parts (the first ones get the remainder last).
std::vector<Range>
Split(Range r, uint32_t n, uint32_t es)
{
    std::vector<Range> parts(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        parts[i] = Part(r, i, n, es);
    }
    return parts;
}

/// \return the union of parts [lo, hi) (contiguous)
Range
Span(const std::vector<Range>& parts, uint32_t lo, uint32_t hi)
{
    uint64_t begin = parts[lo].offset;
    uint64_t end = parts[hi - 1].offset + parts[hi - 1].bytes;
    return Range{begin, end - begin};
}

/**
 * The entries (steps and messages) one BuildCollectiveLanes call may store, at about 60 bytes
 * each: the hierarchical all-reduce of 8192 GPUs (8 x 1024) stores 50 million (3.2 GB at flow
 * level); the pairwise all-to-all 3 n^2, so up to about 4729 ranks.
 */
constexpr uint64_t MAX_SCHEDULE_ENTRIES = 1ull << 26;

/**
 * The messages the steps of one BuildCollectiveLanes call may post at once, counted as each
 * rank's largest step's sends summed over the ranks (a lower bound: a rank may post its next
 * step while earlier sends are queued): a run holds them, about 2 kB each at packet level (a
 * direct all-reduce on 2000 ranks, 4 million by this count, took 8.1 GB).
 */
constexpr uint64_t MAX_MESSAGES_AT_ONCE = 1ull << 21;

/// What one BuildCollectiveLanes call has stored and posts at once, against the limits.
struct ScheduleBudget
{
    CollectiveOp op;
    CollectiveAlgorithm algorithm;
    uint32_t ranks;
    uint64_t entries{0};
    uint64_t atOnce{0};

    /// What to change: an algorithm that implements op with fewer messages, or the ranks.
    /// \param stored the schedule's size is the problem (else: the messages posted at once)
    std::string Advice(bool stored) const
    {
        static const std::vector<CollectiveAlgorithm> fewerMessages
            = {CollectiveAlgorithm::RING,
               CollectiveAlgorithm::HALVING_DOUBLING,
               CollectiveAlgorithm::DOUBLE_BINARY_TREE};
        std::vector<std::string> fewer;
        // every all-to-all stores n (n - 1) messages; the pairwise one (ring) posts n at once
        if (op != CollectiveOp::ALL_TO_ALL || !stored)
        {
            for (auto other : fewerMessages)
            {
                if (other != algorithm && Implements(other, op))
                {
                    fewer.push_back(ToString(other));
                }
            }
        }
        if (fewer.empty())
        {
            return "every " + ToString(op) + " algorithm sends a message between each pair of "
                   + "ranks: use fewer ranks";
        }
        return "use an algorithm with fewer messages per rank (" + dlnet::JoinChoices(fewer)
               + ") or fewer ranks";
    }

    void Charge(uint64_t n)
    {
        CheckEntries(n);
        entries += n;
    }

    /// Refuse now what the steps about to be built would store (as CheckAtOnce).
    void CheckEntries(uint64_t more) const
    {
        if (entries + more > MAX_SCHEDULE_ENTRIES)
        {
            Refuse("needs more than " + std::to_string(MAX_SCHEDULE_ENTRIES)
                       + " schedule entries (a step or a message each)",
                   true);
        }
    }

    /// One more message a rank's step posts at once.
    void ChargeAtOnce()
    {
        CheckAtOnce(1);
        ++atOnce;
    }

    /// Refuse now what the steps about to be built would post at once (a direct exchange
    /// knows its count before it builds: no 4 million entries built to be dropped).
    void CheckAtOnce(uint64_t more) const
    {
        if (atOnce + more > MAX_MESSAGES_AT_ONCE)
        {
            Refuse("posts more than " + std::to_string(MAX_MESSAGES_AT_ONCE)
                       + " messages at once (summed over ranks)",
                   false);
        }
    }

    /// Throw: this algorithm's op on these ranks <what>; and the advice.
    [[noreturn]] void Refuse(const std::string& what, bool stored) const
    {
        throw std::invalid_argument("algorithm: " + ToString(algorithm) + "'s " + ToString(op)
                                    + " on " + std::to_string(ranks) + " ranks " + what + "; "
                                    + Advice(stored));
    }
};

/// Appends steps and matched send/receive pairs to one lane.
class LaneBuilder
{
public:
    LaneBuilder(CollectiveLane& lane, ScheduleBudget& budget)
        : m_lane(lane)
        , m_budget(budget)
        , m_mostSends(lane.ranks.size(), 0)
    {
    }

    /// Open a new step for a rank; \return its index
    uint32_t NewStep(uint32_t rank, bool reduce, bool fromInput = false)
    {
        m_budget.Charge(1);
        CollectiveStep step;
        step.reduce = reduce;
        step.sendFromInput = fromInput;
        step.vc = m_vc;
        m_lane.ranks[rank].push_back(step);
        return m_lane.ranks[rank].size() - 1;
    }

    /// A message from (s, sStep) landing at (d, dStep).
    void Pair(uint32_t s, uint32_t sStep, uint32_t d, uint32_t dStep, Range dst, uint64_t srcOffset)
    {
        if (dst.bytes == 0 || s == d)
        {
            return;
        }
        m_budget.Charge(2);
        m_lane.ranks[s][sStep].sends.push_back({d, dst.offset, dst.bytes, srcOffset, dStep});
        if (m_lane.ranks[s][sStep].sends.size() > m_mostSends[s])
        {
            ++m_mostSends[s]; // its largest step so far: the lane posts one more at once
            m_budget.ChargeAtOnce();
        }
        m_lane.ranks[d][dStep].recvs.push_back({s, dst.offset, dst.bytes, srcOffset, sStep});
    }

    void Pair(uint32_t s, uint32_t sStep, uint32_t d, uint32_t dStep, Range dst)
    {
        Pair(s, sStep, d, dStep, dst, dst.offset);
    }

    /// \param more entries the steps about to be built store \sa ScheduleBudget
    void CheckEntries(uint64_t more) const
    {
        m_budget.CheckEntries(more);
    }

    /**
     * Refuse before building a step per member that would post too many messages at once.
     * \param g the members \param sends how many messages member i's step will send
     */
    void CheckAtOnce(const std::vector<uint32_t>& g,
                     const std::function<uint64_t(uint32_t i)>& sends) const
    {
        uint64_t more = 0; // what ChargeAtOnce will count: each rank's largest step grows
        for (uint32_t i = 0; i < g.size(); ++i)
        {
            more += std::max<uint64_t>(sends(i), m_mostSends[g[i]]) - m_mostSends[g[i]];
        }
        m_budget.CheckAtOnce(more);
    }

    /// Steps opened from now on send on this virtual channel.
    void SetVc(uint8_t vc)
    {
        m_vc = vc;
    }

private:
    CollectiveLane& m_lane;
    ScheduleBudget& m_budget;
    std::vector<std::size_t> m_mostSends; //!< per rank, its largest step's sends
    uint8_t m_vc{0};
};

using Group = std::vector<uint32_t>; //!< communicator indices, in ring order

uint32_t
Mod(int64_t a, uint32_t m)
{
    return static_cast<uint32_t>(((a % m) + m) % m);
}

/// Ring reduce-scatter: member i ends owning the reduced part i.
void
RingReduceScatter(LaneBuilder& b, const Group& g, Range r, uint32_t es, int dir)
{
    uint32_t m = g.size();
    auto parts = Split(r, m, es);
    for (uint32_t s = 0; s + 1 < m; ++s)
    {
        std::vector<uint32_t> step(m);
        for (uint32_t i = 0; i < m; ++i)
        {
            step[i] = b.NewStep(g[i], true);
        }
        for (uint32_t i = 0; i < m; ++i)
        {
            uint32_t next = Mod(int64_t(i) + dir, m);
            b.Pair(g[i],
                   step[i],
                   g[next],
                   step[next],
                   parts[Mod(int64_t(i) - dir * int64_t(s + 1), m)]);
        }
    }
}

/// Ring all-gather: member i starts owning part i.
void
RingAllGather(LaneBuilder& b, const Group& g, Range r, uint32_t es, int dir)
{
    uint32_t m = g.size();
    auto parts = Split(r, m, es);
    for (uint32_t s = 0; s + 1 < m; ++s)
    {
        std::vector<uint32_t> step(m);
        for (uint32_t i = 0; i < m; ++i)
        {
            step[i] = b.NewStep(g[i], false);
        }
        for (uint32_t i = 0; i < m; ++i)
        {
            uint32_t next = Mod(int64_t(i) + dir, m);
            b.Pair(
                g[i], step[i], g[next], step[next], parts[Mod(int64_t(i) - dir * int64_t(s), m)]);
        }
    }
}

/// Direct reduce-scatter (reduce) or all-gather (copy): one round, everyone to everyone.
/// \return how many of the parts hold bytes
uint64_t
NonEmpty(const std::vector<Range>& parts)
{
    return std::count_if(parts.begin(),
                         parts.end(),
                         [](const Range& p)
                         {
                             return p.bytes != 0;
                         });
}

void
DirectExchange(LaneBuilder& b, const Group& g, Range r, uint32_t es, bool reduceScatter)
{
    uint32_t m = g.size();
    auto parts = Split(r, m, es);
    // reduce-scatter: i sends every other member's part that holds bytes; all-gather: its own
    const uint64_t nonEmpty = NonEmpty(parts);
    b.CheckAtOnce(g,
                  [&](uint32_t i) -> uint64_t
                  {
                      const bool own = parts[i].bytes != 0;
                      return reduceScatter ? nonEmpty - own : own ? m - 1 : 0;
                  });
    std::vector<uint32_t> step(m);
    for (uint32_t i = 0; i < m; ++i)
    {
        step[i] = b.NewStep(g[i], reduceScatter);
    }
    for (uint32_t i = 0; i < m; ++i)
    {
        dlnet::PollInterrupt(); // (Ctrl-C: up to 2 M messages to build)
        // Member i sends to i+1, i+2, ... (NCCL's peer-to-peer order): in every
        // position of the send lists the destinations form a permutation, so no
        // receiver takes the first packets of all senders at once.
        for (uint32_t k = 1; k < m; ++k)
        {
            uint32_t j = (i + k) % m;
            // reduce-scatter: i sends part j to j; all-gather: i sends its part i to j.
            b.Pair(g[i], step[i], g[j], step[j], parts[reduceScatter ? j : i]);
        }
    }
}

/// Members of a group seen as a power-of-two set of "virtual" ranks (the
/// standard fix for other sizes: the first 2*rem members pair up, the even
/// one of each pair hands its data to the odd one and sits out).
struct Virtual
{
    uint32_t p;                   //!< virtual ranks (power of two)
    uint32_t rem;                 //!< members that sit out
    std::vector<uint32_t> member; //!< member index of each virtual rank
};

Virtual
MakeVirtual(uint32_t m)
{
    Virtual v;
    v.p = 1;
    while (v.p * 2 <= m)
    {
        v.p *= 2;
    }
    v.rem = m - v.p;
    for (uint32_t k = 0; k < v.p; ++k)
    {
        v.member.push_back(k < v.rem ? 2 * k + 1 : k + v.rem);
    }
    return v;
}

/// Pre/post step of the fix: extras (even members below 2 rem) and their partners.
void
FoldExtras(LaneBuilder& b, const Group& g, const Virtual& v, Range r, bool in)
{
    for (uint32_t k = 0; k < v.rem; ++k)
    {
        uint32_t extra = g[2 * k];
        uint32_t partner = g[2 * k + 1];
        uint32_t se = b.NewStep(in ? extra : partner, in);
        uint32_t sp = b.NewStep(in ? partner : extra, in);
        b.Pair(in ? extra : partner, se, in ? partner : extra, sp, r);
    }
}

/// Recursive halving among the virtual ranks: virtual k ends owning part k of p.
void
HalvingReduceScatter(LaneBuilder& b,
                     const Group& g,
                     const Virtual& v,
                     const std::vector<Range>& parts)
{
    for (uint32_t mask = v.p / 2; mask >= 1; mask /= 2)
    {
        std::vector<uint32_t> step(v.p);
        for (uint32_t k = 0; k < v.p; ++k)
        {
            step[k] = b.NewStep(g[v.member[k]], true);
        }
        for (uint32_t k = 0; k < v.p; ++k)
        {
            uint32_t partner = k ^ mask;
            uint32_t lo = k & ~(2 * mask - 1);
            // k keeps the half its bit selects and sends the partner the other half.
            uint32_t sendLo = (k & mask) ? lo : lo + mask;
            b.Pair(g[v.member[k]],
                   step[k],
                   g[v.member[partner]],
                   step[partner],
                   Span(parts, sendLo, sendLo + mask));
        }
    }
}

/// Recursive doubling among the virtual ranks: from part k at virtual k to all parts everywhere.
void
DoublingAllGather(LaneBuilder& b, const Group& g, const Virtual& v, const std::vector<Range>& parts)
{
    for (uint32_t mask = 1; mask < v.p; mask *= 2)
    {
        std::vector<uint32_t> step(v.p);
        for (uint32_t k = 0; k < v.p; ++k)
        {
            step[k] = b.NewStep(g[v.member[k]], false);
        }
        for (uint32_t k = 0; k < v.p; ++k)
        {
            uint32_t lo = k & ~(mask - 1);
            b.Pair(g[v.member[k]],
                   step[k],
                   g[v.member[k ^ mask]],
                   step[k ^ mask],
                   Span(parts, lo, lo + mask));
        }
    }
}

/// Move data between the m-way parts of members and the p-way parts of virtual ranks.
void
Redistribute(LaneBuilder& b,
             const Group& g,
             const Virtual& v,
             const std::vector<Range>& memberParts,
             const std::vector<Range>& virtualParts,
             bool toMembers)
{
    uint32_t m = g.size();
    std::vector<uint32_t> step(m);
    for (uint32_t i = 0; i < m; ++i)
    {
        step[i] = b.NewStep(g[i], false);
    }
    for (uint32_t k = 0; k < v.p; ++k)
    {
        for (uint32_t j = 0; j < m; ++j)
        {
            uint64_t lo = std::max(virtualParts[k].offset, memberParts[j].offset);
            uint64_t hi = std::min(virtualParts[k].offset + virtualParts[k].bytes,
                                   memberParts[j].offset + memberParts[j].bytes);
            if (hi <= lo)
            {
                continue;
            }
            uint32_t holder = toMembers ? v.member[k] : j;
            uint32_t taker = toMembers ? j : v.member[k];
            b.Pair(g[holder], step[holder], g[taker], step[taker], Range{lo, hi - lo});
        }
    }
}

void
HdReduceScatter(LaneBuilder& b, const Group& g, Range r, uint32_t es)
{
    Virtual v = MakeVirtual(g.size());
    FoldExtras(b, g, v, r, true);
    auto vparts = Split(r, v.p, es);
    HalvingReduceScatter(b, g, v, vparts);
    if (v.rem > 0)
    {
        Redistribute(b, g, v, Split(r, g.size(), es), vparts, true);
    }
}

void
HdAllGather(LaneBuilder& b, const Group& g, Range r, uint32_t es)
{
    Virtual v = MakeVirtual(g.size());
    auto vparts = Split(r, v.p, es);
    if (v.rem > 0)
    {
        Redistribute(b, g, v, Split(r, g.size(), es), vparts, false);
    }
    DoublingAllGather(b, g, v, vparts);
    FoldExtras(b, g, v, r, false);
}

void
HdAllReduce(LaneBuilder& b, const Group& g, Range r, uint32_t es)
{
    Virtual v = MakeVirtual(g.size());
    auto vparts = Split(r, v.p, es);
    FoldExtras(b, g, v, r, true);
    HalvingReduceScatter(b, g, v, vparts);
    DoublingAllGather(b, g, v, vparts);
    FoldExtras(b, g, v, r, false);
}

/// Binomial-tree broadcast (reduce=false) or reduce (reduce=true) rooted at member root.
void
Binomial(LaneBuilder& b, const Group& g, uint32_t root, Range r, bool reduce)
{
    uint32_t m = g.size();
    uint32_t top = 1;
    while (top < m)
    {
        top *= 2;
    }
    auto member = [&](uint32_t rel)
    {
        return g[(rel + root) % m];
    };
    if (!reduce)
    {
        for (uint32_t mask = 1; mask < top; mask *= 2)
        {
            for (uint32_t rel = 0; rel < mask && rel + mask < m; ++rel)
            {
                uint32_t ss = b.NewStep(member(rel), false);
                uint32_t sd = b.NewStep(member(rel + mask), false);
                b.Pair(member(rel), ss, member(rel + mask), sd, r);
            }
        }
        return;
    }
    for (uint32_t mask = top / 2; mask >= 1; mask /= 2)
    {
        for (uint32_t rel = 0; rel < mask && rel + mask < m; ++rel)
        {
            uint32_t ss = b.NewStep(member(rel + mask), true);
            uint32_t sd = b.NewStep(member(rel), true);
            b.Pair(member(rel + mask), ss, member(rel), sd, r);
        }
    }
}

/// Chain (ring without the closing link) broadcast or reduce rooted at member root.
void
Chain(LaneBuilder& b, const Group& g, uint32_t root, Range r, bool reduce)
{
    uint32_t m = g.size();
    auto member = [&](uint32_t pos)
    {
        return g[(pos + root) % m];
    };
    for (uint32_t k = 0; k + 1 < m; ++k)
    {
        // broadcast: position k hands to k+1; reduce: position m-1-k hands to m-2-k.
        uint32_t from = reduce ? m - 1 - k : k;
        uint32_t to = reduce ? m - 2 - k : k + 1;
        uint32_t ss = b.NewStep(member(from), reduce);
        uint32_t sd = b.NewStep(member(to), reduce);
        b.Pair(member(from), ss, member(to), sd, r);
    }
}

/// One binary tree in heap order over positions. Position 0 is member root,
/// except in the mirrored tree of an all-reduce, which reverses the order so
/// that its inner nodes are the leaves of the first tree and its root differs.
/// The tree runs reduce-up, broadcast-down or both.
void
BinaryTree(LaneBuilder& b, const Group& g, uint32_t root, bool mirror, Range r, bool up, bool down)
{
    uint32_t m = g.size();
    auto member = [&](uint32_t pos)
    {
        if (mirror && up && down)
        {
            return g[(m - 1 - pos + root) % m];
        }
        // broadcast and reduce: both trees keep the root; the others are mirrored
        uint32_t rel = (mirror && pos > 0) ? m - pos : pos;
        return g[(rel + root) % m];
    };
    // Four steps per node: gather from children, send up, receive from parent, send down.
    std::vector<uint32_t> base(m);
    for (uint32_t pos = 0; pos < m; ++pos)
    {
        base[pos] = b.NewStep(member(pos), true);
        b.NewStep(member(pos), true);
        b.NewStep(member(pos), false);
        b.NewStep(member(pos), false);
    }
    for (uint32_t pos = 1; pos < m; ++pos)
    {
        uint32_t parent = (pos - 1) / 2;
        if (up)
        {
            b.Pair(member(pos), base[pos] + 1, member(parent), base[parent], r);
        }
        if (down)
        {
            b.Pair(member(parent), base[parent] + 3, member(pos), base[pos] + 2, r);
        }
    }
}

void
AllToAll(LaneBuilder& b, const Group& g, Range r, uint32_t es, bool direct)
{
    uint32_t m = g.size();
    auto parts = Split(r, m, es);
    if (direct)
    {
        b.CheckAtOnce(g,
                      [&](uint32_t i) -> uint64_t
                      {
                          return parts[i].bytes != 0 ? m - 1 : 0; // its part to every other
                      });
        std::vector<uint32_t> step(m);
        for (uint32_t i = 0; i < m; ++i)
        {
            step[i] = b.NewStep(g[i], false, true);
        }
        for (uint32_t i = 0; i < m; ++i)
        {
            for (uint32_t k = 1; k < m; ++k)
            {
                uint32_t j = (i + k) % m; // NCCL's order, as in DirectExchange
                b.Pair(g[i], step[i], g[j], step[j], parts[i], parts[j].offset);
            }
        }
        return;
    }
    // Pairwise exchange: in round s, i sends to i+s and receives from i-s; m - 1 rounds of a
    // step per member and two entries per message
    b.CheckEntries(uint64_t(m - 1) * (m + 2 * NonEmpty(parts)));
    for (uint32_t s = 1; s < m; ++s)
    {
        std::vector<uint32_t> step(m);
        for (uint32_t i = 0; i < m; ++i)
        {
            step[i] = b.NewStep(g[i], false, true);
        }
        for (uint32_t i = 0; i < m; ++i)
        {
            uint32_t j = (i + s) % m;
            b.Pair(g[i], step[i], g[j], step[j], parts[i], parts[j].offset);
        }
    }
}

/// Hierarchical all-reduce on a dim1 x dim2 grid (rank = y * dim1 + x).
void
Hierarchical(LaneBuilder& b, const CollectiveGrid& grid, Range r, uint32_t es, int dir)
{
    uint32_t d1 = grid.dim1;
    uint32_t d2 = grid.dim2;
    std::vector<Group> rows(d2);
    std::vector<Group> cols(d1);
    for (uint32_t y = 0; y < d2; ++y)
    {
        for (uint32_t x = 0; x < d1; ++x)
        {
            rows[y].push_back(y * d1 + x);
            cols[x].push_back(y * d1 + x);
        }
    }
    // First dimension: reduce-scatter, then the other dimension all-reduces
    // the part each rank owns, then the first all-gathers.
    const std::vector<Group>& first = grid.dim2First ? cols : rows;
    const std::vector<Group>& second = grid.dim2First ? rows : cols;
    uint32_t firstSize = first[0].size();
    auto parts = Split(r, firstSize, es);
    for (const auto& g : first)
    {
        RingReduceScatter(b, g, r, es, dir);
    }
    // The second level on its own virtual channel, when asked: its traffic
    // often waits behind a slower link, and must not hold the credits the
    // first level's traffic needs on the links the two share.
    b.SetVc(grid.secondLevelVc ? 1 : 0);
    for (uint32_t k = 0; k < second.size(); ++k)
    {
        // Members of second-dimension group k hold position k in their first-dimension group.
        RingReduceScatter(b, second[k], parts[k], es, dir);
        RingAllGather(b, second[k], parts[k], es, dir);
    }
    b.SetVc(0);
    for (const auto& g : first)
    {
        RingAllGather(b, g, r, es, dir);
    }
}

[[noreturn]] void
NotImplemented(CollectiveAlgorithm a, CollectiveOp op)
{
    std::vector<std::string> names;
    for (auto alg : AlgorithmsFor(op))
    {
        names.push_back(ToString(alg));
    }
    throw std::invalid_argument("algorithm: " + ToString(a) + " does not implement " + ToString(op)
                                + "; algorithms for " + ToString(op) + ": "
                                + dlnet::JoinChoices(names, ", ") + " or auto");
}

} // namespace

bool
Implements(CollectiveAlgorithm a, CollectiveOp op)
{
    if (op == CollectiveOp::SEND_RECV)
    {
        return true;
    }
    switch (a)
    {
        case CollectiveAlgorithm::RING:
        case CollectiveAlgorithm::DIRECT:
            return true;
        case CollectiveAlgorithm::HALVING_DOUBLING:
            return op != CollectiveOp::ALL_TO_ALL;
        case CollectiveAlgorithm::DOUBLE_BINARY_TREE:
            return op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::BROADCAST
                   || op == CollectiveOp::REDUCE;
        case CollectiveAlgorithm::HIERARCHICAL:
        case CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE:
            return op == CollectiveOp::ALL_REDUCE;
        default:
            return false;
    }
}

std::vector<CollectiveAlgorithm>
AlgorithmsFor(CollectiveOp op)
{
    std::vector<CollectiveAlgorithm> out;
    for (auto a : {CollectiveAlgorithm::RING,
                   CollectiveAlgorithm::DIRECT,
                   CollectiveAlgorithm::HALVING_DOUBLING,
                   CollectiveAlgorithm::DOUBLE_BINARY_TREE,
                   CollectiveAlgorithm::HIERARCHICAL,
                   CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE})
    {
        if (Implements(a, op))
        {
            out.push_back(a);
        }
    }
    return out;
}

uint32_t
CollectiveLane::GetNRanks() const
{
    return ring.ranks == 0 ? ranks.size() : ring.ranks;
}

uint32_t
CollectiveLane::GetNSteps(uint32_t rank) const
{
    if (ring.ranks == 0)
    {
        return ranks[rank].size();
    }
    uint32_t perPhase = ring.ranks - 1;
    return perPhase * (uint32_t(ring.reduceScatter) + uint32_t(ring.allGather));
}

const CollectiveStep&
CollectiveLane::GetStep(uint32_t rank, uint32_t step, CollectiveStep& scratch) const
{
    if (ring.ranks == 0)
    {
        return ranks[rank][step];
    }
    // RingReduceScatter then RingAllGather (dir +1) on the group 0..m-1: at
    // step s of a phase, i sends part (i - s - 1) (reduce-scatter) or (i - s)
    // (all-gather) to i + 1, and receives i - 1's; every rank is at the same
    // step index as its peers.
    uint32_t m = ring.ranks;
    uint32_t perPhase = m - 1;
    bool reduce = ring.reduceScatter && step < perPhase;
    uint32_t s = ring.reduceScatter && !reduce ? step - perPhase : step;
    int64_t shift = reduce ? int64_t(s) + 1 : int64_t(s);
    Range r{ring.offset, ring.bytes};
    scratch.sends.clear();
    scratch.recvs.clear();
    scratch.reduce = reduce;
    scratch.sendFromInput = false;
    scratch.vc = 0;
    uint32_t next = Mod(int64_t(rank) + 1, m);
    uint32_t prev = Mod(int64_t(rank) - 1, m);
    Range out = Part(r, Mod(int64_t(rank) - shift, m), m, ring.elementSize);
    if (out.bytes != 0 && next != rank)
    {
        scratch.sends.push_back({next, out.offset, out.bytes, out.offset, step});
    }
    Range in = Part(r, Mod(int64_t(prev) - shift, m), m, ring.elementSize);
    if (in.bytes != 0 && prev != rank)
    {
        scratch.recvs.push_back({prev, in.offset, in.bytes, in.offset, step});
    }
    return scratch;
}

void
BuildCollectiveLanes(CollectiveOp op,
                     CollectiveAlgorithm a,
                     uint32_t n,
                     uint32_t root,
                     uint64_t offset,
                     uint64_t bytes,
                     uint32_t es,
                     const CollectiveGrid& grid,
                     uint32_t chunk,
                     std::vector<CollectiveLane>& out,
                     bool ringOnDemand)
{
    if (!Implements(a, op))
    {
        NotImplemented(a, op);
    }
    Group all(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        all[i] = i;
    }
    Range r{offset, bytes};
    ScheduleBudget budget{op, a, n};
    auto newLane = [&]() -> LaneBuilder
    {
        budget.Charge(n);
        CollectiveLane lane;
        lane.chunk = chunk;
        lane.ranks.resize(n);
        out.push_back(std::move(lane));
        return LaneBuilder(out.back(), budget);
    };

    if (op == CollectiveOp::SEND_RECV)
    {
        LaneBuilder b = newLane();
        b.Pair(0, b.NewStep(0, false), 1, b.NewStep(1, false), r);
        return;
    }
    if (a == CollectiveAlgorithm::HIERARCHICAL
        || a == CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE)
    {
        // only localBWAware may put dimension 2 first
        CollectiveGrid order = grid;
        order.dim2First = a == CollectiveAlgorithm::HIERARCHICAL_LOCAL_BW_AWARE && grid.dim2First;
        if (grid.bidirectional)
        {
            // Both directions of every ring have links of their own: half the data each way.
            auto halves = Split(r, 2, es);
            LaneBuilder fwd = newLane();
            Hierarchical(fwd, order, halves[0], es, +1);
            LaneBuilder rev = newLane();
            Hierarchical(rev, order, halves[1], es, -1);
        }
        else if (grid.bothOrders && a == CollectiveAlgorithm::HIERARCHICAL)
        {
            // On a mesh one ring already loads both directions of its
            // dimension's links (its wrap-around comes back on the reverse
            // ones), so a second ring direction gains nothing; a second
            // chunk that starts in the other dimension keeps both busy.
            auto halves = Split(r, 2, es);
            CollectiveGrid rowsFirst = order;
            rowsFirst.dim2First = false;
            CollectiveGrid colsFirst = order;
            colsFirst.dim2First = true;
            LaneBuilder first = newLane();
            Hierarchical(first, rowsFirst, halves[0], es, +1);
            LaneBuilder second = newLane();
            Hierarchical(second, colsFirst, halves[1], es, +1);
        }
        else
        {
            LaneBuilder b = newLane();
            Hierarchical(b, order, r, es, +1);
        }
        return;
    }
    if (a == CollectiveAlgorithm::DOUBLE_BINARY_TREE)
    {
        // Two trees, each on half the data; a rank inside one is a leaf of the other.
        auto halves = n > 2 ? Split(r, 2, es) : std::vector<Range>{r};
        for (std::size_t t = 0; t < halves.size(); ++t)
        {
            LaneBuilder b = newLane();
            out.back().connection = t; // NCCL's channel of its own per tree
            bool up = op != CollectiveOp::BROADCAST;
            bool down = op != CollectiveOp::REDUCE;
            BinaryTree(
                b, all, op == CollectiveOp::ALL_REDUCE ? 0 : root, t == 1, halves[t], up, down);
        }
        return;
    }

    bool ring = a == CollectiveAlgorithm::RING;
    bool direct = a == CollectiveAlgorithm::DIRECT;
    if (ring && ringOnDemand
        && (op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::REDUCE_SCATTER
            || op == CollectiveOp::ALL_GATHER))
    {
        // RingReduceScatter and RingAllGather over all ranks, made on demand
        CollectiveLane lane;
        lane.chunk = chunk;
        lane.ring.ranks = n;
        lane.ring.offset = offset;
        lane.ring.bytes = bytes;
        lane.ring.elementSize = es;
        lane.ring.reduceScatter = op != CollectiveOp::ALL_GATHER;
        lane.ring.allGather = op != CollectiveOp::REDUCE_SCATTER;
        out.push_back(std::move(lane));
        return;
    }
    LaneBuilder b = newLane();
    switch (op)
    {
        case CollectiveOp::ALL_REDUCE:
            if (ring)
            {
                RingReduceScatter(b, all, r, es, +1);
                RingAllGather(b, all, r, es, +1);
            }
            else if (direct)
            {
                DirectExchange(b, all, r, es, true);
                DirectExchange(b, all, r, es, false);
            }
            else
            {
                HdAllReduce(b, all, r, es);
            }
            break;
        case CollectiveOp::REDUCE_SCATTER:
            ring ? RingReduceScatter(b, all, r, es, +1)
                 : (direct ? DirectExchange(b, all, r, es, true) : HdReduceScatter(b, all, r, es));
            break;
        case CollectiveOp::ALL_GATHER:
            ring ? RingAllGather(b, all, r, es, +1)
                 : (direct ? DirectExchange(b, all, r, es, false) : HdAllGather(b, all, r, es));
            break;
        case CollectiveOp::ALL_TO_ALL:
            AllToAll(b, all, r, es, direct);
            break;
        case CollectiveOp::BROADCAST:
        case CollectiveOp::REDUCE:
        {
            bool reduce = op == CollectiveOp::REDUCE;
            if (ring)
            {
                Chain(b, all, root, r, reduce);
            }
            else if (direct)
            {
                std::vector<uint32_t> step(n);
                for (uint32_t i = 0; i < n; ++i)
                {
                    step[i] = b.NewStep(i, reduce);
                }
                for (uint32_t i = 0; i < n; ++i)
                {
                    reduce ? b.Pair(i, step[i], root, step[root], r)
                           : b.Pair(root, step[root], i, step[i], r);
                }
            }
            else
            {
                Binomial(b, all, root, r, reduce);
            }
            break;
        }
        default:
            NotImplemented(a, op);
    }
}

CollectiveScheduleKey
MakeScheduleKey(CollectiveOp op,
                CollectiveAlgorithm algorithm,
                uint32_t ranks,
                uint32_t root,
                uint64_t bytes,
                uint32_t elementSize,
                uint64_t chunks,
                const CollectiveGrid& grid)
{
    uint32_t flags = (grid.bidirectional ? 1 : 0) | (grid.dim2First ? 2 : 0)
                     | (grid.bothOrders ? 4 : 0) | (grid.secondLevelVc ? 8 : 0);
    return {uint32_t(op),
            uint32_t(algorithm),
            ranks,
            root,
            bytes,
            elementSize,
            chunks,
            grid.dim1,
            grid.dim2,
            flags};
}

void
CheckScheduleSize(CollectiveOp op,
                  CollectiveAlgorithm algorithm,
                  uint32_t ranks,
                  uint32_t root,
                  uint64_t bytes,
                  uint32_t elementSize,
                  const CollectiveGrid& grid,
                  uint64_t chunks)
{
    if (ranks < SCHEDULE_CHECK_RANKS)
    {
        return;
    }
    // a training run validates every task: the verdicts are kept (a hierarchical all-reduce
    // of 8192 ranks takes 0.4 s to build)
    static std::map<CollectiveScheduleKey, std::string> verdicts;
    const CollectiveScheduleKey key
        = MakeScheduleKey(op, algorithm, ranks, root, bytes, elementSize, chunks, grid);
    auto it = verdicts.find(key);
    if (it == verdicts.end())
    {
        std::string refusal;
        try
        {
            FirstChunkAt(op, algorithm, ranks, root, bytes, elementSize, grid)(chunks);
        }
        catch (const std::invalid_argument& e)
        {
            refusal = e.what();
        }
        it = verdicts.emplace(key, refusal).first;
    }
    if (!it->second.empty())
    {
        throw std::invalid_argument(it->second);
    }
}

std::function<std::vector<CollectiveLane>(uint64_t chunks)>
FirstChunkAt(CollectiveOp op,
             CollectiveAlgorithm algorithm,
             uint32_t ranks,
             uint32_t root,
             uint64_t bytes,
             uint32_t elementSize,
             const CollectiveGrid& grid)
{
    return [=](uint64_t chunks)
    {
        std::vector<CollectiveLane> lanes;
        BuildCollectiveLanes(op,
                             algorithm,
                             ranks,
                             root,
                             0,
                             bytes / elementSize / chunks * elementSize,
                             elementSize,
                             grid,
                             0,
                             lanes);
        return lanes;
    };
}

void
CheckChunkCost(const std::vector<CollectiveLane>& firstChunk,
               uint64_t chunks,
               uint64_t defaultChunks,
               const std::function<std::vector<CollectiveLane>(uint64_t chunks)>& firstChunkAt)
{
    constexpr uint64_t MAX_ENTRIES = 1ull << 21;
    auto entriesOf = [](const std::vector<CollectiveLane>& lanes)
    {
        uint64_t entries = 0;
        for (const auto& lane : lanes)
        {
            entries += lane.GetNRanks();
            for (const auto& steps : lane.ranks)
            {
                entries += steps.size();
                for (const auto& st : steps)
                {
                    entries += st.sends.size() + st.recvs.size();
                }
            }
        }
        return std::max<uint64_t>(entries, 1);
    };
    const uint64_t entries = entriesOf(firstChunk);
    uint64_t allowed = std::max(MAX_ENTRIES / entries, defaultChunks);
    if (chunks <= allowed)
    {
        return;
    }
    // fewer chunks are larger (tiny ones leave parts empty, and an empty part sends nothing):
    // lower the count until its own chunks fit; each pass lowers it, or it fits
    uint64_t each = 0;
    while (true)
    {
        each = entriesOf(firstChunkAt(allowed));
        const uint64_t next = std::max(MAX_ENTRIES / each, defaultChunks);
        if (next >= allowed)
        {
            break;
        }
        allowed = next;
    }
    throw std::invalid_argument("chunks: got " + std::to_string(chunks) + "; each chunk's schedule "
                                + "holds " + std::to_string(entries) + " entries, more than 2^21 "
                                + "in all; " + std::to_string(allowed) + " chunks fit ("
                                + std::to_string(each) + " entries each)");
}

} // namespace ns3
