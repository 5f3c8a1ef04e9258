/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_MEGATRON_SCALING_H
#define DLNET_MEGATRON_SCALING_H

#include "result-fields.h"
#include "training-experiment.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One row of Megatron-LM's weak-scaling table (Narayanan et al.,
 * "Efficient Large-Scale Language Model Training on GPU Clusters Using
 * Megatron-LM", SC'21, arXiv 2104.04473, Table 1), with the launch
 * parameters of the script NVIDIA published for it (Megatron-LM,
 * examples/sc21/run_table_1.sh and CONFIG.sh: micro-batch size, virtual
 * pipeline stages, DDP implementation; sequence 2048, fp16, full uniform
 * activation recomputation).
 */
struct MegatronRow
{
    std::string name;                  //!< the script's MODEL_SIZE (1.7B .. 1T)
    double parametersB{0};             //!< billions, as published
    uint32_t heads{0};                 //!< a
    uint32_t hidden{0};                //!< h
    uint32_t layers{0};                //!< l
    uint32_t tp{1};                    //!< tensor-parallel size
    uint32_t pp{1};                    //!< pipeline-parallel size
    uint32_t gpus{0};                  //!< DP = gpus / (tp x pp)
    uint32_t batch{0};                 //!< global batch (sequences)
    double published{0};               //!< TFLOP/s per GPU, as published
    uint32_t microbatch{1};            //!< MBS
    uint32_t layersPerVirtualStage{0}; //!< --num-layers-per-virtual-pipeline-stage; 0: plain 1F1B
    bool localDdp{false}; //!< DDP=local: gradients reduced after backward (else PyTorch DDP's
                          //!< 25 MiB buckets overlapping backward)

    /// \return gpus / (tp x pp)
    uint32_t Dp() const;
    /// \return microbatches per replica: batch / (dp x microbatch)
    uint32_t Microbatches() const;
    /// \return model chunks per stage (1 without interleaving)
    uint32_t VirtualStages() const;
};

/// Sequence length of every row.
constexpr uint64_t MEGATRON_SEQUENCE = 2048;
/// Vocabulary of every row (GPT-2's 50257 padded).
constexpr uint64_t MEGATRON_VOCABULARY = 51200;

/**
 * The A100 SXM's maximum achievable matmul throughput, 267.9 of its 312
 * dense bf16 TFLOP/s (85.9%), measured by brute-force search over GEMM
 * shapes (Bekman, "Machine Learning Engineering", compute/accelerator,
 * "Maximum Achievable Matmul FLOPS comparison table", mamf-finder.py, CUDA
 * 12.1): an upper bound of what a model's own GEMM shapes get.
 */
constexpr double A100_MAMF_EFFICIENCY = 267.9 / 312.0;

/**
 * What PyTorch's fp16 matmul achieves on an A100 SXM 80 GB: 230 of 312
 * TFLOP/s (73.7%) for an 8192 x 8192 x 8192 product, cuBLAS's default
 * choice through `a @ b` as Megatron's layers call it (mli/transformers-
 * benchmarks, micro_bench.ipynb, "Matrix Multiplication FP16", PyTorch
 * container 22.07): the default compute efficiency of every row.
 */
constexpr double A100_PYTORCH_MATMUL_EFFICIENCY = 230.0 / 312.0;

/**
 * HBM bandwidth a large read kernel reaches on an A100 SXM 80 GB, 1.80 of
 * the data sheet's 2.04 TB/s, confirmed by Nsight Compute (NVIDIA developer
 * forum, "Trouble to reach peak bandwidth of A100"): the default bandwidth
 * of the memory-bound kernels.
 */
constexpr double A100_ACHIEVED_HBM_GBPS = 1800;

/**
 * NCCL's effective NVLink bandwidth on an A100: 12 NVLinks at 25 GB/s per
 * direction carry about 20 GB/s each with the SMs' 128-byte payloads, 240
 * GB/s, and other limits on the GPU bring it to about 230 GB/s, the bus
 * bandwidth of a large all-reduce on 8 GPUs (NCCL's maintainer in
 * NVIDIA/nccl-tests issue #149): the default NVLink rate, standing for the
 * protocol's cost on the wire.
 */
constexpr const char* A100_NCCL_NVLINK_RATE = "230GBps";

/**
 * NCCL 2.8's latencies of its ring with the Simple protocol (the release in
 * the PyTorch 20.12 container of the sc21 runs; src/graph/tuning.cc, baseLat
 * and hwLat): 8.4 us per collective, 3.4 us per step over NVLink and 9.6 us
 * per step over the network (CollectiveEngine::LaunchLatency, StepLatency
 * and NetworkStepLatency: a step that sends to another server).
 */
