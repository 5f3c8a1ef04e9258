/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-header.h"

#include "ns3/fabric-header.h"

namespace ns3
{

const uint8_t FredHeader::PROTOCOL = FabricHeader::RegisterProtocol(4, "fred");

NS_OBJECT_ENSURE_REGISTERED(FredHeader);

TypeId
FredHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FredHeader")
                            .SetParent<Header>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FredHeader>();
    return tid;
}

TypeId
FredHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FredHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
FredHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(m_kind);
    start.WriteU8(m_type);
    start.WriteHtonU16(m_target);
    start.WriteHtonU32(m_job);
    start.WriteHtonU32(m_seq);
}

uint32_t
FredHeader::Deserialize(Buffer::Iterator start)
{
    m_kind = start.ReadU8();
    m_type = start.ReadU8();
    m_target = start.ReadNtohU16();
    m_job = start.ReadNtohU32();
    m_seq = start.ReadNtohU32();
    return SERIALIZED_SIZE;
}

void
FredHeader::Print(std::ostream& os) const
{
    os << (m_kind == DOWN ? "down" : "up") << " job=" << m_job << " seq=" << m_seq
       << " type=" << +m_type << " target=" << m_target;
}

} // namespace ns3
