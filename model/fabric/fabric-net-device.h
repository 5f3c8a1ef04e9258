/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_NET_DEVICE_H
#define FABRIC_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <deque>
#include <vector>

namespace ns3
{

class FabricChannel;
class ErrorModel;
class Packet;

/**
 * \ingroup dlnet
 * \brief One end of a fabric link: output queues, a serializer and a receiver.
 *
 * Each traffic class has two output queues (virtual channels 0 and 1; VC 1
 * exists for dateline deadlock avoidance on tori). Classes are served by
 * strict priority, class 0 first; within a class VC 1 goes first.
 *
 * Two link modes:
 * - Lossless (default): credit-based link-level flow control. The device
 *   sends a packet only when the peer has advertised buffer space for its
 *   queue; the peer returns the credit when the packet has left its node.
 *   Nothing is ever dropped.
 * - Lossy: each output queue is a finite drop-tail buffer and the receiver
 *   applies an optional ns-3 ErrorModel.
 */
class FabricNetDevice : public NetDevice
{
public:
    /// Link-level flow control mode.
    enum FlowControl
    {
        LOSSLESS, //!< credit-based, never drops
        LOSSY,    //!< drop-tail buffers and an optional error model
    };

    /// Why a packet was dropped (Drop trace).
    enum DropReason
    {
        DROP_QUEUE_FULL, //!< the output buffer was full (lossy mode)
        DROP_ERROR,      //!< the receive error model corrupted it (lossy mode)
    };

    /// Called when a packet leaves an output queue for the wire; carries the
    /// owner's tag given at Enqueue (a switch returns the ingress credit).
    typedef Callback<void, Ptr<FabricNetDevice>, uint32_t, uint8_t, uint8_t, uint32_t>
        DequeueCallback;
    /// Called on reception with the packet (header still on).
    typedef Callback<void, Ptr<FabricNetDevice>, Ptr<Packet>> FabricRxCallback;
    /// Signature of the Drop trace source.
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, DropReason reason);

    static TypeId GetTypeId();
    FabricNetDevice();
    ~FabricNetDevice() override;

    /**
     * Connect the device to a channel.
     * \param channel the channel
     */
    void Attach(Ptr<FabricChannel> channel);

    /**
     * Finish the device once both ends are attached: check the attributes
     * (throws std::invalid_argument naming the attribute) and size the
     * queues and the credits. Called by the helpers; idempotent.
     */
    void Setup();

    /**
     * Queue a packet for transmission.
     * \param packet the packet, FabricHeader on
     * \param tc traffic class
     * \param vc virtual channel (0 or 1)
     * \param tag the owner's tag, handed back on dequeue
     * \return false if the packet was dropped (lossy mode, buffer full)
     */
    bool Enqueue(Ptr<Packet> packet, uint8_t tc, uint8_t vc, uint32_t tag);

    /**
     * Tell the peer that buffer space held by a packet this device received
     * is free again (lossless mode; a no-op in lossy mode).
     * \param tc traffic class of that packet
     * \param vc virtual channel of that packet
     * \param bytes its size
     */
    void ReleaseRxBuffer(uint8_t tc, uint8_t vc, uint32_t bytes);

    /// Called by the channel: a packet has fully arrived.
    void Receive(Ptr<Packet> packet);
    /// Called by the channel: the peer freed buffer space.
    void AddCredit(uint32_t queue, uint32_t bytes);

    /// \param cb the callback for received packets
    void SetFabricReceiveCallback(FabricRxCallback cb);
    /// \param cb the callback for packets leaving an output queue
    void SetDequeueCallback(DequeueCallback cb);

    /// \return the data rate
    DataRate GetDataRate() const;
    /// \return the maximum packet size, header included, in bytes
    uint32_t GetMaxPacketSize() const;
    /// \return number of traffic classes
    uint8_t GetTrafficClasses() const;
    /// \return the link mode
    FlowControl GetFlowControl() const;
    /// \return the processing latency applied to packets this device receives
    Time GetIngressLatency() const;
    /// \return the channel as a FabricChannel
    Ptr<FabricChannel> GetFabricChannel() const;
    /// \return the device at the other end of the wire (null if unattached)
    Ptr<FabricNetDevice> GetPeer() const;

