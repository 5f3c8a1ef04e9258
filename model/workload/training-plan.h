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
    uint32_t ep{1}; //!< expert-parallel group size: divides dp and every MoE layer's experts
                    //!< (EP groups are consecutive members of a DP group); MoE models only
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
    /// One compute task per tensor-parallel group instead of one per shard:
    /// the shards of a layer compute in lock step (they do: the same work,
    /// started by the same TP collective or pipeline message), TP times fewer
    /// compute tasks for large runs. A task then starts when every shard's
    /// inputs have arrived (as Megatron's scatter-gather pipeline messages
    /// make them).
    bool tpLockstep{false};
    /// Pipeline messages as Megatron-LM sends them by default (its
    /// scatter-gather, on unless --no-scatter-gather-tensors-in-pipeline):
    /// each TP rank sends ceil(1/tp) of the b·s·h activation (or its
    /// gradient) to its peer, and the receiving stage's TP group rebuilds it
    /// with an AllGather of the whole activation on its TP stream before the
    /// consumer computes. With tp = 1 it changes nothing.
    bool pipelineScatterGather{false};
    /// Pipeline messages synchronous, as Megatron-LM's p2p_communication
    /// (batch_isend_irecv, wait on every request, torch.cuda.synchronize()):
    /// a send also occupies the sender's compute stream (TrainingTask::blocking),
    /// and a receiving rank starts its step only with the message (a backward
    /// step's recomputation too).
    bool pipelineSendsBlock{false};
    /// The interleaved schedule's steady state as Megatron-LM runs it
    /// (forward_backward_pipelining_with_interleaving): a stage computes a
    /// forward step and a backward step, then sends both steps' messages
    /// (send_forward_backward_recv_forward_backward), so a forward's output
    /// leaves after the next backward step; with pipelineSendsBlock the two
    /// messages go out together, as that call's one batch_isend_irecv posts
    /// them (TrainingTask::batched). Off: each step's message leaves when the
    /// step has computed. No effect on 1F1B without interleaving, which
    /// Megatron-LM sends at once.
    bool interleavedSendWithBackward{false};
    /// A transformer's vocabulary-parallel embedding and logits under tensor
    /// parallelism as Megatron-LM runs them: an AllReduce of the embedding's
    /// b·s·h output in forward (VocabParallelEmbedding) and of the logits'
    /// b·s·h input gradient in backward (parallel_lm_logits). Off: neither.
    bool vocabParallelAllReduces{false};
    /// A transformer's tied word embedding under pipeline parallelism as
    /// Megatron-LM keeps it: the last stage holds a copy of the embedding's
    /// shard for its logits, whose gradient joins that stage's DP buckets
    /// and its optimizer step, and after the DP reduction the first and the
    /// last stage all-reduce that gradient (train_step's embedding group;
    /// dimension DP). Off: the first stage's only. No effect with pp = 1.
    bool tiedEmbeddingCopy{false};
    /// Megatron-LM's local DDP without contiguous buffers (its allreduce_gradients):
    /// before a stage's reduction that runs after its backward (overlap off,
    /// dp > 1) the gradients are flattened into one buffer and scaled by
    /// 1/dp, and after it copied back; each of the three passes reads and
    /// writes every local gradient once, on the compute stream. Off: none.
    bool localDdpCopies{false};
    /// PyTorch DDP without gradient_as_bucket_view (its Reducer's
    /// copy_grad_to_bucket and copy_bucket_to_grad): with overlap on and
    /// dp > 1, each bucket's gradients are copied into the bucket, scaled by
    /// 1/dp, on the compute stream before its reduction, and every gradient
    /// is copied back after all of them; each copy reads and writes the
    /// gradients once. Off: none.
    bool ddpBucketCopies{false};
    std::vector<TrainingDimension> order{
        TrainingDimension::TP, TrainingDimension::PP, TrainingDimension::DP}; //!< innermost first
    uint32_t iterations{1};
    /// The optimizer step per local parameter: FLOPs (at the fp32 rate) and
    /// bytes of memory traffic (mixed-precision Adam: about 12 and 16;
    /// Megatron's step with its copies and clipping:
    /// MEGATRON_ADAM_BYTES_PER_PARAMETER)
    double optimizerFlops{12};
    double optimizerBytes{16}; //!< see optimizerFlops

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
 * ReduceScatter/AllGather), the EP AllToAlls (MoE; DLRM's embedding
 * lookups) and the weight streams.
 * Validates the plan first.
 *
 * Choices (see also the comments in training-plan.cc):
 * - Stages: the model is cut into pipeline units (a transformer layer =
 *   attention + MLP; the embedding joins the first, the logits the last;
 *   any other layer is a unit), split into pp x virtualStages contiguous
 *   chunks balancing training FLOPs (interleaved: equal unit counts);
 *   chunk c runs on stage c mod pp.
 * - Compute: one task per rank, microbatch, pass and compute group; a group
 *   fuses consecutive layers of a chunk with no communication between them
 *   (a TP collective, a MoE AllToAll, a DP bucket edge, a per-layer weight
 *   stream or ZeRO-3 gather, the model-parallel embedding and the layer
 *   using its lookups break it). A backward task is the input plus the
 *   weight gradient. Every layer of a transformer is divided over the tp
 *   shards (the embedding vocabulary-parallel). `layer` is the group's lowest.
 * - TP: after each attention and MLP block, forward and backward, an
 *   AllReduce of b·s·h elements (sequence parallel: a ReduceScatter then an
 *   AllGather, each of that size); the next compute of the rank waits for it
 *   (Megatron runs them synchronously). Recomputation re-runs the forward of
 *   a chunk's recomputable layers, with their TP collectives (phase
 *   RECOMPUTE), right before the chunk's backward: 6 TP collectives per
 *   layer and microbatch instead of 4. No collective for the embedding or logits,
 *   unless vocabParallelAllReduces: then one after the embedding's forward and one
 *   after the logits' backward, each of b·s·h elements.
 * - tiedEmbeddingCopy (pp > 1, a transformer whose logits are tied to its
 *   embedding): the last stage's buckets and optimizer also hold the
 *   embedding's shard; after both stages' DP reductions, per (TP, DP) index,
 *   an AllReduce of the shard's gradient between the first and the last
 *   stage ("AR embedding", group "emb<i>"), which their optimizer steps wait for.
 * - localDdpCopies (overlap off, dp > 1): per compute unit of a stage, a
 *   compute task "flatten grads" (two passes over the stage's gradients)
 *   before its buckets and "copy back grads" (one pass) after them; at dp 1
 *   (Megatron-LM's local DDP runs them whatever the data-parallel size) the
 *   two tasks one after the other, with no reduction between them.
 * - ddpBucketCopies (overlap on, dp > 1): per compute unit and bucket a
 *   compute task "copy to bucket<i>" (one pass over the bucket's bytes)
 *   after the backward step that completes the bucket, which its reduction
 *   waits for, and per compute unit "copy back grads" (one pass over the
 *   stage's gradients) after the stage's reductions, before its optimizer.
 * - PP: a SEND of the chunk's output activation (b x its activationElements)
 *   per microbatch and TP rank to the next chunk's stage, and the gradient
 *   back; every TP rank sends the whole activation. pipelineScatterGather:
 *   each sends ceil(1/tp) of it (whole elements) and the receiving stage
 *   runs, per TP group, an ALL_GATHER of the whole activation (dimension TP)
 *   after all tp sends, at the start of the consuming step (Megatron's
 *   order: receive and gather, then compute); the consumer waits for the
 *   gather. pipelineSendsBlock: each SEND is `blocking` (the sender's next
 *   compute waits for it) and a backward step's recomputation waits for the
 *   incoming gradient as its backward does.
 *   interleavedSendWithBackward: in the interleaved schedule's steady state
 *   a forward step's SENDs are added after the next (backward) step's
 *   compute and its SENDs, and depend on that compute; with
 *   pipelineSendsBlock, where that step sends too, they are `batched`
 *   beside its SENDs and the sender's next compute depends on them.
 * - DP: buckets of at most bucketBytes (a larger layer alone) of each
 *   stage's TP-shard gradients in reverse layer order, per chunk; launched
 *   after the last microbatch's backward of their layers (overlap) or after
 *   the stage's last backward compute. ZeRO-1/2: ReduceScatter of the bucket,
 *   then after the optimizer an AllGather of the same size (parameters in
 *   the model's type); ZeRO-3: the ReduceScatter, and per layer, microbatch
 *   and pass an AllGather of its parameters before the compute.
 * - Optimizer: a COMPUTE task per rank after its bucket reductions: roofline
 *   of optimizerFlops (fp32) and optimizerBytes of memory traffic per local
 *   parameter (divided by dp under ZeRO); the rank's next iteration starts
 *   after it (and after the ZeRO-1/2 AllGathers).
 * - EP (MoE layers only): a dispatch and a combine AllToAll of b·s·h
 *   elements around each MoE layer in every pass; expert gradients are
 *   reduced over the dp/ep replicas of the same experts.
 * - Embedding tables (a model without attention heads, such as DLRM, with an
 *   EMBEDDING layer and dp > 1): model parallel over each DP group, as DLRM
 *   places them. Each rank holds 1/dp of the layer's parameters (ceil): its
 *   weight gradient is local (no DP bucket) and its optimizer share is 1/dp
 *   (ZeRO divides only the dense layers further). Each rank looks its tables
 *   up for the DP group's whole microbatch (b x dp samples x 1/dp of the
 *   tables: the same per-rank compute as b samples of all of them, with the
 *   shard's weights), then an AllToAll over the DP group exchanges the
 *   lookups; the first INTERACTION layer after the embedding (else the next
 *   layer) waits for it, the layers between overlap it. In backward, after
 *   that layer's backward, an AllToAll of the lookups' gradients, which the
 *   embedding's weight-gradient compute waits for (when that layer is in a
 *   later chunk: right before the embedding's backward; pp > 1: the
 *   forward's pipeline send waits for the lookups). Buffer (`bytes`,
 *   nccl-tests' S, the per-rank buffer as for the MoE AllToAll): b x
 *   activationElements elements (b x tables x dim), rounded up to a multiple
 *   of dp elements; dp blocks, one per member's samples (dp x S over the
 *   group). Dimension EP, group "emb<DP group index>": it is the
 *   model-parallel AllToAll of DLRM, not a gradient reduction, so it gets
 *   the EP stream, backend and traffic class and does not queue behind the
 *   DP buckets on the DP stream (as DLRM runs it on its own stream).
 *   Recomputation exchanges nothing (the lookups are kept). The dense layers
 *   stay data parallel; dp == 1 changes nothing.
 * - WS: before each layer's compute in forward and in backward, per
 *   microbatch (weights do not stay resident), a STREAM of its TP shard's
 *   parameters to the DP replicas of that stage and shard; the stream of a
 *   layer may start once the compute two layers back has finished (one
 *   layer of prefetch). Recomputation streams nothing extra.
 */
TrainingGraph MakeTrainingGraph(const Model& model,
                                const DeviceSpec& device,
                                const TrainingPlan& plan);

} // namespace ns3

#endif /* DLNET_TRAINING_PLAN_H */
