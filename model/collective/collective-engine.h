/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_ENGINE_H
#define DLNET_COLLECTIVE_ENGINE_H

#include "alpha-beta-model.h"
#include "collective-request.h"
#include "collective-schedule.h"
#include "collective-types.h"
#include "communicator.h"

#include "ns3/callback.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <absl/container/flat_hash_map.h>

#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Runs collectives, written as per-rank step schedules, on the
 * endpoints of a cluster.
 *
 * One executor for every algorithm: a rank runs each lane of a collective
 * step after step; a step posts its sends (which read the buffer then) and
 * completes when all its receives have arrived and been reduced or copied.
 * Messages that arrive for a later step wait until the rank gets there.
 * A communication library's own costs, which the network does not see,
 * are two optional delays (attributes, 0 by default): LaunchLatency before
 * a collective's first step, StepLatency between a step's start and its
 * sends (NCCL's tuning model calls them its base and per-step hardware
 * latencies), NetworkStepLatency instead for a step that sends to another
 * host (SetHosts), as NCCL's model has one latency for its steps inside a
 * node and another for those between nodes. Point-to-point sends
 * (SEND_RECV) take none of them. Several
 * collectives may run at once (each on its communicator's traffic class).
 * The engine owns the receive callbacks of the endpoints it uses.
 *
 * A message's collective, lane and step travel beside it in the simulator
 * (like the envelope of an MPI message), not as bytes on the wire.
 */
class CollectiveEngine : public Object
{
public:
    /// Called once a collective has finished on every rank.
    typedef Callback<void, const CollectiveRecord&> DoneCallback;

    /// One message a step posted (the StepSend trace source).
    struct StepSend
    {
        uint32_t collective; //!< the collective's id (Start's return)
        uint32_t lane;       //!< the lane of the schedule the step belongs to
        uint32_t chunk;      //!< the pipelining chunk of that lane
        uint32_t step;       //!< the sender's step (0 first)
        uint32_t peerStep;   //!< the receiver's step that takes the message
        uint32_t src;        //!< communicator index of the sender
        uint32_t dst;        //!< communicator index of the receiver
        uint32_t srcAddress; //!< cluster address (rank) of the sender
        uint32_t dstAddress; //!< cluster address (rank) of the receiver
        uint32_t msgId;      //!< the sender endpoint's message id (FabricMessage::msgId)
        uint64_t bytes;      //!< payload bytes
    };

    /**
     * Signature of the StepSend trace source.
     * \param send the message and the step that posted it
     */
    typedef void (*StepSendTracedCallback)(const StepSend& send);

    /**
     * Signature of the Done trace source.
     * \param record the finished collective
     */
    typedef void (*DoneTracedCallback)(const CollectiveRecord& record);

    static TypeId GetTypeId();
    CollectiveEngine();
    ~CollectiveEngine() override;

    /**
     * \param endpoints the cluster's endpoints, by rank; their receive callbacks are taken
     */
    void SetEndpoints(const std::vector<Ptr<FabricEndpoint>>& endpoints);

    /**
     * Which ranks share a host (a server: NCCL's node), for NetworkStepLatency.
     * \param hostOfRank the host of each cluster rank, one entry per endpoint
     *        (SetEndpoints first); empty: every rank a host of its own (the default)
     */
    void SetHosts(const std::vector<uint32_t>& hostOfRank);

    /**
     * Start a collective now. Validates first (std::invalid_argument).
     *
     * Functional mode keeps the inputs while the collective runs, plus work
     * buffers (none when no step sends from the input: the inputs become the
     * work buffers); move the request in to keep no copy of the inputs
     * outside the engine. The work buffers become the record's outputs.
     * \param comm the communicator
     * \param request what to run
     * \param done called when every rank has finished
     * \return the collective's id
     */
    uint32_t Start(const Communicator& comm, CollectiveRequest request, DoneCallback done);

    /// \return bytes of input and work buffers the running collectives hold (functional mode)
    uint64_t GetBufferBytes() const;

    /**
     * \param op an operation \param algorithm a concrete algorithm
     * \return the chunks used when neither the request nor the Chunks attribute says:
     *         8 for the pipelined trees and chains, else 1
     */
    static uint32_t DefaultChunks(CollectiveOp op, CollectiveAlgorithm algorithm);

    /**
     * The chunks Start runs a request in (the one rule: estimates and option checks call it
     * too, so that they count the chunks the engine runs).
     * \param request the request (its chunks, op, algorithm, type and bytes)
     * \param chunksAttribute an engine's Chunks attribute (0: none set)
     * \return the request's chunks if set; else 1 for reduce-scatter, all-gather and
     *         all-to-all, which run in one chunk; else the attribute's or DefaultChunks,
     *         at most one per element and at least 1
     */
    static uint32_t ResolvedChunks(const CollectiveRequest& request, uint32_t chunksAttribute = 0);

    /// \return collectives started and not finished
    uint32_t GetRunning() const;

    /// \return the latency attributes' defaults as they are set now (Config::SetDefault),
    ///         what a new engine takes: for predictors that run before the engine exists
    static LibraryLatencies GetDefaultLatencies();

protected:
    void DoDispose() override;

private:
    /// Where a rank is in one lane.
    struct LaneState
    {
        int64_t step{-1};    //!< current step, -1 before the lane starts
        uint32_t pending{0}; //!< receives the current step still awaits
    };

    /// A rank's progress over the chunks.
    struct RankState
    {
        uint32_t nextChunk{0};
        uint32_t activeChunks{0};
        uint32_t chunksDone{0};
        std::vector<uint32_t> lanesLeft; //!< per chunk
        bool starting{false};
    };

    /// A message that arrived before its step.
    struct Early
    {
        uint32_t src; //!< communicator index
        uint64_t offset;
        uint64_t bytes;
        FabricPayload data;
    };

    /// The steps of one request shape: built once, shared by every collective of that shape.
    struct Schedule
    {
        std::vector<CollectiveLane> lanes;
        std::vector<std::vector<uint32_t>> lanesOfChunk;
        std::vector<uint32_t> positionInChunk; //!< by lane
        bool readsInput{false};                //!< a step sends from the input buffer
    };

    /// (lane, rank, step)
    typedef std::tuple<uint32_t, uint32_t, uint32_t> StepKey;

    /// Hash of a StepKey.
    struct StepKeyHash
    {
        std::size_t operator()(const StepKey& k) const
        {
            uint64_t x = (uint64_t(std::get<0>(k)) << 40) ^ (uint64_t(std::get<1>(k)) << 20)
                         ^ std::get<2>(k);
            return std::hash<uint64_t>()(x * 0x9e3779b97f4a7c15ull);
        }
    };

    /// One running collective.
    struct Instance
    {
        uint32_t id;
        Communicator comm;
        CollectiveRequest request;
        DoneCallback done;
        std::shared_ptr<const Schedule> schedule;
        std::vector<RankState> ranks;
        std::vector<std::vector<LaneState>> laneState;                      //!< [lane][rank]
        std::unordered_map<StepKey, std::vector<Early>, StepKeyHash> early; //!< (lane, rank, step)
        /// staggered chunks: (lane, rank) -> (lane of the next chunk, step) waiting for it
        std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> waiting; //!< lane << 32 | rank
        std::vector<std::vector<uint8_t>> work;
        uint32_t ranksDone{0};
        bool delayed{false}; //!< LaunchLatency and StepLatency apply (not to SEND_RECV)
        CollectiveRecord record;
    };

    /// What travels beside a message.
    struct Envelope
    {
        uint32_t instance;
        uint32_t lane;
        uint32_t step; //!< the receiver's step
        uint32_t src;  //!< communicator index of the sender
        uint32_t dst;  //!< communicator index of the receiver
        uint64_t offset;
        uint64_t bytes;
    };

    /// \return the schedule of a resolved request on n ranks (built on first use, then shared)
    std::shared_ptr<const Schedule> ScheduleOf(const CollectiveRequest& request, uint32_t n);
    void Receive(const FabricMessage& message);
    void StartChunks(Instance& inst, uint32_t rank);
    void Enter(Instance& inst, uint32_t lane, uint32_t rank, uint32_t step);
    bool Gated(Instance& inst, uint32_t lane, uint32_t rank, uint32_t step);
    void Wake(Instance& inst, uint32_t lane, uint32_t rank);
    /// A step's message, its payload read when the step posts it.
    struct Outgoing
    {
        CollectiveTransfer transfer;
        FabricPayload data;
    };

    /// \return whether a step of a rank sends to a rank of another host
    bool LeavesHost(const Instance& inst, uint32_t rank, const CollectiveStep& step) const;
    /// Launch: start every rank's first chunks (after LaunchLatency).
    void Launch(uint32_t id);
    void PostSends(
        Instance& inst, uint32_t lane, uint32_t rank, uint32_t index, const CollectiveStep& step);
    /// \return a send's payload as the buffer holds it now (none in timing mode)
    FabricPayload ReadPayload(const Instance& inst,
                              uint32_t rank,
                              const CollectiveStep& step,
                              const CollectiveTransfer& transfer) const;
    /// Send one message of a step and note its envelope.
    void SendOne(Instance& inst,
                 uint32_t lane,
                 uint32_t rank,
                 uint32_t index,
                 uint8_t vc,
                 const CollectiveTransfer& transfer,
                 const FabricPayload& data);
    /// Hand a step's messages to the endpoint (after StepLatency).
    void Transmit(uint32_t id,
                  uint32_t lane,
                  uint32_t rank,
                  uint32_t index,
                  uint8_t vc,
                  const std::vector<Outgoing>& messages);
    void Apply(Instance& inst, uint32_t lane, uint32_t rank, const Early& arrival);
    void LaneDone(Instance& inst, uint32_t lane, uint32_t rank);
    void Finish(uint32_t id);

    std::vector<Ptr<FabricEndpoint>> m_endpoints;
    std::map<uint32_t, Instance> m_instances;
    absl::flat_hash_map<uint64_t, Envelope> m_envelopes; //!< (source address << 32 | message id)
    std::map<CollectiveScheduleKey, std::shared_ptr<const Schedule>>
        m_schedules;                //!< by request shape
    uint32_t m_chunks;              //!< Chunks attribute
    uint32_t m_chunksInFlight;      //!< ChunksInFlight attribute
    Time m_launchLatency;           //!< LaunchLatency attribute
    Time m_stepLatency;             //!< StepLatency attribute
    Time m_networkStepLatency;      //!< NetworkStepLatency attribute
    std::vector<uint32_t> m_hostOf; //!< host of each cluster rank (SetHosts); empty: its own
    uint32_t m_nextId{0};
    CollectiveStep m_stepScratch;  //!< Enter: a step of a lane that makes them on demand
    CollectiveStep m_applyScratch; //!< Apply: likewise

    TracedCallback<const CollectiveRecord&> m_doneTrace;
    TracedCallback<const StepSend&> m_stepSendTrace; //!< StepSend: a step posted a message
};

} // namespace ns3

#endif /* DLNET_COLLECTIVE_ENGINE_H */
