/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAINING_PLAN_H
#define DLNET_TRAINING_PLAN_H

#include "ns3/compute-model.h"
#include "ns3/model-layer.h"
#include "ns3/training-graph.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup dlnet Pipeline schedules.
enum class PipelineSchedule : uint8_t
{
    GPIPE,       //!< every microbatch's forward, then every backward
    ONE_F_ONE_B, //!< PipeDream-flush: warm-up forwards, then one forward one backward
    INTERLEAVED, //!< 1F1B with `virtualStages` model chunks per stage (Megatron)
};

/// \return gpipe, 1f1b or interleaved
std::string ToString(PipelineSchedule s);
/// \return the schedule; std::invalid_argument naming field and the names otherwise
PipelineSchedule ParsePipelineSchedule(const std::string& field, const std::string& text);

/**
 * \ingroup dlnet
 * \brief How a model is trained: the parallel degrees, the microbatches and
 * their schedule, and the memory-saving options. Placement of job ranks:
 * `order` lists the dimensions innermost first (default TP, then PP, then
 * DP, as FRED places MP, PP, DP), so with the default rank
 * = tp + TP x (pp + PP x dp).
 */
struct TrainingPlan
{
    uint32_t dp{1};
    uint32_t tp{1};
    uint32_t pp{1};
    uint32_t ep{1};             //!< expert-parallel group size (divides dp x tp; MoE layers only)
    uint32_t microbatches{1};   //!< per iteration, per data-parallel replica
    uint32_t microbatchSize{1}; //!< samples per microbatch
    PipelineSchedule schedule{PipelineSchedule::ONE_F_ONE_B};
    uint32_t virtualStages{1};         //!< interleaved: model chunks per stage
    uint32_t zero{0};                  //!< ZeRO stage 0..3
    uint64_t bucketBytes{25ull << 20}; //!< DP gradient bucket (PyTorch DDP: 25 MiB)
    bool overlap{true};    //!< DP buckets start as backward produces them; false: after backward
    bool recompute{false}; //!< full activation recomputation
    bool sequenceParallel{false}; //!< TP AllReduce -> ReduceScatter + AllGather
    bool weightStreaming{false};  //!< layer weights streamed from the I/O controllers (wafer)
    std::vector<TrainingDimension> order{
        TrainingDimension::TP, TrainingDimension::PP, TrainingDimension::DP}; //!< innermost first
    uint32_t iterations{1};

    /// \return dp x tp x pp
    uint32_t Ranks() const;
    /// \return dp x microbatches x microbatchSize
    uint64_t GlobalBatch() const;
    /// Throw std::invalid_argument naming the field (dp, tp, pp, microbatches, ...) when the
    /// plan cannot run the model (pp above the layer count, tp not dividing the heads, ...).
    void Validate(const Model& model) const;
    /// \return the job ranks of each group of dimension d (TP, PP, DP or EP), by group index;
    /// members in communicator order
    std::vector<std::vector<uint32_t>> Groups(TrainingDimension d) const;
};

/**
 * Generate the training graph of `plan.iterations` iterations of a model on
 * a device: per rank, the compute of its pipeline stage and tensor shard,
 * the TP collectives, the pipeline sends, the DP gradient buckets (or ZeRO
 * ReduceScatter/AllGather), the EP AllToAlls and the weight streams.
 * Validates the plan first.
 */
TrainingGraph MakeTrainingGraph(const Model& model,
                                const DeviceSpec& device,
                                const TrainingPlan& plan);

} // namespace ns3

#endif /* DLNET_TRAINING_PLAN_H */
