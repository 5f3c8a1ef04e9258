/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-breakdown.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
/// Categories of a rank's instant, in priority order (first match wins).
constexpr uint32_t CATEGORIES = 1 + TRAINING_DIMENSIONS;

/// \return the priority slot of a dimension: TP, EP, PP, WS, DP after compute (0)
uint32_t
SlotOf(TrainingDimension d)
{
    switch (d)
    {
        case TrainingDimension::TP:
            return 1;
        case TrainingDimension::EP:
            return 2;
        case TrainingDimension::PP:
            return 3;
        case TrainingDimension::WS:
            return 4;
        case TrainingDimension::DP:
            return 5;
    }
    return 5;
}

/// One interval endpoint of a rank.
struct Edge
{
    int64_t time; //!< ns-3 time steps
    int32_t delta;
    uint32_t slot;

    bool operator<(const Edge& o) const
    {
        return time < o.time;
    }
};
void
CheckRuns(const TrainingGraph& graph, const std::vector<TrainingTaskRun>& runs)
{
    if (runs.size() != graph.tasks.size())
    {
        throw std::invalid_argument("runs: " + std::to_string(runs.size()) + " runs for a graph of "
                                    + std::to_string(graph.tasks.size()) + " tasks");
    }
}
} // namespace

std::vector<double>
IterationSeconds(const TrainingGraph& graph, const std::vector<TrainingTaskRun>& runs)
{
    CheckRuns(graph, runs);
    std::vector<Time> ends(graph.iterations, Time(0));
    for (uint32_t t = 0; t < graph.tasks.size(); ++t)
    {
        const TrainingTask& task = graph.tasks[t];
        Time end = runs[t].end + task.finishDelay;
        ends.at(task.iteration) = std::max(ends.at(task.iteration), end);
    }
    std::vector<double> out;
    Time previous(0);
    for (uint32_t i = 0; i < graph.iterations; ++i)
    {
        // an iteration that ends before the previous one lasts 0 (not negative)
        Time end = std::max(ends[i], previous);
        out.push_back((end - previous).GetSeconds());
        previous = end;
    }
    return out;
}

