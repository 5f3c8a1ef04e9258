/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_REPORT_H
#define DLNET_COLLECTIVE_REPORT_H

#include "collective-experiment.h"
#include "result-fields.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/// A row of a sweep, with the sweep it belongs to (for its op and ranks).
struct CollectiveSweepRow
{
    const CollectiveResult& sweep; //!< the sweep
    const CollectiveRow& row;      //!< one size of it
};

/**
 * The columns of collective.csv, and the keys of every row in result.json
 * and in Python's run_collective: the one place that names a row's fields.
 */
const FieldTable<CollectiveSweepRow>& CollectiveRowFields();

/// One directed link in one row of a sweep (stats).
struct CollectiveLinkRow
{
    const CollectiveRow& row; //!< the size
    const LinkResult& link;   //!< the link
};

/// One rank in one row of a sweep (stats).
struct CollectiveRankRow
{
    const CollectiveRow& row;         //!< the size
    const CollectiveRankResult& rank; //!< the rank
};

/// One switch in one row of a sweep (stats).
struct CollectiveSwitchRow
{
    const CollectiveRow& row; //!< the size
    const SwitchResult& sw;   //!< the switch
};

/// The columns of switches.csv.
const FieldTable<CollectiveSwitchRow>& CollectiveSwitchFields();
/// The columns of links.csv: algorithm, bytes, then the traffic links.csv columns.
const FieldTable<CollectiveLinkRow>& CollectiveLinkFields();
/// The columns of ranks.csv.
const FieldTable<CollectiveRankRow>& CollectiveRankFields();
/// The summary keys of a sweep in result.json (topology, op, ranks, model).
const FieldTable<CollectiveResult>& CollectiveSummaryFields();

/// \return a sweep as JSON: the model, then one object per row (wall time left out)
nlohmann::json ToJson(const CollectiveResult& result);
/// \return the config as JSON, option name -> value text
nlohmann::json ToJson(const CollectiveConfig& config);

/// Print the nccl-tests table of each sweep on stdout.
void PrintCollectiveTable(const CollectiveConfig& config,
                          const std::vector<CollectiveResult>& sweeps);

/// With several sweeps, print busbw by size, one column per algorithm, the fastest marked.
void PrintCollectiveComparison(const std::vector<CollectiveResult>& sweeps);

/**
 * Write collective.csv (one row per algorithm and size) and result.json into
 * a folder, creating it; throws std::runtime_error when it cannot write.
 */
void WriteCollectiveResults(const CollectiveConfig& config,
                            const std::vector<CollectiveResult>& sweeps,
                            const std::string& dir);

/**
 * Plot bus bandwidth against size, one line per algorithm (busbw.png), and
 * measured against the bound (time.png).
 * \return the PNGs written
 */
std::vector<std::string> PlotCollective(const std::vector<CollectiveResult>& sweeps,
                                        const std::string& dir);

} // namespace ns3

#endif /* DLNET_COLLECTIVE_REPORT_H */
