/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WAFER_EXPERIMENT_H
#define DLNET_WAFER_EXPERIMENT_H

#include "experiment-options.h"
#include "link-stats.h"
#include "simulation-scope.h"

#include "ns3/wafer-helper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The FRED-versus-mesh microbenchmarks: wafer-wide all-reduce, the
 * collectives of a MP x DP x PP job, weight streaming, and priority between
 * model- and data-parallel traffic on shared ports.
 */
struct WaferExperimentConfig
{
    WaferConfig wafer; //!< link parameters (its variant is overridden by variants)
    std::vector<std::string> variants{"mesh", "fred-a", "fred-b", "fred-c", "fred-d"};
    std::vector<std::string> scenarios{"allreduce", "groups", "mix", "io", "priority"};
    uint64_t bytes{64ULL << 20};     //!< collective size D per NPU
    uint64_t ioBytes{4ULL << 20};    //!< weight-streaming: bytes per I/O controller
    uint32_t mp{2};                  //!< model-parallel degree
    uint32_t dp{5};                  //!< data-parallel degree
    uint32_t pp{2};                  //!< pipeline-parallel degree
    std::string placement{"linear"}; //!< mesh: linear (rank order, rows of 4) or blocks (MP x PP
                                     //!< rectangles: MP along X, PP along Y, where they fit)
    std::string ranks{""};           //!< scenario "group": its NPUs ("0,4,8", "0-3"; empty: all)
    uint32_t chunks{64};        //!< hierarchical all-reduce (mesh, tapered FRED): staggered chunks
    uint32_t chunksInFlight{8}; //!< of which a rank works on at once
    bool functional{false};     //!< carry real data and check every result
    bool serialise{
        false};        //!< in-switch jobs whose flows conflict wait for each other (else refused)
    bool stats{false}; //!< per-link, per-switch and per-NPU statistics of every simulation
    uint32_t seed{1};
    uint64_t run{1};
    Ns3Attributes ns3Attributes; //!< ns-3 attribute defaults, set after each run's reset

    /// Throw std::invalid_argument naming the first bad field.
    void Validate() const;
    /// Throw std::invalid_argument naming an option set (not at its default) that no
    /// scenario or variant of the run uses.
    void RefuseUnusedOptions() const;
    /// \return whether a scenario uses an option (RefuseUnusedOptions refuses one that no
    ///         scenario of the run uses); an option not shaped by the scenario: true
    static bool ScenarioUses(const std::string& scenario, const std::string& option);
    /// \return the scenarios that use an option (every scenario: one ScenarioUses does not
    ///         restrict)
    static std::vector<std::string> ScenariosUsing(const std::string& option);
    /// \return this config running scenario alone, the options it does not use back at
    ///          their defaults (so that a run of several scenarios splits into runs of one)
    WaferExperimentConfig ForScenario(const std::string& scenario) const;
    /// \return the size a scenario moves: io-bytes for io (per I/O controller), bytes for
    ///          the collective scenarios (per NPU)
    uint64_t& BytesOf(const std::string& scenario);
    /// \return whether an option goes into the config written (stats only when on)
    bool Applies(const std::string& option) const;
};

/// \return the allowed mesh placements
const std::vector<std::string>& WaferPlacements();

/**
 * The NPUs in the order the parallel groups take them (MakeParallelGroups):
 * linear is 0..19; blocks tiles the mesh with MP-wide, PP-tall rectangles
 * (each holds one data-parallel replica's MP x PP NPUs), row by row where
 * they fit, the NPUs left over after them in rank order. FRED wafers always
 * take the linear order (an L1 switch is the block).
 * \param config the experiment (placement, mp, pp)
 * \param variant the wafer
 * \return the NPUs in placement order
 */
std::vector<uint32_t> PlacementOrder(const WaferExperimentConfig& config,
                                     const std::string& variant);

/// \return the allowed scenarios
const std::vector<std::string>& WaferScenarios();

/// \return the options of the wafer experiment (command line and Python)
const std::vector<ExperimentOption<WaferExperimentConfig>>& WaferOptions();

/**
 * \ingroup dlnet
 * \brief One measured line: a kind of group on a variant.
 */
struct WaferRow
{
    std::string variant;
    std::string scenario;
    std::string group;        //!< wafer, MP, PP, DP, IO, MP-alone, MP-with-DP, DP-alone, DP-with-MP
    std::string algorithm;    //!< what ran
    uint32_t groups{0};       //!< concurrent groups of this kind
    uint32_t members{0};      //!< NPUs per group
    double time{0};           //!< s, slowest group's time
    double timeUs{0};         //!< us, the same (fred-vs-mesh.csv's time_us)
    double injectedPerNpu{0}; //!< payload bytes one NPU sent, averaged over the senders
    double effectiveGBps{0};  //!< injected / own group's time, averaged over the senders
    uint64_t npuLinkBytes{0}; //!< wire bytes on NPU links (mesh: NPU-router links; FRED: NPU-L1)
    uint64_t upperLinkBytes{0}; //!< FRED: L1-L2 links; mesh: the mesh links alone
    uint64_t ioLinkBytes{0};    //!< I/O controller links
    double ioFraction{0};       //!< io: achieved stream rate / I/O line rate
    bool checked{false};        //!< functional: every result compared and exact
    std::string network;        //!< the model that carried the messages: packet or flow
};

/**
 * \ingroup dlnet
 * \brief The statistics of one simulation of a wafer experiment (config.stats):
 * one variant, one scenario, one set of collectives run together.
 */
struct WaferRunStats
{
    std::string variant;
    std::string scenario;
    /// the group of the rows of fred-vs-mesh.csv this simulation measured; several
    /// (mix, MP-with-DP and DP-with-MP) joined by '+'
    std::string group;
    double makespan{0};                 //!< s: first start to last end (the links' window)
    std::vector<LinkResult> links;      //!< per directed link (CollectLinkStats)
    std::vector<SwitchResult> switches; //!< per switch (CollectSwitchStats)
    std::vector<RankResult> ranks;      //!< per NPU (index and rank: the NPU)
};

/// What a wafer experiment measured.
struct WaferResult
{
    std::vector<WaferRow> rows;      //!< scenario by scenario, variant by variant
    std::vector<WaferRunStats> runs; //!< config.stats: one per simulation, in run order
    double wallSeconds{0};           //!< not written to result files (not deterministic)
};

/**
 * Run the scenarios on every variant; validate first.
 * \param config what to run
 * \return the rows
 */
WaferResult RunWafer(const WaferExperimentConfig& config);

} // namespace ns3

#endif /* DLNET_WAFER_EXPERIMENT_H */