    /// \return bytes transmitted since the start
    uint64_t GetTxBytes() const;
    /// \return packets transmitted since the start
    uint64_t GetTxPackets() const;
    /// \return bytes queued for transmission now
    uint64_t GetQueuedBytes() const;
    /// \return packets dropped by this device (queue full or error model)
    uint64_t GetDrops() const;
    /// \return packets dropped because an output queue was full
    uint64_t GetQueueDrops() const;
    /// \return received packets the error model corrupted
    uint64_t GetRxErrorDrops() const;
    /// \return largest number of bytes ever queued
    uint64_t GetMaxQueuedBytes() const;
    /// \return largest number of packets ever queued
    uint64_t GetMaxQueuedPackets() const;
    /// \return total time spent serializing packets since the start
    Time GetBusyTime() const;
    /// \return times the device sat idle with packets queued, every one of them
    /// waiting for credit from the peer (lossless mode)
    uint64_t GetCreditStalls() const;
    /// \return total time spent in such credit stalls (up to now if one is open)
    Time GetCreditStallTime() const;
    /// \return true while a packet is being serialized
    bool IsBusy() const;

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

protected:
    void DoDispose() override;
    void DoInitialize() override;

private:
    /// One queued packet.
    struct Item
    {
        Ptr<Packet> packet; //!< the packet
        uint32_t size;      //!< its size on the wire
        uint32_t tag;       //!< the owner's tag
    };

    /// \return queue index of a traffic class and virtual channel
    uint32_t QueueIndex(uint8_t tc, uint8_t vc) const
    {
        return 2 * tc + vc;
    }

    /**
     * \param senderRate rate of the device that sends into this one
     * \param senderMaxPacket its largest packet
     * \return the receive buffer per queue this device offers as credits
     */
    uint32_t AdvertisedRxBuffer(DataRate senderRate, uint32_t senderMaxPacket) const;
    void TryTransmit();
    void TransmitComplete();
    void Drop(Ptr<const Packet> packet, DropReason reason);

    Ptr<Node> m_node;
    Ptr<FabricChannel> m_channel;
    Mac48Address m_address;
    uint32_t m_ifIndex{0};

    DataRate m_rate;
    uint32_t m_maxPacketSize;
    uint8_t m_trafficClasses;
    FlowControl m_flowControl;
    uint32_t
        m_rxBufferSize; //!< per queue; 0 selects a size from the link's bandwidth-delay product
    uint32_t m_txBufferSize; //!< per queue, lossy mode
    Time m_ingressLatency;
    Ptr<ErrorModel> m_receiveErrorModel;

    std::vector<std::deque<Item>> m_queues;
    std::vector<uint64_t> m_queueBytes;
    std::vector<int64_t> m_credits; //!< bytes the peer can still take, per queue
    bool m_busy{false};
    uint32_t m_lastTxSize{0}; //!< size and rate whose serialization time is m_lastTxTime
    uint64_t m_lastTxRate{0};
    Time m_lastTxTime;
    bool m_ready{false}; //!< Setup() done

    uint64_t m_txBytes{0};
    uint64_t m_txPackets{0};
    uint64_t m_queueDrops{0};
    uint64_t m_rxErrorDrops{0};
    uint64_t m_maxQueuedBytes{0};
    uint64_t m_queuedPackets{0};
    uint64_t m_maxQueuedPackets{0};
    Time m_busyTime; //!< sum of serialization times
    uint64_t m_creditStalls{0};
    Time m_creditStallTime;  //!< closed stalls
    Time m_creditStallStart; //!< start of the open stall
    bool m_creditStalled{false};
    TracedValue<uint64_t> m_queuedBytes{0};

    FabricRxCallback m_fabricRx;
    DequeueCallback m_dequeue;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;

    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>, DropReason> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;
};

} // namespace ns3

#endif /* FABRIC_NET_DEVICE_H */
