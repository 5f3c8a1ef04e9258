/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-header.h"

#include "ns3/log.h"

#include <array>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHeader");
NS_OBJECT_ENSURE_REGISTERED(FabricHeader);

TypeId
FabricHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricHeader")
                            .SetParent<Header>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FabricHeader>();
    return tid;
}

TypeId
FabricHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
FabricHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(m_src);
    start.WriteHtonU32(m_dst);
    start.WriteHtonU32(m_msgId);
    start.WriteHtonU32(m_seq);
    start.WriteHtonU32(m_total);
    start.WriteU8(m_tc);
    start.WriteU8(m_protocol);
    start.WriteU8(m_hops);
    start.WriteU8(m_flags);
}

uint32_t
FabricHeader::Deserialize(Buffer::Iterator start)
{
    m_src = start.ReadNtohU32();
    m_dst = start.ReadNtohU32();
    m_msgId = start.ReadNtohU32();
    m_seq = start.ReadNtohU32();
    m_total = start.ReadNtohU32();
    m_tc = start.ReadU8();
    m_protocol = start.ReadU8();
    m_hops = start.ReadU8();
    m_flags = start.ReadU8();
    return SERIALIZED_SIZE;
}

void
FabricHeader::Print(std::ostream& os) const
{
    std::string name = GetProtocolName(m_protocol);
    os << "src=" << m_src << " dst=" << m_dst << " msg=" << m_msgId << " seq=" << m_seq << "/"
       << m_total << " tc=" << +m_tc
       << " proto=" << (name.empty() ? std::to_string(m_protocol) : name) << " hops=" << +m_hops
       << " vc=" << +GetVc();
}

namespace
{
/// Protocol names by number; a function-local static so that registrations
/// from other files' static initialisers find it built.
std::array<std::string, 256>&
ProtocolNames()
{
    static std::array<std::string, 256> names = []()
    {
        std::array<std::string, 256> n;
        n[FabricHeader::DATA] = "data";
        n[FabricHeader::ACK] = "ack";
        return n;
    }();
    return names;
}
} // namespace

uint8_t
FabricHeader::RegisterProtocol(uint8_t number, const std::string& name)
{
    std::string& slot = ProtocolNames()[number];
    if (name.empty() || (!slot.empty() && slot != name))
    {
        throw std::logic_error("FabricHeader: protocol number " + std::to_string(number)
                               + " is taken by '" + slot + "'; '" + name
                               + "' needs another number");
    }
    slot = name;
    return number;
}

std::string
FabricHeader::GetProtocolName(uint8_t number)
{
    return ProtocolNames()[number];
}

} // namespace ns3
