/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAINING_WRITER_H
#define DLNET_TRAINING_WRITER_H

#include "result-fields.h"
#include "training-experiment.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/// \return the columns of training.csv (one row per job and run mode)
const FieldTable<TrainingJobRow>& TrainingJobFields();
/// \return the columns of comms.csv (one row per collective, send or stream)
const FieldTable<TrainingCommRow>& TrainingCommFields();

/// One rank's breakdown, for ranks.csv.
struct TrainingRankRow
{
    std::string job;
    uint32_t rank{0};        //!< job rank
    uint32_t clusterRank{0}; //!< where it ran
    TrainingBreakdown breakdown;
};

/// \return the columns of ranks.csv
const FieldTable<TrainingRankRow>& TrainingRankFields();

/// \return the rows of ranks.csv
std::vector<TrainingRankRow> RankRowsOf(const TrainingResult& result);

/// \return the columns of rank-stats.csv (stats: one row per job rank, TrainingRankStats)
const FieldTable<TrainingRankStats>& TrainingRankStatsFields();

/// \return {config, jobs, ranks}: result.json (comms and the timeline have their own files);
/// with stats also link_stats, switch_stats and rank_stats
nlohmann::json ToJson(const TrainingConfig& config, const TrainingResult& result);

/**
 * Write the timeline as Chrome trace-event JSON (opens in Perfetto and
 * chrome://tracing): one process per cluster rank, one thread per stream
 * (compute, tp, pp, dp, ep, ws); a complete event ("X") per task on each of
 * its streams, a send on the sender's; microseconds. Throws std::runtime_error.
 */
void WriteChromeTrace(const std::string& path, const TrainingResult& result);

/**
 * Write training.csv, comms.csv, ranks.csv, result.json, with stats links.csv,
 * switches.csv and rank-stats.csv, and, when the result kept its timeline,
 * trace.json in dir.
 * \return the files written
 */
std::vector<std::string> WriteTrainingResults(const TrainingConfig& config,
                                              const TrainingResult& result,
                                              const std::string& dir);

/**
 * A stacked bar per configuration of the breakdown of its first job's
 * iteration (compute, exposed TP, EP, PP, WS, DP, bubble, idle), in
 * breakdown.png.
 * \param labels one per result \param results the configurations
 * \param dir the folder \return the PNG ("" when gnuplot made none)
 */
std::string PlotTrainingBreakdown(const std::vector<std::string>& labels,
                                  const std::vector<TrainingResult>& results,
                                  const std::string& dir);

/// Print one line per configuration and job: iteration time, throughput, MFU, HFU, breakdown.
void PrintTrainingTable(const std::vector<std::string>& labels,
                        const std::vector<TrainingResult>& results);

} // namespace ns3

#endif /* DLNET_TRAINING_WRITER_H */
