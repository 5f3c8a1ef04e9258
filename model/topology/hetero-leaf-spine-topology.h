/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_HETERO_LEAF_SPINE_TOPOLOGY_H
#define DLNET_HETERO_LEAF_SPINE_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup dlnet One group of hosts of a heterogeneous leaf-spine: how many, at what rate.
struct HostGroup
{
    uint32_t count{0}; //!< hosts, >= 1
    DataRate rate;     //!< each host's link rate
};

/**
 * Parse a host-groups option: comma-separated COUNTxRATE items
 * ("4x25Gbps,3x100Gbps"), at least one, each count >= 1, at most 65536
 * hosts in all; std::invalid_argument naming `field`, the item and what is allowed.
 * \return the groups in order
 */
std::vector<HostGroup> ParseHostGroups(const std::string& field, const std::string& text);

/**
 * \ingroup dlnet
 * \brief A leaf-spine whose hosts come in groups of their own link rate
 * (CPU servers on 25 Gbit/s beside GPU servers on 100 Gbit/s): the cluster
 * a heterogeneous plan runs on.
 *
 * Ranks follow the groups in order (`host-groups`); each group starts on a
 * new leaf and fills leaves of at most `hosts-per-leaf` hosts, so no leaf
 * mixes rates. Switches are numbered spines first, then leaves; a leaf's
 * ports are its uplinks (one per spine) then its hosts. A leaf's uplink
 * rate is fabric-link-rate, or the sum of its host rates / (spines x
 * oversubscription), so that a leaf is non-blocking at oversubscription 1
 * whatever its group's rate; the sum counts hosts-per-leaf hosts of the
 * group's rate, so that a group's last leaf, partly filled, has the uplinks
 * of its full ones (one host alone on a leaf of two spines would otherwise
 * find each uplink at half its own rate, and a message takes one uplink).
 * link-rate is refused (the groups give the rates).
 *
 * GetRankRate is the slowest host's rate: the rate below which no rank
 * sends, what a predictor that assumes one rank rate may count on.
 * No grid (ranks are not a uniform two-level shape) and no aggregation
 * tree: the in-network backends assume one host rate, so they are refused.
 */
class HeteroLeafSpineTopology : public Topology
{
public:
    /// \param config host-groups, hosts-per-leaf, spines, oversubscription, fabric links
    explicit HeteroLeafSpineTopology(const TopologyConfig& config);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;

    /// \return the link rate of a rank's host, bit/s
    double GetHostRate(uint32_t rank) const;
    /// \return the leaf a rank is under
    uint32_t GetLeafOf(uint32_t rank) const;
    /// \return the rate of each of a leaf's uplinks, bit/s
    double GetUplinkRate(uint32_t leaf) const;
    /// \return the number of leaves
    uint32_t GetLeaves() const;

private:
    TopologyConfig m_config;
    uint32_t m_spines;
    std::vector<DataRate> m_hostRate;   //!< per rank
    double m_slowestRate{0};            //!< bit/s: the slowest host's (asked per rank pair)
    std::vector<uint32_t> m_leafOf;     //!< per rank
    std::vector<uint32_t> m_firstRank;  //!< per leaf, and one past the last rank at the end
    std::vector<DataRate> m_uplinkRate; //!< per leaf
    Time m_hostDelay;
    Time m_fabricDelay;
};

} // namespace ns3

#endif /* DLNET_HETERO_LEAF_SPINE_TOPOLOGY_H */
