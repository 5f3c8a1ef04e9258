/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "message-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MessageTransport);

TypeId
MessageTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MessageTransport").SetParent<Object>().SetGroupName("Dlnet");
    return tid;
}

MessageTransport::~MessageTransport() = default;

} // namespace ns3
