/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_CHANNEL_H
#define FABRIC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

namespace ns3
{

class FabricNetDevice;
class Packet;

/**
 * \ingroup dlnet
 * \brief A full-duplex point-to-point wire between two FabricNetDevices.
 *
 * The wire has a propagation delay; serialization belongs to the sending
 * device. Link-level credits travel back over the same wire, out of band
 * (they take the propagation delay and no bandwidth).
 */
class FabricChannel : public Channel
{
public:
    static TypeId GetTypeId();
    FabricChannel();

    /**
     * Attach a device; a channel takes exactly two.
     * \param device the device to attach
     */
    void Attach(Ptr<FabricNetDevice> device);

    /**
     * Start sending a packet from one end.
     * \param src the sending device
     * \param packet the packet
     * \param txTime its serialization time at the sender
     */
    void TransmitStart(const FabricNetDevice* src, Ptr<Packet> packet, Time txTime) const;

    /**
     * Return link credits to the other end.
     * \param src the device that frees buffer space
     * \param queue the queue index (traffic class and virtual channel) the credits belong to
     * \param bytes the bytes freed
     */
    void ReturnCredit(const FabricNetDevice* src, uint32_t queue, uint32_t bytes) const;

    /// \return the propagation delay
    Time GetDelay() const;

    /**
     * \param device one end
     * \return the other end
     */
    Ptr<FabricNetDevice> GetPeer(Ptr<const FabricNetDevice> device) const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

private:
    Time m_delay;                        //!< propagation delay
    Ptr<FabricNetDevice> m_dev[2];       //!< the two ends
    std::size_t m_nDevices{0};           //!< ends attached so far
    mutable uint32_t m_context[2]{0, 0}; //!< node id of each end (event context)
    mutable Time m_arrival[2];           //!< delay plus ingress latency of each end
    mutable bool m_cached{false};        //!< the two above are set

    /// Look up the ends' node ids and arrival delays.
    void Cache() const;
};

} // namespace ns3

#endif /* FABRIC_CHANNEL_H */
