/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_MAX_MIN_SOLVER_H
#define DLNET_MAX_MIN_SOLVER_H

#include "indexed-heap.h"

#include "ns3/assert.h"

#include <cstdint>
#include <limits>
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

    /// Compute every flow's rate (a flow with neither links nor cap gets NO_CAP).
    void Solve();
    /// \param flow a flow \return its rate (after Solve)
    double GetRate(uint32_t flow) const;
    /// \return the number of flows
    uint32_t GetNFlows() const;

private:
    struct Use
    {
        uint32_t link;
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

    void SolvePriority(const uint32_t* flows, uint32_t n);

    std::vector<double> m_capacity; //!< by link: what higher priorities left
    std::vector<uint8_t> m_priority;
    std::vector<double> m_cap;
    std::vector<double> m_rate;
    std::vector<std::vector<Use>> m_uses; //!< by flow
    std::vector<uint32_t> m_nUses;        //!< by flow: uses in m_uses (entries kept warm)
    // per-solve scratch, by link
    std::vector<double> m_weight;                   //!< unfrozen flows' weights
    std::vector<double> m_used;                     //!< frozen flows' usage
    std::vector<uint32_t> m_version;                //!< bumps on every change of a link's level
    std::vector<std::vector<uint32_t>> m_linkFlows; //!< flows of the priority being solved
    std::vector<bool> m_frozen;                     //!< by flow
    std::vector<uint32_t> m_byPriority;             //!< flows by priority, in flow order within one
    IndexedHeap<Event> m_events;     //!< by id (a link, or links + flow for a cap): lowest first
    std::vector<uint32_t> m_touched; //!< links the priority being solved uses
    std::vector<uint32_t> m_changed; //!< links whose level the event being handled changed
    std::vector<bool> m_changedMark; //!< by link: in m_changed
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
    if (m_uses.size() <= f)
    {
        m_uses.emplace_back();
    }
    return f;
}

inline void
MaxMinSolver::AddUse(uint32_t flow, uint32_t link, double weight)
{
    NS_ASSERT(flow < m_priority.size() && link < m_capacity.size() && weight > 0);
    std::vector<Use>& uses = m_uses[flow];
    uint32_t& n = m_nUses[flow];
    for (uint32_t i = 0; i < n; ++i)
    {
        if (uses[i].link == link)
        {
            uses[i].weight += weight; // paths of a sprayed flow that meet again
            return;
        }
    }
    if (uses.size() <= n)
    {
        uses.push_back({link, weight});
    }
    else
    {
        uses[n] = {link, weight};
    }
    ++n;
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
