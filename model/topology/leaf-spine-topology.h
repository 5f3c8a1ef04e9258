/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_LEAF_SPINE_TOPOLOGY_H
#define DLNET_LEAF_SPINE_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

#include <string>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Two-tier Clos: `leaves` leaf switches of `hostsPerLeaf` hosts,
 * every leaf linked to each of `spines` spines; ECMP over the spines.
 * Switches are numbered spines first, then leaves; a leaf's ports are its
 * uplinks (one per spine) then its hosts; spine port l leads to leaf l.
 * The uplink rate is fabric-link-rate, or host rate x hosts per leaf /
 * (spines x oversubscription). Leaves aggregate their rack in-network,
 * one spine (job mod spines) the leaves.
 */
class LeafSpineTopology : public Topology
{
public:
    /// \param config leaves (or nodes), hosts-per-leaf, spines, oversubscription, links
    explicit LeafSpineTopology(const TopologyConfig& config);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;
    TopologyGrid GetGrid() const override;
    AggregationTree GetAggregationTree(const std::vector<uint32_t>& ranks,
                                       uint32_t job) const override;

private:
    TopologyConfig m_config;
    uint32_t m_leaves;
    uint32_t m_hostsPerLeaf;
    uint32_t m_spines;
    DataRate m_hostRate;
    Time m_hostDelay;
    DataRate m_fabricRate;
    Time m_fabricDelay;
};

/// Throw std::invalid_argument naming oversubscription unless it is a finite number above 0.
void CheckOversubscription(double oversubscription);
/// CheckOversubscription, and refuse it set beside fabric-link-rate (which sets the uplinks).
void CheckOversubscription(const TopologyConfig& c);

/**
 * \ingroup dlnet
 * The uplink rate of a leaf whose hosts send hostBits bit/s in all:
 * hostBits / (spines x oversubscription). Throws std::invalid_argument naming
 * oversubscription when it is not a finite number above 0, or when the rate
 * falls outside 1 bit/s .. the largest rate (`leaf` names the leaf in the
 * message, e.g. "leaf 3 ", or is empty).
 */
DataRate LeafUplinkRate(double hostBits,
                        uint32_t spines,
                        double oversubscription,
                        const std::string& leaf = "");

} // namespace ns3

#endif /* DLNET_LEAF_SPINE_TOPOLOGY_H */
