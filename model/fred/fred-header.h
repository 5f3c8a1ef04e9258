/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FRED_HEADER_H
#define FRED_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The 12-byte header of a FRED in-switch collective packet, after the
 * FabricHeader: the job (one collective), the packet's index in it, its
 * direction, the element type and, for reduce-scatter, the part's owner.
 *
 * Packets go UP from the sources toward the root switch of their plane and
 * DOWN from there to the receivers. Reducing jobs add the UP packets of one
 * index at every switch they meet; gathering jobs copy them.
 */
class FredHeader : public Header
{
public:
    /// FabricHeader protocol number of its packets (registered with the fabric)
    static const uint8_t PROTOCOL;

    /// Direction of a packet in the reduction-distribution tree.
    enum Kind : uint8_t
    {
        UP = 0,   //!< a source's data or a switch's partial result, toward the root
        DOWN = 1, //!< the result (or a gathered part), toward the receivers
    };

    static constexpr uint32_t SERIALIZED_SIZE = 12; //!< bytes on the wire

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t m_kind{UP}; //!< a Kind
    uint8_t m_type{0};  //!< element type (a DataType), for the reduction
    uint16_t m_target{
        0};            //!< reduce-scatter: receiver index that owns the part; gathers: source index
    uint32_t m_job{0}; //!< the job (one collective)
    uint32_t m_seq{0}; //!< packet index in the job
};

} // namespace ns3

#endif /* FRED_HEADER_H */
