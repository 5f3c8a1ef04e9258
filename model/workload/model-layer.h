/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_MODEL_LAYER_H
#define DLNET_MODEL_LAYER_H

#include "ns3/collective-types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup dlnet What a model layer computes.
enum class LayerKind
{
    CONV,        //!< a convolution (no bias)
    LINEAR,      //!< a fully connected layer (matrix multiply, optional bias)
    ATTENTION,   //!< a transformer's self-attention block with its layer norm
    MLP,         //!< a transformer's feed-forward block with its layer norm
    EMBEDDING,   //!< a table lookup: parameters, no multiply
    INTERACTION, //!< DLRM's pairwise dot products of the embedded features
};

/// \return the kind's name (conv, linear, attention, mlp, embedding, interaction)
std::string ToString(LayerKind kind);

/// \ingroup dlnet The three passes of a layer in training.
enum class LayerPass : uint8_t
{
    FORWARD,
    INPUT_GRADIENT,
    WEIGHT_GRADIENT,
};

/**
 * \ingroup dlnet One GPU kernel of a layer's pass (a GEMM, a fused
 * element-wise operation, a reduction): its FLOPs and memory traffic, and
 * how tensor parallelism divides them. Per-sample quantities scale with the
 * samples of a microbatch; weightBytes does not.
 */
struct LayerKernel
{
    std::string name;
    LayerPass pass{LayerPass::FORWARD};
    double flops{0};        //!< per sample, divided over the tensor-parallel shards
    double shardedBytes{0}; //!< memory traffic per sample, divided over the shards
    double wholeBytes{0};   //!< memory traffic per sample every shard moves in full (layer
                            //!< norm, residual add: replicated over the shards)
    double weightBytes{0};  //!< memory traffic per pass (weights, their gradients), divided
                            //!< over the shards
    /// A weight-gradient kernel that adds a microbatch's gradients into the
    /// parameters' gradients. The first microbatch of an iteration does not
    /// run it: after zero_grad(set_to_none) PyTorch's AccumulateGrad takes
    /// that microbatch's gradient tensor over as the parameter's gradient.
    bool accumulatesGradient{false};
    /// A weight-gradient kernel that sums the two gradients of tied weights (the word
    /// embedding's lookup and the logits) when both uses run on one rank, every microbatch.
    /// With the uses on different pipeline stages it is instead the first stage's
    /// accumulation of the table's gradient, which the first microbatch does not run.
    bool sumsTiedGradients{false};
};

/**
 * \ingroup dlnet One layer of a model, per sample (one image, one sequence,
 * one DLRM query). FLOPs count a multiply-add as two. The backward pass is
 * split as ASTRA-sim's workloads split it: the input gradient (propagated
 * to the layer below; zero for the first layer, which has none) and the
 * weight gradient (what data parallelism reduces).
 */
struct ModelLayer
{
    std::string name;
    LayerKind kind = LayerKind::LINEAR;
    double forwardFlops = 0;        //!< per sample
    double inputGradientFlops = 0;  //!< per sample
    double weightGradientFlops = 0; //!< per sample
    uint64_t parameters = 0;
    uint64_t activationElements = 0; //!< the layer's output, per sample
    /// Its forward pass runs again in backward under full activation
    /// recomputation (Megatron recomputes transformer layers, not the
    /// embedding or the logits).
    bool recomputable = false;
    /// A mixture-of-experts MLP: its number of experts (parameters counts them
    /// all; FLOPs are per token of one expert, top-1 routing); 0 for any other layer.
    uint32_t experts = 0;
    /// Weights it shares with the first layer and does not count in
    /// parameters: a transformer's logits use the word embedding's V·h
    /// (tied); 0 for any other layer. Under pipeline parallelism Megatron-LM's
    /// last stage keeps a copy of them (TrainingPlan::tiedEmbeddingCopy).
    uint64_t tiedParameters = 0;
    /// The kernels its passes run, one after another (LayerPassTime sums their
    /// roofline times); empty: each pass is one roofline of the layer's FLOPs
    /// and an estimate of its traffic.
    std::vector<LayerKernel> kernels;

    /// \return forward + input gradient + weight gradient, per sample
    double TrainingFlops() const;
    /// \return activationElements in the given type
    uint64_t ActivationBytes(DataType type) const;
};

/// \ingroup dlnet A model: its layers bottom to top and the type of its
/// weights, gradients and activations.
struct Model
{
    std::string name;
    std::vector<ModelLayer> layers;
    DataType dataType = DataType::FP32;
    /// Tokens per sample of a sequence model (a transformer's s); 0 otherwise.
    uint64_t sequence = 0;
    /// Attention heads of a transformer (what tensor parallelism splits); 0 otherwise.
    uint32_t heads = 0;

    /// \return the sum of the layers' parameters
    uint64_t TotalParameters() const;
    /// \return TotalParameters() in dataType (the size of one gradient AllReduce of it all)
    uint64_t ParameterBytes() const;
    /// \return forward FLOPs of one sample
    double ForwardFlopsPerSample() const;
    /// \return forward + backward FLOPs of one sample, plus a second forward
    /// of the recomputable layers when recompute is set
    double FlopsPerSample(bool recompute = false) const;
    /// \return FlopsPerSample(recompute) x samples (the batch of one iteration)
    double FlopsPerIteration(uint64_t samples, bool recompute = false) const;
};

} // namespace ns3

#endif /* DLNET_MODEL_LAYER_H */
