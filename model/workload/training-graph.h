/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAINING_GRAPH_H
#define DLNET_TRAINING_GRAPH_H

#include "ns3/collective-types.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * The parallel dimensions of a training job. Each has its own
 * communication stream on every rank, its own collective backend and its
 * own traffic class (TrainingSimulation).
 */
enum class TrainingDimension : uint8_t
{
    TP, //!< tensor (model) parallelism
    PP, //!< pipeline parallelism: activations and their gradients between stages
    DP, //!< data parallelism: gradient reduction, ZeRO gathers
    EP, //!< expert parallelism: mixture-of-experts AllToAll; also DLRM's embedding AllToAll
    WS, //!< weight streaming from the I/O controllers of a wafer
};

/// The most tasks a training graph may hold (about 1 GiB of tasks): a
/// plan or a file that needs more is refused, so that no input can exhaust memory.
constexpr uint32_t MAX_TRAINING_TASKS = 1u << 23;

/// Number of TrainingDimension values.
constexpr uint32_t TRAINING_DIMENSIONS = 5;

/// \return tp, pp, dp, ep or ws
std::string ToString(TrainingDimension d);
/// \return every dimension's name, in enum order
const std::vector<std::string>& TrainingDimensionNames();
/// \return the dimension named so; std::invalid_argument naming field and the names otherwise
TrainingDimension ParseTrainingDimension(const std::string& field, const std::string& text);

/// \ingroup dlnet What a training task does.
enum class TrainingTaskKind : uint8_t
{
    COMPUTE,    //!< runs `duration` on the compute stream of each of its ranks (several:
                //!< in lock step, starting once every one is free)
    COLLECTIVE, //!< a collective over `ranks` (communicator order) on the dimension's stream
    SEND,       //!< `bytes` from ranks[0] to ranks[1] on the sender's dimension stream (the
                //!< receiver's when `pull`, none when `detached`; also the sender's compute
                //!< stream when `blocking`)
    STREAM,     //!< `bytes` streamed from I/O controllers to every rank of `ranks` (WS)
    DELAY,      //!< waits `duration` on no stream (a fixed latency, e.g. a host-side step)
};

/// \return compute, collective, send, stream or delay
std::string ToString(TrainingTaskKind kind);

/// \ingroup dlnet Which part of the iteration a task belongs to (for breakdowns and traces).
enum class TrainingPhase : uint8_t
{
    FORWARD,
    BACKWARD,  //!< input and weight gradients
    RECOMPUTE, //!< a forward run again in backward (activation recomputation)
    OPTIMIZER, //!< the parameter update
    OTHER,
};

/// \return forward, backward, recompute, optimizer or other
std::string ToString(TrainingPhase phase);

/**
 * \ingroup dlnet
 * \brief One node of a training iteration's dependency graph.
 *
 * Ranks are the job's own (0 .. ranks-1); the simulation maps them to
 * cluster ranks. A task starts once every task in `deps` has finished and
 * it has reached the head of each of its streams: on each rank a stream runs
 * its tasks one at a time in the order they were added to the graph (as a
 * CUDA stream does). COMPUTE occupies the compute stream of each of its
 * ranks (usually one; several compute the same time in lock step, as the
 * tensor-parallel shards of a layer do);
 * COLLECTIVE the dimension's stream of every member; SEND the dimension's
 * stream of the sender only (the receiver posts no work: its consumer
 * depends on the SEND), or of the receiver only when `pull` is set, or no
 * stream when `detached` or `batched` is set (and, when `blocking` is set
 * without `batched`, the sender's compute stream too); STREAM the WS stream of every receiver;
 * DELAY none.
 */
