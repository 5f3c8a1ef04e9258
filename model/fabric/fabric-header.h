/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_HEADER_H
#define FABRIC_HEADER_H

#include "ns3/header.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The header every fabric packet carries; its bytes count on the wire.
 *
 * 24 bytes: source and destination address (an endpoint rank or a group id
 * owned by a switch program), message id (unique per source), packet index
 * within the message and the message's packet count, traffic class,
 * protocol, a switch-hop counter and flags (virtual channel, real payload).
 */
class FabricHeader : public Header
{
public:
    /// The fabric's own protocol numbers; the layers above register theirs
    /// (RegisterProtocol), so that the wire names none of them.
    enum Protocol : uint8_t
    {
        DATA = 0, //!< message data
        ACK = 1,  //!< acknowledgement of one data packet (lossy mode)
    };

    /**
     * Claim a protocol number for a layer above the fabric, once per process
     * (a static initialiser of that layer). Registering the same name again
     * with the same number is harmless.
     * \param number the number, 2 to 255
     * \param name the protocol, for Print and PCAP readers
     * \return number; throws std::logic_error if another protocol holds it
     */
    static uint8_t RegisterProtocol(uint8_t number, const std::string& name);

    /// \return the registered name of a protocol number ("" when none)
    static std::string GetProtocolName(uint8_t number);

    /// Flag bits.
    enum Flag : uint8_t
    {
        FLAG_VC1 = 0x01,     //!< packet travels on virtual channel 1 (crossed a dateline)
        FLAG_PAYLOAD = 0x02, //!< packet carries real bytes (functional mode)
    };

    static constexpr uint32_t SERIALIZED_SIZE = 24; //!< bytes on the wire

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint32_t m_src{0};     //!< source address
    uint32_t m_dst{0};     //!< destination address
    uint32_t m_msgId{0};   //!< message id, unique per source
    uint32_t m_seq{0};     //!< packet index within the message
    uint32_t m_total{0};   //!< packets in the message
    uint8_t m_tc{0};       //!< traffic class (0 = highest priority)
    uint8_t m_protocol{0}; //!< a FabricHeader::Protocol or a switch program's number
    uint8_t m_hops{0};     //!< switches that forwarded the packet
    uint8_t m_flags{0};    //!< FabricHeader::Flag bits

    /// \return the virtual channel (0 or 1) the packet travels on
    uint8_t GetVc() const
    {
        return (m_flags & FLAG_VC1) ? 1 : 0;
    }

    /// \param vc the virtual channel (0 or 1)
    void SetVc(uint8_t vc)
    {
        m_flags = vc ? (m_flags | FLAG_VC1) : (m_flags & ~FLAG_VC1);
    }
};

} // namespace ns3

#endif /* FABRIC_HEADER_H */
