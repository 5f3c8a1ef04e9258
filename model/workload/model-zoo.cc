/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "model-zoo.h"

#include "ns3/config-parse.h"
#include "ns3/transformer-kernels.h"

#include <stdexcept>

namespace ns3
{

namespace
{

/// Throw std::invalid_argument "<model>: <field> must be positive" for a zero value.
void
RequirePositive(const std::string& model, const std::string& field, uint64_t value)
{
    if (value == 0)
    {
        throw std::invalid_argument(model + ": " + field + " must be positive");
    }
}

/// A layer whose weights multiply its input: forward, input gradient and
/// weight gradient cost the same (the input gradient is dropped for the first layer).
ModelLayer
WeightLayer(const std::string& name,
            LayerKind kind,
            double forwardFlops,
            uint64_t parameters,
            uint64_t activationElements,
            bool first)
{
    ModelLayer layer;
    layer.name = name;
    layer.kind = kind;
    layer.forwardFlops = forwardFlops;
    layer.inputGradientFlops = first ? 0 : forwardFlops;
    layer.weightGradientFlops = forwardFlops;
    layer.parameters = parameters;
    layer.activationElements = activationElements;
    return layer;
}

/// \return an empty model
Model
NewModel(const std::string& name, DataType type)
{
    Model model;
    model.name = name;
    model.dataType = type;
    return model;
}

/// Tracks the feature map while the ResNet's convolutions are appended.
struct ConvStack
{
    Model& model;
    uint64_t size;     //!< height = width of the current feature map
    uint64_t channels; //!< of the current feature map

