/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_PROGRAM_H
#define SWITCH_PROGRAM_H

#include "fabric-header.h"

#include "ns3/object.h"
#include "ns3/ptr.h"

namespace ns3
{

class FabricSwitch;
class Packet;

/**
 * \ingroup dlnet
 * \brief A program a FabricSwitch runs on every packet before forwarding it.
 *
 * Programs are chained in the order they were added; the last link of the
 * chain is plain forwarding. A program sees the parsed header and the
 * payload (header removed) and the ingress port. It may:
 * - return CONTINUE: the next program, then forwarding, sees the packet
 *   (the program may have changed header fields, but not the payload size);
 * - return CONSUMED: the packet stops here (the switch frees its ingress
 *   buffer at once, so a program never holds a link's credit);
 * and, either way, emit new packets with FabricSwitch::SendOnPort or
 * FabricSwitch::SendRouted (unicast or multicast).
 */
class SwitchProgram : public Object
{
public:
    /// What happens to a packet after a program has seen it.
    enum Verdict
    {
        CONTINUE, //!< pass it on down the chain
        CONSUMED, //!< it stops here
    };

    static TypeId GetTypeId();
    ~SwitchProgram() override;

    /**
     * \param packet the payload (FabricHeader removed)
     * \param header the parsed header, modifiable
     * \param inPort the ingress port index
     * \return what happens to the packet next
     */
    virtual Verdict Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort) = 0;

    /**
     * Called by FabricSwitch::AddProgram.
     * \param sw the switch that runs this program
     */
    void SetSwitch(FabricSwitch* sw);

protected:
    /// \return the switch that runs this program
    FabricSwitch* GetSwitch() const;
    void DoDispose() override;

private:
    FabricSwitch* m_switch{nullptr}; //!< not owned: the switch owns its programs
};

} // namespace ns3

#endif /* SWITCH_PROGRAM_H */
