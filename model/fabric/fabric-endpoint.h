/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_ENDPOINT_H
#define FABRIC_ENDPOINT_H

#include "fabric-header.h"
#include "fabric-message.h"
#include "message-transport.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>
#include <set>
#include <vector>

namespace ns3
{

class FabricEndpoint;
class FabricHeader;
class FabricNetDevice;
class Packet;

/**
 * \ingroup dlnet
 * \brief Endpoints of one cluster by address, so that a destination can tell
 * a source its message has arrived (a zero-cost notification: a message is
 * complete when its last byte reaches the destination, as in ASTRA-sim's
 * network back-ends).
 */
class FabricEndpointDirectory : public SimpleRefCount<FabricEndpointDirectory>
{
public:
    /// \param address an address \param endpoint its endpoint (not owned)
    void Register(uint32_t address, FabricEndpoint* endpoint);
    /// \param address an address \return its endpoint, or null
    FabricEndpoint* Lookup(uint32_t address) const;
    /// \param address forget this address
    void Unregister(uint32_t address);

private:
    std::vector<FabricEndpoint*> m_endpoints;
};

/**
 * \ingroup dlnet
 * \brief A host or NPU's message layer on the fabric.
 *
 * Cuts messages into packets of at most the device's Mtu. Within a traffic
 * class, messages to one destination on one connection go in the order they
 * were sent (a queue pair per peer and connection; Send's connection, 0 unless
 * given) and queue pairs take turns packet by packet (as a NIC serves its
 * queue pairs); reassembles at the destination and reports each
 * message once, when all of it has arrived. In timing mode packets carry
 * virtual bytes (nothing is allocated); in functional mode they carry the
 * caller's bytes. On a lossy link the endpoint acknowledges every data
 * packet and the source retransmits what is not acknowledged within
 * RetransmitTimeout (doubling on each expiry), keeping at most Window
 * packets of a message unacknowledged; the destination drops duplicates, so
 * every message arrives intact exactly once.
 */
class FabricEndpoint : public Object
{
public:
    /// Called with the record of a delivered message.
    typedef Callback<void, const FabricMessage&> MessageCallback;
    /// Signature of the MessageDelivered trace source.
    typedef void (*MessageTracedCallback)(const FabricMessage& message);
    /// Signature of the Retransmit trace source.
    typedef void (*RetransmitTracedCallback)(uint32_t dst, uint32_t msgId, uint32_t seq);

    static TypeId GetTypeId();
    FabricEndpoint();
    ~FabricEndpoint() override;

    /**
     * \param address this endpoint's address (its rank)
     * \param device the device that connects it to the fabric
     * \param directory the cluster's endpoints, for delivery notifications
     */
    void Setup(uint32_t address,
               Ptr<FabricNetDevice> device,
               Ptr<FabricEndpointDirectory> directory);

    /// \return this endpoint's address
    uint32_t GetAddress() const;
    /// \return the device
    Ptr<FabricNetDevice> GetDevice() const;

    /**
     * Send a message.
     * \param dst destination address (rank or group id)
     * \param bytes payload bytes (at least 1)
     * \param tc traffic class
     * \param onDelivered called once when the whole message has arrived
     * \param data the bytes to carry (functional mode); null: timing mode
     * \param vc virtual channel (0 or 1): its own credits and queues in every
     *        device, so that a backlog on one cannot hold the other's credits
     * \param connection the queue pair to dst it goes on: messages of one
     *        connection go in order; the connections to one destination take
     *        turns with each other as different destinations do (NCCL opens
     *        one per channel, so its two trees never queue behind each other)
     * \return the message id
     */
    uint32_t Send(uint32_t dst,
                  uint64_t bytes,
                  uint8_t tc,
                  MessageCallback onDelivered = MessageCallback(),
                  FabricPayload data = nullptr,
                  uint8_t vc = 0,
                  uint32_t connection = 0);

    /// \param cb called for every message delivered to this endpoint
    void SetReceiveCallback(MessageCallback cb);

    /// Called with a packet of another protocol (header removed) and its header.
    typedef Callback<void, Ptr<Packet>, const FabricHeader&> RawCallback;

    /**
     * Send one packet of a protocol of its own (in-network aggregation),
     * outside the message layer: no segmentation, no acknowledgement; the
     * protocol keeps its own window. It joins the device's queue at once.
     * \param packet the payload, with the protocol's headers
     * \param dst destination address (a rank or a group id)
     * \param protocol a protocol number above FabricHeader::ACK
     * \param tc traffic class
     * \param payload the packet carries real bytes (functional mode)
     */
    void SendRaw(
        Ptr<Packet> packet, uint32_t dst, uint8_t protocol, uint8_t tc, bool payload = false);

    /// \param protocol its number \param handler receives its packets (null: remove)
    void SetProtocolHandler(uint8_t protocol, RawCallback handler);

    /// \return messages delivered to this endpoint
    uint64_t GetDeliveredMessages() const;
    /// \return data packets received more than once (and dropped)
    uint64_t GetDuplicatePackets() const;
    /// \return data packets sent again after a timeout
    uint64_t GetRetransmittedPackets() const;
    /// \return messages sent and not yet fully acknowledged or delivered
    uint32_t GetPendingMessages() const;

    /// Called through the directory by a destination; fills in the send time.
    void NotifyDelivered(FabricMessage& message);

