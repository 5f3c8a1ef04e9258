/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "omnireduce-program.h"

#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/packet.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OmniReduceProgram");
NS_OBJECT_ENSURE_REGISTERED(OmniReduceProgram);

TypeId
OmniReduceProgram::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OmniReduceProgram")
                            .SetParent<SwitchProgram>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<OmniReduceProgram>();
    return tid;
}

OmniReduceProgram::OmniReduceProgram() = default;

OmniReduceProgram::~OmniReduceProgram() = default;

void
OmniReduceProgram::DoDispose()
{
    if (m_aggregator)
    {
        m_aggregator->Dispose();
        m_aggregator = nullptr;
    }
    SwitchProgram::DoDispose();
}

void
OmniReduceProgram::Setup(const OmniReduceJob& job, uint32_t address)
{
    m_address = address;
    m_tc = job.tc;
    m_aggregator = CreateObject<OmniReduceAggregator>();
    m_aggregator->Setup(job,
                        address,
                        [this](uint32_t dst, Ptr<Packet> p)
                        {
                            FabricHeader f;
                            f.m_src = m_address;
                            f.m_dst = dst;
                            f.m_total = 1;
                            f.m_tc = m_tc;
                            f.m_protocol = OmniReduceHeader::PROTOCOL;
                            GetSwitch()->SendRouted(p, f);
                        });
}

Ptr<OmniReduceAggregator>
OmniReduceProgram::GetAggregator() const
{
    return m_aggregator;
}

SwitchProgram::Verdict
OmniReduceProgram::Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort)
{
    if (header.m_protocol != OmniReduceHeader::PROTOCOL || header.m_dst != m_address)
    {
        return CONTINUE;
    }
    OmniReduceHeader h;
    packet->RemoveHeader(h);
    if (h.m_kind == OmniReduceHeader::CONTRIBUTION)
    {
        m_aggregator->Contribution(h, packet);
    }
    return CONSUMED;
}

} // namespace ns3
