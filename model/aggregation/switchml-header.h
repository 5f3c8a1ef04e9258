/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCHML_HEADER_H
#define SWITCHML_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The 16-byte header of a SwitchML-style aggregation packet, after the
 * FabricHeader; k int32 values (or virtual bytes in timing mode) follow.
 *
 * A worker's packet for round r of a slot carries the chunk it contributes
 * (round 0 is the exponent probe: no values), the exponent the values were
 * scaled with, and the worker's exponent for the slot's next chunk. A result
 * carries the aggregate and the agreed (largest) next exponent.
 */
class SwitchmlHeader : public Header
{
public:
    /// FabricHeader protocol number of its packets (registered with the fabric)
    static const uint8_t PROTOCOL;

    /// What the packet is.
    enum Kind : uint8_t
    {
        CONTRIBUTION = 0, //!< a worker's (or a lower switch's partial) values
        RESULT = 1,       //!< the aggregate, from the switch
    };

    static constexpr uint32_t SERIALIZED_SIZE = 16; //!< bytes on the wire
    static constexpr int8_t NO_EXPONENT = -128;     //!< no next chunk, or an all-zero chunk

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t m_kind{CONTRIBUTION}; //!< a Kind
    uint8_t m_version{0};         //!< bit 0: pool set (the slot's round parity); bit 1: VALUES

    static constexpr uint8_t VALUES = 0x02; //!< m_version bit: the payload holds real int32 values
    int8_t m_exponent{NO_EXPONENT};         //!< exponent the values were scaled with
    int8_t m_nextExponent{
        NO_EXPONENT};     //!< contribution: the worker's for the next chunk; result: the largest
    uint16_t m_job{0};    //!< job id
    uint16_t m_worker{0}; //!< contributor index (worker, or a leaf switch for its rack)
    uint32_t m_slot{0};   //!< slot index in the job's pool
    uint32_t m_round{0};  //!< round of the slot: 0 probe, r >= 1 chunk slot + (r - 1) x pool
};

} // namespace ns3

#endif /* SWITCHML_HEADER_H */
