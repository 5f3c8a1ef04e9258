/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "omnireduce-header.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"

namespace ns3
{

const uint8_t OmniReduceHeader::PROTOCOL = FabricHeader::RegisterProtocol(3, "omnireduce");

NS_LOG_COMPONENT_DEFINE("OmniReduceHeader");
NS_OBJECT_ENSURE_REGISTERED(OmniReduceHeader);

TypeId
OmniReduceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OmniReduceHeader")
                            .SetParent<Header>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<OmniReduceHeader>();
    return tid;
}

TypeId
OmniReduceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
OmniReduceHeader::GetSerializedSize() const
{
    return FIXED_SIZE + 4 * m_next.size();
}

void
OmniReduceHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(m_kind);
    start.WriteU8(m_flags);
    start.WriteU8(static_cast<uint8_t>(m_next.size()));
    start.WriteU8(0);
    start.WriteHtonU16(m_worker);
    start.WriteHtonU16(0);
    start.WriteHtonU32(m_slot);
    start.WriteHtonU32(m_round);
    for (uint32_t next : m_next)
    {
        start.WriteHtonU32(next);
    }
    start.WriteHtonU32(m_present);
}

uint32_t
OmniReduceHeader::Deserialize(Buffer::Iterator start)
{
    m_kind = start.ReadU8();
    m_flags = start.ReadU8();
    uint8_t lanes = start.ReadU8();
    start.ReadU8();
    m_worker = start.ReadNtohU16();
    start.ReadNtohU16();
    m_slot = start.ReadNtohU32();
    m_round = start.ReadNtohU32();
    m_next.resize(lanes);
    for (auto& next : m_next)
    {
        next = start.ReadNtohU32();
    }
    m_present = start.ReadNtohU32();
    return GetSerializedSize();
}

void
OmniReduceHeader::Print(std::ostream& os) const
{
    os << (m_kind == RESULT ? "result" : "contribution") << " worker=" << m_worker
       << " slot=" << m_slot << " round=" << m_round << " present=" << std::hex << m_present
       << std::dec;
}

} // namespace ns3
