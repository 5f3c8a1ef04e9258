/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FRED_BACKEND_H
#define DLNET_FRED_BACKEND_H

#include "fred-collectives.h"

#include "ns3/collective-backend.h"
#include "ns3/wafer-topology.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief FRED's in-switch collectives as a collective backend
 * ("fred-in-switch"): all-reduce, reduce-scatter and all-gather reduced and
 * distributed by the L1/L2 switches of a FRED wafer whose switches reduce
 * (fred-b, fred-d), through FredCollectives.
 *
 * One backend runs several collectives at once on one cluster (one
 * FredCollectives, whose switches hold the flows of all of them): a
 * collective whose flows cannot be routed beside the running ones is
 * refused (std::invalid_argument naming `flows`) or, with
 * SerialiseConflicts, waits for them.
 */
class FredBackend : public CollectiveBackend
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

    /**
     * Payload bytes of one FRED packet for a packet of `mtu` bytes: the MTU
     * less the fabric and FRED headers, whole 4-byte elements.
     * \param mtu bytes of a full packet, headers included \return payload bytes
     */
    static uint32_t PayloadBytes(uint32_t mtu);

    /// \return the FredCollectives of the cluster last started on (null before)
    const FredCollectives* GetCollectives() const;

    /**
     * The FredCollectives of a cluster, made now if the backend has none for
     * it yet (SerialiseConflicts applied): other users of the wafer's
     * switches, such as weight streaming, go through it so that one engine
     * holds the NPUs' FRED handlers and one program per switch holds every
     * flow (conflicting flows then wait or are refused as for collectives).
     * \param cluster the built cluster \param topology fred-b or fred-d
     * \return it (owned by the backend, valid until the next cluster or Dispose)
     */
    FredCollectives& Attach(const Cluster& cluster, const Topology& topology);

protected:
    void DoDispose() override;

private:
    bool m_serialise{false};                  //!< conflicting collectives wait
    std::unique_ptr<Wafer> m_wafer;           //!< the described cluster (FredCollectives holds it)
    std::unique_ptr<FredCollectives> m_fred;  //!< programs on its switches, engine on its NPUs
    Ptr<FabricEndpointDirectory> m_directory; //!< of the cluster whose switches m_fred programs
};

} // namespace ns3

#endif /* DLNET_FRED_BACKEND_H */
