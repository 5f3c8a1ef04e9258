/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_SWITCH_H
#define FABRIC_SWITCH_H

#include "fabric-header.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class Node;
class Packet;
class SwitchProgram;

/**
 * \ingroup dlnet
 * \brief An output-queued packet switch with a chain of switch programs.
 *
 * Aggregated to a Node; its ports are FabricNetDevices on that node. The
 * forwarding table maps a destination address (an endpoint rank or a group
 * id) to one or more egress ports; with several, the port is chosen by a
 * hash of (source, destination, message id), so one message keeps one path
 * (ECMP). In lossless mode a packet holds its ingress buffer (the upstream's
 * credit) until it leaves the egress port. With LoadBalancing=PerPacket the
 * switch sprays packets round robin over the equal-cost ports instead.
 *
 * Ports may carry a dimension and a dateline mark (tori): a packet that
 * crosses a dateline moves to virtual channel 1 until it turns into another
 * dimension, which breaks the cyclic buffer dependency of a ring.
 */
class FabricSwitch : public Object
{
public:
    /// Signature of the Forward trace source.
    typedef void (*ForwardTracedCallback)(Ptr<const Packet> packet,
                                          uint32_t inPort,
                                          uint32_t outPort);

    /// How a packet picks among several equal-cost egress ports.
    enum LoadBalancing
    {
        PER_FLOW,   //!< ECMP: hash of (source, destination, message id); a message keeps one path
        PER_PACKET, //!< packet spraying: round robin per destination; packets may arrive out of
                    //!< order
    };

    static TypeId GetTypeId();
    FabricSwitch();
    ~FabricSwitch() override;

    /**
     * Add a port. Sets the device's IngressLatency to the switch latency.
     * \param device the device (already on the switch's node)
     * \param dimension the topology dimension of the port (-1: none)
     * \param dateline true if the port's link crosses a torus dateline
     * \return the port index
     */
    uint32_t AddPort(Ptr<FabricNetDevice> device, int dimension = -1, bool dateline = false);

    /// \return number of ports
    uint32_t GetNPorts() const;
    /// \param port a port index \return its device
    Ptr<FabricNetDevice> GetPort(uint32_t port) const;
    /// \param port a port index \return its topology dimension (-1: none)
    int GetPortDimension(uint32_t port) const;
    /// \param port a port index \return true if its link crosses a torus dateline
    bool GetPortDateline(uint32_t port) const;

    /**
     * Set the egress ports for a destination (replaces earlier ones).
     * \param dst destination address
     * \param ports egress port indices (several: ECMP; none: no route)
     */
    void SetRoute(uint32_t dst, const std::vector<uint32_t>& ports);
    /**
     * Set the egress ports for every destination from first to last, both
     * included (replaces earlier ones): SetRoute on each, in one entry. A
     * leaf's "every rank up" then its own ranks down is two calls and a
     * table of three ranges, however many ranks there are.
     * \param first first destination address
     * \param last last destination address (>= first)
     * \param ports egress port indices (several: ECMP; none: no route)
     */
    void SetRoutes(uint32_t first, uint32_t last, const std::vector<uint32_t>& ports);
    /**
     * The forwarding table's lookup, which forwarding itself uses.
     * \param dst destination \return its egress ports (empty if none)
     */
    const std::vector<uint32_t>& GetRoute(uint32_t dst) const;
    /// \return address ranges in the forwarding table (adjacent ones with equal ports merged)
    uint32_t GetNRouteRanges() const;
    /**
     * \return a number that changes whenever any switch's forwarding table
     * does (SetRoute, SetRoutes): a cache of routes is stale when it moved
     */
    static uint64_t GetRoutesGeneration();

