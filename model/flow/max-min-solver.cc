/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "max-min-solver.h"

#include "ns3/assert.h"
#include "ns3/interrupt.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
MaxMinSolver::SetMemory(std::size_t bytes)
{
    m_memoryBudget = bytes;
    m_memory.clear();
    m_seen.clear();
    m_memoryBytes = 0;
}

void
MaxMinSolver::Solve()
{
    const uint32_t links = m_capacity.size();
    const uint32_t nFlows = m_priority.size();
    std::size_t uses = 0;
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        uses += m_nUses[f];
    }
    if (m_memoryBudget == 0 || uses > MEMORY_MAX_USES)
    {
        SolveNow();
        return;
    }
    // The problem, written out: capacities, then each flow's priority, cap and uses in
    // order. Every field is preceded by a tag that tells what follows (a value like the
    // last one is not repeated), so two problems have the same text only if they are the
    // same problem.
    // (written through a pointer into room for the longest text: a push_back per byte
    // would cost more than the solve it saves)
    std::vector<uint8_t>& text = m_text;
    std::size_t room = 16 + 9 * std::size_t(links) + 15 * std::size_t(nFlows) + 15 * uses;
    if (text.size() < room)
    {
        text.resize(room);
    }
    uint8_t* out = text.data();
    auto putCount = [&out](uint32_t n)
    {
        while (n >= 0x80)
        {
            *out++ = uint8_t(n) | 0x80;
            n >>= 7;
        }
        *out++ = uint8_t(n);
    };
    auto putReal = [&out](double x)
    {
        std::memcpy(out, &x, sizeof(double));
        out += sizeof(double);
    };
    auto same = [](double a, double b)
    {
        return std::memcmp(&a, &b, sizeof(double)) == 0; // (bit for bit)
    };
    putCount(links);
    putCount(nFlows);
    double last = 0;
    for (uint32_t l = 0; l < links; ++l)
    {
        bool repeat = l > 0 && same(m_capacity[l], last);
        *out++ = repeat;
        if (!repeat)
        {
            putReal(m_capacity[l]);
            last = m_capacity[l];
        }
    }
    double lastWeight = 1;
    for (uint32_t f = 0; f < nFlows; ++f)
    {
        *out++ = m_priority[f];
        bool capped = m_cap[f] != NO_CAP;
        *out++ = capped;
        if (capped)
        {
            putReal(m_cap[f]);
        }
        putCount(m_nUses[f]);
        for (uint32_t u = 0; u < m_nUses[f]; ++u)
        {
            const Use& use = m_uses[f][u];
            putCount(use.link);
            // bit 0: the flow's priority (else it follows), bit 1: the last weight (else it
            // follows)
            bool ownPriority = use.priority == m_priority[f];
            bool repeat = same(use.weight, lastWeight);
            *out++ = uint8_t(ownPriority) | uint8_t(repeat) << 1;
            if (!ownPriority)
            {
                *out++ = use.priority;
            }
            if (!repeat)
            {
                putReal(use.weight);
                lastWeight = use.weight;
            }
        }
    }
    const std::size_t length = out - text.data();
    // (a multiply-xorshift over 8 bytes at a time)
    uint64_t hash = length;
    for (std::size_t i = 0; i < length; i += 8)
    {
        uint64_t word = 0;
        if (i + 8 <= length)
        {
            std::memcpy(&word, text.data() + i, 8);
        }
        else
        {
            std::memcpy(&word, text.data() + i, length - i);
        }
        hash = (hash ^ word) * 0x9e3779b97f4a7c15ull;
        hash ^= hash >> 29;
    }
    auto it = m_memory.find(hash);
    if (it != m_memory.end() && it->second.text.size() == length
        && std::memcmp(it->second.text.data(), text.data(), length) == 0)
    {
        ++m_memoryHits;
        m_rate = it->second.rates;
        m_iterations = it->second.iterations;
        return;
    }
    SolveNow();
    // A problem is kept the second time it comes (its hash is noted the first time): most
    // problems of a large component never come again, and their texts would crowd out
    // the small ones that do.
    bool again = it != m_memory.end() || m_seen.count(hash) > 0;
    std::size_t bytes
        = again ? length + m_rate.size() * sizeof(double) + MEMORY_ENTRY_BYTES : MEMORY_SEEN_BYTES;
    if (bytes > m_memoryBudget / 16)
    {
        return; // (a problem that would crowd out the others is not kept)
    }
    if (m_memoryBytes + bytes > m_memoryBudget)
    {
        // full: start again (the problems of a run come round in cycles)
        m_memory.clear();
        m_seen.clear();
        m_memoryBytes = 0;
        it = m_memory.end();
    }
    m_memoryBytes += bytes;
    if (!again)
    {
        m_seen.insert(hash);
        return;
    }
    if (it != m_memory.end())
    {
        m_memoryBytes -= it->second.text.size() + it->second.rates.size() * sizeof(double)
                         + MEMORY_ENTRY_BYTES; // (another problem of the same hash: replaced)
    }
    Remembered& entry = m_memory[hash];
    entry.text.assign(text.begin(), text.begin() + length);
    entry.rates = m_rate;
    entry.iterations = m_iterations;
}

