/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_CLUSTER_H
#define DLNET_CLUSTER_H

#include "ns3/fabric-endpoint.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/flow-network.h"
#include "ns3/node-container.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A built topology: endpoints by rank, switches, links, routing installed.
 */
struct Cluster
{
    /// One full-duplex link.
    struct Link
    {
        std::string tier;       //!< "host", "fabric" (leaf-spine uplink, mesh link), "local" or
                                //!< "io" (a wafer's I/O controller)
        std::string from;       //!< name of the node of device a
        std::string to;         //!< name of the node of device b
        Ptr<FabricNetDevice> a; //!< one end
        Ptr<FabricNetDevice> b; //!< the other end
    };

    std::string kind;                           //!< star, leaf-spine, mesh or torus
    NodeContainer nodes;                        //!< every node
    std::vector<Ptr<FabricEndpoint>> endpoints; //!< by rank
    std::vector<Ptr<FabricSwitch>> switches;    //!< every switch
    std::vector<std::string> switchNames;       //!< by switch index
    std::vector<Link> links;                    //!< every link
    Ptr<FabricEndpointDirectory> directory;     //!< endpoints by address
    Ptr<FlowNetwork> flow; //!< network=flow: carries the endpoints' messages; null: packets
    uint32_t rows{0};      //!< mesh/torus: rows (Y)
    uint32_t cols{0};      //!< mesh/torus: columns (X)

    /// \return the network model that carries the endpoints' messages: "flow" or "packet"
    std::string GetNetwork() const
    {
        return flow ? "flow" : "packet";
    }

    /// \return number of ranks
    uint32_t GetNRanks() const
    {
        return endpoints.size();
    }

    /**
     * \param rank a rank
     * \param field the name of the setting the rank came from, for the error
     * \return its endpoint; throws std::invalid_argument when out of range
     */
    Ptr<FabricEndpoint> GetEndpoint(uint32_t rank, const std::string& field = "rank") const;
};

} // namespace ns3

#endif /* DLNET_CLUSTER_H */
