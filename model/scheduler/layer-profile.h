/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_LAYER_PROFILE_H
#define DLNET_LAYER_PROFILE_H

#include "resource-catalogue.h"

#include "ns3/model-layer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One layer as the scheduler sees it: its time on each resource type
 * for one batch, and the bytes that cross its boundaries.
 */
struct ProfiledLayer
{
    std::string name;
    std::string kind;            //!< embedding, linear, interaction, conv, ... (the RL's feature)
    std::vector<double> seconds; //!< per catalogue type: forward + backward of one batch on
                                 //!< one instance, > 0 (finite)
    double forwardFraction{1.0 / 3}; //!< of `seconds` spent in forward, in (0, 1)
    double parallelFraction{1};      //!< Amdahl's a: with k replicas the time is
                                     //!< seconds x ((1 - a) + a / k), in [0, 1]
    uint64_t outputBytes{0};         //!< activations it passes up per batch (its input
                                     //!< gradients come back the same size)
    uint64_t parameterBytes{0};      //!< its weights
    uint64_t syncBytes{0};           //!< gradient bytes data parallelism synchronises per batch
                           //!< (dense: the weights; an embedding: the rows a batch touches)
};

/**
 * \ingroup dlnet
 * \brief A model's layers in order with their profile on every type of a
 * catalogue: the scheduler's input besides the catalogue.
 */
struct LayerProfile
{
    std::string name;                   //!< the model or the file
    std::vector<std::string> typeNames; //!< the catalogue types `seconds` follows, in order
    uint64_t batch{0};                  //!< samples per batch (B), >= 1
    std::vector<ProfiledLayer> layers;  //!< at least one

    /// \return the layer count L
    uint32_t Size() const;
    /**
     * Throw std::invalid_argument naming the first bad field (layers[3].seconds[1]):
     * no layers, a batch of 0, a type count unlike typeNames, a time not > 0
     * or not finite, a fraction out of range.
     */
    void Validate() const;
    /// Throw std::invalid_argument unless typeNames equals the catalogue's names, in order
    void CheckAgainst(const ResourceCatalogue& catalogue) const;
};

/**
 * Profile a model on every type of a catalogue through the compute model:
 * forward, input- and weight-gradient passes from RooflineTime with the
 * type's DeviceSpec over `batch` samples. Embedding layers move only the
 * rows a batch touches (activation bytes read forward, gradient rows
 * read and written backward), not the table; a layer whose parameters do
 * not fit the type's memory moves its bytes at hostBandwidth. Layers have
 * parallelFraction `parallelFraction`.
 */
LayerProfile ProfileModel(const Model& model,
                          const ResourceCatalogue& catalogue,
                          uint64_t batch,
                          double parallelFraction = 0.95);

/**
 * Read a profile from a CSV or JSON file (by its content: JSON starts with
 * '{'; formats in doc/dlnet.rst, "Heterogeneous scheduling");
 * std::invalid_argument naming the file, the line (CSV) or JSON path, the
 * field and what is allowed. Its type columns must name catalogue types.
 */
LayerProfile ReadProfileFile(const std::string& path, const ResourceCatalogue& catalogue);
/// Parse profile CSV text; `source` names it in errors
LayerProfile ParseProfileCsv(const std::string& text,
                             const std::string& source,
                             const ResourceCatalogue& catalogue);
/// Parse profile JSON text; `source` names it in errors
LayerProfile ParseProfileJson(const std::string& text,
                              const std::string& source,
                              const ResourceCatalogue& catalogue);
/// \return the profile as CSV that ParseProfileCsv reads back equal (shortest doubles)
std::string ProfileToCsv(const LayerProfile& profile);

/// \return the built-in scheduling models: the CTR models, then dense zoo models
const std::vector<std::string>& SchedulingModelNames();
/// \return the CTR model names: wide-deep, deepfm, two-tower, dlrm
const std::vector<std::string>& CtrModelNames();
/**
 * \return a built-in model by name: a CTR model (MakeCtrModel) or a model of
 * the training zoo (MakeModel); std::invalid_argument naming "model" and the names
 */
Model MakeSchedulingModel(const std::string& name);
/**
 * CTR models: large sparse embedding tables (one EMBEDDING layer per group of
 * fields), then dense layers. Sizes are assumptions documented in the doc.
 * - wide-deep: a wide (linear) part over the sparse features and a deep MLP
 * - deepfm: embeddings shared by a factorisation machine and a deep MLP
 * - two-tower: user and item towers over their own embeddings, a dot product
 * - dlrm: the training zoo's DLRM shape
 */
Model MakeCtrModel(const std::string& name);

} // namespace ns3

#endif /* DLNET_LAYER_PROFILE_H */
