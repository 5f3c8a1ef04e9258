/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FRED_TRAINING_H
#define DLNET_FRED_TRAINING_H

#include "result-fields.h"
#include "training-experiment.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The FRED paper's end-to-end training comparison (arXiv 2406.19580):
 * four workloads as the paper runs them on the 2D mesh, Fred-C and Fred-D.
 *
 * - resnet152: pure DP (20), fp16 gradients.
 * - transformer-17b: MP 2 x PP 2 x DP 5, ZeRO-2 on DP, 8 microbatches.
 * - gpt3-175b: weight streaming, MP 2 x PP 2 x DP 5, 2 microbatches.
 * - transformer-1t: weight streaming, DP 20.
 *
 * 16 samples per replica and iteration (minibatch DP x 16), device
 * fred-npu. Backends: the mesh and Fred-C run wafer-wide collectives with
 * the hierarchical schedule (2D on the mesh, two-level on Fred-C) and the
 * others as logical rings; Fred-D runs MP and DP collectives in the switches
 * (fred-in-switch). Pipeline sends go as ring point-to-point everywhere.
 *
 * Scaling, so that packet-level runs stay short: a transformer keeps its
 * per-layer shape (hidden, heads, sequence) with `layers` layers instead of
 * the full count, and its vocabulary scaled by the same fraction (so the
 * embedding stays the same share of parameters and FLOPs); the wafer's
 * packet is `mtu` bytes.
 */
struct FredTrainingConfig
{
    std::vector<std::string> workloads{
        "resnet152", "transformer-17b", "gpt3-175b", "transformer-1t"};
    std::vector<std::string> variants{"mesh", "fred-c", "fred-d"};
    uint32_t layers{4};            //!< transformer layers simulated (the full model: 0)
    uint32_t mtu{1 << 20};         //!< wafer packet, header included (the largest the fabric takes)
    uint32_t iterations{2};        //!< simulated per run; the first is the warm-up
    std::string network{"packet"}; //!< packet (the fabric) or flow (FlowNetwork)

    /// Throw std::invalid_argument naming the field.
    void Validate() const;
};

/// \return the workloads fred-training knows
const std::vector<std::string>& FredTrainingWorkloads();
/// \return the variants it compares (mesh is the baseline)
const std::vector<std::string>& FredTrainingVariants();

/**
 * \param config the comparison \param workload one of FredTrainingWorkloads
 * \param variant mesh, fred-c or fred-d
 * \return the training experiment of one workload on one wafer
 */
TrainingConfig FredTrainingRun(const FredTrainingConfig& config,
                               const std::string& workload,
                               const std::string& variant);

/// \return the paper's training-time speedup over the mesh (0 when it gives none; mesh: 1)
double FredPaperSpeedup(const std::string& workload, const std::string& variant);

/// One workload on one wafer.
struct FredTrainingRow
{
    std::string workload;
    std::string variant;
    uint32_t layers{0};     //!< transformer layers simulated (0: not a transformer)
    uint32_t fullLayers{0}; //!< the model's layers
    uint32_t mtu{0};
    TrainingJobRow job;  //!< iteration time and breakdown (mean rank)
    double speedup{0};   //!< mesh iteration / this iteration (0 without a mesh run)
    double paper{0};     //!< the paper's speedup (0: none)
    double deviation{0}; //!< speedup / paper - 1 (0 without both)
    uint64_t collectives{0};
    uint64_t events{0};
    double wallSeconds{0}; //!< not written to result files
};

/// \return the columns of fred-training.csv
const FieldTable<FredTrainingRow>& FredTrainingFields();

/// Called after each workload's run on one variant (its speedup not yet known).
using FredTrainingProgress = std::function<void(const FredTrainingRow& row)>;

/**
 * Run every workload on every variant (validated first); speedups against the mesh run.
 * \param config the workloads, variants and wafer packet
 * \param progress called after each run (optional)
 * \return one row per workload and variant
 */
std::vector<FredTrainingRow> RunFredTraining(const FredTrainingConfig& config,
                                             const FredTrainingProgress& progress = nullptr);

/**
 * Print the table: one line per workload and variant; then, per workload
 * where both ran, Fred-D's iteration and DP busy time over Fred-C's (the
 * same links; in-switch all-reduces move the buffer once through an NPU
 * link instead of 2 (n-1)/n times).
 */
void PrintFredTrainingTable(const std::vector<FredTrainingRow>& rows);

/**
 * Write fred-training.csv, result.json and fred-training.png (simulated
 * speedups as bars, the paper's as points) in dir.
 * \return the files written
 */
std::vector<std::string> WriteFredTrainingResults(const FredTrainingConfig& config,
                                                  const std::vector<FredTrainingRow>& rows,
                                                  const std::string& dir);

} // namespace ns3

#endif /* DLNET_FRED_TRAINING_H */
