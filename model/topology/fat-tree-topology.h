/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FAT_TREE_TOPOLOGY_H
#define DLNET_FAT_TREE_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Three-tier k-ary fat tree (Al-Fares et al.): k pods of k/2 edge and
 * k/2 aggregation switches, (k/2)^2 core switches, k/2 hosts per edge switch
 * (k^3/4 hosts; rank = (pod * k/2 + edge) * k/2 + host).
 *
 * Edge e of a pod links to every aggregation switch of its pod;
 * aggregation switch a of every pod links to cores a*k/2 .. a*k/2 + k/2 - 1.
 * Up routes are ECMP (edge: k/2 aggregation ports, aggregation: k/2 core
 * ports; aggregation switches hash with ecmp-seed + 1, so that a flow's
 * core does not follow from its aggregation switch); down routes are the one
 * port toward the destination. Switches are
 * numbered cores first, then each pod's aggregation switches, then each
 * pod's edge switches. Host links run at link-rate / link-delay, the others
 * at fabric-link-rate (default link-rate) / fabric-link-delay (default
 * link-delay).
 */
class FatTreeTopology : public Topology
{
public:
    /// \param config k (or nodes = k^3/4) and the links
    explicit FatTreeTopology(const TopologyConfig& config);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;
    TopologyGrid GetGrid() const override;

private:
    TopologyConfig m_config;
    uint32_t m_k;
    DataRate m_hostRate;
    Time m_hostDelay;
    DataRate m_fabricRate;
    Time m_fabricDelay;
};

} // namespace ns3

#endif /* DLNET_FAT_TREE_TOPOLOGY_H */
