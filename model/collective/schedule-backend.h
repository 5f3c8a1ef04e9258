/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SCHEDULE_BACKEND_H
#define DLNET_SCHEDULE_BACKEND_H

#include "collective-backend.h"
#include "collective-engine.h"

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The step-schedule algorithms (ring, direct, halving-doubling,
 * double binary tree, hierarchical) as collective backends: the schedule is
 * data, run by one CollectiveEngine on the cluster's endpoints.
 */
class ScheduleBackend : public CollectiveBackend
{
public:
    static TypeId GetTypeId();
    /// \param algorithm the schedule this backend builds
    explicit ScheduleBackend(CollectiveAlgorithm algorithm = CollectiveAlgorithm::RING);

    std::string GetName() const override;
    bool Implements(CollectiveOp op) const override;
    std::string CheckTopology(const Topology& topology, const Communicator& comm) const override;
    void Validate(const CollectiveRequest& request,
                  const Topology& topology,
                  const Communicator& comm) const override;
    double Bound(const CollectiveRequest& request,
                 const Communicator& comm,
                 const NetworkModel& model) const override;
    std::vector<LinkPhase> Phases(const CollectiveRequest& request,
                                  const Communicator& comm) const override;
    double LibraryLatency(const CollectiveRequest& request,
                          const std::vector<LinkPhase>& phases,
                          const Topology& topology,
                          const LibraryLatencies& library) const override;
    void Start(const Cluster& cluster,
               const Topology& topology,
               const Communicator& comm,
               CollectiveRequest request,
               DoneCallback done) override;

    /// \return the engine (created by the first Start)
    Ptr<CollectiveEngine> GetEngine() const;

    /**
     * Take the cluster's engine now (Start would take it), so that its trace
     * sources (StepSend, Done) can be connected before the first Start.
     * \param cluster the cluster Start will be given
     * \param topology its topology (which ranks share a host: SetHosts)
     * \return the engine Start will use on it
     */
    Ptr<CollectiveEngine> GetEngine(const Cluster& cluster, const Topology& topology);

protected:
    void DoDispose() override;

private:
    /// the request as the engine runs it: this algorithm, chunks resolved
    CollectiveRequest Resolved(const CollectiveRequest& request) const;

    CollectiveAlgorithm m_algorithm;
    /// Stop using the cluster's shared engine (the last user disposes of it).
    void ReleaseEngine();

    Ptr<CollectiveEngine> m_engine;
    /// the directory of the cluster whose endpoints the engine holds (held, so that a
    /// later cluster cannot be mistaken for it at the same address)
    Ptr<FabricEndpointDirectory> m_directory;
};

} // namespace ns3

#endif /* DLNET_SCHEDULE_BACKEND_H */
