/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pure logic: models as layer lists and the model zoo (issue 10's validation numbers).

#include "expect-invalid.h"

#include "ns3/model-zoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>

using namespace ns3;

namespace
{

/// \return the weights of the layers of one kind
uint64_t
ParametersOf(const Model& model, LayerKind kind)
{
    uint64_t total = 0;
    for (const auto& layer : model.layers)
    {
        total += layer.kind == kind ? layer.parameters : 0;
    }
    return total;
}

/// Megatron's parameter count: 12·l·h²·(1 + 13/(12h) + (V+s)/(12·l·h))
double
MegatronParameters(const TransformerConfig& c)
{
    double l = c.layers;
    double h = static_cast<double>(c.hidden);
    double s = static_cast<double>(c.sequence);
    double v = static_cast<double>(c.vocabulary);
    return 12 * l * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l * h));
}

/// Megatron's FLOPs of one iteration of B sequences (SC'21, section 5.1):
/// 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)); with full activation recomputation
/// 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)).
double
MegatronFlops(const TransformerConfig& c, double batch, bool recompute)
{
    double l = c.layers;
    double h = static_cast<double>(c.hidden);
    double s = static_cast<double>(c.sequence);
    double v = static_cast<double>(c.vocabulary);
    if (recompute)
    {
        return 96 * batch * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
    }
    return 72 * batch * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
}

/// \return |actual / expected - 1|
double
RelativeError(double actual, double expected)
{
    return std::fabs(actual / expected - 1);
}

} // namespace

TEST(ModelZoo, ResNet50WeightsAreExact)
{
    Model m = MakeModel("resnet50");
    EXPECT_EQ(m.name, "resnet50");
    EXPECT_EQ(m.dataType, DataType::FP32);
    // conv1, 16 bottlenecks of three convolutions, 4 projections, fc
    ASSERT_EQ(m.layers.size(), 54U);
    EXPECT_EQ(m.layers.front().name, "conv1");
    EXPECT_EQ(m.layers.back().name, "fc");
    EXPECT_EQ(m.layers.front().parameters, 7U * 7 * 3 * 64);
    EXPECT_EQ(m.layers.back().parameters, 2048U * 1000);
    EXPECT_EQ(m.TotalParameters(), 25502912U);
    EXPECT_EQ(ParametersOf(m, LayerKind::CONV) + ParametersOf(m, LayerKind::LINEAR), 25502912U);
    EXPECT_EQ(m.ParameterBytes(), 4U * 25502912U);
    // He et al.: 3.8 G multiply-adds per 224x224 image
    double macs = m.ForwardFlopsPerSample() / 2;
    std::cout << "resnet50: " << m.TotalParameters() << " weights, " << macs / 1e9
              << " G multiply-adds per image\n";
    EXPECT_LT(RelativeError(macs, 3.8e9), 0.03);
    // the first layer has no input gradient; every other one costs its forward
    EXPECT_EQ(m.layers.front().inputGradientFlops, 0);
    EXPECT_EQ(m.layers[1].inputGradientFlops, m.layers[1].forwardFlops);
    EXPECT_DOUBLE_EQ(m.FlopsPerSample(), 3 * m.ForwardFlopsPerSample() - m.layers[0].forwardFlops);
    // conv1's output: 112 x 112 x 64
    EXPECT_EQ(m.layers.front().activationElements, 112U * 112 * 64);
    EXPECT_EQ(m.layers.front().ActivationBytes(DataType::FP16), 2U * 112 * 112 * 64);
}

TEST(ModelZoo, ResNet152Weights)
{
    Model m = MakeModel("resnet152");
    ASSERT_EQ(m.layers.size(), 156U); // the reference's 156 weight layers
    EXPECT_EQ(m.TotalParameters(), 60040384U);
    double macs = m.ForwardFlopsPerSample() / 2;
    std::cout << "resnet152: " << m.TotalParameters() << " weights, " << macs / 1e9
              << " G multiply-adds per image\n";
    EXPECT_LT(RelativeError(macs, 11.3e9), 0.03);
}

TEST(ModelZoo, TransformerParametersFollowMegatron)
{
    struct Case
    {
        std::string name;
        double published;
        double tolerance;
    };

    for (const Case& c : {Case{"gpt3-175b", 175e9, 0.005},
                          Case{"transformer-1t", 1008e9, 0.005},
                          Case{"transformer-17b", 17.2e9, 0.005},
                          Case{"bert-large", 340e6, 0.02}})
    {
        SCOPED_TRACE(c.name);
        Model m = MakeModel(c.name);
        TransformerConfig config = ZooTransformer(c.name);
        double p = static_cast<double>(m.TotalParameters());
        std::cout << c.name << ": " << m.TotalParameters() << " parameters (" << p / c.published
                  << " of the published " << c.published << ")\n";
        EXPECT_EQ(m.dataType, DataType::FP16);
        EXPECT_EQ(m.ParameterBytes(), 2 * m.TotalParameters());
        // embedding, attention + MLP per layer, logits
        EXPECT_EQ(m.layers.size(), 2U * config.layers + 2);
        EXPECT_LT(RelativeError(p, MegatronParameters(config)), 1e-12);
        EXPECT_LT(RelativeError(p, c.published), c.tolerance);
    }
}

