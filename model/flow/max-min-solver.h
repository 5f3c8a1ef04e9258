/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_MAX_MIN_SOLVER_H
#define DLNET_MAX_MIN_SOLVER_H

#include "indexed-heap.h"

#include "ns3/assert.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Max-min fair rates over shared links, with strict priority between
 * classes and an optional cap per flow (progressive filling).
 *
 * A flow uses each of its links with a weight: 1 for a single path, 1/n on
 * each of n equal-cost paths a sprayed flow is split over (so a link carries
 * weight x rate of the flow). Priority 0 is served first: its flows share
 * the full capacities max-min fairly; priority 1 shares what priority 0 left,
 * and so on. Within a priority every flow's rate rises together until a link
 * it uses is full or it reaches its cap; flows whose link is full keep that
 * rate, the others rise on.
 *
 * A use may have its own priority (a torus's dateline moves packets to
 * virtual channel 1 on the way): strict priority then holds per link, the
 * uses of a link at priority p share what its uses at priorities < p leave.
 * A flow whose priority changes along its path couples the classes; such a
 * problem is solved by a fixed-point iteration (SolveMixed), paid for only
 * when some flow has uses at two priorities.
 *
 * Links and flows are numbered from 0 by the caller; buffers are kept
 * between solves so that a solve allocates nothing once warm.
 */
class MaxMinSolver
{
public:
    static constexpr double NO_CAP = std::numeric_limits<double>::infinity(); //!< no rate cap

    /// Forget every link and flow. \param links the number of links of the next problem
    void Reset(uint32_t links);
    /// \param link a link \param capacity its capacity (units per second, > 0)
    void SetCapacity(uint32_t link, double capacity);
    /**
     * Add a flow.
     * \param priority its class (0 first)
     * \param cap its largest rate (NO_CAP: none)
     * \return its number
     */
    uint32_t AddFlow(uint8_t priority, double cap = NO_CAP);
    /// \param flow a flow \param link a link it uses \param weight its share of the flow's rate
    void AddUse(uint32_t flow, uint32_t link, double weight = 1.0);
    /**
     * Add a use with its own priority (uses of one flow on one link at two priorities stay
     * apart).
     * \param flow a flow \param link a link it uses \param weight its share of the flow's rate
     * \param priority the class of this use on this link (0 first)
     */
    void AddUse(uint32_t flow, uint32_t link, double weight, uint8_t priority);
    /**
     * Add a use the flow does not have yet on this link at this priority (AddUse without
     * its search for one to merge with: the caller knows the pair is new).
     * \param flow a flow \param link a link it uses \param weight its share of the flow's rate
     * \param priority the class of this use on this link (0 first)
     */
    void AddDistinctUse(uint32_t flow, uint32_t link, double weight, uint8_t priority);

    /// Compute every flow's rate (a flow with neither links nor cap gets NO_CAP).
    void Solve();
    /**
     * Remember solved problems, up to about this many bytes: a Solve whose problem
     * (capacities, flows, uses, priorities, caps and weights, in order, bit for bit) is
     * one remembered takes its rates instead of solving again. The rates are the same: a
     * solve is a function of its problem alone. A problem is kept the second time it is
     * solved (the first time only its hash is noted). When full it forgets them all.
     * Problems of more than MEMORY_MAX_USES uses are not remembered.
     * \param bytes the budget (0, the default: remember none)
     */
    void SetMemory(std::size_t bytes);
    /// \return SetMemory's budget, bytes
    std::size_t GetMemory() const;
    /// \return the solves that took remembered rates
    uint64_t GetMemoryHits() const;
    /// \param flow a flow \return its rate (after Solve)
    double GetRate(uint32_t flow) const;
    /// \return the number of flows
    uint32_t GetNFlows() const;
    /// \return the fixed-point iterations of the last solve (0: no flow had mixed priorities)
    uint32_t GetIterations() const;

    static constexpr uint32_t MAX_ITERATIONS = 200; //!< SolveMixed's bound

private:
    struct Use // (16 bytes: the priority fills the link's padding)
    {
        uint32_t link;
        uint8_t priority; //!< this use's class
        double weight;
    };

    /// A level at which a link fills or a flow reaches its cap.
    struct Event
    {
        double level;
        uint32_t index;   //!< a link, or a flow for a cap
        uint32_t version; //!< link: the version it was computed at; cap: UINT32_MAX
        bool operator<(const Event& o) const
        {
            if (level != o.level)
            {
                return level < o.level;
            }
            if (version != o.version)
            {
                return version < o.version;
            }
            return index < o.index;
        }
    };

    void SolveNow();
    void SolvePriority(const uint32_t* flows, uint32_t n);
    void SolveMixed();