constexpr const char* NCCL_RING_LAUNCH_LATENCY = "8.4us";
constexpr const char* NCCL_RING_NVLINK_STEP_LATENCY = "3.4us";
constexpr const char* NCCL_RING_NET_STEP_LATENCY = "9.6us";

/*
 * The ranges of the settings: what every row of the table can run, the 1T row
 * (the largest) included.
 * - The training layer refuses a graph whose tasks sum to more than 4e6 s (the
 *   picosecond clock holds 9.2e6 s). At the defaults the tasks sum to 30,820 s
 *   for the 1T row, 13,498 s for 530B, 99 s for 1.7B (TrainingConfig::MakeGraph,
 *   measured before local DDP's copies, which add 12 bytes per parameter and
 *   GPU at the HBM rate: about 40 s for 1T). A kernel takes
 *   max(FLOPs / (peak x efficiency), bytes / bandwidth), so lowering the
 *   efficiency by a factor a and the bandwidth by b makes every task at most
 *   max(a, b) times longer: from the defaults (0.737, 1800 GB/s) to the
 *   floors 0.01 and 25 GB/s is a = 73.7 and b = 72, at most 2.28e6 s for 1T.
 *   Lower floors refused the large rows with a message about device: (the
 *   efficiency 1e-6 the option once took refused even the 1.7B row).
 * - A run stops at 1 day of simulated time (dlnet::MAX_TIME_SECONDS). The 1T
 *   row's iteration is about 100 s at the published 163 TFLOP/s per GPU (not
 *   simulated here: the row takes minutes), so about 7,400 s at
 *   the floors; its TP all-reduces move about 1.1 TB per GPU over NVLink per
 *   iteration (6 of 105 MB per layer and microbatch with recomputation, 2 layers
 *   per stage, 512 microbatches, 2 x 7/8 of each on the wire), about 9,000 s at
 *   1 Gbit/s: inside the day, with the compute, at the floors.
 * - The tops: efficiency 1 (the peak), 1e6 GB/s (the training option
 *   memory-gbps's own), 40 Tbit/s (the fabric's fastest link, MAX_RATE_BPS).
 */
/// The lowest efficiency every row can run (see above)
constexpr double MEGATRON_MIN_EFFICIENCY = 0.01;
/// The lowest HBM bandwidth every row can run, GB/s (see above)
constexpr double MEGATRON_MIN_MEMORY_GBPS = 25;
/// The highest HBM bandwidth, GB/s (the training option memory-gbps's)
constexpr double MEGATRON_MAX_MEMORY_GBPS = 1e6;
/// The lowest NVLink rate every row can run, bit/s (see above)
constexpr uint64_t MEGATRON_MIN_NVLINK_BPS = 1000000000ULL;

/**
 * \ingroup dlnet
 * \brief What the simulation of a row assumes about the hardware, beside the
 * row itself: one setting for every row.
 */
struct MegatronSettings
{
    /// achieved fraction of the A100's GEMM peak
    double efficiency{A100_PYTORCH_MATMUL_EFFICIENCY};
    /// HBM bandwidth the memory-bound kernels get (data sheet: 2000)
    double memoryGBps{A100_ACHIEVED_HBM_GBPS};
    /// NVLink per GPU and direction (data sheet: 300 GB/s)
    std::string nvlinkRate{A100_NCCL_NVLINK_RATE};
    std::string network{"flow"}; //!< packet or flow
    /// compute beside a collective or send of its GPU takes 1 + this times as long
    /// (TrainingSimulation::OverlapSlowdown; 0: no contention, the default)
    double overlapSlowdown{0};
    /// Pipeline messages scattered over the TP ranks and all-gathered by the
    /// receiving stage (TrainingPlan::pipelineScatterGather): Megatron-LM's
    /// default, which the sc21 scripts keep (megatron/p2p_communication.py)
    bool scatterGather{true};
    /// Pipeline messages synchronous (TrainingPlan::pipelineSendsBlock), as
    /// Megatron-LM's p2p_communication.py waits on them
    bool blockingSends{true};
    /// The interleaved schedule's steady state as Megatron-LM runs it: a
    /// forward step's message leaves with the next backward step's, after
    /// both (TrainingPlan::interleavedSendWithBackward; megatron/schedules.py)
    bool sendWithBackward{true};
    /// A pipeline send starts only once its receiver has finished computing its
    /// step and posts the receive (TrainingSimulation::SendRendezvous: NCCL's
    /// send waits for the matching receive)
    bool rendezvous{true};
    /// The TP all-reduces of the vocabulary-parallel embedding's output and of
    /// the logits' input gradient (TrainingPlan::vocabParallelAllReduces)
    bool vocabAllReduces{true};
    /// The last stage's copy of the tied word embedding in its DP all-reduce and
    /// optimizer, and the first-last all-reduce of its gradient
    /// (TrainingPlan::tiedEmbeddingCopy; megatron/training.py's train_step)
    bool tiedEmbedding{true};
    /// The rows with Megatron's local DDP: its flatten and scale of the
    /// gradients before their all-reduce and copy back after
    /// (TrainingPlan::localDdpCopies; megatron/model/distributed.py)
    bool localDdpCopies{true};
    /// The rows with PyTorch DDP: its Reducer's copy of each gradient, scaled by
    /// 1/DP, into its bucket before the bucket's all-reduce and back after them all
    /// (TrainingPlan::ddpBucketCopies; torch/lib/c10d/reducer.cpp in PyTorch 1.8)
    bool ddpBucketCopies{true};
    /// NCCL's own latencies (NCCL_RING_LAUNCH_LATENCY per collective,
    /// NCCL_RING_NVLINK_STEP_LATENCY per step inside a server,
    /// NCCL_RING_NET_STEP_LATENCY per step that leaves it) and NCCL's ring for tensor
    /// parallelism, 2 (TP - 1) steps per all-reduce (false: no latencies, and
    /// halving-doubling, which takes the ring's time on the NVSwitch crossbar
    /// with fewer messages)
    bool ncclLatency{true};

