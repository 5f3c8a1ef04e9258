/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OMNIREDUCE_HELPER_H
#define OMNIREDUCE_HELPER_H

#include "omnireduce-program.h"
#include "omnireduce.h"

#include "ns3/cluster.h"
#include "ns3/communicator.h"
#include "ns3/topology.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Settings of an OmniReduce job.
 */
struct OmniReduceSettings
{
    uint32_t blockElements{256}; //!< b: float32 per block
    uint32_t messageBlocks{1};   //!< f: blocks fused in one packet (1 to 32)
    uint32_t slots{64};          //!< S: slots, packets in flight per worker
    std::string placement{
        "servers"};                //!< servers (dedicated hosts), colocated (on workers) or switch
    uint32_t aggregators{0};       //!< A; 0: as many as workers (servers, colocated); switch: 1
    Time timeout{MilliSeconds(1)}; //!< worker retransmission timeout (1ns to 10s)
    double threshold{0};           //!< functional mode: zero-block threshold
    uint16_t job{1};               //!< job id
    Time packetTime{0};            //!< aggregator servers: processing time per packet
};

/**
 * \ingroup dlnet
 * \brief What an OmniReduce all-reduce did.
 */
struct OmniReduceJobRecord
{
    Time start;
    Time end;
    std::vector<OmniReduceWorkerRecord> workers; //!< per communicator index
    std::vector<uint32_t> aggregators;           //!< their addresses
    std::vector<uint64_t> aggregatorBytes;       //!< result value bytes each aggregator sent
    uint64_t resultsResent{0};
    /// switch placement, packet level: the switch's index in the cluster -> the most
    /// slots its program had occupied at once (OmniReduceAggregator::GetPeakSlotsOccupied,
    /// read before the program leaves the switch); empty otherwise
    std::map<uint32_t, uint32_t> switchPeakSlots;
};

/**
 * \ingroup dlnet
 * \brief Installs an OmniReduce job (workers and aggregators) and starts it.
 * On a cluster at flow level (Cluster::flow) the job runs as its flow-level
 * twin (OmniReduceFlow): the same checks and records, no packets.
 */
class OmniReduceHelper
{
public:
    /// Called when every worker is done.
    typedef Callback<void, const OmniReduceJobRecord&> DoneCallback;

    /// \return the placements
    static const std::vector<std::string>& Placements();

    /**
     * Install and start now; throws std::invalid_argument for bad settings
     * (naming the field).
     * \param cluster the cluster
     * \param topology its description
     * \param comm the workers
     * \param elements float32 elements of the tensor
     * \param settings the job's settings
     * \param nonZero timing mode: per worker, which blocks hold values
     * \param inputs functional mode: per worker, the tensor (nonZero is then derived)
     * \param done called at the end
     */
    static void Start(const Cluster& cluster,
                      const Topology& topology,
                      const Communicator& comm,
                      uint64_t elements,
                      const OmniReduceSettings& settings,
                      const std::vector<std::vector<bool>>& nonZero,
                      const std::vector<std::vector<float>>& inputs,
                      DoneCallback done);

    /// Throw std::invalid_argument naming the first bad field.
    static void Validate(const OmniReduceSettings& settings,
                         const Topology& topology,
                         const Communicator& comm,
                         uint64_t elements,
                         uint32_t mtu);
};

} // namespace ns3

#endif /* OMNIREDUCE_HELPER_H */
