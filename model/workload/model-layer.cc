/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "model-layer.h"

namespace ns3
{

namespace
{

/// \return the sum of value(layer) over the layers
template <typename F>
auto
SumOver(const std::vector<ModelLayer>& layers, F value) -> decltype(value(layers.front()))
{
    decltype(value(layers.front())) total = 0;
    for (const auto& layer : layers)
    {
        total += value(layer);
    }
    return total;
}

} // namespace

std::string
ToString(LayerKind kind)
{
    switch (kind)
    {
        case LayerKind::CONV:
            return "conv";
        case LayerKind::LINEAR:
            return "linear";
        case LayerKind::ATTENTION:
            return "attention";
        case LayerKind::MLP:
            return "mlp";
        case LayerKind::EMBEDDING:
            return "embedding";
        case LayerKind::INTERACTION:
            return "interaction";
    }
    return "unknown";
}

double
ModelLayer::TrainingFlops() const
{
    return forwardFlops + inputGradientFlops + weightGradientFlops;
}

uint64_t
ModelLayer::ActivationBytes(DataType type) const
{
    return activationElements * ElementSize(type);
}

uint64_t
Model::TotalParameters() const
{
    return SumOver(layers,
                   [](const ModelLayer& layer)
                   {
                       return layer.parameters;
                   });
}

uint64_t
Model::ParameterBytes() const
{
    return TotalParameters() * ElementSize(dataType);
}

double
Model::ForwardFlopsPerSample() const
{
    return SumOver(layers,
                   [](const ModelLayer& layer)
                   {
                       return layer.forwardFlops;
                   });
}

double
Model::FlopsPerSample(bool recompute) const
{
    return SumOver(layers,
                   [recompute](const ModelLayer& layer)
                   {
                       return layer.TrainingFlops()
                              + (recompute && layer.recomputable ? layer.forwardFlops : 0);
                   });
}

double
Model::FlopsPerIteration(uint64_t samples, bool recompute) const
{
    return FlopsPerSample(recompute) * static_cast<double>(samples);
}

} // namespace ns3