    /**
     * Hand every later message to a transport instead of the packet fabric
     * (the flow-level network). Raw packets (SendRaw) have no meaning there
     * and are refused.
     * \param transport the transport, or null for packets again
     */
    void SetTransport(Ptr<MessageTransport> transport);
    /// \return the transport, or null when messages go as packets
    Ptr<MessageTransport> GetTransport() const;

    /**
     * Called by the transport when a message it carried has arrived here:
     * counts it, fires MessageDelivered and the receive callback, as a
     * message reassembled from packets does.
     * \param message its record (delivered time set)
     */
    void DeliverCarried(const FabricMessage& message);
    /// Called by the transport on the source when one of its messages has arrived.
    void CarriedDone();

protected:
    void DoDispose() override;

private:
    /// Per-packet state at the source (lossy mode).
    enum PacketState : uint8_t
    {
        UNSENT,
        IN_FLIGHT,
        ACKED,
        QUEUED_AGAIN,
    };

    /// A message being sent.
    struct OutMessage
    {
        uint32_t dst;
        uint32_t connection{0}; //!< queue pair to dst (Send's connection)
        uint64_t bytes;
        uint32_t total;      //!< packets
        uint32_t segment;    //!< payload bytes per full packet
        uint32_t nextSeq{0}; //!< next never-sent packet
        uint8_t tc;
        uint8_t vc{0};
        FabricPayload data;
        MessageCallback onDelivered;
        Time sent;
        bool delivered{false};
        bool scheduled{false}; //!< in its class's round-robin list
        // lossy mode
        std::vector<PacketState> state;
        std::deque<uint32_t> again; //!< packets to send again
        uint32_t inFlight{0};
        uint32_t acked{0};
        uint32_t timeouts{0};
        EventId timer;
    };

    /// A message being received.
    struct InMessage
    {
        uint32_t total{0};
        uint32_t received{0};
        uint64_t bytes{0};
        std::vector<bool> got;              //!< lossy mode: which packets arrived
        std::vector<Ptr<Packet>> fragments; //!< functional mode
    };

    void Receive(Ptr<FabricNetDevice> device, Ptr<Packet> packet);
    void DeliverRaw(Ptr<Packet> packet, FabricHeader header);
    void ReceiveData(Ptr<Packet> packet, const FabricHeader& header);
    void ReceiveAck(const FabricHeader& header);
    void SendAck(const FabricHeader& data);
    void PacketLeft(
        Ptr<FabricNetDevice> device, uint32_t tag, uint8_t tc, uint8_t vc, uint32_t size);
    void Fill(uint32_t sendQueue);
    /// \return the send queue of a message: 2 x traffic class + virtual channel
    static uint32_t SendQueue(const OutMessage& m)
    {
        return 2 * m.tc + m.vc;
    }
    bool HasWork(const OutMessage& m) const;
    void SendPacket(uint32_t msgId, OutMessage& m);
    void Schedule(uint32_t msgId, OutMessage& m);
    void ArmTimer(uint32_t msgId, OutMessage& m);
    void Timeout(uint32_t msgId);
    void MaybeRetire(uint32_t msgId);

    uint32_t m_address{0};
    Ptr<FabricNetDevice> m_device;
    Ptr<FabricEndpointDirectory> m_directory;
    bool m_lossy{false};

    uint32_t m_window;
    Time m_rto;
    Time m_maxRto;
    uint32_t m_stageDepth;

    uint32_t m_nextMsgId{0};
    std::map<uint32_t, OutMessage> m_out;
    /// A queue pair: connection << 32 | destination.
    static uint64_t QueuePair(const OutMessage& m)
    {
        return (uint64_t(m.connection) << 32) | m.dst;
    }
    std::vector<std::deque<uint64_t>> m_destinations; //!< per send queue: queue pairs taking turns
    std::vector<std::map<uint64_t, std::deque<uint32_t>>>
        m_queues;                   //!< per send queue and queue pair: messages in order
    std::vector<uint32_t> m_staged; //!< data packets in the device, per send queue
    std::vector<bool> m_filling;    //!< Fill() running, per send queue
    std::map<std::pair<uint32_t, uint32_t>, InMessage> m_in;
    /// Message ids of one source already delivered: a source numbers its
    /// messages 0, 1, 2, ..., so all ids below a watermark are done and only
    /// the ones delivered out of order above it are kept.
    struct DeliveredIds
    {
        uint32_t below{0};        //!< every id below is delivered
        std::set<uint32_t> above; //!< delivered ids at or above `below`

        bool Contains(uint32_t id) const
        {
            return id < below || above.count(id) > 0;
        }

        void Insert(uint32_t id)
        {
            above.insert(id);
            while (!above.empty() && *above.begin() == below)
            {
                above.erase(above.begin());
                ++below;
            }
        }
    };

    std::map<uint32_t, DeliveredIds> m_done; //!< lossy mode: delivered ids per source

    uint64_t m_delivered{0};
    Ptr<MessageTransport> m_transport;
    uint32_t m_carried{0}; //!< messages handed to the transport and not yet delivered
    uint64_t m_duplicates{0};
    uint64_t m_retransmitted{0};
    MessageCallback m_receiveCallback;
    std::map<uint8_t, RawCallback> m_protocols;

    TracedCallback<const FabricMessage&> m_deliveredTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_retransmitTrace;
};

} // namespace ns3

#endif /* FABRIC_ENDPOINT_H */
