/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_RESOURCE_CATALOGUE_H
#define DLNET_RESOURCE_CATALOGUE_H

#include "ns3/compute-model.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// \ingroup dlnet What a resource type is (drives the kind-based baselines).
enum class ResourceKind : uint8_t
{
    CPU, //!< a CPU server
    GPU, //!< a GPU (or another accelerator) with its share of a server
};

/// \return cpu or gpu
std::string ToString(ResourceKind kind);

/**
 * \ingroup dlnet
 * \brief One kind of instance a heterogeneous cluster rents: what it costs,
 * how many there are, how fast it computes and communicates.
 */
struct ResourceType
{
    std::string name; //!< unique in its catalogue ("cpu", "a100", ...)
    ResourceKind kind{ResourceKind::CPU};
    double pricePerHour{0};  //!< USD per instance-hour, > 0
    uint32_t available{0};   //!< instances that can be rented, >= 1
    DeviceSpec device;       //!< its compute model (derives profiles)
    double nicRate{0};       //!< bit/s of its network interface, > 0
    uint64_t memoryBytes{0}; //!< device memory; a layer whose parameters exceed it runs
                             //!< its memory traffic at hostBandwidth
    double hostBandwidth{0}; //!< bytes/s to host memory (PCIe); CPUs: their DRAM
};

/**
 * \ingroup dlnet
 * \brief The resource types of a heterogeneous cluster and the network
 * between them. Types are indexed 0 .. size-1 in the order given; plans
 * name types by that index.
 */
struct ResourceCatalogue
{
    std::string name;                //!< the preset or file it came from
    std::string date;                //!< when its prices were read (presets)
    std::vector<ResourceType> types; //!< at least one
    /// bit/s between an instance of type a and one of type b (a <= b by
    /// index) when it is not min(nicRate a, nicRate b): a slower
    /// inter-cluster link, for example
    std::map<std::pair<uint32_t, uint32_t>, double> links;

    /// \return bit/s one instance of type a reaches one of type b with
    double Bandwidth(uint32_t a, uint32_t b) const;
    /// \return the index of the type named so; std::invalid_argument naming field and the names
    uint32_t IndexOf(const std::string& field, const std::string& name) const;
    /// \return the type names in index order
    std::vector<std::string> Names() const;
    /// Throw std::invalid_argument naming the first bad field (types[i].price, ...):
    /// no types, a name empty or twice, a price, count, rate, memory or
    /// bandwidth not > 0 (or not finite), a link naming an unknown type or not > 0.
    void Validate() const;
};

/// \return the catalogue preset names
const std::vector<std::string>& CataloguePresetNames();
/// \return the preset; std::invalid_argument naming "catalogue" and the names otherwise
ResourceCatalogue MakeCataloguePreset(const std::string& name);

/**
 * Read a catalogue from a JSON file (format in doc/dlnet.rst, "Heterogeneous
 * scheduling"); std::invalid_argument naming the file, the JSON path of the
 * bad field (types[2].price_per_hour) and what is allowed.
 */
ResourceCatalogue ReadCatalogueFile(const std::string& path);
/// Parse a catalogue from JSON text (what ReadCatalogueFile reads); `source` names it in errors.
ResourceCatalogue ParseCatalogueJson(const std::string& text, const std::string& source);
/// \return the catalogue as the JSON ParseCatalogueJson reads
std::string CatalogueToJson(const ResourceCatalogue& catalogue);

/// \return the preset name or, when `text` names no preset, the catalogue in that JSON file
ResourceCatalogue MakeCatalogue(const std::string& text);

} // namespace ns3

#endif /* DLNET_RESOURCE_CATALOGUE_H */
