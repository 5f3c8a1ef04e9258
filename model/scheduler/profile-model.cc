/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "layer-profile.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/model-zoo.h"
#include "ns3/time-resolution.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ProfileModel");

namespace
{

/// Criteo's display-advertising logs: 13 dense (integer) and 26 categorical features
constexpr uint64_t CRITEO_DENSE = 13;
constexpr uint64_t CRITEO_CATEGORICAL = 26;

/// The largest batch profiled: keeps bytes per batch far inside uint64
constexpr uint64_t MAX_BATCH = 1ull << 30;

/// Append the layers of an MLP from `in` through `widths` (ReLU layers with biases)
void
AddMlp(Model& model, const std::string& prefix, uint64_t in, const std::vector<uint64_t>& widths)
{
    for (std::size_t i = 0; i < widths.size(); ++i)
    {
        AddLinear(model, prefix + std::to_string(i + 1), in, widths[i], true, false);
        in = widths[i];
    }
}

/**
 * Wide & Deep (Cheng et al. 2016, "Wide & Deep Learning for Recommender
 * Systems"): the deep part embeds every categorical field in 32 dimensions
 * and runs ReLU layers of 1024, 512 and 256 (the paper's Google Play model);
 * the wide part is a linear model over the sparse features and their cross
 * products, a lookup of one weight per feature (an embedding of dimension 1).
 * On Criteo's fields: 26 categorical fields hashed into 20M rows each, in two
 * embedding layers of 13 fields; the wide part over the 26 fields and 26
 * crosses (52 x 20M weights). The 13 dense features join the embeddings.
 */
Model
WideDeep()
{
    const uint64_t rows = 20000000, dim = 32, half = CRITEO_CATEGORICAL / 2;
    Model m;
    m.name = "wide-deep";
    m.dataType = DataType::FP32;
    m.layers.push_back(
        EmbeddingLayer("wide", 2 * CRITEO_CATEGORICAL * rows, 2 * CRITEO_CATEGORICAL));
    m.layers.push_back(EmbeddingLayer("embeddings-a", half * rows * dim, half * dim));
    m.layers.push_back(EmbeddingLayer("embeddings-b", half * rows * dim, half * dim));
    AddMlp(m, "deep", CRITEO_CATEGORICAL * dim + CRITEO_DENSE, {1024, 512, 256});
    // the wide logit joins the deep part's last layer (one more input)
    AddLinear(m, "output", 256 + 1, 1, true, false);
    return m;
}

/**
 * DeepFM (Guo et al. 2017, "DeepFM: A Factorization-Machine based Neural
 * Network for CTR Prediction"): one embedding shared by a factorisation
 * machine and a deep MLP of 400-400-400 (the paper's Criteo setting). Fields:
 * Criteo's 26 categorical and its 13 dense features bucketised (39 fields),
 * 40M rows each (MLPerf's cap on a Criteo table), dimension 16: 99.8 GB of fp32,
 * more than an 80 GB GPU holds. The FM's second-order term by the sum-square
 * identity: 2 x fields x dim multiply-adds forward, twice that backward (both
 * factors), no weights; its output joins the embeddings it passes up, as
 * DLRM's interaction joins the bottom MLP.
 */
Model
DeepFm()
{
    const uint64_t fields = CRITEO_CATEGORICAL + CRITEO_DENSE, rows = 40000000, dim = 16;
    Model m;
    m.name = "deepfm";
    m.dataType = DataType::FP32;
    m.layers.push_back(EmbeddingLayer("embeddings", fields * rows * dim, fields * dim));
    ModelLayer fm;
    fm.name = "fm";
    fm.kind = LayerKind::INTERACTION;
    fm.forwardFlops = 2.0 * 2.0 * static_cast<double>(fields * dim);
    fm.inputGradientFlops = 2 * fm.forwardFlops;
    fm.activationElements = fields * dim + 1;
    m.layers.push_back(fm);
    AddMlp(m, "deep", fields * dim + 1, {400, 400, 400});
    AddLinear(m, "output", 400, 1, true, false);
    return m;
}

/**
 * A two-tower retrieval model (Covington et al. 2016, YouTube's candidate
 * generation; Yi et al. 2019, sampling-bias-corrected two-tower): user and
 * item features embedded in 64 dimensions, a tower of 1024-512-128 ReLU layers
 * each, a dot product of the two 128-vectors. User side: 8 fields of 50M rows
 * (ids, history buckets: 102 GB of fp32, beyond a GPU); item side: 6 fields of
 * 10M rows. The parallel towers are linearised as a chain: user embeddings,
 * item embeddings, user MLP, item MLP, dot product; a boundary carries only
 * the output of the layer before it (the other tower's activations that would
 * pass alongside are not counted).
 */
Model
TwoTower()
{
    const uint64_t dim = 64, userFields = 8, itemFields = 6;
    Model m;
    m.name = "two-tower";
    m.dataType = DataType::FP32;
    m.layers.push_back(
        EmbeddingLayer("user-embeddings", userFields * 50000000 * dim, userFields * dim));
    m.layers.push_back(
        EmbeddingLayer("item-embeddings", itemFields * 10000000 * dim, itemFields * dim));
    AddMlp(m, "user", userFields * dim, {1024, 512, 128});
    AddMlp(m, "item", itemFields * dim, {1024, 512, 128});
    ModelLayer dot;
    dot.name = "dot";
    dot.kind = LayerKind::INTERACTION;
    dot.forwardFlops = 2.0 * 128;
    dot.inputGradientFlops = 2 * dot.forwardFlops;
    dot.activationElements = 1;
    m.layers.push_back(dot);
    return m;
}

/// \return seconds of a Time
double
Seconds(const Time& t)
{
    return t.GetSeconds();
}

} // namespace

