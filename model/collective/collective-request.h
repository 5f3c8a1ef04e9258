/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_REQUEST_H
#define DLNET_COLLECTIVE_REQUEST_H

#include "collective-schedule.h"
#include "collective-types.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One collective to run.
 */
struct CollectiveRequest
{
    CollectiveOp op{CollectiveOp::ALL_REDUCE}; //!< operation
    /// the step schedule the CollectiveEngine runs (its backend sets it; others ignore it)
    CollectiveAlgorithm algorithm{CollectiveAlgorithm::RING};
    DataType type{DataType::FP32}; //!< element type
    uint64_t bytes{0};             //!< buffer size S (nccl-tests' "size")
    uint32_t root{0};              //!< communicator index of the root (broadcast, reduce)
    uint32_t chunks{0};            //!< pipelining chunks; 0: the engine's Chunks attribute
    uint32_t chunksInFlight{0}; //!< chunks a rank works on at once; 0: the engine's ChunksInFlight
    CollectiveGrid grid;        //!< communicator shape (hierarchical algorithms)
    /// Chunk c enters a step only once chunk c-1 has left it on the same
    /// rank, so that chunks flow through the steps (and through the
    /// dimensions of a hierarchical algorithm) one after another, as in
    /// ASTRA-sim's pipelining; false: chunks in flight run side by side.
    bool staggerChunks{false};
    /// Functional mode: each rank's input (bytes long each); empty: timing mode.
    std::vector<std::vector<uint8_t>> inputs;

    /// Throw std::invalid_argument naming the first bad field.
    void Validate(uint32_t communicatorSize) const;
};

/**
 * \ingroup dlnet
 * \brief What one collective did.
 */
struct CollectiveRecord
{
    uint32_t id{0};           //!< engine-wide id
    std::string communicator; //!< its communicator's name
    CollectiveOp op{CollectiveOp::ALL_REDUCE};
    std::string algorithm; //!< the backend that ran it
    uint64_t bytes{0};
    Time start;                          //!< Start() called
    Time end;                            //!< last rank finished
    std::vector<uint64_t> bytesSent;     //!< per communicator index
    std::vector<uint64_t> bytesReceived; //!< per communicator index
    uint64_t messages{0}; //!< messages sent (in-network backends: packets the workers sent)
    std::vector<std::vector<uint8_t>> outputs; //!< functional mode: each rank's buffer after
    uint64_t retransmissions{0};     //!< in-network backends: packets sent again after a timeout
    double aggregatorUtilisation{0}; //!< in-network: busiest aggregator-to-worker link, busy
                                     //!< fraction of the collective's span
    bool checked{false};             //!< functional: the backend checked the outputs itself
    double maxError{0}; //!< functional, checked: largest |result - exact| of any element
    /// in-network backends whose switch programs leave the switches with the job
    /// (OmniReduce): switch index in the cluster -> the most aggregation slots its
    /// program had occupied at once; empty for the others
    std::map<uint32_t, uint32_t> switchPeakSlots;
    /// in-network backends at packet level (SwitchML, OmniReduce, FRED in-switch): per
    /// communicator index, when the rank's worker (FRED: the NPU) took its last result;
    /// empty otherwise (the step schedules' ranks are timed by their messages; the
    /// flow-level twins end every worker at the job's end)
    std::vector<Time> rankEnd;
};

} // namespace ns3

#endif /* DLNET_COLLECTIVE_REQUEST_H */
