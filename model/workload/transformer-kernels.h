/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRANSFORMER_KERNELS_H
#define DLNET_TRANSFORMER_KERNELS_H

#include "ns3/model-layer.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A GPT layer as the kernels Megatron-LM (2021, the SC'21 paper's
 * code: fused scale-mask-softmax, fused bias-GeLU and bias-dropout-add,
 * no FlashAttention, no sequence parallelism) runs for it, so that the
 * roofline times the memory-bound operations apart from the GEMMs.
 *
 * Per sample (one sequence of s tokens): T = s·h activation elements, S =
 * a·s² attention-score elements, e bytes per element, 1-byte dropout masks.
 * GEMMs read their inputs and weights and write their outputs once; an
 * element-wise kernel reads its inputs and writes its outputs once. Under
 * tensor parallelism (t shards) the GEMMs, the attention (its heads) and the
 * GeLU are divided over the shards; the layer norms, the residual
 * bias-dropout-adds and the inputs of the column-parallel and outputs of
 * the row-parallel GEMMs are whole on every shard. The tensors each kernel
 * stores for backward are the ones Korthikanti et al. (arXiv 2205.05198,
 * section 4.1) count (34·s·b·h + 5·a·s²·b bytes per layer at e = 2).
 *
 * Forward of the attention block: layer norm (2Te whole), QKV GEMM (6sh²
 * FLOPs; Te whole in, 3Te sharded out, 3h² weights) and its bias add (6Te:
 * ColumnParallelLinear adds its bias, and PyTorch's linear of a 3-D input
 * is a matmul followed by add_), scores QKᵀ (2s²h; 2Te in, Se out), the
 * causal scale-mask-softmax (it reads only the scores on and below the
 * diagonal, C = a·s(s+1)/2 of them, and writes all: (C + S)e; Megatron runs
 * this fused kernel when 16 < s <= 2048, s % 4 == 0 and b·a/t % 4 == 0, as
 * in every row of the SC'21 table, and an unfused fp32 softmax otherwise,
 * which this list does not describe), dropout
 * (2Se + S mask), context probs x V (2s²h; Se + Te in, Te out), its
 * transpose copy (2Te), output GEMM (2sh²; Te sharded in, Te whole out, h²
 * weights), bias-dropout-add (3Te + T whole). Backward: each GEMM's input
 * gradient (same FLOPs, output gradient and weights in, input gradient out)
 * and weight gradient (same FLOPs, input and output gradient in, weight
 * gradient out, bias gradient a read of the output gradient); the
 * attention's two batched GEMMs twice each (input gradients only: the copy
 * after the context GEMM has no backward kernel, its gradient reaches
 * cuBLAS as a strided view), baddbmm's scale applied to both of its input
 * gradients (4Te), the cat that is torch.split's backward (6Te), softmax
 * backward (gradient and output read below the diagonal, all written:
 * (2C + S)e), dropout backward (2Se + S), layer norm backward (its pass for
 * the scale and shift gradients, 2Te whole, and the input gradient's, 3Te
 * whole), bias-dropout-add backward (3Te + T whole), and the sum of the
 * residual and block gradients (3Te whole). The MLP block likewise: layer
 * norm, h -> 4h GEMM, bias-GeLU (8Te sharded; backward 12Te), 4h -> h GEMM,
 * bias-dropout-add. Every weight-gradient pass ends with the accumulation of
 * the block's weight gradients, its layer norm's scale and shift included,
 * into their buffer (3 x weights: gradient in,
 * accumulator in and out: PyTorch's AccumulateGrad into the fp16 param.grad,
 * since the SC'21 runs ask for no contiguous buffers and so no main_grad
 * hook), marked accumulatesGradient: the first microbatch of an iteration
 * has none, AccumulateGrad takes its gradient over
 * (doc/megatron-validation.md, the audit). That is data parallelism as
 * Megatron-LM ran it; with a ZeRO stage the plan keeps the same kernels.
 * The biases of the row-parallel GEMMs (output projection, fc2) are whole
 * on every shard but counted with the sharded weights (h·e of 4h²·e).
 *
 * The FLOPs add up to the layer's own (8sh² + 4s²h forward for attention,
 * 16sh² for the MLP; backward twice), so Megatron's FLOP count is unchanged.
 */
std::vector<LayerKernel> MegatronAttentionKernels(uint64_t sequence,
                                                  uint64_t hidden,
                                                  uint32_t heads,
                                                  uint32_t elementBytes);

/// \see MegatronAttentionKernels
std::vector<LayerKernel> MegatronMlpKernels(uint64_t sequence,
                                            uint64_t hidden,
                                            uint32_t elementBytes);

/**
 * The first stage: the vocabulary-parallel word embedding and the position
 * embedding: forward the masked lookup (3Te whole; at TP 1 Megatron skips
 * the masking, 2Te, which this list does not tell apart), the position
 * lookup (2Te) and the sum (3Te), dropout (2Te + T), and the transpose copy
 * from [b, s, h] to [s, b, h] (2Te); backward (weight gradient only: the
 * embedding has no input) dropout backward, the dense table gradient (its
 * rows zeroed: V·h·e sharded, the looked-up rows added: 3Te) and the
 * position table's (s·h·e), then their accumulation (3 x (V + s)·h·e). The
 * position table's is an accumulatesGradient kernel; the word table's is a
 * sumsTiedGradients one: with one stage it is the sum of the logits'
 * gradient for the tied weights and the lookup's, which every microbatch
 * runs; with more stages the first stage's own accumulation, which the
 * first microbatch does not run.
 */
std::vector<LayerKernel> MegatronEmbeddingKernels(uint64_t sequence,
                                                  uint64_t hidden,
                                                  uint64_t vocabulary,
                                                  uint32_t elementBytes);

/**
 * The last stage: the transpose copy back to [b, s, h] and the final layer
 * norm (2Te whole each; backward the layer norm's two passes, 2Te + 3Te),
 * the logits (h -> V GEMM with the embedding's tied weights, 2shV FLOPs,
 * vocabulary-parallel) and Megatron's vocabulary-parallel cross entropy in
 * fp32 (the SC'21 runs do not set --fp16-lm-cross-entropy): forward the
 * conversion to fp32 (e + 4 bytes per logit), the maximum (4), its
 * subtraction (8), exp (8), the sum (4) and the division that keeps the
 * softmax (8); backward its product with the loss gradient (8) and the
 * conversion back (4 + e); then the GEMM's input and weight gradients and
 * the accumulation of the tied weights' gradient and the final norm's.
 */
std::vector<LayerKernel> MegatronLogitsKernels(uint64_t sequence,
                                               uint64_t hidden,
                                               uint64_t vocabulary,
                                               uint32_t elementBytes);

/**
 * Memory traffic of Megatron's mixed-precision Adam step per local
 * parameter (fp16 model, fp32 main parameters and optimizer states):
 * copy the fp16 gradient to the fp32 main gradient (2 + 4 bytes), unscale
 * and check for inf/nan (4 + 4), the gradient norm for clipping (4) and
 * the clipping scale (4 + 4), apex's fused Adam (parameter, gradient and two
 * moments in, parameter and moments out: 28), and the copy of the main
 * parameters back to the fp16 model (4 + 2): 60 bytes.
 */
constexpr double MEGATRON_ADAM_BYTES_PER_PARAMETER = 60;

} // namespace ns3

#endif /* DLNET_TRANSFORMER_KERNELS_H */