TEST(ModelZoo, TransformerFlopsPerIterationFollowMegatron)
{
    for (const auto& name : {"bert-large", "gpt3-175b", "transformer-17b", "transformer-1t"})
    {
        SCOPED_TRACE(name);
        Model m = MakeModel(name);
        TransformerConfig config = ZooTransformer(name);
        for (uint64_t batch : {1U, 8U, 1536U})
        {
            double plain = m.FlopsPerIteration(batch);
            double recomputed = m.FlopsPerIteration(batch, true);
            EXPECT_LT(RelativeError(plain, MegatronFlops(config, batch, false)), 1e-12);
            EXPECT_LT(RelativeError(recomputed, MegatronFlops(config, batch, true)), 1e-12);
            if (batch == 1536)
            {
                std::cout << name << ": " << plain << " FLOPs per iteration of 1536 sequences, "
                          << recomputed << " with recomputation\n";
            }
        }
        // one layer's forward: 24·s·h² + 4·s²·h; backward twice that
        double h = static_cast<double>(config.hidden);
        double s = static_cast<double>(config.sequence);
        const ModelLayer& attention = m.layers[1];
        const ModelLayer& mlp = m.layers[2];
        EXPECT_EQ(attention.kind, LayerKind::ATTENTION);
        EXPECT_EQ(mlp.kind, LayerKind::MLP);
        EXPECT_DOUBLE_EQ(attention.forwardFlops + mlp.forwardFlops, 24 * s * h * h + 4 * s * s * h);
        EXPECT_DOUBLE_EQ(attention.inputGradientFlops + attention.weightGradientFlops,
                         2 * attention.forwardFlops);
        EXPECT_DOUBLE_EQ(mlp.inputGradientFlops + mlp.weightGradientFlops, 2 * mlp.forwardFlops);
        EXPECT_EQ(attention.parameters + mlp.parameters,
                  12 * config.hidden * config.hidden + 13 * config.hidden);
        EXPECT_EQ(mlp.activationElements, config.sequence * config.hidden);
    }
}

TEST(ModelZoo, DlrmLayers)
{
    Model m = MakeModel("dlrm");
    DlrmConfig c = ZooDlrm();
    // embeddings, the bottom MLP, the interaction, the top MLP
    ASSERT_EQ(m.layers.size(), 1 + c.bottomMlp.size() + 1 + c.topMlp.size());
    EXPECT_EQ(m.layers.front().kind, LayerKind::EMBEDDING);
    uint64_t tables = 0;
    for (uint64_t rows : c.tableRows)
    {
        tables += rows * c.embeddingDimension;
    }
    uint64_t dense = 0;
    uint64_t in = c.denseFeatures;
    for (uint32_t out : c.bottomMlp)
    {
        dense += in * out + out;
        in = out;
    }
    uint64_t vectors = c.tableRows.size() + 1;
    in = vectors * (vectors - 1) / 2 + c.embeddingDimension; // 351 + 128 = 479
    EXPECT_EQ(in, 479U);
    for (uint32_t out : c.topMlp)
    {
        dense += in * out + out;
        in = out;
    }
    EXPECT_EQ(ParametersOf(m, LayerKind::EMBEDDING), tables);
    EXPECT_EQ(ParametersOf(m, LayerKind::LINEAR), dense);
    EXPECT_EQ(m.TotalParameters(), tables + dense);
    std::cout << "dlrm: " << tables << " embedding + " << dense << " MLP parameters\n";
    ExpectInvalid(
        [&]
        {
            c.bottomMlp.back() = 64;
            MakeDlrm("dlrm", c);
        },
        {"bottomMlp", "embeddingDimension"});
}

TEST(ModelZoo, UnknownNamesAndShapesAreRefused)
{
    ExpectInvalid(
        []
        {
            MakeModel("resnet-9000");
        },
        {"model", "resnet-9000", "resnet50", "gpt3-175b", "dlrm"});
    ExpectInvalid(
        []
        {
            MakeModel("vgg", DataType::FP16);
        },
        {"model", "transformer-1t"});
    ExpectInvalid(
        []
        {
            ZooTransformer("resnet50");
        },
        {"model"});
    ExpectInvalid(
        []
        {
            MakeTransformer("t", TransformerConfig{2, 100, 3, 16, 100});
        },
        {"t", "heads", "hidden"});
    ExpectInvalid(
        []
        {
            MakeTransformer("t", TransformerConfig{0, 96, 3, 16, 100});
        },
        {"t", "layers"});
    ExpectInvalid(
        []
        {
            MakeResNet("r", {3, 4, 6});
        },
        {"r", "four stages"});
}

TEST(ModelZoo, DataTypeOverride)
{
    Model m = MakeModel("gpt3-175b", DataType::BF16);
    EXPECT_EQ(m.dataType, DataType::BF16);
    EXPECT_EQ(m.ParameterBytes(), 2 * m.TotalParameters());
    Model r = MakeModel("resnet50", DataType::FP16);
    EXPECT_EQ(r.ParameterBytes(), 2U * 25502912U);
    EXPECT_EQ(ToString(LayerKind::ATTENTION), "attention");
}
