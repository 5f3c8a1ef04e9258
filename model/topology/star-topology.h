/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_STAR_TOPOLOGY_H
#define DLNET_STAR_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Hosts on one switch; host r on switch port r. The switch
 * aggregates in-network jobs.
 */
class StarTopology : public Topology
{
public:
    /// \param config hosts (or nodes) and the link settings (validated here)
    explicit StarTopology(const TopologyConfig& config);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;
    AggregationTree GetAggregationTree(const std::vector<uint32_t>& ranks,
                                       uint32_t job) const override;

private:
    TopologyConfig m_config;
    uint32_t m_hosts;
    DataRate m_rate;
    Time m_delay;
};

} // namespace ns3

#endif /* DLNET_STAR_TOPOLOGY_H */
