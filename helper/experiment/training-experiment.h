/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAINING_EXPERIMENT_H
#define DLNET_TRAINING_EXPERIMENT_H

#include "experiment-options.h"
#include "link-stats.h"
#include "simulation-scope.h"

#include "ns3/topology-helper.h"
#include "ns3/training-breakdown.h"
#include "ns3/training-plan.h"
#include "ns3/training-simulation.h"

#include <array>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Training iterations of a model (from the zoo, a transformer given
 * by its shape, or an imported workload file) with a parallelism plan on a
 * cluster: one job, or several copies of it sharing the cluster.
 */
struct TrainingConfig
{
    TopologyConfig topology;
    std::string model{"gpt3-175b"}; //!< a zoo model, or transformer (shape from layers, hidden..)
    uint32_t layers{0};             //!< transformer: l
    uint64_t hidden{0};             //!< transformer: h
    uint32_t heads{0};              //!< transformer: a
    uint64_t sequence{0};           //!< transformer: s
    uint64_t vocabulary{0};         //!< transformer: V
    uint32_t experts{0};            //!< transformer: experts per MoE layer (0: dense)
    std::string type{""};           //!< fp32, fp16 or bf16; empty: the model's usual
    std::string device{"a100"};     //!< a device preset
    double peakTflops{0};           //!< overrides the preset's peak for the type (0: preset's)
    double memoryGBps{0};           //!< overrides the preset's memory bandwidth (0: preset's)
    double efficiency{0};           //!< overrides the preset's efficiency (0: preset's)
    /// layer: one roofline per layer pass; kernels: a transformer's layers as
    /// Megatron-LM's kernels (MegatronAttentionKernels...) and its optimizer step
    std::string computeModel{"layer"};
    uint32_t dp{1};
    uint32_t tp{1};
    uint32_t pp{1};
    uint32_t ep{1};
    uint32_t microbatches{1};
    uint32_t microbatchSize{1};
    std::string schedule{"1f1b"}; //!< gpipe, 1f1b or interleaved
    uint32_t virtualStages{1};
    uint32_t zero{0};
    uint64_t bucketBytes{25ull << 20};
    bool overlap{true};
    bool recompute{false};
    bool sequenceParallel{false};
    bool weightStreaming{false};
    bool tpLockstep{false};            //!< one compute task per TP group (TrainingPlan::tpLockstep)
    bool pipelineScatterGather{false}; //!< TrainingPlan::pipelineScatterGather
    bool blockingPipelineSends{false}; //!< TrainingPlan::pipelineSendsBlock
    bool interleavedSendWithBackward{false}; //!< TrainingPlan::interleavedSendWithBackward
    bool vocabParallelAllReduces{false};     //!< TrainingPlan::vocabParallelAllReduces
    bool tiedEmbeddingCopy{false};           //!< TrainingPlan::tiedEmbeddingCopy
    bool localDdpCopies{false};              //!< TrainingPlan::localDdpCopies
    bool ddpBucketCopies{false};             //!< TrainingPlan::ddpBucketCopies
    std::string order{"tp,pp,dp"};           //!< placement, innermost first
    uint32_t iterations{2};                  //!< simulated; the first is the warm-up
    std::string workloadFile{""};   //!< ASTRA-sim 1.0 text, SimAI or Chakra JSON instead of model
    std::string workloadGroups{""}; //!< Chakra: communicator groups JSON file
    uint32_t workloadRanks{0};      //!< ASTRA-sim text: NPUs (the file does not say)
    /// ASTRA-sim text: NPUs per MODEL group of the hybrid policies without a
    /// model_parallel_NPU_group (0: the file's)
    uint32_t workloadModelParallel{0};
    double clockGHz{1}; //!< ASTRA-sim text: cycles per ns
    /// backend per dimension (tp, pp, dp, ep, ws): a registered name or auto
    std::array<std::string, TRAINING_DIMENSIONS> backends{"auto", "auto", "auto", "auto", "auto"};
    /// traffic class per dimension: FRED's virtual-channel priority MP > PP > DP
    std::array<uint32_t, TRAINING_DIMENSIONS> classes{0, 1, 2, 0, 1};
    uint32_t jobs{1};              //!< copies of the job sharing the cluster
    std::string placement{""};     //!< cluster ranks per job, ';' between jobs; empty: consecutive
    bool freeCommunication{false}; //!< communication takes no time (the compute-only ideal)
    /// compute beside a collective or send of its GPU runs 1 + this times longer
    /// (TrainingSimulation::OverlapSlowdown)
    double overlapSlowdown{0};
    /// a blocking pipeline send starts when its receiver is not computing
    /// (TrainingSimulation::SendRendezvous)
    bool sendRendezvous{false};
    bool trace{true};  //!< keep the timeline (trace.json)
    bool comms{true};  //!< keep a row per communication task (comms.csv)
    bool stats{false}; //!< per-link, -switch and -rank statistics of the run with every job
    uint32_t seed{1};
    uint64_t run{1};
    Ns3Attributes ns3Attributes;
    std::set<std::string> given;

