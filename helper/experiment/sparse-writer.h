/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SPARSE_WRITER_H
#define DLNET_SPARSE_WRITER_H

#include "result-fields.h"
#include "sparse-experiment.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/**
 * The columns of sparse-allreduce.csv, and the keys of every row in
 * result.json and in Python's run_sparse.
 */
const FieldTable<SparseRow>& SparseFields();

/// \return the config as JSON, option name -> value text (list defaults resolved)
nlohmann::json ToJson(const SparseConfig& config);

/// \return {"config", "rows"}: result.json, and Python's run_sparse without wall_seconds
nlohmann::json ToJson(const SparseConfig& config, const SparseResult& result);

/// Print the line that describes the sweep.
void PrintSparseHeader(const SparseConfig& config);

/**
 * Print one (rate, N) group's table (a SparseProgress).
 * \param config the sweep \param group its rows \param wall its wall time (s)
 */
void PrintSparseGroup(const SparseConfig& config, const std::vector<SparseRow>& group, double wall);

/**
 * Write sparse-allreduce.csv, result.json and one PNG per rate (time against
 * density, log scales: time-vs-density-RATE.png) into a folder, creating it;
 * throws std::runtime_error when it cannot write.
 * \return the files written (PNGs only when gnuplot made them)
 */
std::vector<std::string> WriteSparseResults(const SparseConfig& config,
                                            const SparseResult& result,
                                            const std::string& dir);

} // namespace ns3

#endif /* DLNET_SPARSE_WRITER_H */
