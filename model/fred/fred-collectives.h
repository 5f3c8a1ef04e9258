/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FRED_HELPER_H
#define DLNET_FRED_HELPER_H

#include "fred-engine.h"
#include "fred-flow-engine.h"
#include "fred-switch-program.h"

#include "ns3/communicator.h"
#include "ns3/wafer-helper.h"

#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Runs in-switch collectives on a FRED wafer (variants B and D).
 *
 * Puts a FredSwitchProgram on every L1 and L2 switch and a FredEngine on the
 * endpoints. For each job it plans the reduction-distribution tree: a group
 * under one L1 is reduced there; a wider group is reduced by its L1s, whose
 * partial results go up to the L2 of each packet's plane (index mod planes),
 * which reduces them and sends the result back down. The planes of a group
 * are the local indices of the NPUs of its fullest L1, so that data-parallel
 * groups (one NPU per L1, same local index) each keep to one L2, and the
 * wafer-wide group spreads over all four.
 *
 * On a wafer built with network=flow (Cluster::flow set) the jobs run on a
 * FredFlowEngine instead of the FredEngine: the same plans, installed on the
 * same programs (so the Fred_m(P) check refuses, or serialises, the same
 * jobs), carried as flows of the cluster's FlowNetwork.
 */
class FredCollectives
{
public:
    /**
     * \param wafer a FRED wafer with in-switch collectives (std::invalid_argument otherwise)
     * \param distributionOnly allow fred-a and fred-c too, for broadcasts only (every FRED
     *        switch can copy; only B and D reduce)
     */
    explicit FredCollectives(Wafer& wafer, bool distributionOnly = false);
    ~FredCollectives();
    FredCollectives(const FredCollectives&) = delete;
    FredCollectives& operator=(const FredCollectives&) = delete;

    /**
     * Install a collective's flows and start it now. Throws
     * std::invalid_argument when the group has a rank twice or outside the
     * wafer's NPUs, or its flows conflict with running ones beyond the
     * switches' middle stages.
     * \param comm the group (NPU ranks) and its traffic class
     * \param op all-reduce, reduce-scatter or all-gather
     * \param type element type
     * \param bytes buffer size
     * \param inputs functional mode: per member its buffer; empty: timing
     * \param done called when it has finished (its flows are removed first)
     * \return the job id
     */
    uint32_t Start(const Communicator& comm,
                   CollectiveOp op,
                   DataType type,
                   uint64_t bytes,
                   const std::vector<std::vector<uint8_t>>& inputs,
                   FredEngine::DoneCallback done);

    /**
     * Stream `bytes` from every source (I/O controllers) to every receiver
     * through the switches' distribution flows.
     * \return the job id
     */
    uint32_t StartBroadcast(const std::string& name,
                            const std::vector<uint32_t>& sources,
                            const std::vector<uint32_t>& receivers,
                            uint64_t bytes,
                            uint8_t tc,
                            FredEngine::DoneCallback done);

    /**
     * The per-switch flows of a job (what Start installs), for tests and logs.
     * \return (switch, flow) pairs
     */
    FredPlan Plan(const FredJob& job) const;

    /// \return the program of a switch
    Ptr<FredSwitchProgram> GetProgram(Ptr<FabricSwitch> sw) const;

    /// \return the engine
    Ptr<FredEngine> GetEngine() const;

    /// \return the flow-level engine (network=flow), or null
    Ptr<FredFlowEngine> GetFlowEngine() const;

    /// \return payload bytes per FRED packet (MTU minus headers, element-aligned)
    uint32_t GetPayloadBytes() const;

    /**
     * \param serialise true: a job whose flows cannot be routed beside the
     *        running ones waits until they have finished (FRED's compile-time
     *        scheduling); false (default): Start refuses it
     */
    void SetSerialise(bool serialise);

private:
    uint32_t Launch(FredJob job, FredEngine::DoneCallback done);
    /// Install a job's flows on every switch of its plan; false (or the
    /// conflict thrown, if rethrow) when one does not fit beside the others.
    bool TryInstall(const FredJob& job, bool rethrow = false);
    void Finished(uint32_t job, FredEngine::DoneCallback done, const FredRecord& record);
    /// Start an installed job on the engine of the wafer's network.
    void Run(const FredJob& job, FredEngine::DoneCallback done);

    Wafer& m_wafer;
    Ptr<FredEngine> m_engine;
    Ptr<FredFlowEngine> m_flowEngine; //!< network=flow: runs the jobs as flows
    std::map<Ptr<FabricSwitch>, Ptr<FredSwitchProgram>> m_programs;
    std::map<uint32_t, std::vector<Ptr<FabricSwitch>>> m_installed; //!< by job
    uint32_t m_nextJob{1};
    uint32_t m_payload;
    bool m_reduces;          //!< the wafer's switches reduce (B, D); else broadcasts only
    bool m_serialise{false}; //!< conflicting jobs wait instead of being refused
    std::list<std::pair<FredJob, FredEngine::DoneCallback>> m_waiting; //!< in arrival order
};

} // namespace ns3

#endif /* DLNET_FRED_HELPER_H */
