/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-graph.h"

#include "ns3/config-parse.h"
#include "ns3/interrupt.h"
#include "ns3/log.h"

#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingGraph");

const std::vector<std::string>&
TrainingDimensionNames()
{
    static const std::vector<std::string> names = {"tp", "pp", "dp", "ep", "ws"};
    return names;
}

std::string
ToString(TrainingDimension d)
{
    return TrainingDimensionNames().at(static_cast<uint32_t>(d));
}

TrainingDimension
ParseTrainingDimension(const std::string& field, const std::string& text)
{
    const auto& names = TrainingDimensionNames();
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == text)
        {
            return static_cast<TrainingDimension>(i);
        }
    }
    throw std::invalid_argument(field + ": '" + dlnet::PrintableText(text)
                                + "' is not a parallel dimension (tp, pp, dp, ep, ws)");
}

std::string
ToString(TrainingTaskKind kind)
{
    switch (kind)
    {
        case TrainingTaskKind::COMPUTE:
            return "compute";
        case TrainingTaskKind::COLLECTIVE:
            return "collective";
        case TrainingTaskKind::SEND:
            return "send";
        case TrainingTaskKind::STREAM:
            return "stream";
        case TrainingTaskKind::DELAY:
            return "delay";
    }
    return "?";
}

std::string
ToString(TrainingPhase phase)
{
    switch (phase)
    {
        case TrainingPhase::FORWARD:
            return "forward";
        case TrainingPhase::BACKWARD:
            return "backward";
        case TrainingPhase::RECOMPUTE:
            return "recompute";
        case TrainingPhase::OPTIMIZER:
            return "optimizer";
        case TrainingPhase::OTHER:
            return "other";
    }
    return "?";
}

uint32_t
TrainingGraph::Add(TrainingTask task)
{
    if (tasks.size() >= MAX_TRAINING_TASKS)
    {
        throw std::invalid_argument("training graph " + dlnet::PrintableText(name) + ": more than "
                                    + std::to_string(MAX_TRAINING_TASKS)
                                    + " tasks; fewer ranks, microbatches, layers or iterations");
    }
    if (tasks.size() % 4096 == 0)
    {
        dlnet::PollInterrupt(); // (Ctrl-C: a graph of millions of tasks takes seconds)
    }
    tasks.push_back(std::move(task));
    return tasks.size() - 1;
}

void
TrainingGraph::Validate() const
{
    if (ranks == 0)
    {
        throw std::invalid_argument("training graph " + dlnet::PrintableText(name)
                                    + ": ranks is 0");
    }
    if (iterations == 0)
    {
        throw std::invalid_argument("training graph " + dlnet::PrintableText(name)
                                    + ": iterations is 0");
    }
    for (uint32_t i = 0; i < tasks.size(); ++i)
    {
        const TrainingTask& t = tasks[i];
        auto fail = [&](const std::string& field, const std::string& what)
        {
            throw std::invalid_argument("training graph " + dlnet::PrintableText(name) + ", task "
                                        + std::to_string(i) + " (" + dlnet::PrintableText(t.label)
                                        + "): " + field + " " + what);
        };
        std::size_t want = 0;
        switch (t.kind)
        {
            case TrainingTaskKind::DELAY:
                want = 1;
                break;
            case TrainingTaskKind::SEND:
                want = 2;
                break;
            default:
                break;
        }
        if (want != 0 && t.ranks.size() != want)
        {
            fail("ranks",
                 "must hold " + std::to_string(want) + " rank(s) for a " + ToString(t.kind)
                     + " task");
        }
        if (t.kind == TrainingTaskKind::COMPUTE && t.ranks.empty())
        {
            fail("ranks", "must hold at least 1 rank for a compute task");
        }
        if (t.kind == TrainingTaskKind::COLLECTIVE && t.ranks.size() < 2)
        {
            fail("ranks", "must hold at least 2 members for a collective");
        }
        if (t.kind == TrainingTaskKind::STREAM && t.ranks.empty())
        {
            fail("ranks", "must hold at least 1 receiver for a stream");
        }
        std::set<uint32_t> seen;
        for (uint32_t r : t.ranks)
        {
            if (r >= ranks)
            {
                fail("ranks",
                     "holds rank " + std::to_string(r) + ", not below the job's "
                         + std::to_string(ranks));
            }
            if (!seen.insert(r).second)
            {
                fail("ranks", "holds rank " + std::to_string(r) + " twice");
            }
        }
        bool moves = t.kind == TrainingTaskKind::COLLECTIVE || t.kind == TrainingTaskKind::SEND
                     || t.kind == TrainingTaskKind::STREAM;
        if (moves && t.bytes == 0)
        {
            fail("bytes", "is 0 (a " + ToString(t.kind) + " moves at least 1 byte)");
        }
        if (t.pull && t.kind != TrainingTaskKind::SEND)
        {
            fail("pull", "is set on a " + ToString(t.kind) + " task (only a send may pull)");
        }
        if (t.detached && (t.kind != TrainingTaskKind::SEND || t.pull))
        {
            fail("detached",
                 "is set on a " + std::string(t.pull ? "pull" : ToString(t.kind))
                     + " (only a send that does not pull may be detached)");
        }
        if (t.blocking && (t.kind != TrainingTaskKind::SEND || t.pull || t.detached))
        {
            fail("blocking",
                 "is set on a "
                     + std::string(t.kind != TrainingTaskKind::SEND ? ToString(t.kind)
                                   : t.pull                         ? "pull"
                                                                    : "detached send")
                     + " (only a send that neither pulls nor is detached may block)");
        }
        if (t.batched && !t.blocking)
        {
            fail("batched",
                 "is set on a "
                     + std::string(t.kind != TrainingTaskKind::SEND ? ToString(t.kind)
                                                                    : "send that does not block")
                     + " (only a blocking send may be posted in a batch)");
        }
        if (t.duration.IsStrictlyNegative() || t.finishDelay.IsStrictlyNegative())
        {
            fail("duration", "is negative");
        }
        if (t.iteration >= iterations)
        {
            fail("iteration",
                 std::to_string(t.iteration) + " is not below the graph's "
                     + std::to_string(iterations));
        }
        for (uint32_t d : t.deps)
        {
            if (d >= i)
            {
                fail("deps", "names task " + std::to_string(d) + ", not an earlier one");
            }
        }
    }
}

} // namespace ns3
