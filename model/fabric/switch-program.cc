/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-program.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchProgram");
NS_OBJECT_ENSURE_REGISTERED(SwitchProgram);

TypeId
SwitchProgram::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SwitchProgram").SetParent<Object>().SetGroupName("Dlnet");
    return tid;
}

SwitchProgram::~SwitchProgram() = default;

void
SwitchProgram::SetSwitch(FabricSwitch* sw)
{
    m_switch = sw;
}

FabricSwitch*
SwitchProgram::GetSwitch() const
{
    return m_switch;
}

void
SwitchProgram::DoDispose()
{
    m_switch = nullptr;
    Object::DoDispose();
}

} // namespace ns3
