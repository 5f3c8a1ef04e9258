/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "max-min-solver.h"

#include "ns3/assert.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace ns3
{

void
MaxMinSolver::Reset(uint32_t links)
{
    m_capacity.assign(links, 0);
    m_priority.clear();
    m_cap.clear();
    m_rate.clear();
    m_nUses.clear();
    m_flowMixed.clear();
    m_mixed = 0;
    if (m_linkFlows.size() < links)
    {
        m_linkFlows.resize(links);
    }
}

void
MaxMinSolver::Solve()
{
    m_iterations = 0;
    if (m_mixed > 0)
    {
        SolveMixed();
        return;
    }
    uint32_t links = m_capacity.size();
    m_weight.assign(links, 0);
    m_used.assign(links, 0);
    m_version.assign(links, 0);
    m_changedMark.assign(links, false);
    m_frozen.assign(m_priority.size(), false);
    // flows by priority, in flow order within one (a stable counting sort)
    uint32_t count[257] = {0};
    for (uint8_t p : m_priority)
    {
        ++count[p + 1];
    }
    for (uint32_t p = 0; p < 256; ++p)
    {
        count[p + 1] += count[p];
    }
    m_byPriority.resize(m_priority.size());
    for (uint32_t f = 0; f < m_priority.size(); ++f)
    {
        m_byPriority[count[m_priority[f]]++] = f;
    }
    // (count[p] is now the end of priority p's flows)
    uint32_t begin = 0;
    for (uint32_t p = 0; p < 256 && begin < m_byPriority.size(); ++p)
    {
        uint32_t end = count[p];
        if (end == begin)
        {
            continue;
        }
        SolvePriority(m_byPriority.data() + begin, end - begin);
        // what this priority uses is gone for the next ones
        for (uint32_t i = begin; i < end; ++i)
        {
            uint32_t f = m_byPriority[i];
            for (uint32_t u = 0; u < m_nUses[f]; ++u)
            {
                const Use& use = m_uses[f][u];
                // a link filled up to rounding is full: a residue of a few ulps would give
                // the next priorities rates near 0 and finish times beyond any horizon
                double before = m_capacity[use.link];
                double after = before - use.weight * m_rate[f];
                m_capacity[use.link] = after > 1e-9 * before ? after : 0.0;
            }
        }
        begin = end;
    }
}

void
MaxMinSolver::SolvePriority(const uint32_t* flows, uint32_t n)
{
    // Progressive filling: every unfrozen flow runs at the common level; a
    // link is full at level (capacity - used by frozen flows) / unfrozen weight.
    constexpr uint32_t CAP = UINT32_MAX;
    // one entry per link (id: the link) and per capped flow (id: links + flow), the latest
    // level of each: the entries come out in the order a heap of every level computed
    // gives the current ones
    const uint32_t links = m_capacity.size();
    IndexedHeap<Event>& events = m_events;
    events.Reset(links + m_priority.size());
    auto push = [&events, links](const Event& e)
    {
        events.Set(e.version == CAP ? links + e.index : e.index, e);
    };
    std::vector<uint32_t>& touched = m_touched;
    touched.clear();
    for (uint32_t k = 0; k < n; ++k)
    {
        uint32_t f = flows[k];
        for (uint32_t i = 0; i < m_nUses[f]; ++i)
        {
            const Use& u = m_uses[f][i];
            if (m_weight[u.link] == 0 && m_linkFlows[u.link].empty())
            {
                touched.push_back(u.link);
            }
            m_weight[u.link] += u.weight;
            m_linkFlows[u.link].push_back(f);
        }
        if (m_cap[f] != NO_CAP)
        {
            push({m_cap[f], f, CAP});
        }
        else if (m_nUses[f] == 0)
        {
            m_rate[f] = NO_CAP;
            m_frozen[f] = true;
        }
    }
    for (uint32_t l : touched)
    {
        m_used[l] = 0;
        push({m_capacity[l] / m_weight[l], l, m_version[l]});
    }

    // A freeze changes the levels of its links; they are set in the heap once the event's
    // freezes are all done (only a link's latest level counts, and the keys are a strict
    // total order, so the heap gives the same order as one set at every change).
    std::vector<uint32_t>& changed = m_changed;
    auto freeze = [&](uint32_t f, double level)
    {
        m_frozen[f] = true;
        m_rate[f] = level;
        for (uint32_t i = 0; i < m_nUses[f]; ++i)
        {
            const Use& u = m_uses[f][i];
            m_used[u.link] += u.weight * level;
            m_weight[u.link] -= u.weight;
            ++m_version[u.link];
            if (!(m_weight[u.link] > 1e-12))
            {
                m_weight[u.link] = 0;
            }
            if (!m_changedMark[u.link])
            {
                m_changedMark[u.link] = true;
                changed.push_back(u.link);
            }
        }
    };
    auto settle = [&](double level)
    {
        for (uint32_t l : changed)
        {
            m_changedMark[l] = false;
            if (m_weight[l] > 0)
            {
                double next = (m_capacity[l] - m_used[l]) / m_weight[l];
                push({std::max(next, level), l, m_version[l]});
            }
            else
            {
                events.Remove(l); // (its level is stale)
            }
        }
        changed.clear();
    };

    while (!events.Empty())
    {
        Event e = events.TopKey();
        events.Pop();
        if (e.version == CAP)
        {
            if (!m_frozen[e.index])
            {
                freeze(e.index, e.level);
                settle(e.level);
            }
            continue;
        }
        if (e.version != m_version[e.index] || m_weight[e.index] == 0)
        {
            continue; // stale, or every flow on it already frozen
        }
        for (uint32_t f : m_linkFlows[e.index])
        {
            if (!m_frozen[f])
            {
                freeze(f, e.level);
            }
        }
        settle(e.level);
    }
    for (uint32_t l : touched)
    {
        m_linkFlows[l].clear();
        m_weight[l] = 0;
    }
}

void
MaxMinSolver::SolveMixed()
{
    // Strict priority per link: the uses of link l at priority p share R(l, p), what l's
    // uses at priorities < p leave. Given every flow's rate, the flows share the (link,
    // priority) virtual links of capacities R max-min fairly as one class; the rates are
    // the fixed point of that map T. Without mixed flows it is the classes solved one
    // after another (class p is exact after p + 1 steps). A flow of high priority on one
    // link and low on another couples the classes both ways and T may swing (two such
    // flows, each the other's low-priority competitor, go from C to 0 and back): from the
    // first step that moves the rates no less than the one before, each step is averaged
    // with the last (r <- (r + T(r)) / 2); it stops when no rate moves by more than 1e-9
    // of the largest capacity, or after MAX_ITERATIONS.
    const uint32_t nFlows = m_priority.size();
    const uint32_t links = m_capacity.size();
    // the virtual links in (link, priority) order, without sorting the uses: the priorities
    // of each link's uses gathered link by link (a counting sort), then each link's few
    // distinct ones in order
    std::vector<uint32_t>& first = m_virtualFirst; // by link: its first virtual link
    first.assign(links + 1, 0);
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        for (uint32_t u = 0; u < m_nUses[f]; ++u)
        {
            ++first[m_uses[f][u].link + 1];
        }
    }
    for (uint32_t l = 0; l < links; ++l)
    {
        first[l + 1] += first[l];
    }
    std::vector<uint8_t>& gathered = m_gathered;
    gathered.resize(first[links]);
    m_fill.assign(first.begin(), first.end() - 1);
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        for (uint32_t u = 0; u < m_nUses[f]; ++u)
        {
            gathered[m_fill[m_uses[f][u].link]++] = m_uses[f][u].priority;
        }
    }
    m_virtual.clear();
    for (uint32_t l = 0; l < links; ++l)
    {
        auto begin = gathered.begin() + first[l];
        auto end = gathered.begin() + first[l + 1];
        first[l] = m_virtual.size();
        if (begin == end)
        {
            continue;
        }
        if (!std::all_of(begin + 1,
                         end,
                         [&begin](uint8_t p)
                         {
                             return p == *begin;
                         }))
        {
            std::sort(begin, end);
            end = std::unique(begin, end);
        }
        else
        {
            end = begin + 1;
        }
        for (auto p = begin; p != end; ++p)
        {
            m_virtual.push_back(uint64_t(l) << 8 | *p);
        }
    }
    first[links] = m_virtual.size();
    if (!m_virtualSolver)
    {
        m_virtualSolver = std::make_unique<MaxMinSolver>();
    }
    MaxMinSolver& inner = *m_virtualSolver;
    inner.Reset(m_virtual.size());
    m_useVirtual.clear();
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        inner.AddFlow(0, m_cap[f]);
        for (uint32_t u = 0; u < m_nUses[f]; ++u)
        {
            const Use& use = m_uses[f][u];
            uint32_t v = first[use.link];
            while ((m_virtual[v] & 0xff) != use.priority)
            {
                ++v; // (a link has few priorities)
            }
            m_useVirtual.push_back(v);
            // (a flow's uses are distinct (link, priority) pairs, so its virtual links are)
            inner.AddDistinctUse(f, v, use.weight, 0);
        }
    }
    double largest = 0;
    for (double c : m_capacity)
    {
        largest = std::max(largest, c);
    }
    const double tolerance = 1e-9 * largest;
    m_rate.assign(nFlows, 0.0);
    m_next.resize(nFlows);
    m_load.resize(m_virtual.size());
    m_virtualCapacity.resize(m_virtual.size());
    bool damped = false;
    double lastMoved = NO_CAP;
    for (m_iterations = 1; m_iterations <= MAX_ITERATIONS; ++m_iterations)
    {
        std::fill(m_load.begin(), m_load.end(), 0.0);
        uint32_t k = 0;
        for (uint32_t f = 0; f < nFlows; ++f)
        {
            for (uint32_t u = 0; u < m_nUses[f]; ++u, ++k)
            {
                m_load[m_useVirtual[k]] += m_uses[f][u].weight * m_rate[f];
            }
        }
        bool same = m_iterations > 1;
        for (uint32_t v = 0; v < m_virtual.size(); ++v)
        {
            uint32_t link = m_virtual[v] >> 8;
            double higher = 0; // (the link's virtual links of higher priority come just before)
            for (uint32_t w = v; w > 0 && (m_virtual[w - 1] >> 8) == link; --w)
            {
                higher += m_load[w - 1];
            }
            // a link filled up to rounding is full (as between the classes of Solve)
            double left = m_capacity[link] - higher;
            left = left > 1e-9 * m_capacity[link] ? left : 0.0;
            same = same && left == m_virtualCapacity[v];
            m_virtualCapacity[v] = left;
            inner.SetCapacity(v, left);
        }
        // the same capacities as the last step's give the same rates: the inner solve is
        // a function of them alone (often so in the step that confirms a fixed point)
        if (!same)
        {
            inner.Solve();
        }
        double moved = 0;
        for (uint32_t f = 0; f < nFlows; ++f)
        {
            m_next[f] = inner.GetRate(f);
            if (m_next[f] != NO_CAP)
            {
                moved = std::max(moved, std::abs(m_next[f] - m_rate[f]));
            }
        }
        bool done = m_iterations > 1 && moved <= tolerance;
        // undamped while the steps shrink (a chain of classes settles exactly); averaged
        // from the first step that does not
        damped = damped || (m_iterations > 1 && moved >= lastMoved);
        lastMoved = moved;
        for (uint32_t f = 0; f < nFlows; ++f)
        {
            m_rate[f] = !damped || done || m_next[f] == NO_CAP ? m_next[f]
                                                               : 0.5 * (m_rate[f] + m_next[f]);
        }
        if (done)
        {
            break;
        }
    }
    m_iterations = std::min(m_iterations, MAX_ITERATIONS);
    // Stopped short of the fixed point, a link may be over by what the last step moved:
    // every flow on it is scaled down to fit (a no-op once converged).
    std::vector<double>& load = m_weight;
    load.assign(m_capacity.size(), 0.0);
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        for (uint32_t u = 0; u < m_nUses[f]; ++u)
        {
            load[m_uses[f][u].link] += m_uses[f][u].weight * m_rate[f];
        }
    }
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        double scale = 1;
        for (uint32_t u = 0; u < m_nUses[f]; ++u)
        {
            uint32_t l = m_uses[f][u].link;
            if (load[l] > m_capacity[l] * (1 + 1e-9))
            {
                scale = std::min(scale, m_capacity[l] / load[l]);
            }
        }
        m_rate[f] *= scale;
    }
}

} // namespace ns3
