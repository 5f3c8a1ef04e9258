/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_TIMELINE_H
#define DLNET_COLLECTIVE_TIMELINE_H

#include "ns3/cluster.h"
#include "ns3/collective-engine.h"
#include "ns3/fabric-message.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Records the messages a collective's steps send (each endpoint's
 * MessageDelivered trace) and writes them as a Chrome trace-event file.
 *
 * One track (pid) per rank that sent or received; on it a thread per peer and
 * direction ("send to 3", "recv from 3"), and a slice per message from its
 * Send to the delivery of its last byte. Messages of one step to different
 * peers go on different threads, so slices never overlap on a thread unless
 * two steps send to the same peer at once (pipelined chunks).
 *
 * With a CollectiveEngine connected (ConnectSteps) each slice is named after
 * the step it belongs to ("step 3": the sender's step on the send slice, the
 * receiver's on the receive slice) and its args carry the collective, lane and
 * chunk; messages no engine step posted (in-network backends) are named by
 * their size ("send 4096 B").
 */
class CollectiveTimeline
{
public:
    /// Connect to every endpoint of the cluster (before the run).
    void Connect(const Cluster& cluster);

    /// Label the messages with the steps that post them: connect to the engine's StepSend
    /// trace (before the run, before the collective starts).
    void ConnectSteps(Ptr<CollectiveEngine> engine);

    /// Write the trace (after the run); throws std::runtime_error naming the file.
    void Write(const std::string& path) const;

    /// \return the messages recorded (cluster ranks, delivery order)
    std::size_t GetMessages() const
    {
        return m_messages.size();
    }

    /// When one rank finished and how long it waited for the network (RankTimesOf).
    struct RankTimes
    {
        bool known{false}; //!< false: the rank sent and received no message to or from a rank
        Time finish;       //!< delivery of the last of its messages, sent or received
        Time network;      //!< length of the union of [sent, delivered] of its messages
    };

    /// The messages of one rank to and from other ranks (TrafficByRank).
    struct RankTraffic
    {
        bool known{false}; //!< it sent or received a message to or from a rank
        uint64_t bytesSent{0};
        uint64_t bytesReceived{0};
        std::vector<std::pair<Time, Time>> spans; //!< [sent, delivered] of each, delivery order
    };

    /**
     * \param ranks the cluster's ranks
     * \return per cluster rank (ranks entries), in one pass over the messages: the
     *         payload bytes it sent and received and the span of each of its messages
     */
    std::vector<RankTraffic> TrafficByRank(uint32_t ranks) const;

    /**
     * \param traffic a rank's messages (TrafficByRank: one pass for every rank)
     * \param start subtracted from the finish time (the collective's start)
     * \param results in-network jobs of the rank, which send no messages between ranks
     *        (CollectiveRecord::rankEnd): per job [its start, the rank's last result],
     *        counted as a message it received (the rank waits for the network throughout)
     * \return its finish time after start and its time with a message outstanding:
     *         the measure of the union of the intervals [sent, delivered] of every
     *         message it sent or received (between ranks only) and of its results spans
     */
    static RankTimes RankTimesOf(const RankTraffic& traffic,
                                 Time start,
                                 const std::vector<std::pair<Time, Time>>& results = {});

private:
    void Delivered(const FabricMessage& m);
    void StepPosted(const CollectiveEngine::StepSend& send);

    /// A message between cluster ranks.
    struct Message
    {
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
        Time sent;
        Time delivered;
        uint32_t step; //!< index of the step that posted it in m_posted; NO_STEP: none
    };

    static constexpr uint32_t NO_STEP = UINT32_MAX;

    std::map<uint32_t, uint32_t> m_rankOf; //!< endpoint address -> cluster rank
    std::vector<Message> m_messages;
    /// steps of the messages not yet delivered, by (source address << 32 | message id)
    std::unordered_map<uint64_t, CollectiveEngine::StepSend> m_steps;
    /// the steps of the delivered messages that one posted (kept apart: with stats alone
    /// no step is traced, and a message costs 40 B)
    std::vector<CollectiveEngine::StepSend> m_posted;
};

/// \return the length of the union of intervals [first, second] (overlaps counted once)
Time UnionLength(std::vector<std::pair<Time, Time>> spans);

} // namespace ns3

#endif /* DLNET_COLLECTIVE_TIMELINE_H */
