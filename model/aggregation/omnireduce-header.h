/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OMNIREDUCE_HEADER_H
#define OMNIREDUCE_HEADER_H

#include "ns3/header.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Header of an OmniReduce-style sparse aggregation packet.
 *
 * A slot moves `lanes` blocks per packet (block fusion): lane l of slot j
 * owns blocks j f + l + t S f (f lanes, S slots). For each lane the packet
 * carries a next-block offset (4 bytes each, as the paper's metadata):
 * from a worker, its next non-zero block in the lane; from an aggregator,
 * the block every worker that has it must send next (the minimum over the
 * workers). `present` says which lanes carry a block of values, in lane
 * order after the header. 20 + 4 f bytes.
 */
class OmniReduceHeader : public Header
{
public:
    /// FabricHeader protocol number of its packets (registered with the fabric)
    static const uint8_t PROTOCOL;

    /// What the packet is.
    enum Kind : uint8_t
    {
        CONTRIBUTION = 0, //!< worker to aggregator
        RESULT = 1,       //!< aggregator to worker
    };

    static constexpr uint32_t NONE = 0xffffffff; //!< no next block (infinity)
    static constexpr uint32_t FIXED_SIZE = 20;   //!< bytes before the 4-byte block indices

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t m_kind{CONTRIBUTION};
    uint8_t m_flags{0};   //!< VALUES: the blocks are real floats
    uint16_t m_worker{0}; //!< worker index (contributions)
    uint32_t m_slot{0};
    uint32_t m_round{0};
    uint32_t m_present{0};        //!< bit l: lane l carries a block
    std::vector<uint32_t> m_next; //!< per lane

    static constexpr uint8_t VALUES = 0x01; //!< m_flags bit
};

} // namespace ns3

#endif /* OMNIREDUCE_HEADER_H */
