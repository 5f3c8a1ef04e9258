/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WORKLOAD_IMPORT_H
#define DLNET_WORKLOAD_IMPORT_H

#include "training-graph.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup dlnet
 * Settings of a workload import that the files do not carry.
 */
struct WorkloadImportOptions
{
    /// NPUs. ASTRA-sim 1.0 files do not say (required, >= 2); SimAI's all_gpus
    /// does (0 = take it from the file, else it must agree); Chakra: 0 = the
    /// file's "ranks" or its number of traces.
    uint32_t ranks{0};
    double clockHz{1e9};    //!< cycles -> seconds (ASTRA-sim: 1 cycle = 1 ns); not for SimAI/Chakra
    uint32_t iterations{1}; //!< training iterations (ASTRA-sim's passes)
    /// ASTRA-sim MODEL-group size when the file has no model_parallel_NPU_group
    /// (HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED layers); 0 = the
    /// file's; for a transformer file, non-zero must agree with the file
    uint32_t modelParallel{0};
    uint32_t pipelineParallel{0};  //!< SimAI: 0 = the file's pp, else must agree
    DataType type{DataType::FP16}; //!< element type of the collectives
};

/// The most tasks an import builds (std::invalid_argument beyond: bounds memory).
constexpr uint32_t MAX_IMPORT_TASKS = MAX_TRAINING_TASKS;

/**
 * \ingroup dlnet
 * \brief Build the training graph of an ASTRA-sim 1.0 text workload (or a
 * SimAI/AICB one: a header with "all_gpus:").
 *
 * See doc/workload-import.md for the semantics of every parallelism policy
 * (read from ASTRA-sim 1.0's Workload.cc) and of SimAI's pipeline.
 * \param text the file's contents
 * \param fileName names the file in errors and becomes the graph's name
 * \param o the settings
 * \return the graph (Validate() passes)
 * \throws std::invalid_argument "FILE:LINE: FIELD: what (allowed: ...)"
 */
TrainingGraph ImportAstraSimText(const std::string& text,
                                 const std::string& fileName,
                                 const WorkloadImportOptions& o);

/**
 * \ingroup dlnet
 * \brief Build the graph of a Chakra JSON trace: {"workload_graph": [...]}
 * run by every rank (SPMD), or {"ranks": N, "traces": [{"rank": r,
 * "workload_graph": [...]}, ...]} with one trace per rank.
 * \param text the JSON
 * \param fileName names the file in errors and the graph
 * \param groupsText communicator groups {"name": [ranks...]} (pg_name), may be empty
 * \param o the settings
 * \param groupsFileName names the groups' file in errors ("": "<fileName> (groups)")
 * \return the graph
 * \throws std::invalid_argument naming file, node and field
 */
TrainingGraph ImportChakraJson(const std::string& text,
                               const std::string& fileName,
                               const std::string& groupsText,
                               const WorkloadImportOptions& o,
                               const std::string& groupsFileName = "");

/// \return whether a workload file's text is Chakra JSON (its first character { or [), not
/// ASTRA-sim or SimAI text
bool IsChakraJson(const std::string& text);

/**
 * \ingroup dlnet
 * \brief Read a workload file and import it by its content: JSON (its first
 * character { or [) -> ImportChakraJson (groups only from a "groups" object
 * inside the file); a first line with "all_gpus:" -> SimAI; otherwise
 * ASTRA-sim 1.0 text (both through ImportAstraSimText).
 * \param path the file
 * \param o the settings
 * \return the graph
 */
TrainingGraph ImportWorkloadFile(const std::string& path, const WorkloadImportOptions& o);

} // namespace ns3

#endif /* DLNET_WORKLOAD_IMPORT_H */
