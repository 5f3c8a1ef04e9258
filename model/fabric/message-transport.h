/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_MESSAGE_TRANSPORT_H
#define DLNET_MESSAGE_TRANSPORT_H

#include "fabric-message.h"

#include "ns3/callback.h"
#include "ns3/object.h"

namespace ns3
{

class FabricEndpoint;

/**
 * \ingroup dlnet
 * \brief What carries an endpoint's messages when packets do not: the
 * flow-level network. An endpoint with a transport validates a message and
 * numbers it as it always does, then hands it here instead of cutting it into
 * packets; the transport calls FabricEndpoint::DeliverCarried on the
 * destination when the message has arrived. Upper layers see the same
 * Send/receive/completion seam on either network.
 */
class MessageTransport : public Object
{
public:
    static TypeId GetTypeId();
    ~MessageTransport() override;

    /**
     * Carry one message.
     * \param source the sending endpoint
     * \param message src, dst, msgId, bytes, packets, tc, sent and (functional mode) data
     * \param vc the virtual channel it was sent on
     * \param connection the sender's queue pair to the destination it was sent on
     * \param onDelivered the sender's completion callback (may be null)
     */
    virtual void Carry(FabricEndpoint& source,
                       const FabricMessage& message,
                       uint8_t vc,
                       uint32_t connection,
                       Callback<void, const FabricMessage&> onDelivered)
        = 0;

    /// \return a short name of the network model ("flow")
    virtual const char* GetModelName() const = 0;
};

} // namespace ns3

#endif /* DLNET_MESSAGE_TRANSPORT_H */
