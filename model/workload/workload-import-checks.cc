/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-import-checks.h"

#include "ns3/config-parse.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{
namespace workloadimport
{

std::string
Join(const std::vector<std::string>& v)
{
    return dlnet::JoinList(v, ", ");
}

[[noreturn]] void
Fail(const std::string& file,
     uint64_t line,
     const std::string& field,
     const std::string& what,
     const std::string& allowed)
{
    std::string m
        = dlnet::PrintablePath(file) + ":" + std::to_string(line) + ": " + field + ": " + what;
    if (!allowed.empty())
    {
        m += " (allowed: " + allowed + ")";
    }
    throw std::invalid_argument(m);
}

void
RefuseClock(const std::string& file, const WorkloadImportOptions& o, const std::string& format)
{
    if (o.clockHz != WorkloadImportOptions().clockHz)
    {
        Fail(file,
             0,
             "clock-ghz",
             "got " + dlnet::ShortestText(o.clockHz / 1e9)
                 + "; it converts ASTRA-sim 1.0 cycles only, and this is a " + format
                 + " workload (leave it at "
                 + dlnet::ShortestText(WorkloadImportOptions().clockHz / 1e9) + ")");
    }
}

std::string
Quote(const std::string& t)
{
    return "'" + dlnet::PrintableText(t) + "'";
}

void
CheckOptions(const std::string& file, const WorkloadImportOptions& o)
{
    if (!(o.clockHz > 0) || !std::isfinite(o.clockHz) || o.clockHz > 1e15)
    {
        Fail(file,
             0,
             "clock-ghz",
             "is " + dlnet::ShortestText(o.clockHz / 1e9),
             "a positive number up to 1e6");
    }
    if (o.iterations == 0 || o.iterations > MAX_ITERATIONS)
    {
        Fail(file,
             0,
             "iterations",
             "is " + std::to_string(o.iterations),
             "1 to " + std::to_string(MAX_ITERATIONS));
    }
    if (o.ranks > MAX_RANKS)
    {
        Fail(file,
             0,
             "workload-ranks",
             "is " + std::to_string(o.ranks),
             "0 to " + std::to_string(MAX_RANKS));
    }
}

uint32_t
AddTask(TrainingGraph& g, TrainingTask t)
{
    if (g.tasks.size() >= MAX_IMPORT_TASKS)
    {
        throw std::invalid_argument(dlnet::PrintableText(g.name) + ": the graph exceeds "
                                    + std::to_string(MAX_IMPORT_TASKS)
                                    + " tasks (fewer iterations, ranks or layers)");
    }
    std::sort(t.deps.begin(), t.deps.end());
    t.deps.erase(std::unique(t.deps.begin(), t.deps.end()), t.deps.end());
    return g.Add(std::move(t));
}

} // namespace workloadimport
} // namespace ns3
