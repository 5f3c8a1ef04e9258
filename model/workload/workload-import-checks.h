/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WORKLOAD_IMPORT_CHECKS_H
#define DLNET_WORKLOAD_IMPORT_CHECKS_H

#include "training-graph.h"
#include "workload-import.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * What the workload importers (ASTRA-sim and SimAI text, Chakra JSON) share:
 * their limits, their refusals (a file, a line, the field and what it allows)
 * and how a task joins the graph.
 */
namespace workloadimport
{

constexpr uint64_t MAX_BYTES = 1ULL << 50; //!< a message or collective in a file
constexpr uint64_t MAX_RANKS = 65536;
constexpr uint64_t MAX_ITERATIONS = 100000;
constexpr uint32_t NO_TASK = UINT32_MAX;

/// The values of a list, separated by commas.
std::string Join(const std::vector<std::string>& v);

/// Throw std::invalid_argument "file:line: field: what (allowed: ...)".
[[noreturn]] void Fail(const std::string& file,
                       uint64_t line,
                       const std::string& field,
                       const std::string& what,
                       const std::string& allowed = "");

/// The clock converts ASTRA-sim 1.0's cycles; a SimAI or Chakra file's durations are times,
/// so another clock would be taken and ignored: refused.
void RefuseClock(const std::string& file,
                 const WorkloadImportOptions& o,
                 const std::string& format);

/// A file's text in quotes, its unprintable bytes escaped.
std::string Quote(const std::string& t);

/// The options every import takes, in their ranges.
void CheckOptions(const std::string& file, const WorkloadImportOptions& o);

/**
 * Add a task to the graph, its dependencies sorted and each once.
 * \return its index
 * \throw std::invalid_argument beyond MAX_IMPORT_TASKS tasks
 */
uint32_t AddTask(TrainingGraph& g, TrainingTask t);

} // namespace workloadimport
} // namespace ns3

#endif // DLNET_WORKLOAD_IMPORT_CHECKS_H
