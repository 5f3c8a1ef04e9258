/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-kernels.h"

namespace ns3
{

namespace
{

/// Appends kernels of one pass.
struct KernelList
{
    std::vector<LayerKernel> kernels;
    LayerPass pass{LayerPass::FORWARD};

    /// Append a kernel of the current pass.
    KernelList& Add(const char* name,
                    double flops,
                    double shardedBytes,
                    double wholeBytes,
                    double weightBytes = 0)
    {
        kernels.push_back({name, pass, flops, shardedBytes, wholeBytes, weightBytes});
        return *this;
    }

    /// Append the accumulation of weight gradients of `weightBytes` into their buffer
    /// (gradient in, accumulator in and out), which the first microbatch does not run.
    KernelList& Accumulate(const char* name, double weightBytes)
    {
        kernels.push_back({name, LayerPass::WEIGHT_GRADIENT, 0, 0, 0, 3 * weightBytes, true});
        return *this;
    }

    /// Append the sum of the tied weights' two gradients (LayerKernel::sumsTiedGradients).
    KernelList& SumTied(const char* name, double weightBytes)
    {
        kernels.push_back(
            {name, LayerPass::WEIGHT_GRADIENT, 0, 0, 0, 3 * weightBytes, false, true});
        return *this;
    }
};

/// A layer's dimensions as reals: s, h, V, bytes per element, and T = s·h.
struct Dims
{
    double s;
    double h;
    double v;
    double e;
    double t;

