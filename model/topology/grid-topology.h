/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_GRID_TOPOLOGY_H
#define DLNET_GRID_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief 2D mesh or torus: one NPU per grid point (rank = y * cols + x),
 * each with its own router reached over a local link; neighbouring routers
 * linked (a torus wraps rows and columns of 3 or more, with a dateline);
 * dimension-order routing, X first (on a torus the shorter way, + on a tie).
 */
class GridTopology : public Topology
{
public:
    /**
     * \param config rows and cols (or nodes: the most square rows x cols,
     *        cols >= rows), fabric-link-rate (default link-rate), local-link-rate
     * \param torus wrap the rows and columns
     */
    GridTopology(const TopologyConfig& config, bool torus);

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
    bool m_torus;
    uint32_t m_rows;
    uint32_t m_cols;
    DataRate m_fabricRate;
    Time m_fabricDelay;
    DataRate m_localRate;
};

} // namespace ns3

#endif /* DLNET_GRID_TOPOLOGY_H */