std::vector<TrainingBreakdown>
ComputeBreakdown(const TrainingGraph& graph,
                 const std::vector<TrainingTaskRun>& runs,
                 bool pipelined,
                 uint32_t firstIteration)
{
    CheckRuns(graph, runs);
    if (firstIteration >= graph.iterations)
    {
        throw std::invalid_argument("firstIteration: " + std::to_string(firstIteration)
                                    + "; the graph has iterations 0 to "
                                    + std::to_string(graph.iterations - 1));
    }
    // the window, in time steps (exact): from the end of iteration firstIteration-1
    Time windowStart(0);
    Time windowEnd(0);
    {
        std::vector<Time> ends(graph.iterations, Time(0));
        for (uint32_t t = 0; t < graph.tasks.size(); ++t)
        {
            const TrainingTask& task = graph.tasks[t];
            ends[task.iteration] = std::max(ends[task.iteration], runs[t].end + task.finishDelay);
        }
        Time previous(0);
        for (uint32_t i = 0; i < graph.iterations; ++i)
        {
            Time end = std::max(ends[i], previous);
            if (i + 1 == firstIteration)
            {
                windowStart = end;
            }
            previous = end;
        }
        windowEnd = previous;
    }
    const int64_t lo = windowStart.GetTimeStep();
    const int64_t hi = windowEnd.GetTimeStep();

    std::vector<std::vector<Edge>> edges(graph.ranks);
    auto add = [&](uint32_t rank, const TrainingTaskRun& run, uint32_t slot)
    {
        int64_t a = std::max(run.start.GetTimeStep(), lo);
        int64_t b = std::min(run.end.GetTimeStep(), hi);
        if (b > a)
        {
            edges[rank].push_back({a, +1, slot});
            edges[rank].push_back({b, -1, slot});
        }
    };
    for (uint32_t t = 0; t < graph.tasks.size(); ++t)
    {
        const TrainingTask& task = graph.tasks[t];
        switch (task.kind)
        {
            case TrainingTaskKind::COMPUTE:
                for (uint32_t r : task.ranks)
                {
                    add(r, runs[t], 0);
                }
                break;
            case TrainingTaskKind::COLLECTIVE:
                for (uint32_t r : task.ranks)
                {
                    add(r, runs[t], SlotOf(task.dimension));
                }
                break;
            case TrainingTaskKind::SEND:
                add(task.ranks.at(0), runs[t], SlotOf(task.dimension));
                add(task.ranks.at(1), runs[t], SlotOf(task.dimension));
                break;
            case TrainingTaskKind::STREAM:
                for (uint32_t r : task.ranks)
                {
                    add(r, runs[t], SlotOf(TrainingDimension::WS));
                }
                break;
            case TrainingTaskKind::DELAY:
                break;
        }
    }

    uint32_t measured = graph.iterations - firstIteration;
    const TrainingDimension bySlot[CATEGORIES] = {TrainingDimension::TP, // unused (compute)
                                                  TrainingDimension::TP,
                                                  TrainingDimension::EP,
                                                  TrainingDimension::PP,
                                                  TrainingDimension::WS,
                                                  TrainingDimension::DP};
    std::vector<TrainingBreakdown> out(graph.ranks);
    for (uint32_t r = 0; r < graph.ranks; ++r)
    {
        std::vector<Edge>& e = edges[r];
        std::stable_sort(e.begin(), e.end());
        int64_t first[CATEGORIES] = {}; // exposed steps by slot
        int64_t busy[CATEGORIES] = {};  // busy steps by slot
        int64_t nothing = 0;
        int32_t active[CATEGORIES] = {};
        int64_t now = lo;
        std::size_t i = 0;
        while (now < hi || i < e.size())
        {
            int64_t next = i < e.size() ? e[i].time : hi;
            if (next > now)
            {
                int64_t len = next - now;
                uint32_t top = CATEGORIES;
                for (uint32_t c = 0; c < CATEGORIES; ++c)
                {
                    if (active[c] > 0)
                    {
                        busy[c] += len;
                        top = std::min(top, c);
                    }
                }
                (top < CATEGORIES ? first[top] : nothing) += len;
                now = next;
            }
            if (i >= e.size())
            {
                break;
            }
            for (; i < e.size() && e[i].time == now; ++i)
            {
                active[e[i].slot] += e[i].delta;
            }
        }
        TrainingBreakdown& b = out[r];
        auto sec = [&](int64_t steps)
        {
            return Time(steps).GetSeconds() / measured;
        };
        b.iterationSeconds = sec(hi - lo);
        b.computeSeconds = sec(first[0]);
        for (uint32_t c = 1; c < CATEGORIES; ++c)
        {
            b.exposedSeconds[uint32_t(bySlot[c])] = sec(first[c]);
            b.commSeconds[uint32_t(bySlot[c])] = sec(busy[c]);
        }
        (pipelined ? b.bubbleSeconds : b.idleSeconds) = sec(nothing);
    }
    return out;
}

TrainingBreakdown
MeanBreakdown(const std::vector<TrainingBreakdown>& ranks)
{
    TrainingBreakdown m;
    if (ranks.empty())
    {
        return m;
    }
    double n = ranks.size();
    for (const auto& b : ranks)
    {
        m.iterationSeconds += b.iterationSeconds / n;
        m.computeSeconds += b.computeSeconds / n;
        for (uint32_t d = 0; d < TRAINING_DIMENSIONS; ++d)
        {
            m.exposedSeconds[d] += b.exposedSeconds[d] / n;
            m.commSeconds[d] += b.commSeconds[d] / n;
        }
        m.bubbleSeconds += b.bubbleSeconds / n;
        m.idleSeconds += b.idleSeconds / n;
    }
    return m;
}

} // namespace ns3