    Dims(uint64_t sequence, uint64_t hidden, uint64_t vocabulary, uint32_t elementBytes)
        : s(static_cast<double>(sequence))
        , h(static_cast<double>(hidden))
        , v(static_cast<double>(vocabulary))
        , e(elementBytes)
        , t(s * h)
    {
    }
};

} // namespace

std::vector<LayerKernel>
MegatronAttentionKernels(uint64_t sequence, uint64_t hidden, uint32_t heads, uint32_t elementBytes)
{
    const auto [s, h, v, e, t] = Dims(sequence, hidden, 0, elementBytes); // t: T elements
    const double a = static_cast<double>(heads);
    const double scores = a * s * s;            // S: attention scores
    const double causal = a * s * (s + 1) / 2;  // the scores on and below the diagonal
    const double gemm = 2 * s * h * h;          // one h x h GEMM, per sample
    const double bmm = 2 * s * s * h;           // QKᵀ or probs x V, all heads
    const double qkvWeights = 3 * h * h * e;    // without the bias, which add_ reads
    const double projWeights = (h * h + h) * e; // the bias goes to bias-dropout-add
    const double layerNorm = 2 * h * e;         // its scale and shift
    KernelList k;
    k.Add("layernorm", 0, 0, 2 * t * e)
        .Add("qkv", 3 * gemm, 3 * t * e, t * e, qkvWeights)
        .Add("qkv-bias-add", 0, 6 * t * e, 0, 3 * h * e)
        .Add("scores", bmm, 2 * t * e + scores * e, 0)
        .Add("softmax", 0, (causal + scores) * e, 0)
        .Add("attention-dropout", 0, 2 * scores * e + scores, 0)
        .Add("context", bmm, scores * e + 2 * t * e, 0)
        .Add("context-copy", 0, 2 * t * e, 0)
        .Add("projection", gemm, t * e, t * e, projWeights)
        .Add("bias-dropout-add", 0, 0, 3 * t * e + t);
    k.pass = LayerPass::INPUT_GRADIENT;
    k.Add("bias-dropout-add-bwd", 0, 0, 3 * t * e + t)
        .Add("projection-dgrad", gemm, t * e, t * e, h * h * e)
        .Add("context-bwd", 2 * bmm, 4 * t * e + 2 * scores * e, 0)
        .Add("attention-dropout-bwd", 0, 2 * scores * e + scores, 0)
        .Add("softmax-bwd", 0, (2 * causal + scores) * e, 0)
        .Add("scores-bwd", 2 * bmm, 4 * t * e + 2 * scores * e, 0)
        .Add("scores-bwd-alpha", 0, 4 * t * e, 0)
        .Add("qkv-split-bwd", 0, 6 * t * e, 0)
        .Add("qkv-dgrad", 3 * gemm, 3 * t * e, t * e, 3 * h * h * e)
        .Add("layernorm-bwd-gamma-beta", 0, 0, 2 * t * e)
        .Add("layernorm-bwd", 0, 0, 3 * t * e)
        .Add("residual-grad-add", 0, 0, 3 * t * e);
    k.pass = LayerPass::WEIGHT_GRADIENT;
    k.Add("projection-wgrad", gemm, t * e, 2 * t * e, projWeights)
        .Add("qkv-wgrad", 3 * gemm, 6 * t * e, t * e, qkvWeights + 3 * h * e)
        .Accumulate("grad-accumulate", qkvWeights + 3 * h * e + projWeights + layerNorm);
    return k.kernels;
}

std::vector<LayerKernel>
MegatronMlpKernels(uint64_t sequence, uint64_t hidden, uint32_t elementBytes)
{
    const auto [s, h, v, e, t] = Dims(sequence, hidden, 0, elementBytes);
    const double gemm = 2 * s * h * 4 * h; // h x 4h, per sample
    const double fc1Weights = (4 * h * h + 4 * h) * e;
    const double fc2Weights = (4 * h * h + h) * e;
    const double layerNorm = 2 * h * e; // its scale and shift
    KernelList k;
    k.Add("layernorm", 0, 0, 2 * t * e)
        .Add("fc1", gemm, 4 * t * e, t * e, fc1Weights)
        .Add("bias-gelu", 0, 8 * t * e, 0)
        .Add("fc2", gemm, 4 * t * e, t * e, fc2Weights)
        .Add("bias-dropout-add", 0, 0, 3 * t * e + t);
    k.pass = LayerPass::INPUT_GRADIENT;
    k.Add("bias-dropout-add-bwd", 0, 0, 3 * t * e + t)
        .Add("fc2-dgrad", gemm, 4 * t * e, t * e, 4 * h * h * e)
        .Add("bias-gelu-bwd", 0, 12 * t * e, 0)
        .Add("fc1-dgrad", gemm, 4 * t * e, t * e, 4 * h * h * e)
        .Add("layernorm-bwd-gamma-beta", 0, 0, 2 * t * e)
        .Add("layernorm-bwd", 0, 0, 3 * t * e)
        .Add("residual-grad-add", 0, 0, 3 * t * e);
    k.pass = LayerPass::WEIGHT_GRADIENT;
    k.Add("fc2-wgrad", gemm, 4 * t * e, 2 * t * e, fc2Weights)
        .Add("fc1-wgrad", gemm, 8 * t * e, t * e, fc1Weights)
        .Accumulate("grad-accumulate", fc1Weights + fc2Weights + layerNorm);
    return k.kernels;
}

std::vector<LayerKernel>
MegatronEmbeddingKernels(uint64_t sequence,
                         uint64_t hidden,
                         uint64_t vocabulary,
                         uint32_t elementBytes)
{
    const auto [s, h, v, e, t] = Dims(sequence, hidden, vocabulary, elementBytes);
    KernelList k;
    k.Add("word-lookup", 0, 0, 3 * t * e)
        .Add("position-lookup", 0, 0, 2 * t * e)
        .Add("position-add", 0, 0, 3 * t * e)
        .Add("dropout", 0, 0, 2 * t * e + t)
        .Add("transpose", 0, 0, 2 * t * e);
    k.pass = LayerPass::WEIGHT_GRADIENT;
    k.Add("dropout-bwd", 0, 0, 2 * t * e + t)
        .Add("word-grad", 0, 0, 3 * t * e, v * h * e)
        .Add("position-grad", 0, 0, 3 * t * e, s * h * e)
        .SumTied("word-grad-accumulate", v * h * e)
        .Accumulate("position-grad-accumulate", s * h * e);
    return k.kernels;
}

std::vector<LayerKernel>
MegatronLogitsKernels(uint64_t sequence,
                      uint64_t hidden,
                      uint64_t vocabulary,
                      uint32_t elementBytes)
{
    const auto [s, h, v, e, t] = Dims(sequence, hidden, vocabulary, elementBytes);
    const double logits = s * v; // per sample, all shards
    const double gemm = 2 * s * h * v;
    const double weights = v * h * e;
    KernelList k;
    k.Add("transpose", 0, 0, 2 * t * e)
        .Add("final-layernorm", 0, 0, 2 * t * e)
        .Add("logits", gemm, logits * e, t * e, weights)
        .Add("cross-entropy", 0, logits * (e + 36), 0);
    k.pass = LayerPass::INPUT_GRADIENT;
    k.Add("cross-entropy-bwd", 0, logits * (12 + e), 0)
        .Add("logits-dgrad", gemm, logits * e, t * e, weights)
        .Add("final-layernorm-bwd-gamma-beta", 0, 0, 2 * t * e)
        .Add("final-layernorm-bwd", 0, 0, 3 * t * e);
    k.pass = LayerPass::WEIGHT_GRADIENT;
    k.Add("logits-wgrad", gemm, logits * e, t * e, weights)
        .Accumulate("grad-accumulate", weights + 2 * h * e); // and the final norm's
    return k.kernels;
}

} // namespace ns3