    /// SelectPort: the packets of the message are sprayed over all of the route's ports.
    static constexpr uint32_t SPRAY = 0xffffffff;
    /**
     * The port the packets of a message take among a destination's equal-cost
     * ports, as forwarding picks it: the only one, the one the ECMP hash
     * picks (PerFlow), or SPRAY (PerPacket: round robin over all of them, so
     * an even split over many packets).
     * \param ports the destination's route (GetRoute(dst)), not empty
     * \param src source address \param dst destination address \param msgId message id
     * \return the port, or SPRAY
     */
    uint32_t SelectPort(const std::vector<uint32_t>& ports,
                        uint32_t src,
                        uint32_t dst,
                        uint32_t msgId) const;

    /// \param program appended to the program chain
    void AddProgram(Ptr<SwitchProgram> program);
    /// \param program taken out of the chain (no effect if absent)
    void RemoveProgram(Ptr<SwitchProgram> program);
    /// \return number of programs in the chain
    uint32_t GetNPrograms() const;
    /// \param i index \return the program
    Ptr<SwitchProgram> GetProgram(uint32_t i) const;

    /**
     * Send a packet a program made out of one port (no ingress buffer held).
     * \param port egress port
     * \param packet the payload, header not yet added
     * \param header the header to put on
     */
    void SendOnPort(uint32_t port, Ptr<Packet> packet, const FabricHeader& header);
    /**
     * Send a packet a program made through the forwarding table.
     * \param packet the payload, header not yet added
     * \param header the header to put on (its destination picks the route)
     */
    void SendRouted(Ptr<Packet> packet, const FabricHeader& header);

    /// \return packets forwarded
    uint64_t GetForwardedPackets() const;
    /// \return packets dropped for want of a route
    uint64_t GetNoRouteDrops() const;

    /**
     * The PerFlow ECMP hash: a message takes equal-cost port hash % ports.
     * Public so that estimators follow the paths the switches choose.
     * \param src source address \param dst destination address
     * \param msgId message id (per source) \param seed the EcmpSeed attribute
     * \return the hash
     */
    static uint64_t FlowHash(uint32_t src, uint32_t dst, uint32_t msgId, uint32_t seed);

protected:
    void DoDispose() override;

private:
    /// One switch port.
    struct Port
    {
        Ptr<FabricNetDevice> device; //!< the port's device
        int dimension;               //!< topology dimension, -1 none
        bool dateline;               //!< link crosses a dateline
    };

    static constexpr uint32_t NO_INGRESS = 0xffffffff; //!< tag of packets no port holds

    void ReceiveFromPort(uint32_t inPort, Ptr<Packet> packet);
    // ingress: (port << 4) | (class << 1) | vc of the queue the packet holds, or NO_INGRESS
    void Forward(Ptr<Packet> packet, FabricHeader& header, uint32_t ingress);
    void Transmit(uint32_t outPort, Ptr<Packet> packet, FabricHeader& header, uint32_t ingress);
    void ReleaseIngress(uint32_t ingress, uint32_t size);
    /// Destinations first..last (both included) and the index of their port set.
    struct RouteRange
    {
        uint32_t first;
        uint32_t last;
        uint32_t set;
    };

    uint32_t PickPort(const std::vector<uint32_t>& ports, const FabricHeader& header);
    void PacketLeft(
        Ptr<FabricNetDevice> device, uint32_t tag, uint8_t tc, uint8_t vc, uint32_t size);

    Time m_latency;
    uint32_t m_ecmpSeed;
    std::vector<Port> m_ports;
    LoadBalancing m_loadBalancing;
    std::vector<RouteRange> m_routes;                         //!< sorted, disjoint
    std::map<std::vector<uint32_t>, uint32_t> m_portSetIndex; //!< distinct routes: their index
    std::vector<const std::vector<uint32_t>*> m_portSets;     //!< m_portSetIndex's keys, by index
    std::unordered_map<uint32_t, uint32_t> m_sprayNext; //!< PerPacket: next port, by destination
    std::vector<Ptr<SwitchProgram>> m_programs;
    uint64_t m_forwarded{0};
    uint64_t m_noRoute{0};

    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_forwardTrace;
    TracedCallback<Ptr<const Packet>> m_noRouteTrace;
};

} // namespace ns3

#endif /* FABRIC_SWITCH_H */
