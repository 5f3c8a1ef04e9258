/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCHML_HELPER_H
#define SWITCHML_HELPER_H

#include "switchml-program.h"
#include "switchml-worker.h"

#include "ns3/cluster.h"
#include "ns3/communicator.h"
#include "ns3/topology.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Settings of a SwitchML job.
 */
struct SwitchmlSettings
{
    uint32_t elementsPerPacket{256};  //!< k: 64 or 256 int32 values per packet
    uint32_t window{256};             //!< slots of the pool: outstanding packets per worker
    Time timeout{MilliSeconds(1)};    //!< worker retransmission timeout
    uint16_t job{1};                  //!< job id (several jobs share a switch's slots)
    std::string windowName{"window"}; //!< the window in messages: the option that set it
};

/**
 * \ingroup dlnet
 * \brief What a SwitchML all-reduce did.
 */
struct SwitchmlJobRecord
{
    Time start;                                //!< first worker started
    Time end;                                  //!< last worker had every result
    std::vector<SwitchmlWorkerRecord> workers; //!< per communicator index
    uint64_t resultsResent{0};                 //!< by the switches, to workers that repeated
};

/**
 * \ingroup dlnet
 * \brief Installs SwitchML jobs on a star (its switch aggregates) or a
 * leaf-spine (each leaf aggregates its rack, one spine aggregates the
 * leaves and the results come back down) and runs their all-reduce. On a
 * cluster at flow level (Cluster::flow) the job runs as its flow-level twin
 * (SwitchmlFlow): the same checks, slots and records, no packets.
 */
class SwitchmlHelper
{
public:
    /// Called when every worker of the job is done.
    typedef Callback<void, const SwitchmlJobRecord&> DoneCallback;

    /**
     * Install a job and start it now. Throws std::invalid_argument for a
     * topology without aggregating switches, a bad setting or a pool that
     * does not fit.
     * \param cluster the cluster (built from topology)
     * \param topology the cluster's topology (its aggregation tree)
     * \param comm the workers
     * \param elements float32 elements of the tensor
     * \param settings the job's settings
     * \param inputs functional mode: per worker, the tensor; empty: timing mode
     * \param done called at the end
     * \return the group address of the job
     */
    static uint32_t Start(const Cluster& cluster,
                          const Topology& topology,
                          const Communicator& comm,
                          uint64_t elements,
                          const SwitchmlSettings& settings,
                          const std::vector<std::vector<float>>& inputs,
                          DoneCallback done);

    /// \return the address of a job's group
    static uint32_t GroupAddress(uint16_t job);
};

} // namespace ns3

#endif /* SWITCHML_HELPER_H */
