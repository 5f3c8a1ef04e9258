/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OMNIREDUCE_PROGRAM_H
#define OMNIREDUCE_PROGRAM_H

#include "omnireduce.h"

#include "ns3/switch-program.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief An OmniReduce aggregator run by a switch: contributions addressed to
 * the aggregator's address stop here; results leave through the forwarding
 * table toward each worker.
 */
class OmniReduceProgram : public SwitchProgram
{
public:
    static TypeId GetTypeId();
    OmniReduceProgram();
    ~OmniReduceProgram() override;

    /**
     * \param job the job (its aggregators list holds this program's address)
     * \param address the aggregator's address
     */
    void Setup(const OmniReduceJob& job, uint32_t address);

    /// \return the aggregator
    Ptr<OmniReduceAggregator> GetAggregator() const;

    Verdict Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort) override;

protected:
    void DoDispose() override;

private:
    Ptr<OmniReduceAggregator> m_aggregator;
    uint32_t m_address{0};
    uint8_t m_tc{0};
};

} // namespace ns3

#endif /* OMNIREDUCE_PROGRAM_H */
