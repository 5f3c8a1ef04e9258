/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_MODEL_ZOO_H
#define DLNET_MODEL_ZOO_H

#include "ns3/model-layer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet A bottleneck ResNet (He et al. 2016), v1: the stride of a
 * stage's first block sits in its first 1x1 convolution and in the 1x1
 * projection of the shortcut. Layers: conv1, every convolution of every
 * block, fc; no batch-norm parameters, no biases (the fc has none either).
 *
 * \param name the model's name
 * \param blocks the bottleneck blocks of the four stages ({3, 4, 6, 3} is ResNet-50)
 * \param imageSize the input's height and width (224)
 * \param classes the fc's outputs (1000)
 */
Model MakeResNet(const std::string& name,
                 const std::vector<uint32_t>& blocks,
                 DataType type = DataType::FP32,
                 uint32_t imageSize = 224,
                 uint32_t classes = 1000);

/// \ingroup dlnet A GPT-style transformer's shape (Megatron-LM's notation).
struct TransformerConfig
{
    uint32_t layers = 0;     //!< l
    uint64_t hidden = 0;     //!< h
    uint32_t heads = 0;      //!< a (divides h)
    uint64_t sequence = 0;   //!< s
    uint64_t vocabulary = 0; //!< V
    /// Mixture of experts (optional): every moeEvery-th layer's MLP is a
    /// layer of `experts` MLPs with top-1 routing (each token's FLOPs are one
    /// MLP's; the parameters are all experts'). Both 0: a dense model.
    uint32_t experts = 0;
    uint32_t moeEvery = 0; //!< see experts
    /// Describe every layer by the kernels Megatron-LM runs for it
    /// (MegatronAttentionKernels and friends) instead of one roofline per
    /// pass; dense models only.
    bool kernels = false;
};

/**
 * \ingroup dlnet A transformer as Megatron-LM counts it: a token + position
 * embedding ((V + s)·h parameters), per layer an attention block (QKV and
 * output projections with biases and a layer norm: 4h² + 6h) and an MLP
 * block (h -> 4h -> h with biases and a layer norm: 8h² + 7h), and the
 * logits, whose weights are the embedding's (tied: no parameters of their
 * own). So the parameters are 12·l·h²·(1 + 13/12h + (V + s)/12lh) and one
 * layer's forward is 24·s·h² + 4·s²·h FLOPs per sequence.
 * Throws std::invalid_argument for a zero field, heads not dividing hidden,
 * or kernels with experts.
 */
Model MakeTransformer(const std::string& name,
                      const TransformerConfig& config,
                      DataType type = DataType::FP16);

/**
 * \ingroup dlnet An embedding layer: parameters and an output, no FLOPs (a lookup).
 * \param name its name \param parameters rows x dimension of its tables
 * \param activationElements its output per sample (looked-up fields x dimension)
 */
ModelLayer EmbeddingLayer(const std::string& name,
                          uint64_t parameters,
                          uint64_t activationElements);

/**
 * \ingroup dlnet Append a linear layer in -> out: 2·in·out forward FLOPs per
 * sample, the same for the input and the weight gradient (no input gradient
 * when first is set: nothing below it learns), in·out weights plus out biases
 * when bias is set.
 */
void AddLinear(
    Model& model, const std::string& name, uint64_t in, uint64_t out, bool bias, bool first);

/// \ingroup dlnet A DLRM's shape (Naumov et al. 2019).
struct DlrmConfig
{
    uint32_t denseFeatures = 0;      //!< the bottom MLP's input
    std::vector<uint64_t> tableRows; //!< one embedding table per sparse feature
    uint32_t embeddingDimension = 0; //!< of every table; the bottom MLP ends with it
    std::vector<uint32_t> bottomMlp; //!< output widths; the last equals embeddingDimension
    std::vector<uint32_t> topMlp;    //!< output widths (the last is the prediction)
};

/**
 * \ingroup dlnet A DLRM: the embedding tables as one layer (lookups, no
 * FLOPs; exchanged with AllToAll when the tables are model parallel), the
 * bottom MLP (linear layers with biases), the pairwise dot-product
 * interaction of the n = tables + 1 vectors (n(n-1)/2 products, joined to the
 * bottom MLP's output), and the top MLP. Throws std::invalid_argument for
 * an empty or zero field or a bottom MLP not ending in embeddingDimension.
 */
Model MakeDlrm(const std::string& name, const DlrmConfig& config, DataType type = DataType::FP32);

/// \return the zoo's transformer shapes (bert-large, gpt3-175b, transformer-17b, transformer-1t)
TransformerConfig ZooTransformer(const std::string& name);
/// \return the names ZooTransformer knows
const std::vector<std::string>& ZooTransformerNames();
/// \return the zoo's DLRM shape (an assumption: the workloads reference gives no sizes)
DlrmConfig ZooDlrm();

/// \return the names MakeModel knows
const std::vector<std::string>& ModelNames();

/// \return the zoo's model of that name in its usual type (fp32 for the
/// ResNets and DLRM, fp16 for the transformers); std::invalid_argument
/// naming "model" and listing the names for an unknown one
Model MakeModel(const std::string& name);
/// \return the zoo's model of that name in the given type
Model MakeModel(const std::string& name, DataType type);

} // namespace ns3

#endif /* DLNET_MODEL_ZOO_H */
