/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TOPOLOGY_HELPER_H
#define DLNET_TOPOLOGY_HELPER_H

#include "cluster.h"
#include "fabric-helper.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// The largest packet the fabric takes, header included (TopologyConfig::mtu): 1 MiB.
constexpr uint32_t MAX_MTU = 1u << 20;

/**
 * \ingroup dlnet
 * \brief Plain description of a topology and of its links.
 *
 * Rates and times are ns-3 strings ("100Gbps", "500ns"); BuildCluster
 * validates every field and throws std::invalid_argument naming it.
 */
struct TopologyConfig
{
    std::string kind{"star"}; //!< a registered topology kind (TopologyRegistry::Names)

    uint32_t nodes{0};        //!< 0, or the rank count: sets hosts, leaves (hostsPerLeaf kept) or a
                              //!< near-square rows x cols
    uint32_t hosts{8};        //!< star: hosts on the switch
    uint32_t leaves{2};       //!< leaf-spine: leaf switches
    uint32_t hostsPerLeaf{4}; //!< leaf-spine: hosts under each leaf
    uint32_t spines{2};       //!< leaf-spine: spine switches
    double oversubscription{
        1}; //!< leaf-spine: host bandwidth / uplink bandwidth per leaf; sets the uplink rate
    uint32_t rows{4};                  //!< mesh/torus: rows
    uint32_t cols{4};                  //!< mesh/torus: columns
    uint32_t k{4};                     //!< fat-tree: switch radix (even): k pods, k^3/4 hosts
    uint32_t routersPerGroup{4};       //!< dragonfly: routers per group (a)
    uint32_t hostsPerRouter{2};        //!< dragonfly: hosts per router (p)
    uint32_t globalLinksPerRouter{2};  //!< dragonfly: global links per router (h)
    uint32_t groups{0};                //!< dragonfly: groups (g); 0: a x h + 1
    std::string globalLinkRate{""};    //!< dragonfly: global links; empty: fabric-link-rate
    std::string globalLinkDelay{""};   //!< dragonfly: global links; empty: fabric-link-delay
    uint32_t servers{4};               //!< rail-optimised/gpu-leaf-spine: GPU servers
    uint32_t gpusPerServer{8};         //!< rail-optimised/gpu-leaf-spine: GPUs (and NICs) each
    std::string nvlinkRate{"450GBps"}; //!< GPU-NVSwitch links, per direction per GPU
    std::string nicRate{"400Gbps"};    //!< GPU NIC-leaf links
    uint32_t serversPerLeaf{2};        //!< gpu-leaf-spine: servers whose NICs share a leaf
    std::string hostGroups{""}; //!< hetero-leaf-spine: COUNTxRATE,... hosts of each rate, in order

    std::string hostLinkRate{"100Gbps"}; //!< host-switch links (star, leaf-spine)
    std::string hostLinkDelay{"500ns"};  //!< host-switch links
    std::string fabricLinkRate{""};      //!< switch-switch links; empty: leaf-spine derives it from
                                         //!< oversubscription, mesh/torus use hostLinkRate
    std::string fabricLinkDelay{""};     //!< switch-switch links; empty: hostLinkDelay
    std::string localLinkRate{""};       //!< mesh/torus: NPU-router link; empty: ports x link rate
    std::string switchLatency{"0ns"};    //!< every switch

    uint32_t mtu{4096};                  //!< largest packet, header included
    uint32_t trafficClasses{4};          //!< 1..8
    std::string flowControl{"lossless"}; //!< lossless or lossy
    double lossRate{0};                  //!< lossy: packet error rate on every receiver
    uint64_t bufferBytes{1 << 20};       //!< lossy: drop-tail buffer per output queue
    uint64_t rxBufferBytes{
        0};              //!< lossless: credits per queue; 0 = from the bandwidth-delay product
    uint32_t window{32}; //!< lossy: unacknowledged packets per message
    std::string retransmitTimeout{"1ms"}; //!< lossy: first retransmission timeout
    std::string loadBalancing{"flow"};    //!< flow (ECMP hash per message) or packet (spraying)
    uint32_t ecmpSeed{0};                 //!< ECMP hash perturbation
    std::string pcapPrefix{""};           //!< non-empty: write PCAP files with this prefix
    std::string network{"packet"};        //!< packet (the fabric) or flow (FlowNetwork)

    /// Options the user set (option names): one that does not apply to the kind is refused.
    std::set<std::string> given;

    /// Throw std::invalid_argument naming the first bad field (MakeTopology does the work).
    void Validate() const;
    /// Validate the settings every topology shares (links, devices, switches, endpoints).
    void ValidateFabric() const;
    /// \return number of ranks the topology has (validates)
    uint32_t GetNRanks() const;
    /// \return true for an option every topology takes (rates, delays, devices, ...)
    static bool IsFabricOption(const std::string& option);
    /// \return the options IsFabricOption names
    static const std::set<std::string>& FabricOptions();

    /**
     * Refuse a size option that nodes replaces: a kind sized by nodes ignores
     * it (a value other than the default is refused; a result's config, which
     * repeats the default, still runs).
     * \param field the option (hosts, leaves, rows, cols, k, groups, servers)
     * \param value its value here
     * \param fallback its default
     * \throw std::invalid_argument naming field and nodes
     */
    void CheckSizeBesideNodes(const std::string& field, uint64_t value, uint64_t fallback) const;
};

/**
 * Build the topology: nodes, links, switches, endpoints, routing.
 * The same as MakeTopology(config)->Build().
 * \param config the topology (validated first)
 * \return the cluster
 */
Cluster BuildCluster(const TopologyConfig& config);

/**
 * The FabricHelper BuildCluster builds with: device (Mtu, TrafficClasses,
 * FlowControl, buffers), switch (Latency, ECMP) and endpoint (Window,
 * RetransmitTimeout) attributes from the config, for links added to a built
 * cluster (the wafer's I/O controllers). Call FabricNetDevice::Setup on both
 * ends of such a link once its switch port is added.
 * \param config the topology (not validated here)
 * \return the helper
 */
FabricHelper MakeFabricHelper(const TopologyConfig& config);

} // namespace ns3

#endif /* DLNET_TOPOLOGY_HELPER_H */
