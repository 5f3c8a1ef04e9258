/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_GPU_SERVER_TOPOLOGY_H
#define DLNET_GPU_SERVER_TOPOLOGY_H

#include "topology-helper.h"
#include "topology.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief GPU servers (DGX-like) on a leaf-spine network: `servers` servers
 * of `gpusPerServer` GPUs, rank = server * G + gpu.
 *
 * Each GPU is an endpoint whose node carries a router (the endpoint reaches
 * it over a "local" link of nvlink-rate + nic-rate, zero delay, as a mesh's
 * NPU does). The router has one port to the server's NVSwitch (an "nvlink"
 * link at nvlink-rate, zero delay: the NVSwitch's own latency is the switch
 * latency) and one to its NIC's leaf (a "nic" link at nic-rate,
 * link-delay). It routes same-server destinations to the NVSwitch and the
 * others to the NIC.
 *
 * rail-optimised: GPU i of every server is on leaf (rail) i, so the rails
 * are G leaves of `servers` NICs each. gpu-leaf-spine: the G NICs of a
 * server are on one leaf, `serversPerLeaf` servers per leaf (not rail
 * aligned). Every leaf links to each of `spines` spines ("fabric" links at
 * fabric-link-rate, default NICs per leaf x nic-rate / spines: non-blocking;
 * fabric-link-delay, default link-delay); leaves spread other destinations
 * over the spines (ECMP), spines route down. Switches are numbered: GPU
 * routers by rank, NVSwitches by server, leaves, spines.
 */
class GpuServerTopology : public Topology
{
public:
    /**
     * \param config servers (or nodes), gpus-per-server, nvlink-rate, nic-rate, spines and
     *        for gpu-leaf-spine servers-per-leaf
     * \param rail true: rail-optimised, false: gpu-leaf-spine
     */
    GpuServerTopology(const TopologyConfig& config, bool rail);

    std::string GetKind() const override;
    const TopologyConfig& GetConfig() const override;
    uint32_t GetNRanks() const override;
    Cluster Build() const override;
    TopologyPath GetPath(uint32_t a, uint32_t b) const override;
    /// \return nic-rate: a GPU's only way out of its server (see the .cc)
    double GetRankRate() const override;
    bool HasEqualCostPaths() const override;
    TopologyGrid GetGrid() const override;
    /// \return the server of a GPU: rank / gpus-per-server
    uint32_t GetHostOf(uint32_t rank) const override;

    /// \param rank a rank \return the leaf its NIC is on
    uint32_t LeafOf(uint32_t rank) const;
    /// \return the number of leaves
    uint32_t GetNLeaves() const;

private:
    TopologyConfig m_config;
    bool m_rail;
    uint32_t m_servers;
    uint32_t m_gpus;
    uint32_t m_serversPerLeaf;
    uint32_t m_spines;
    DataRate m_nvlinkRate;
    DataRate m_nicRate;
    Time m_nicDelay;
    DataRate m_fabricRate;
    Time m_fabricDelay;
    DataRate m_localRate;
};

} // namespace ns3

#endif /* DLNET_GPU_SERVER_TOPOLOGY_H */
