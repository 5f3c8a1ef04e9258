/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SWITCHML_BACKEND_H
#define DLNET_SWITCHML_BACKEND_H

#include "ns3/collective-backend.h"
#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief SwitchML-style dense in-network AllReduce as a collective backend:
 * workers stream quantised fp32 packets into slot pools of the switches of
 * the topology's aggregation tree (at most two levels) and get the sums
 * back (SwitchmlHelper).
 */
class SwitchmlBackend : public CollectiveBackend
{
public:
    static TypeId GetTypeId();

    std::string GetName() const override;
    bool Implements(CollectiveOp op) const override;
    std::string CheckTopology(const Topology& topology, const Communicator& comm) const override;
    void Validate(const CollectiveRequest& request,
                  const Topology& topology,
                  const Communicator& comm) const override;
    double Bound(const CollectiveRequest& request,
                 const Communicator& comm,
                 const NetworkModel& model) const override;
    void Start(const Cluster& cluster,
               const Topology& topology,
               const Communicator& comm,
               CollectiveRequest request,
               DoneCallback done) override;

private:
    uint32_t m_packetElements; //!< k: int32 values per packet
    uint32_t m_poolSlots;      //!< slots of the pool: outstanding packets per worker
    Time m_timeout;            //!< worker retransmission timeout
    uint16_t m_job;            //!< job id (several jobs share a switch)
};

} // namespace ns3

#endif /* DLNET_SWITCHML_BACKEND_H */