struct TrainingTask
{
    TrainingTaskKind kind{TrainingTaskKind::COMPUTE};
    std::string label;                                  //!< e.g. "fwd L3 mb2" (traces)
    std::vector<uint32_t> ranks;                        //!< see the kinds
    TrainingDimension dimension{TrainingDimension::DP}; //!< communication kinds: stream and backend
    CollectiveOp op{CollectiveOp::ALL_REDUCE};          //!< COLLECTIVE
    DataType type{DataType::FP16};                      //!< COLLECTIVE: element type
    uint64_t bytes{0}; //!< COLLECTIVE: buffer size (nccl-tests' S); SEND; STREAM per rank
    Time duration;     //!< COMPUTE, DELAY
    /// The task counts as finished this long after its work ends (ASTRA-sim's
    /// update time after a layer's collective); its stream is free at once.
    Time finishDelay;
    std::vector<uint32_t> deps; //!< indices of earlier tasks
    TrainingPhase phase{TrainingPhase::OTHER};
    int32_t layer{-1};      //!< model layer, -1 if none
    int32_t microbatch{-1}; //!< -1 if none
    uint32_t iteration{0};  //!< 0-based
    std::string group;      //!< communicator name in records ("dp0", "tp3", ...)
    /// SEND only: the transfer occupies the receiver's dimension stream instead of
    /// the sender's (a receiver-driven transfer: an RPC reply the receiver waits
    /// for, a parameter-server pull), so a sender serving many receivers does
    /// not serialise them and a receiver's pulls queue behind its own work.
    bool pull{false};
    /// SEND only: the transfer occupies no stream (one of many an RPC library
    /// runs at once in the background, such as a replica's pushes to every
    /// parameter-server shard); only its deps order it, and the network
    /// shares the links among the transfers in flight.
    bool detached{false};
    /// SEND only (neither pull nor detached): the transfer also occupies the
    /// sender's compute stream, so the sender computes nothing else until it
    /// has completed (a synchronous send, as Megatron-LM's pipeline
    /// messages: batch_isend_irecv, wait on every request, then
    /// torch.cuda.synchronize()).
    bool blocking{false};
    /// SEND only, with `blocking`: posted in one batch with the sender's
    /// blocking SEND added just before it (Megatron-LM's batch_isend_irecv of
    /// a step's two messages, one to each neighbouring stage). It occupies no
    /// stream, so the two go out together and share the sender's links;
    /// under SendRendezvous it waits for its own receiver as any blocking
    /// send. The sender's next compute must list it in `deps` (the stream
    /// does not order them).
    bool batched{false};
};

/**
 * \ingroup dlnet
 * \brief A training job as data: the tasks of every rank for some
 * iterations, run by one executor (TrainingSimulation), whatever produced
 * them (the plan generator or an imported workload).
 */
struct TrainingGraph
{
    std::string name;                //!< the model or the imported file
    uint32_t ranks{0};               //!< job ranks
    uint32_t iterations{1};          //!< tasks carry iteration 0 .. iterations-1
    uint64_t samplesPerIteration{0}; //!< global batch (throughput); 0 if unknown
    uint64_t tokensPerSample{0};     //!< sequence length (tokens/s); 0 if not a sequence model
    /// FLOPs the devices run in one iteration, all ranks, recomputation included (HFU;
    /// Megatron-LM's count); 0 if unknown
    double flopsPerIteration{0};
    /// the model's FLOPs of one iteration, all ranks, without recomputation (MFU); 0 if unknown
    double modelFlopsPerIteration{0};
    std::vector<TrainingTask> tasks;

    /**
     * Append a task (its deps must be earlier tasks); std::invalid_argument
     * when the graph already holds MAX_TRAINING_TASKS.
     * \return its index
     */
    uint32_t Add(TrainingTask task);

    /**
     * Throw std::invalid_argument naming the first bad task (index and
     * label) and field: a rank not below `ranks`, a dep not earlier, a
     * collective with a rank twice or fewer than 2 members, a send to
     * itself, zero bytes, a negative duration, an iteration not below
     * `iterations`, `pull` on a task that is not a SEND, `detached` on a
     * pull or a task that is not a SEND, `blocking` on a pull, a detached
     * send or a task that is not a SEND.
     */
    void Validate() const;
};

} // namespace ns3

#endif /* DLNET_TRAINING_GRAPH_H */