const std::vector<std::string>&
CtrModelNames()
{
    static const std::vector<std::string> names = {"wide-deep", "deepfm", "two-tower", "dlrm"};
    return names;
}

const std::vector<std::string>&
SchedulingModelNames()
{
    static const std::vector<std::string> names = []
    {
        std::vector<std::string> all = CtrModelNames();
        for (const std::string& n : ModelNames())
        {
            // the zoo's dlrm is the CTR dlrm: listed once
            if (std::find(all.begin(), all.end(), n) == all.end())
            {
                all.push_back(n);
            }
        }
        return all;
    }();
    return names;
}

Model
MakeCtrModel(const std::string& name)
{
    std::string n = dlnet::ParseChoice("model", name, CtrModelNames());
    if (n == "wide-deep")
    {
        return WideDeep();
    }
    if (n == "deepfm")
    {
        return DeepFm();
    }
    if (n == "two-tower")
    {
        return TwoTower();
    }
    return MakeDlrm("dlrm", ZooDlrm());
}

Model
MakeSchedulingModel(const std::string& name)
{
    std::string n = dlnet::ParseChoice("model", name, SchedulingModelNames());
    const auto& ctr = CtrModelNames();
    if (std::find(ctr.begin(), ctr.end(), n) != ctr.end())
    {
        return MakeCtrModel(n);
    }
    return MakeModel(n);
}

LayerProfile
ProfileModel(const Model& model,
             const ResourceCatalogue& catalogue,
             uint64_t batch,
             double parallelFraction)
{
    catalogue.Validate();
    // the compute model rounds to the Time resolution: picoseconds, as every
    // simulation here uses, so a profile does not depend on what ran before it
    dlnet::UsePicoseconds();
    if (model.layers.empty())
    {
        throw std::invalid_argument("model: '" + dlnet::PrintableText(model.name)
                                    + "' has no layers");
    }
    if (batch == 0 || batch > MAX_BATCH)
    {
        throw std::invalid_argument("batch: " + std::to_string(batch) + " must be from 1 to "
                                    + std::to_string(MAX_BATCH));
    }
    if (!(parallelFraction >= 0 && parallelFraction <= 1))
    {
        throw std::invalid_argument("parallel-fraction: " + dlnet::ShortestText(parallelFraction)
                                    + " must be in [0, 1]");
    }
    LayerProfile p;
    p.name = model.name;
    p.batch = batch;
    p.typeNames = catalogue.Names();
    const double elem = ElementSize(model.dataType);
    const double samples = static_cast<double>(batch);
    for (const ModelLayer& layer : model.layers)
    {
        ProfiledLayer out;
        out.name = layer.name;
        out.kind = ToString(layer.kind);
        out.parallelFraction = parallelFraction;
        const double parameterBytes = static_cast<double>(layer.parameters) * elem;
        const double touched = static_cast<double>(layer.activationElements) * elem * samples;
        out.outputBytes = static_cast<uint64_t>(touched);
        out.parameterBytes = static_cast<uint64_t>(parameterBytes);
        const bool embedding = layer.kind == LayerKind::EMBEDDING;
        out.syncBytes = embedding ? static_cast<uint64_t>(std::min(parameterBytes, touched))
                                  : out.parameterBytes;
        double forwardSum = 0, totalSum = 0;
        for (const ResourceType& t : catalogue.types)
        {
            DeviceSpec device = t.device;
            // weights that do not fit the device stream over its host link
            if (parameterBytes > static_cast<double>(t.memoryBytes))
            {
                device.memoryBandwidth = t.hostBandwidth;
            }
            double forward = 0, backward = 0;
            if (embedding)
            {
                // only the rows a batch touches move: forward reads them and
                // writes the output; backward reads the output gradient and
                // reads and writes the rows it updates
                forward = Seconds(RooflineTime(0, 2 * touched, device, model.dataType));
                backward = Seconds(RooflineTime(0, 3 * touched, device, model.dataType));
            }
            else
            {
                forward = Seconds(
                    LayerPassTime(layer, LayerPass::FORWARD, device, model.dataType, samples));
                backward = Seconds(LayerPassTime(
                               layer, LayerPass::INPUT_GRADIENT, device, model.dataType, samples))
                           + Seconds(LayerPassTime(
                               layer, LayerPass::WEIGHT_GRADIENT, device, model.dataType, samples));
            }
            if (!(forward + backward > 0))
            {
                throw std::invalid_argument("model: layer '" + dlnet::PrintableText(layer.name)
                                            + "' takes no time on '" + t.name
                                            + "' (no FLOPs and no bytes)");
            }
            out.seconds.push_back(forward + backward);
            forwardSum += forward;
            totalSum += forward + backward;
        }
        // types differ only in speed, not in the split of a layer's work: the mean over types
        out.forwardFraction = std::clamp(forwardSum / totalSum, 1e-6, 1 - 1e-6);
        p.layers.push_back(out);
    }
    p.Validate();
    return p;
}

} // namespace ns3
