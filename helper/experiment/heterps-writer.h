/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_HETERPS_WRITER_H
#define DLNET_HETERPS_WRITER_H

#include "heterps-experiment.h"
#include "result-fields.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/// \return the columns of schedules.csv (one row per scheduler at the limit)
const FieldTable<HeterpsScheduleRow>& HeterpsScheduleFields();
/// \return the columns of sweep.csv (one row per limit and scheduler)
const FieldTable<HeterpsSweepRow>& HeterpsSweepFields();
/// \return the columns of headline.csv (one row per limit and baseline)
const FieldTable<HeterpsHeadlineRow>& HeterpsHeadlineFields();
/// \return the columns of the headline's summary (one row per baseline; result.json)
const FieldTable<HeterpsHeadlineSummary>& HeterpsHeadlineSummaryFields();
/// \return the columns of plan.csv (one row per layer of the chosen plan)
const FieldTable<HeterpsPlanRow>& HeterpsPlanFields();
/// \return the columns of simulation.csv (one row per stage of the simulated plan)
const FieldTable<SimulatedStage>& HeterpsSimulationFields();

/// One episode of the RL curve, for rl-curve.csv.
struct HeterpsCurveRow
{
    uint32_t episode{0};
    double reward{0}; //!< mean reward of the episode's plans
};

/// \return the columns of rl-curve.csv
const FieldTable<HeterpsCurveRow>& HeterpsCurveFields();

/**
 * \return result.json: {config, model, catalogue, types, layers, batch,
 * reachable, schedules, best_scheduler, plan, sweep, headline, headline_summary,
 * rl_curve, rl_converged_episode, simulation (or null)}: no wall time, so that
 * two runs of one config and seed write the same file (the terminal and
 * Python's dict have them).
 */
nlohmann::json ToJson(const HeterpsConfig& config, const HeterpsResult& result);

/**
 * Write schedules.csv, sweep.csv, headline.csv, rl-curve.csv, plan.csv,
 * simulation.csv (when simulated), result.json and the plots
 * cost-vs-limit.png, rl-curve.png and plan.png (when gnuplot renders them) in dir.
 * \return the files written
 */
std::vector<std::string> WriteHeterpsResults(const HeterpsConfig& config,
                                             const HeterpsResult& result,
                                             const std::string& dir);

/// Print the schedulers' table, the headline against the paper's claims and the simulation.
void PrintHeterpsTable(const HeterpsConfig& config, const HeterpsResult& result);

} // namespace ns3

#endif /* DLNET_HETERPS_WRITER_H */
