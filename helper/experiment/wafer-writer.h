/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WAFER_WRITER_H
#define DLNET_WAFER_WRITER_H

#include "result-fields.h"
#include "wafer-experiment.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * The columns of fred-vs-mesh.csv, and the keys of every row in result.json
 * and in Python's run_wafer.
 */
const FieldTable<WaferRow>& WaferFields();

/// One item (a link, a switch, an NPU) of one simulation (stats).
template <typename Item>
struct WaferStatsRow
{
    const WaferRunStats& run; //!< the simulation
    const Item& item;         //!< the link, switch or NPU
};

/// One directed link of one simulation.
using WaferLinkRow = WaferStatsRow<LinkResult>;
/// One switch of one simulation.
using WaferSwitchRow = WaferStatsRow<SwitchResult>;
/// One NPU of one simulation.
using WaferRankRow = WaferStatsRow<RankResult>;

/// The columns of links.csv: variant, scenario, group, then the traffic links.csv columns.
const FieldTable<WaferLinkRow>& WaferLinkFields();
/// The columns of switches.csv: variant, scenario, group, then the switch columns.
const FieldTable<WaferSwitchRow>& WaferSwitchFields();
/// The columns of ranks.csv: variant, scenario, group, then the rank columns.
const FieldTable<WaferRankRow>& WaferRankFields();

/**
 * \return the FRED paper's effective per-NPU bandwidth (GB/s) for a group
 * kind on a variant, when the paper gives one
 */
std::optional<double> PaperGBps(const std::string& variant, const std::string& group);

/// \return the config as JSON, option name -> value text
nlohmann::json ToJson(const WaferExperimentConfig& config);

/**
 * \return {"config", "rows"} and with config.stats {"links", "switches", "ranks"}:
 *         result.json, and Python's run_wafer without wall_seconds
 */
nlohmann::json ToJson(const WaferExperimentConfig& config, const WaferResult& result);

/// Print one table per scenario that ran (the fred-vs-mesh example's output).
void PrintWaferTables(const WaferExperimentConfig& config, const WaferResult& result);

/**
 * Write fred-vs-mesh.csv, result.json and fred-vs-mesh.png (a bar chart of
 * effective bandwidth per group kind and variant, the paper's figures as
 * points), with config.stats also links.csv, switches.csv and ranks.csv,
 * into a folder, creating it; throws std::runtime_error when it cannot write.
 * \return the files written (the PNG only when gnuplot made it)
 */
std::vector<std::string> WriteWaferResults(const WaferExperimentConfig& config,
                                           const WaferResult& result,
                                           const std::string& dir);

} // namespace ns3

#endif /* DLNET_WAFER_WRITER_H */
