/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAINING_SIMULATION_H
#define DLNET_TRAINING_SIMULATION_H

#include "ns3/cluster.h"
#include "ns3/collective-backend.h"
#include "ns3/object.h"
#include "ns3/topology.h"
#include "ns3/traced-callback.h"
#include "ns3/training-graph.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup dlnet How one parallel dimension of a job communicates.
struct TrainingDimensionSetup
{
    std::string backend{"auto"}; //!< a CollectiveRegistry name, or auto
    uint8_t trafficClass{0};     //!< its messages' class (strict priority: lower first)
};

/**
 * \ingroup dlnet
 * \brief One job on the cluster: its graph, where its ranks are, and how
 * each dimension communicates.
 */
struct TrainingJobSetup
{
    std::string name{"job0"};
    TrainingGraph graph;
    std::vector<uint32_t> placement; //!< job rank -> cluster rank (distinct)
    std::array<TrainingDimensionSetup, TRAINING_DIMENSIONS> dimensions;
};

/// \ingroup dlnet What one task did.
struct TrainingTaskRun
{
    uint32_t job{0};
    uint32_t task{0};    //!< index in the job's graph
    Time ready;          //!< its deps had finished
    Time start;          //!< it started (its streams were free)
    Time end;            //!< its work ended (finishDelay not included)
    std::string backend; //!< collectives: the backend that ran it ("" otherwise)
};

/**
 * \ingroup dlnet
 * \brief The one executor of training graphs: runs jobs on a built cluster,
 * each task when its deps are done and its streams are free, computes as
 * timers and every byte through the fabric (collectives through the
 * CollectiveRegistry backends, sends through the same engine, weight streams
 * from the topology's I/O controllers). Several jobs share the cluster.
 *
 * Execution is event-driven, O(tasks + deps + stream slots): each task
 * counts its unfinished deps, each (job rank, stream) is a FIFO of task
 * indices in graph order; streams are compute and one per dimension.
 * A task's end is its work's end: its streams are free then, its
 * dependants are released finishDelay later.
 *
 * - Backends: one instance per (job, dimension, backend name); `auto`
 *   resolves per (job, dimension, op, bytes, group size) with ChooseAuto on
 *   the topology's NetworkModel of the first such group (cached). Step
 *   schedules share the cluster's engine and run many collectives at once;
 *   fred-in-switch runs concurrent groups itself (SerialiseConflicts set:
 *   a group whose flows conflict waits) through one instance shared by
 *   every job and dimension (it owns the wafer's FRED engine); the other in-network
 *   backends (switchml, omnireduce) run one collective at a time on the
 *   whole cluster (every job): a collective that finds its backend busy
 *   holds its streams (its start) and waits in a FIFO, so its span
 *   includes the wait.
 * - SEND: SEND_RECV over the 2-member communicator (sender, receiver)
 *   through the dimension's backend, or ring when that backend has no
 *   point-to-point (every step schedule has); fp16 elements, an odd size
 *   rounded up by one byte. It holds the sender's dimension stream, or the
 *   receiver's for a pull (TrainingTask::pull).
 * - STREAM: on a wafer topology only (Setup refuses others): each receiver's
 *   bytes come in equal shares (rounded up to whole 4-byte words) from every I/O
 *   controller
 *   (WeightStreaming to those NPUs); one weight stream at a time per
 *   wafer (they share the controllers), in FIFO order like the serial
 *   backends. On fred-b and fred-d the streams go through the FredCollectives
 *   of the one fred-in-switch instance (its engine holds the NPUs' FRED
 *   handlers, its switch programs every flow), so streams and in-switch
 *   collectives run side by side (flows that conflict wait); on fred-a and
 *   fred-c a stream has a FredCollectives of its own (distribution only).
 * - Deadlock: streams run in graph order and deps point to earlier tasks,
 *   so a valid graph always progresses (its lowest unfinished task can
 *   start); a run that ends unfinished (a backend that never completes, a
 *   stop time) is described by DescribeStuck.
 */
class TrainingSimulation : public Object
{
public:
    static TypeId GetTypeId();
    TrainingSimulation();
    ~TrainingSimulation() override;

