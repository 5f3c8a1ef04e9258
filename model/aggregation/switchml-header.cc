/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switchml-header.h"

#include "ns3/fabric-header.h"
#include "ns3/log.h"

namespace ns3
{

const uint8_t SwitchmlHeader::PROTOCOL = FabricHeader::RegisterProtocol(2, "switchml");

NS_LOG_COMPONENT_DEFINE("SwitchmlHeader");
NS_OBJECT_ENSURE_REGISTERED(SwitchmlHeader);

TypeId
SwitchmlHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SwitchmlHeader")
                            .SetParent<Header>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<SwitchmlHeader>();
    return tid;
}

TypeId
SwitchmlHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
SwitchmlHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
SwitchmlHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(m_kind);
    start.WriteU8(m_version);
    start.WriteU8(static_cast<uint8_t>(m_exponent));
    start.WriteU8(static_cast<uint8_t>(m_nextExponent));
    start.WriteHtonU16(m_job);
    start.WriteHtonU16(m_worker);
    start.WriteHtonU32(m_slot);
    start.WriteHtonU32(m_round);
}

uint32_t
SwitchmlHeader::Deserialize(Buffer::Iterator start)
{
    m_kind = start.ReadU8();
    m_version = start.ReadU8();
    m_exponent = static_cast<int8_t>(start.ReadU8());
    m_nextExponent = static_cast<int8_t>(start.ReadU8());
    m_job = start.ReadNtohU16();
    m_worker = start.ReadNtohU16();
    m_slot = start.ReadNtohU32();
    m_round = start.ReadNtohU32();
    return SERIALIZED_SIZE;
}

void
SwitchmlHeader::Print(std::ostream& os) const
{
    os << (m_kind == RESULT ? "result" : "contribution") << " job=" << m_job
       << " worker=" << m_worker << " slot=" << m_slot << " round=" << m_round
       << " v=" << +m_version << " exp=" << +m_exponent << " next=" << +m_nextExponent;
}

} // namespace ns3