    std::vector<double> m_capacity; //!< by link: what higher priorities left
    std::vector<uint8_t> m_priority;
    std::vector<double> m_cap;
    std::vector<double> m_rate;
    std::vector<std::vector<Use>> m_uses; //!< by flow
    std::vector<uint32_t> m_nUses;        //!< by flow: uses in m_uses (entries kept warm)
    // per-solve scratch, by link
    std::vector<double> m_weight;                   //!< unfrozen flows' weights
    std::vector<double> m_used;                     //!< frozen flows' usage
    std::vector<double> m_level;                    //!< a link's latest level (its entry's may lag)
    std::vector<uint32_t> m_version;                //!< bumps on every change of a link's level
    std::vector<std::vector<uint32_t>> m_linkFlows; //!< flows of the priority being solved
    std::vector<bool> m_frozen;                     //!< by flow
    std::vector<uint32_t> m_byPriority;             //!< flows by priority, in flow order within one
    IndexedHeap<Event> m_events;     //!< by id (a link, or links + flow for a cap): lowest first
    std::vector<uint32_t> m_touched; //!< links the priority being solved uses
    std::vector<uint32_t> m_changed; //!< links whose level the event being handled changed
    std::vector<bool> m_changedMark; //!< by link: in m_changed
    std::vector<bool> m_flowMixed;   //!< by flow: a use at another priority than the flow's
    uint32_t m_mixed{0};             //!< flows with such a use
    uint32_t m_iterations{0};        //!< SolveMixed's iterations in the last solve
    // SolveMixed: (link, priority) virtual links, sorted by link then priority
    std::vector<uint64_t> m_virtual;       //!< link << 8 | priority, sorted
    std::vector<uint32_t> m_virtualFirst;  //!< by link: its first virtual link (and one past)
    std::vector<uint8_t> m_gathered;       //!< the uses' priorities, link by link
    std::vector<uint32_t> m_fill;          //!< by link: the next place in m_gathered
    std::vector<uint32_t> m_useVirtual;    //!< by use of every flow in order: its virtual link
    std::vector<double> m_load;            //!< by virtual link: its uses' rates
    std::vector<double> m_virtualCapacity; //!< by virtual link: its capacity in the last step
    std::vector<double> m_next;            //!< by flow: the iteration's rates
    std::unique_ptr<MaxMinSolver> m_virtualSolver; //!< one priority over the virtual links

    /// A problem solved (written out as Solve does) and its rates.
    struct Remembered
    {
        std::vector<uint8_t> text;
        std::vector<double> rates;
        uint32_t iterations;
    };

    static constexpr std::size_t MEMORY_ENTRY_BYTES = 128; //!< an entry's own cost, about
    static constexpr std::size_t MEMORY_SEEN_BYTES = 32;   //!< a noted hash's cost, about
    /// Larger problems are solved without memory: those of a large component seldom come
    /// again (a 64-rank all-reduce's, 10,000 uses each, never did), and writing each out
    /// cost a tenth of its solve.
    static constexpr std::size_t MEMORY_MAX_USES = 4096;
    std::size_t m_memoryBudget{0}; //!< SetMemory's
    std::size_t m_memoryBytes{0};  //!< held now, about
    uint64_t m_memoryHits{0};
    std::unordered_map<uint64_t, Remembered> m_memory; //!< by the hash of the problem's text
    std::unordered_set<uint64_t> m_seen;               //!< hashes of problems solved once
    std::vector<uint8_t> m_text;                       //!< the problem being solved, written out
};

// (inline: called once per flow and link of every solve; out of line each went through the PLT)
inline void
MaxMinSolver::SetCapacity(uint32_t link, double capacity)
{
    NS_ASSERT(link < m_capacity.size());
    m_capacity[link] = capacity;
}

inline uint32_t
MaxMinSolver::AddFlow(uint8_t priority, double cap)
{
    uint32_t f = m_priority.size();
    m_priority.push_back(priority);
    m_cap.push_back(cap);
    m_rate.push_back(0);
    m_nUses.push_back(0);
    m_flowMixed.push_back(false);
    if (m_uses.size() <= f)
    {
        m_uses.emplace_back();
    }
    return f;
}

inline void
MaxMinSolver::AddUse(uint32_t flow, uint32_t link, double weight)
{
    AddUse(flow, link, weight, m_priority[flow]);
}

inline void
MaxMinSolver::AddUse(uint32_t flow, uint32_t link, double weight, uint8_t priority)
{
    NS_ASSERT(flow < m_priority.size() && link < m_capacity.size() && weight > 0);
    std::vector<Use>& uses = m_uses[flow];
    uint32_t& n = m_nUses[flow];
    for (uint32_t i = 0; i < n; ++i)
    {
        if (uses[i].link == link && uses[i].priority == priority)
        {
            uses[i].weight += weight; // paths of a sprayed flow that meet again
            return;
        }
    }
    AddDistinctUse(flow, link, weight, priority);
}

inline void
MaxMinSolver::AddDistinctUse(uint32_t flow, uint32_t link, double weight, uint8_t priority)
{
    NS_ASSERT(flow < m_priority.size() && link < m_capacity.size() && weight > 0);
    std::vector<Use>& uses = m_uses[flow];
    uint32_t& n = m_nUses[flow];
    if (priority != m_priority[flow] && !m_flowMixed[flow])
    {
        m_flowMixed[flow] = true; // (a use at another priority than the flow's)
        ++m_mixed;
    }
    if (uses.size() <= n)
    {
        uses.push_back({link, priority, weight});
    }
    else
    {
        uses[n] = {link, priority, weight};
    }
    ++n;
}

inline std::size_t
MaxMinSolver::GetMemory() const
{
    return m_memoryBudget;
}

inline uint64_t
MaxMinSolver::GetMemoryHits() const
{
    return m_memoryHits;
}

inline uint32_t
MaxMinSolver::GetIterations() const
{
    return m_iterations;
}

inline uint32_t
MaxMinSolver::GetNFlows() const
{
    return m_priority.size();
}

inline double
MaxMinSolver::GetRate(uint32_t flow) const
{
    return m_rate[flow];
}

} // namespace ns3

#endif /* DLNET_MAX_MIN_SOLVER_H */
