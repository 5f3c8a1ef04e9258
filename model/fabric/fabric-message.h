/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_MESSAGE_H
#define FABRIC_MESSAGE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/// Real message bytes (functional mode); shared, never copied per packet.
typedef std::shared_ptr<const std::vector<uint8_t>> FabricPayload;

/**
 * \ingroup dlnet
 * \brief What is known of one message when it has been delivered.
 */
struct FabricMessage
{
    uint32_t src{0};     //!< source address
    uint32_t dst{0};     //!< destination address
    uint32_t msgId{0};   //!< id, unique per source
    uint64_t bytes{0};   //!< payload bytes
    uint32_t packets{0}; //!< packets it was cut into
    uint8_t tc{0};       //!< traffic class
    uint32_t hops{0};    //!< switches its last packet went through
    Time sent;           //!< when Send was called
    Time delivered;      //!< when its last byte was delivered at the destination
    FabricPayload data;  //!< the reassembled bytes (functional mode), else null
};

} // namespace ns3

#endif /* FABRIC_MESSAGE_H */