    /**
     * Check the jobs against the cluster and prepare them: graphs valid,
     * placements distinct cluster ranks, the same rank in no two jobs,
     * every dimension's backend known, implementing the ops it must run and
     * running on the topology (std::invalid_argument naming job, dimension
     * and field).
     */
    void Setup(const Cluster& cluster,
               Ptr<const Topology> topology,
               std::vector<TrainingJobSetup> jobs);

    /// Start every job now; run the simulator after.
    void Start();

    /// \return true once every task of every job has finished
    bool IsFinished() const;
    /// \return the jobs as set up
    const std::vector<TrainingJobSetup>& GetJobs() const;
    /**
     * Hand the jobs back (their graphs are not copied), once the runs are read: after
     * this the simulation holds no job and must only be disposed.
     * \return the jobs as set up
     */
    std::vector<TrainingJobSetup> ReleaseJobs();
    /// \return every task's run of a job, by task index (valid once finished)
    const std::vector<TrainingTaskRun>& GetRuns(uint32_t job) const;
    /// \return every task's run of a job, moved out (GetRuns is empty after)
    std::vector<TrainingTaskRun> TakeRuns(uint32_t job);
    /// \return collectives started (all jobs)
    uint64_t GetCollectives() const;

    /**
     * After Simulator::Run returned with tasks unfinished (a deadlocked
     * graph): the first task, in job then graph order, that never started,
     * and what it waits for (an unfinished dep, or the stream whose head is
     * another task).
     * \return that sentence; "" when every task finished
     */
    std::string DescribeStuck() const;

    /// Signature of the TaskDone trace source.
    typedef void (*TaskDoneCallback)(const TrainingTaskRun& run);

protected:
    void DoDispose() override;

private:
    struct State;
    /// \return the stream ids (job rank * streams + stream) a task occupies
    static std::vector<uint32_t> StreamsOf(const TrainingTask& task);
    /// \return the communicator of a collective or send task (cluster ranks)
    Communicator CommOf(uint32_t job, const TrainingTask& task) const;
    /**
     * \return the request of a collective or send task (timing mode); a
     * collective of every rank of the topology's grid (wafers: every NPU), in
     * rank order, carries that grid for the hierarchical schedules (mesh: 2D
     * with both dimension orders; FRED: NPUs of an L1, then across L1s on
     * the second virtual channel; other grids as the topology gives them)
     */
    CollectiveRequest RequestOf(const TrainingTask& task, const Communicator& comm) const;
    /// \return the backend name that runs a request of a job's dimension (auto resolved, cached)
    std::string ResolveBackend(uint32_t job,
                               TrainingDimension d,
                               const CollectiveRequest& request,
                               const Communicator& comm);
    /// \return the instance of (job, dimension, backend name), created on first use
    Ptr<CollectiveBackend> BackendFor(uint32_t job, TrainingDimension d, const std::string& name);
    /// Build a job's streams and dependants; validate its communication tasks.
    void Prepare(uint32_t job);
    /// Start a task if it is ready and at the head of all its streams.
    void TryStart(uint32_t job, uint32_t task);
    /// Start a communication task's work on the network.
    void Launch(uint32_t job, uint32_t task);
    /// A task's work ended: free its streams, finish it after its finishDelay.
    void WorkEnd(uint32_t job, uint32_t task);
    /// A task finished: release its dependants.
    void Finish(uint32_t job, uint32_t task);
    /// Start a compute task whose rate depends on the communication beside it.
    void StartContended(uint32_t job, uint32_t task);
    /// A communication task's kernels start (+1) or end (-1) on its GPUs.
    void CommunicationChange(uint32_t job, uint32_t task, int delta);
    /// Bring a running contended compute task's progress up to now and reschedule its end.
    void Reschedule(uint32_t job, uint32_t task);

    bool m_free{false};          //!< FreeCommunication attribute
    double m_overlapSlowdown{0}; //!< OverlapSlowdown attribute
    bool m_rendezvous{false};    //!< SendRendezvous attribute
    std::unique_ptr<State> m_state;
    TracedCallback<const TrainingTaskRun&> m_taskDone;
};

} // namespace ns3

#endif /* DLNET_TRAINING_SIMULATION_H */
