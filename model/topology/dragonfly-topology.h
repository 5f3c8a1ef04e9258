/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_DRAGONFLY_TOPOLOGY_H
#define DLNET_DRAGONFLY_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Dragonfly (Kim et al.): g groups of a routers, the routers of a
 * group fully connected by group links, p hosts per router, h global links
 * per router (rank = (group * a + router) * p + host).
 *
 * Global links, the consecutive arrangement: a group's global ports are
 * numbered j = router * h + i (i-th global link of the router); with
 * m = floor(a h / (g - 1)) links between every pair of groups, port
 * j < m (g - 1) of group G, with t = j div (g - 1) and d = j mod (g - 1) + 1,
 * leads to group (G + d) mod g, where it is port t (g - 1) + g - d - 1 (ports
 * from m (g - 1) on stay unused). With g = a h + 1 (the default) m = 1 and
 * this is the palm-tree arrangement: every port used, one link per group
 * pair.
 *
 * Minimal routing: to a host in another group, the global link t = (the
 * destination's router index) mod m toward that group; a group link to the
 * router owning it first when the source router does not, a group link to
 * the destination router after it when the link does not end there. At most
 * one group link, one global link, one group link. Switches are numbered
 * group by group, router by router. Host links run at link-rate, group links
 * at fabric-link-rate (default link-rate), global links at global-link-rate
 * (default fabric-link-rate, else link-rate), delays likewise.
 */
class DragonflyTopology : public Topology
{
public:
    /// \param config routers-per-group, hosts-per-router, global-links-per-router, groups (or
    /// nodes)
    explicit DragonflyTopology(const TopologyConfig& config);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;
    TopologyGrid GetGrid() const override;

    /// Where a global port of a group leads.
    struct GlobalPort
    {
        bool used{false};  //!< false: a spare port (beyond m (g - 1))
        uint32_t group{0}; //!< the group it leads to
        uint32_t port{0};  //!< the port (router * h + i) it ends on there
    };

    /// \param group a group \param port its global port j \return where it leads
    GlobalPort GetGlobalPort(uint32_t group, uint32_t port) const;
    /// \return global links between every pair of groups (m)
    uint32_t GetLinksPerGroupPair() const;

private:
    /// \return the global port of the source group that minimal routing takes to rank dst
    uint32_t MinimalPort(uint32_t srcGroup, uint32_t dst) const;

    TopologyConfig m_config;
    uint32_t m_a; //!< routers per group
    uint32_t m_p; //!< hosts per router
    uint32_t m_h; //!< global links per router
    uint32_t m_g; //!< groups
    DataRate m_hostRate;
    Time m_hostDelay;
    DataRate m_groupRate;
    Time m_groupDelay;
    DataRate m_globalRate;
    Time m_globalDelay;
};

} // namespace ns3

#endif /* DLNET_DRAGONFLY_TOPOLOGY_H */