    /// Throw std::invalid_argument naming the first bad field (the plan, the
    /// workload file and the placement against the topology included).
    void Validate() const;
    /// Validate, and \return the graph the validation built (RunTraining builds it once)
    TrainingGraph ValidatedGraph() const;
    /// \return the model this config trains (zoo or transformer shape)
    Model MakeModel() const;
    /// \return the device preset with the overrides applied
    DeviceSpec MakeDevice() const;
    /// \return the plan of the config's fields
    TrainingPlan MakePlan() const;
    /// \return the graph of one job: generated from model and plan, or imported
    TrainingGraph MakeGraph() const;
    /// \return whether an option goes into the config written (stats only when on)
    bool Applies(const std::string& option) const;
    /// \return the cluster ranks of each job (validated against the topology)
    std::vector<std::vector<uint32_t>> Placements(uint32_t jobRanks, uint32_t clusterRanks) const;
};

/// One job's outcome in one run (together with the other jobs, or alone).
struct TrainingJobRow
{
    std::string job;      //!< job0, job1, ...
    std::string mode;     //!< together or alone
    std::string workload; //!< the model or the workload file
    uint32_t ranks{0};
    double warmupSeconds{0};    //!< iteration 0
    double iterationSeconds{0}; //!< mean of the other iterations (iteration 0 if only one)
    double samplesPerSecond{0}; //!< 0 when the workload does not say its batch
    double tokensPerSecond{0};
    double mfu{0};               //!< model FLOP/s / (ranks x peak); 0 when FLOPs unknown
    double hfu{0};               //!< as mfu with the recomputed forward passes counted
    TrainingBreakdown breakdown; //!< mean over ranks, per measured iteration
    double slowdown{0};          //!< together / alone (0 when not compared)
    uint64_t collectives{0};     //!< collective tasks of the job
    uint64_t sends{0};           //!< send tasks of the job
    uint64_t bytes{0};           //!< communicated: collective buffer sizes + sends + streams
    std::string network;         //!< the model that carried the messages: packet or flow
};

/// One collective (or send or stream) task as it ran.
struct TrainingCommRow
{
    std::string job;
    uint32_t task{0};
    std::string label;
    std::string kind;      //!< collective, send or stream
    std::string dimension; //!< tp, pp, dp, ep or ws
    std::string op;        //!< allreduce, ...; sendrecv for sends; stream
    std::string backend;
    std::string group;
    uint32_t members{0};
    uint64_t bytes{0};
    uint32_t iteration{0};
    int32_t microbatch{-1};
    int32_t layer{-1};
    double start{0}; //!< s
    double end{0};   //!< s
};

/**
 * One rank's statistics over the run with every job (config.stats;
 * doc/statistics.md, "Training"). Times are from the simulation's start
 * (the jobs start at 0), all iterations, the warm-up included.
 */
struct TrainingRankStats
{
    std::string job;
    /// the per-rank record the collective and wafer tables share (RankFields): index =
    /// the job rank, rank = the cluster rank it ran on, bytes of its messages to and from
    /// other ranks, finish = its last compute end or last message delivery (the later),
    /// network = union of [sent, delivered] of its messages. counted and timed false: it
    /// was in communication tasks but exchanged no message with another rank (in-network
    /// backends, free communication), so the message columns (and exposed) are null
    RankResult traffic;
    double compute{0}; //!< s: union of its compute tasks' [start, end]
    double exposed{0}; //!< s: of network, the time it was not computing
};

/// What a training experiment measured.
struct TrainingResult
{
    std::string topology;
    std::string network; //!< the model that carried the messages: packet or flow
    uint32_t clusterRanks{0};
    std::vector<TrainingJobRow> jobs;   //!< together rows, then alone rows (jobs > 1)
    std::vector<TrainingCommRow> comms; //!< of the run with every job
    std::vector<std::vector<TrainingBreakdown>> rankBreakdowns; //!< per job, per job rank
    std::vector<TrainingJobSetup> setups;           //!< what ran together (graphs, placements)
    std::vector<std::vector<TrainingTaskRun>> runs; //!< per job (empty unless config.trace)
    std::vector<LinkResult> links;      //!< per directed link, run with every job (config.stats)
    std::vector<SwitchResult> switches; //!< per switch, run with every job (config.stats)
    std::vector<TrainingRankStats> rankStats; //!< per job rank, run with every job (config.stats)
    uint64_t events{0};
    double wallSeconds{0}; //!< not written to result files
};

/// \return the options of a training experiment (topology options included)
const std::vector<ExperimentOption<TrainingConfig>>& TrainingOptions();

/**
 * Run the jobs together (and, when there are several, each alone on the
 * same ranks); validate first, leave the simulator clean.
 */
TrainingResult RunTraining(const TrainingConfig& config);

} // namespace ns3

#endif /* DLNET_TRAINING_EXPERIMENT_H */