    /// Append a k x k convolution to out channels with the given stride from
    /// (inSize, inChannels); \return its output size
    uint64_t Conv(const std::string& name,
                  uint64_t inSize,
                  uint64_t inChannels,
                  uint64_t k,
                  uint64_t out,
                  uint64_t stride)
    {
        uint64_t outSize = (inSize + stride - 1) / stride;
        uint64_t weights = k * k * inChannels * out;
        double flops = 2.0 * static_cast<double>(outSize * outSize * weights);
        model.layers.push_back(WeightLayer(
            name, LayerKind::CONV, flops, weights, outSize * outSize * out, model.layers.empty()));
        return outSize;
    }
};

} // namespace

ModelLayer
EmbeddingLayer(const std::string& name, uint64_t parameters, uint64_t activationElements)
{
    ModelLayer layer;
    layer.name = name;
    layer.kind = LayerKind::EMBEDDING;
    layer.parameters = parameters;
    layer.activationElements = activationElements;
    return layer;
}

void
AddLinear(Model& model, const std::string& name, uint64_t in, uint64_t out, bool bias, bool first)
{
    model.layers.push_back(WeightLayer(name,
                                       LayerKind::LINEAR,
                                       2.0 * static_cast<double>(in * out),
                                       in * out + (bias ? out : 0),
                                       out,
                                       first));
}

Model
MakeResNet(const std::string& name,
           const std::vector<uint32_t>& blocks,
           DataType type,
           uint32_t imageSize,
           uint32_t classes)
{
    if (blocks.size() != 4)
    {
        throw std::invalid_argument(name + ": a ResNet has four stages of blocks");
    }
    for (uint32_t b : blocks)
    {
        RequirePositive(name, "blocks", b);
    }
    RequirePositive(name, "imageSize", imageSize);
    RequirePositive(name, "classes", classes);
    Model model = NewModel(name, type);
    ConvStack stack{model, imageSize, 3};
    // conv1: 7x7/2 to 64 channels, then the 3x3/2 max pool
    stack.size = stack.Conv("conv1", stack.size, 3, 7, 64, 2);
    stack.channels = 64;
    stack.size = (stack.size + 1) / 2;
    for (size_t stage = 0; stage < blocks.size(); ++stage)
    {
        uint64_t width = 64ULL << stage;
        for (uint32_t block = 0; block < blocks[stage]; ++block)
        {
            std::string prefix
                = "res" + std::to_string(stage + 2) + "." + std::to_string(block + 1) + ".";
            uint64_t stride = (block == 0 && stage > 0) ? 2 : 1;
            uint64_t in = stack.size;
            uint64_t out = stack.Conv(prefix + "a", in, stack.channels, 1, width, stride);
            stack.Conv(prefix + "b", out, width, 3, width, 1);
            stack.Conv(prefix + "c", out, width, 1, 4 * width, 1);
            if (block == 0)
            {
                stack.Conv(prefix + "proj", in, stack.channels, 1, 4 * width, stride);
            }
            stack.size = out;
            stack.channels = 4 * width;
        }
    }
    // global average pool, then the classifier
    AddLinear(model, "fc", stack.channels, classes, false, false);
    return model;
}

Model
MakeTransformer(const std::string& name, const TransformerConfig& config, DataType type)
{
    RequirePositive(name, "layers", config.layers);
    RequirePositive(name, "hidden", config.hidden);
    RequirePositive(name, "heads", config.heads);
    RequirePositive(name, "sequence", config.sequence);
    RequirePositive(name, "vocabulary", config.vocabulary);
    if ((config.experts == 0) != (config.moeEvery == 0))
    {
        throw std::invalid_argument(name
                                    + ": experts and moeEvery must both be 0 (dense) or both "
                                      "positive (mixture of experts)");
    }
    if (config.kernels && config.experts > 0)
    {
        throw std::invalid_argument("experts: got " + std::to_string(config.experts) + " in " + name
                                    + "; the kernels compute model describes dense "
                                      "transformers: expected 0");
    }
    if (config.hidden % config.heads != 0)
    {
        throw std::invalid_argument("heads: got " + std::to_string(config.heads) + " in " + name
                                    + "; expected a divisor of hidden ("
                                    + std::to_string(config.hidden) + ")");
    }
    const double h = static_cast<double>(config.hidden);
    const double s = static_cast<double>(config.sequence);
    const double v = static_cast<double>(config.vocabulary);
    const uint64_t tokens = config.sequence * config.hidden; // s·h elements

    Model model = NewModel(name, type);
    model.sequence = config.sequence;
    model.heads = config.heads;
    const uint32_t elem = ElementSize(type);
    model.layers.push_back(
        EmbeddingLayer("embedding", (config.vocabulary + config.sequence) * config.hidden, tokens));
    if (config.kernels)
    {
        model.layers.back().kernels
            = MegatronEmbeddingKernels(config.sequence, config.hidden, config.vocabulary, elem);
    }

    for (uint32_t i = 0; i < config.layers; ++i)
    {
        std::string prefix = "layer" + std::to_string(i + 1) + ".";
        // QKV (6sh²) and output (2sh²) projections carry weights; the scores
        // QKᵀ and their product with V (2s²h each) do not, and their
        // backward (twice their forward) is all input gradient.
        ModelLayer attention;
        attention.name = prefix + "attention";
        attention.kind = LayerKind::ATTENTION;
        attention.forwardFlops = 8 * s * h * h + 4 * s * s * h;
        attention.weightGradientFlops = 8 * s * h * h;
        attention.inputGradientFlops = 8 * s * h * h + 8 * s * s * h;
        attention.parameters = 4 * config.hidden * config.hidden + 6 * config.hidden;
        attention.activationElements = tokens;
        attention.recomputable = true;
        if (config.kernels)
        {
            attention.kernels
                = MegatronAttentionKernels(config.sequence, config.hidden, config.heads, elem);
        }
        model.layers.push_back(attention);

        ModelLayer mlp = WeightLayer(prefix + "mlp",
                                     LayerKind::MLP,
                                     16 * s * h * h,
                                     8 * config.hidden * config.hidden + 7 * config.hidden,
                                     tokens,
                                     false);
        mlp.recomputable = true;
        if (config.kernels)
        {
            mlp.kernels = MegatronMlpKernels(config.sequence, config.hidden, elem);
        }
        if (config.experts > 0 && (i + 1) % config.moeEvery == 0)
        {
            mlp.name = prefix + "moe";
            mlp.experts = config.experts;
            mlp.parameters *= config.experts;
        }
        model.layers.push_back(mlp);
    }

    // the logits: h -> V with the embedding's weights (tied), whose gradient
    // this layer adds to the embedding's
    model.layers.push_back(WeightLayer(
        "logits", LayerKind::LINEAR, 2 * s * h * v, 0, config.sequence * config.vocabulary, false));
    model.layers.back().tiedParameters = config.vocabulary * config.hidden;
    if (config.kernels)
    {
        model.layers.back().kernels
            = MegatronLogitsKernels(config.sequence, config.hidden, config.vocabulary, elem);
    }
    return model;
}

Model
MakeDlrm(const std::string& name, const DlrmConfig& config, DataType type)
{
    RequirePositive(name, "denseFeatures", config.denseFeatures);
    RequirePositive(name, "embeddingDimension", config.embeddingDimension);
    RequirePositive(name, "tableRows", config.tableRows.size());
    RequirePositive(name, "bottomMlp", config.bottomMlp.size());
    RequirePositive(name, "topMlp", config.topMlp.size());
    for (uint64_t rows : config.tableRows)
    {
        RequirePositive(name, "tableRows", rows);
    }
    for (uint32_t width : config.bottomMlp)
    {
        RequirePositive(name, "bottomMlp", width);
    }
    for (uint32_t width : config.topMlp)
    {
        RequirePositive(name, "topMlp", width);
    }
    if (config.bottomMlp.back() != config.embeddingDimension)
    {
        throw std::invalid_argument(name + ": bottomMlp must end in embeddingDimension ("
                                    + std::to_string(config.embeddingDimension) + ")");
    }
    const uint64_t dim = config.embeddingDimension;
    const uint64_t tables = config.tableRows.size();

    uint64_t rows = 0;
    for (uint64_t r : config.tableRows)
    {
        rows += r;
    }
    Model model = NewModel(name, type);
    model.layers.push_back(EmbeddingLayer("embeddings", rows * dim, tables * dim));

    uint64_t in = config.denseFeatures;
    for (size_t i = 0; i < config.bottomMlp.size(); ++i)
    {
        AddLinear(model, "bottom" + std::to_string(i + 1), in, config.bottomMlp[i], true, i == 0);
        in = config.bottomMlp[i];
    }

    // n vectors of dim: n(n-1)/2 dot products, joined to the bottom MLP's output
    const uint64_t vectors = tables + 1;
    const uint64_t pairs = vectors * (vectors - 1) / 2;
    ModelLayer interaction;
    interaction.name = "interaction";
    interaction.kind = LayerKind::INTERACTION;
    interaction.forwardFlops = 2.0 * static_cast<double>(pairs * dim);
    interaction.inputGradientFlops = 2 * interaction.forwardFlops; // both operands of every product
    interaction.activationElements = pairs + dim;
    model.layers.push_back(interaction);

    in = pairs + dim;
    for (size_t i = 0; i < config.topMlp.size(); ++i)
    {
        AddLinear(model, "top" + std::to_string(i + 1), in, config.topMlp[i], true, false);
        in = config.topMlp[i];
    }
    return model;
}

namespace
{

const std::vector<std::string> g_transformers
    = {"bert-large", "gpt3-175b", "transformer-17b", "transformer-1t"};

} // namespace

const std::vector<std::string>&
ZooTransformerNames()
{
    return g_transformers;
}

TransformerConfig
ZooTransformer(const std::string& name)
{
    std::string t = dlnet::ParseChoice("model", name, g_transformers);
    // {layers, hidden, heads, sequence, vocabulary}, from the workloads reference
    if (t == "bert-large")
    {
        return {24, 1024, 16, 512, 30522};
    }
    if (t == "gpt3-175b")
    {
        return {96, 12288, 96, 2048, 51200}; // Megatron pads GPT-2's 50257 to 51200
    }
    if (t == "transformer-17b")
    {
        return {78, 4256, 28, 1024, 50257}; // Turing-NLG; the sequence is assumed
    }
    return {128, 25600, 160, 2048, 51200};
}

DlrmConfig
ZooDlrm()
{
    // Assumed sizes (the reference gives none): the Criteo Terabyte shape with
    // 26 tables of one million rows each.
    DlrmConfig config;
    config.denseFeatures = 13;
    config.tableRows.assign(26, 1000000);
    config.embeddingDimension = 128;
    config.bottomMlp = {512, 256, 128};
    config.topMlp = {1024, 1024, 512, 256, 1};
    return config;
}

const std::vector<std::string>&
ModelNames()
{
    static const std::vector<std::string> names = {"resnet50",
                                                   "resnet152",
                                                   "bert-large",
                                                   "gpt3-175b",
                                                   "transformer-17b",
                                                   "transformer-1t",
                                                   "dlrm"};
    return names;
}

Model
MakeModel(const std::string& name)
{
    std::string t = dlnet::ParseChoice("model", name, ModelNames());
    bool fp32 = t == "resnet50" || t == "resnet152" || t == "dlrm";
    return MakeModel(t, fp32 ? DataType::FP32 : DataType::FP16);
}

Model
MakeModel(const std::string& name, DataType type)
{
    std::string t = dlnet::ParseChoice("model", name, ModelNames());
    if (t == "resnet50")
    {
        return MakeResNet(t, {3, 4, 6, 3}, type);
    }
    if (t == "resnet152")
    {
        return MakeResNet(t, {3, 8, 36, 3}, type);
    }
    if (t == "dlrm")
    {
        return MakeDlrm(t, ZooDlrm(), type);
    }
    return MakeTransformer(t, ZooTransformer(t), type);
}

} // namespace ns3
