/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_WAFER_TOPOLOGY_H
#define DLNET_WAFER_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"
#include "wafer-helper.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The FRED paper's wafer presets as topologies: one class for the
 * family, one registered kind per preset (wafer-mesh, fred-a, fred-b,
 * fred-c, fred-d), the variant parsed once into a WaferVariant.
 *
 * Build() builds exactly BuildWafer's cluster: the 20 NPUs (ranks 0..19) on
 * a 5 x 4 mesh or a FRED two-level fat tree, then the 18 I/O controllers
 * (endpoints 20..37) and, on FRED, the destination-mod-k routes. The
 * topology's ranks are the NPUs (GetNRanks() = 20): collectives run on
 * them; the I/O controllers are endpoints beyond, for weight streaming.
 * Paths, rank rate and grid are those of the NPUs' mesh or leaf-spine.
 *
 * As a registered kind (collective-bench --topology=fred-d), the fabric
 * options set: link-rate the NPU bandwidth (default 3000GBps), link-delay
 * every wafer link (default 20ns), mtu the packet (payload mtu - 24, default
 * 4096), network packet or flow; I/O rate and middle stages keep
 * WaferConfig's defaults; other fabric options are refused (the wafer is
 * lossless, 4 classes, latency 0). At network=flow the I/O controllers are
 * attached to the cluster's FlowNetwork as they are added.
 */
class WaferScaleTopology : public Topology
{
public:
    /// \param config the wafer (validated: std::invalid_argument naming the field)
    explicit WaferScaleTopology(const WaferConfig& config);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;
    TopologyGrid GetGrid() const override;

    /// \return the variant
    WaferVariant GetVariant() const;
    /// \return the wafer config it was made from
    const WaferConfig& GetWaferConfig() const;

    /// \return Build() and its description (BuildWafer)
    Wafer BuildWafer() const;

    /**
     * The wafer description of a cluster this topology built: switches, their
     * ports, I/O controllers, found from the cluster's links (not assumed
     * from the build order). std::invalid_argument when the cluster is not
     * one of this wafer's.
     * \param cluster a cluster Build() returned \return the description (with a copy of it)
     */
    Wafer Describe(const Cluster& cluster) const;

    /**
     * The registered kind's config to a wafer (the boundary).
     * \param config a config of kind wafer-mesh or fred-a .. fred-d
     * \param variant the kind's variant
     * \return the wafer config (std::invalid_argument for an mtu a wafer packet cannot
     *         use; MakeTopology has refused the fabric options a wafer does not take)
     */
    static WaferConfig FromTopologyConfig(const TopologyConfig& config, WaferVariant variant);

private:
    WaferConfig m_wafer;
    WaferVariant m_variant;
    TopologyConfig m_config;     //!< the NPUs' mesh or leaf-spine, under this kind's name
    Ptr<const Topology> m_inner; //!< that mesh or leaf-spine
};

} // namespace ns3

#endif /* DLNET_WAFER_TOPOLOGY_H */
