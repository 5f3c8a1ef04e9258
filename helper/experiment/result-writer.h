/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_RESULT_WRITER_H
#define DLNET_RESULT_WRITER_H

#include "result-fields.h"
#include "traffic-experiment.h"

#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace ns3
{

/// The columns of messages.csv (and the keys of result.json's "messages").
const FieldTable<MessageResult>& MessageFields();
/// The columns of links.csv (and the keys of result.json's "links").
const FieldTable<LinkResult>& LinkFields();
/// The columns of switches.csv after a run's own (and the keys of its switch_stats).
const FieldTable<SwitchResult>& SwitchFields();
/// The columns of a ranks table after a run's own (rank, bytes_sent ... network_s).
const FieldTable<RankResult>& RankFields();
/// The summary keys of a traffic result in result.json.
const FieldTable<TrafficResult>& TrafficSummaryFields();

/**
 * \return the result as JSON: summary fields, "messages" and "links" arrays
 * (wall time left out, so that equal runs give equal files)
 */
nlohmann::json ToJson(const TrafficResult& result);
/// \return the config as JSON, option name -> value text
nlohmann::json ToJson(const TrafficConfig& config);

/**
 * Write messages.csv, links.csv and result.json (config and result) into a
 * folder, creating it. Throws std::runtime_error when it cannot write.
 * \param config the experiment
 * \param result its result
 * \param dir the folder
 */
void WriteTrafficResults(const TrafficConfig& config,
                         const TrafficResult& result,
                         const std::string& dir);

/// \return the shortest decimal text that reads back to the same double (deterministic files)
std::string ExactText(double v);

/// \return a time as microseconds with 6 decimals (exact picoseconds; Chrome trace "ts")
std::string TraceMicroseconds(Time t);

/**
 * A Chrome trace-event file (chrome://tracing, Perfetto) written one event at
 * a time: its framing, and the metadata events that name and order the tracks.
 */
class ChromeTraceWriter
{
public:
    /// \param out an open stream: the file's opening is written to it
    explicit ChromeTraceWriter(std::ostream& out);
    /// \param json one event, a JSON object
    void Event(const std::string& json);
    /// Name a process (a group of tracks) and sort the processes by pid.
    /// \param pid its id \param name its name
    void Process(uint32_t pid, const std::string& name);
    /// \param pid a process \param tid one of its threads (a track) \param name its name
    void Thread(uint32_t pid, uint32_t tid, const std::string& name);
    /// Write the file's closing.
    void Finish();

private:
    std::ostream& m_out;
    bool m_first{true};
};

/// \return a size in the largest binary unit that divides it: 1024 -> "1KiB", 1000 -> "1000B"
std::string SizeLabel(uint64_t bytes);

/// Create a folder and its parents; throws std::runtime_error on failure.
void MakeResultsDir(const std::string& dir);

/**
 * Before a run, touching nothing: check that the results folder could be
 * made (dlnet::CheckFolder) and a file written in it, so that a bad folder
 * is reported before the simulation; the writers make it (MakeResultsDir).
 * Throws std::invalid_argument naming the field.
 * \param field the option that named the folder (results, results_dir)
 * \param dir the folder
 */
void CheckResultsDir(const std::string& field, const std::string& dir);

/**
 * Check, touching nothing, that a file can be written: an existing file must
 * be writable, a new one's nearest existing folder writable (the writer makes
 * the missing folders with dlnet::MakeParentFolders). Throws
 * std::invalid_argument naming the field.
 * \param field the option, for the message
 * \param path the file
 */
void CheckOutputFile(const std::string& field, const std::string& path);

} // namespace ns3

#endif /* DLNET_RESULT_WRITER_H */