    /// Throw std::invalid_argument naming the field (efficiency, memory-bandwidth,
    /// nvlink-rate, network, overlap-slowdown) and what it allows.
    void Validate() const;
    /**
     * Throw std::invalid_argument naming a setting turned off that none of the rows
     * has what it shapes (e.g. scatter-gather without a row with TP and PP): it would be
     * taken and ignored.
     */
    void CheckRows(const std::vector<MegatronRow>& rows) const;
    /// \return --efficiency's text as a number from MEGATRON_MIN_EFFICIENCY to 1
    static double ParseEfficiency(const std::string& text);
    /// \return --memory-bandwidth's text as GB/s from MEGATRON_MIN_MEMORY_GBPS to
    /// MEGATRON_MAX_MEMORY_GBPS
    static double ParseMemoryGBps(const std::string& text);
};

/// \return the ten rows, smallest first
const std::vector<MegatronRow>& MegatronTable();

/**
 * \return the rows named in text: a comma-separated list of row names
 * (1.7B, 3.6B, ... 1T) or "all", in any case; std::invalid_argument
 * naming field and the names otherwise
 */
std::vector<MegatronRow> ParseMegatronRows(const std::string& field, const std::string& text);

/**
 * FLOPs of one iteration as the paper counts them (section 5.1, with
 * activation recomputation): 96·B·s·l·h²·(1 + s/6h + V/16lh).
 */
double MegatronFlops(const MegatronRow& row);

/**
 * The training experiment of a row: a transformer of the row's shape,
 * fp16, Megatron's kernels (compute-model kernels) on A100s at the given
 * efficiency and memory bandwidth, TP x PP x DP with the script's micro-batch size, interleaved
 * 1F1B where the script asks for it, full recomputation, PyTorch DDP or
 * Megatron's local DDP; pipeline messages scattered and gathered over TP
 * and synchronous as Megatron-LM's p2p_communication.py sends them (each
 * unless the settings turn it off); DGX A100 servers (8 GPUs on NVSwitch at the
 * settings' NVLink rate per direction, one 200 Gbit/s HDR NIC per GPU) on a
 * rail-optimised fabric; one iteration.
 */
TrainingConfig MegatronTrainingConfig(const MegatronRow& row, const MegatronSettings& settings);

/// What one row measured.
struct MegatronRowResult
{
    MegatronRow row;
    MegatronSettings settings;
    double iterationSeconds{0};
    double flops{0};          //!< MegatronFlops
    double simulatorFlops{0}; //!< the training graph's own count (TrainingGraph::flopsPerIteration)
    double tflopsPerGpu{0};   //!< flops / (iteration x gpus) / 1e12
    double deviation{0};      //!< tflopsPerGpu / published - 1
    TrainingBreakdown breakdown; //!< mean rank
    uint64_t events{0};
    double wallSeconds{0}; //!< not written to result files
};

/// Simulate one row (validated first; the simulator is left clean).
MegatronRowResult RunMegatronRow(const MegatronRow& row, const MegatronSettings& settings);

/// \return the columns of megatron.csv
const FieldTable<MegatronRowResult>& MegatronFields();

/**
 * Bars of the simulated and the published TFLOP/s per GPU of every row, in
 * dir/megatron.png. \return the PNG ("" when gnuplot made none)
 */
std::string PlotMegatronScaling(const std::vector<MegatronRowResult>& results,
                                const std::string& dir);

} // namespace ns3

#endif /* DLNET_MEGATRON_SCALING_H */