void
MaxMinSolver::SolveNow()
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
    m_level.resize(links);
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
    // one entry per link (id: the link) and per capped flow (id: links + flow); the entries
    // come out in the order of the links' latest levels (see below)
    const uint32_t links = m_capacity.size();
    IndexedHeap<Event>& events = m_events;
    events.Reset(links + m_priority.size());
    std::vector<uint32_t>& touched = m_touched;
    touched.clear();
    uint32_t unfrozen = n;
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
            events.Add(links + f, {m_cap[f], f, CAP});
        }
        else if (m_nUses[f] == 0)
        {
            m_rate[f] = NO_CAP;
            m_frozen[f] = true;
            --unfrozen;
        }
    }
    for (uint32_t l : touched)
    {
        m_used[l] = 0;
        m_level[l] = m_capacity[l] / m_weight[l];
        events.Add(l, {m_level[l], l, m_version[l]});
    }
    events.Heapify(); // (the keys are a strict total order: the same order as one by one)

    // A freeze raises the levels of its links (the flow leaves at or below them). A link's
    // latest level goes into m_level once the event's freezes are all done; its entry keeps
    // its older, lower key until it comes to the top (then it moves to the latest) or the
    // latest is lower (rounding: it moves at once). Every entry's key is then no higher
    // than its link's latest, so an entry that comes to the top with its latest key is the
    // least of the latest levels: the order of a heap set at every change, without the
    // moves of the entries that rise and never come to the top. An entry whose link has
    // no unfrozen flow left stays until it comes out, and is dropped then.
    std::vector<uint32_t>& changed = m_changed;
    auto freeze = [&](uint32_t f, double level)
    {
        m_frozen[f] = true;
        m_rate[f] = level;
        --unfrozen;
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
                m_level[l] = std::max(next, level);
                Event latest{m_level[l], l, m_version[l]};
                if (!events.Contains(l) || latest < events.KeyOf(l))
                {
                    events.Set(l, latest);
                }
            }
        }
        changed.clear();
    };

    // (once every flow is frozen the entries left change nothing)
    uint32_t handled = 0;
    while (unfrozen > 0 && !events.Empty())
    {
        if (++handled % 4096 == 0)
        {
            dlnet::PollInterrupt(); // (Ctrl-C: a million flows take seconds to solve)
        }
        const uint32_t id = events.Top();
        const Event e = events.TopKey();
        if (e.version == CAP)
        {
            events.Pop();
            if (!m_frozen[e.index])
            {
                freeze(e.index, e.level);
                settle(e.level);
            }
            continue;
        }
        if (m_weight[id] == 0)
        {
            events.Pop(); // every flow on it already frozen
            continue;
        }
        if (e.version != m_version[id])
        {
            events.Set(id, {m_level[id], id, m_version[id]}); // up to its latest level
            continue;
        }
        events.Pop();
        for (uint32_t f : m_linkFlows[id])
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
