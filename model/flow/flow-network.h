/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FLOW_NETWORK_H
#define DLNET_FLOW_NETWORK_H

#include "indexed-heap.h"
#include "max-min-solver.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include <cmath>
#include <functional>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class FabricSwitch;

/**
 * \ingroup dlnet
 * \brief The links a flow crosses, with the share of its rate on each.
 */
struct FlowRoute
{
    std::vector<std::pair<uint32_t, double>> uses; //!< (directed link, weight), first hop first
    /// by use: the virtual channel the packet fabric gives it: 0, 1, or SENDER_VC (the
    /// sender's, kept until a torus port sets it); empty: the sender's on every use
    std::vector<uint8_t> vcs;
    static constexpr uint8_t SENDER_VC = 2; //!< the sender's virtual channel
    double latency{0}; //!< s: propagation, switching and the store and forward a flow at the
                       //!< path's bottleneck rate does not account for (see FlowNetwork)
    uint32_t hops{0};  //!< switches crossed (the longest path of a sprayed flow)
};

/**
 * \ingroup dlnet
 * \brief The packets of a message, for the store-and-forward part of its latency.
 */
struct PacketTrain
{
    double packets{0}; //!< how many (0: a long stream)
    double largest{0}; //!< bytes of a full packet, header included
    double last{0};    //!< bytes of the last one, header included
};

/**
 * \ingroup dlnet
 * \brief A flow-level network over a built packet fabric: the same devices,
 * links and forwarding tables, no packets.
 *
 * Every message is a flow over the route its packets would take: each switch's
 * forwarding table, ECMP by FabricSwitch::FlowHash of the same (source,
 * destination, message id), a sprayed message split evenly over the
 * equal-cost ports. Flows share links max-min fairly, traffic classes by
 * strict priority (class 0 first, and within a class virtual channel 1
 * before 0, as a device serves its queues); rates are recomputed when flows
 * start or end, once per instant however many do, and only for the flows that
 * share a link with one that changed, directly or through others (a connected
 * component). With IncrementalSolve: after ends alone, only those at or above
 * the lowest ended rate, reached through such flows; and where flows both start
 * and end at an instant, none when each flow that starts has the links,
 * weights, level and cap of one that ended then (it takes that flow's rate:
 * ReplaceEnded). When flows end, the flows
 * due next end with them while each is due within FinishTolerance of the time
 * it has been sending (the one approximation: without it a large component
 * whose flows end nanoseconds apart re-solves once per end). A message's
 * bytes on the wire (a FabricHeader per packet of at most the Mtu) leave at
 * the flow's rate; it is delivered a fixed latency after its last byte left:
 * propagation, switching latency and one packet's store and forward its
 * packets need beyond the time the flow's bytes take at the path's
 * bottleneck (exactly what a lone message's packets take over links of
 * unequal rates, see StoreAndForward). As at packet level, the messages one
 * endpoint sends to one destination in one class, virtual channel and
 * connection go one after another (a queue pair), different queue pairs
 * share.
 *
 * Lossless fabrics only (no drops, so credits need no model). Not modelled:
 * queueing delay, head-of-line blocking, credit stalls, per-packet
 * interleaving; the attribute SourceLockStep models the first hop of the
 * back-pressure (an endpoint's messages at one level move at the slowest's
 * rate, as a NIC's round robin over a shared credit makes them).
 *
 * In-network protocols build their own flows (StartFlow) from the links of
 * routes (Resolve) and of devices (GetLink): a flow may use any set of links
 * (a reduction tree moves at one rate) and have a cap (a window over a
 * round trip).
 */
class FlowNetwork : public MessageTransport
{
public:
    /// Signature of the FlowDone trace source: flow id, wire bytes, start time.
    typedef void (*FlowDoneTracedCallback)(uint32_t flow, double bytes, Time started);

    static TypeId GetTypeId();
    FlowNetwork();
    ~FlowNetwork() override;

    /**
     * Carry an endpoint's messages from now on (sets its transport).
     * \param endpoint an endpoint set up on its device
     */
    void Attach(Ptr<FabricEndpoint> endpoint);

    // MessageTransport
    void Carry(FabricEndpoint& source,
               const FabricMessage& message,
               uint8_t vc,
               uint32_t connection,
               Callback<void, const FabricMessage&> onDelivered) override;
    const char* GetModelName() const override;

    /**
     * The route of a stream of equal packets (an in-network protocol's), as
     * they would take it.
     * \param src source address (an attached endpoint)
     * \param dst destination address (an attached endpoint)
     * \param msgId the message id (picks the ECMP ports)
     * \param packetBytes bytes of each packet, header included (store and forward)
     * \return the route; throws std::invalid_argument when a switch has no route
     */
    FlowRoute Resolve(uint32_t src, uint32_t dst, uint32_t msgId, double packetBytes);
    /**
     * The route of a message of known packets.
     * \param src source address \param dst destination address \param msgId the message id
     * \param train its packets
     * \return the route; throws std::invalid_argument when a switch has no route
     */
    FlowRoute Resolve(uint32_t src, uint32_t dst, uint32_t msgId, const PacketTrain& train);

    /**
     * The time a train of packets takes over a path of store-and-forward links
     * alone, beyond its bytes at the slowest link's rate (propagation not
     * included): packet k leaves link i once it has left link i-1 and packet
     * k-1 has left link i, so the time is the longest monotone path through
     * the (packet, link) grid of serialisation times. For equal packets of s
     * bytes over links of rates c_i that is s (sum 1/c_i - 1/min c): one
     * packet per link beyond the first only when the first is the slowest.
     * \param rates the links' rates in path order, bytes per second
     * \param train the packets
     * \return seconds
     */
    static double StoreAndForward(const std::vector<double>& rates, const PacketTrain& train);

    /// \param device a sending device \return its directed link (to its peer)
    uint32_t GetLink(Ptr<FabricNetDevice> device);
    /// \param link a link \return its capacity, bytes per second
    double GetCapacity(uint32_t link) const;

    /// A flow of an in-network protocol.
    struct FlowSpec
    {
        std::vector<std::pair<uint32_t, double>> uses; //!< (link, weight) it loads
        double bytes{0};                               //!< bytes it moves at its rate
        uint8_t priority{0};                           //!< traffic class (0 first)
        double cap{MaxMinSolver::NO_CAP};              //!< its largest rate, B/s
        uint8_t vc{0}; //!< virtual channel: within a class, 1 goes before 0
    };

    /**
     * Start a flow now.
     * \param spec the flow
     * \param onSent called when its last byte has left (add a latency yourself)
     * \return its id
     * \throws std::invalid_argument for bytes not finite and >= 0, a cap not a positive
     *         rate, or (a capped flow on no link) an end beyond the simulator's clock:
     *         nothing is started. A flow on links whose end lies beyond the clock is refused
     *         when its rate is solved, from the event that solves it (Update).
     */
    uint32_t StartFlow(const FlowSpec& spec, Callback<void> onSent);

    /**
     * Name the options that set link rates in the remedy of the clock refusal (StartFlow):
     * the flow level cannot know them, the program in hand can (SetProgramOptions).
     * \param options e.g. "link-rate, nvlink-rate"; "" (the default): none named
     */
    static void SetRateOptions(const std::string& options);

    /// \param device a sending device \return bytes that have crossed its link so far
    double GetCarriedBytes(Ptr<FabricNetDevice> device);
    /// \param device a sending device \return time its link has had at least one
    /// active flow (a flow starved by higher priorities counts as active)
    Time GetBusyTime(Ptr<FabricNetDevice> device);
    /// \return messages carried (delivered)
    uint64_t GetMessages() const;
    /// \return rate computations (each over one or more components)
    uint64_t GetSolves() const;
    /// \return the rate computations that took the rates of an earlier, identical problem
    uint64_t GetSolverMemoryHits() const;
    /// \return the rate computations after ends that solved only the flows at or above the
    /// lowest ended rate (IncrementalSolve)
    uint64_t GetIncrementalSolves() const;
    /// \return the updates in which each flow that started took the place of one that ended
    /// with the same links, weights, level and cap, so that nothing was solved
    /// (IncrementalSolve)
    uint64_t GetReplacements() const;
    /// \param bytes the SolverMemory attribute (0: keep no solved problems)
    void SetSolverMemory(uint64_t bytes);
    /// \return the SolverMemory attribute
    uint64_t GetSolverMemory() const;
    /// \return the most flows active at once
    uint32_t GetMaxActiveFlows() const;

protected:
    void DoDispose() override;

private:
    static constexpr uint32_t NONE = 0xffffffff; //!< no index

    /// A directed link: a sending device and its peer.
    struct Link
    {
        const FabricNetDevice* device;
        double capacity;             //!< B/s
        double delay;                //!< s: propagation + the peer's ingress (switch) latency
        FabricSwitch* peerSwitch;    //!< the switch the peer port belongs to, or null
        uint32_t peerSwitchIndex;    //!< its index in m_switches, or NONE
        const FabricNetDevice* peer; //!< the receiving device
        uint32_t peerPort;           //!< the peer's port on peerSwitch, or NONE
        std::vector<uint32_t> flows; //!< active flows on it
        std::vector<double> weights; //!< by entry of flows: that flow's weight on it
        double carried{0};           //!< bytes that finished crossing it
        Time busy;                   //!< closed intervals with flows on it
        Time busySince;              //!< start of the open interval
    };

    /// What the component search marks on a link (apart from Link: read once per flow and
    /// link of every search, a compact array stays in cache).
    struct LinkMark
    {
        uint32_t stamp{0}; //!< the Update that last met it
        uint32_t local{0}; //!< its number in the solve it was last met in
    };

    /// A switch some route crosses: the links out of its ports, found on first use.
    struct SwitchLinks
    {
        FabricSwitch* sw;
        std::vector<uint32_t> portLink; //!< by port: the link, or NONE until first crossed
    };

    /// A route no ECMP hash chose (every switch on it had one port, or sprayed):
    /// the same for every message from its source to its destination.
    struct CachedRoute
    {
        // what every message reads first, then its links inline: a message copies them from
        // here, and a route's own heap block was a cache miss per message
        uint32_t hops{0};
        PacketTrain train; //!< the last message's packets
        double latency{0}; //!< s: its latency
        absl::InlinedVector<std::pair<uint32_t, double>, 4> uses;
        std::vector<uint8_t> vcs; //!< by use: its virtual channel (FlowRoute::vcs)
        std::vector<std::pair<double, std::vector<double>>> paths; //!< (delay, rates) of each
    };

    /// A flow in progress.
    struct Flow
    {
        std::vector<std::pair<uint32_t, double>> uses;
        std::vector<uint32_t> slot; //!< by use: its index in the link's flow list
        double bytes{0};
        double remaining{0};
        double rate{0};
        double cap{MaxMinSolver::NO_CAP};
        Time last;
        Time started;
        Time sendingSince;   //!< when its rate last rose from 0 (FinishTolerance's scale)
        uint8_t priority{0}; //!< solver level: 2 x class + (VC 1 ? 0 : 1), on its first link
        std::vector<uint8_t> usePriority; //!< by use: its level; empty: priority on every use
        bool distinct{false};             //!< no link twice in uses (a route's: Walk merges them)
        uint32_t version{0};
        bool active{false};
        uint32_t pending{NONE}; //!< the message it carries (m_pending), or NONE: onSent
        Callback<void> onSent;
    };

    /// A message waiting for its queue pair, in flight, or waiting for delivery.
    struct Pending
    {
        FabricMessage message;
        Callback<void, const FabricMessage&> onDelivered;
        FlowRoute route;
        uint8_t vc{0};          //!< its virtual channel (the queue pair's)
        uint32_t connection{0}; //!< the sender's connection (the queue pair's)
        uint32_t next{NONE};    //!< the next message of its queue pair
        PacketTrain train;      //!< its packets
        uint32_t flow{NONE};    //!< its flow once it sends
        /// set only for a message queued behind another and for that one (SetTail):
        bool tailSet{false};
        /// its path from the (last) slowest link on, (capacity B/s, delay s) by link; empty if
        /// sprayed
        absl::InlinedVector<std::pair<double, double>, 2> tail;
        std::size_t pathHash{0}; //!< absl::Hash of its path's links
        /// s: when the message of its queue pair before it left each link of that one's tail
        /// (set when it was sent)
        absl::InlinedVector<double, 2> beforeEnds;
        std::size_t beforeHash{0}; //!< that one's pathHash
    };

    /// Queue pair key: source, destination, 2 x class + virtual channel, connection.
    typedef std::tuple<uint32_t, uint32_t, uint32_t, uint32_t> QueueKey;

    /// A queue pair's messages, first to last (linked through Pending::next).
    struct Queue
    {
        uint32_t head;
        uint32_t tail;
    };

    /// When a flow's last byte leaves; flows of the same instant in id order.
    struct Finish
    {
        Time at;
        uint32_t flow;
        bool operator<(const Finish& o) const
        {
            return at != o.at ? at < o.at : flow < o.flow;
        }
    };

    /// A flow that finished: the message it carried, or the callback of StartFlow.
    struct Done
    {
        uint32_t pending;
        Callback<void> onSent;
    };

    void ResolveInto(
        uint32_t src, uint32_t dst, uint32_t msgId, const PacketTrain& train, FlowRoute& route);
    void StartHead(uint32_t pending);
    /// \param uses the flow's links and weights: taken (swapped with a spent list)
    /// \param vcs by use: its virtual channel (FlowRoute::vcs), or null: vc on every use
    uint32_t Start(std::vector<std::pair<uint32_t, double>>& uses,
                   double bytes,
                   uint8_t priority,
                   uint8_t vc,
                   double cap,
                   uint32_t pending,
                   Callback<void> onSent,
                   const std::vector<uint8_t>* vcs = nullptr);
    void MessageSent(uint32_t pending);
    void ScheduleDelivery(uint32_t pending, double latency);
    /**
     * A message's latency when the one before it on its queue pair and path may still hold
     * it: the queue pair's FIFO at every hop, from each link of its tail (after the slowest,
     * where the one before left it at Pending::beforeEnds) its packets cross as a train.
     * Sets the next message's beforeEnds to its own.
     * \param pending the message, whose last byte has just left (with SetTail done)
     * \return s after now: when it is delivered
     */
    double QueuedLatency(const Pending& pending);
    /**
     * Sets a message's Pending::tail and Pending::pathHash.
     * \param pending the message
     * \param uses its path's links, first hop first
     */
    void SetTail(Pending& pending, const std::vector<std::pair<uint32_t, double>>& uses) const;
    void DeliverBatch(uint32_t batch);
    void Deliver(uint32_t pending);
    uint32_t LinkOut(uint32_t sw, uint32_t port);
    void Walk(uint32_t src,
              uint32_t dst,
              uint32_t msgId,
              const PacketTrain& train,
              uint32_t link,
              double share,
              uint8_t vc,
              FlowRoute& route);
    /// \param seconds s, below Time::Max \return the Time, to the nearest tick
    Time ToTime(double seconds) const;
    /// \param t a Time \return it in s
    double ToSeconds(Time t) const;
    void Touch(uint32_t link);
    void Update();
    /**
     * Update after ends alone (IncrementalSolve): only the flows at or above the lowest rate
     * among the ended ones, reached from their links through such flows, are solved again,
     * on what the others leave of each link.
     * \param lowest the lowest rate among the flows that ended
     * \param level their solver level
     * \return false, having solved nothing, when a flow it meets has a lower priority (a
     * higher level) or levels of its own (what it gets depends on what the ended flows'
     * level takes: Update solves the whole component)
     */
    bool UpdateAfterEnds(double lowest, uint8_t level);
    /**
     * Update where the flows that started take the places of those that ended, one to one,
     * each with the same uses, level and cap as its ended flow (a message's next chunk on
     * the same route): the problem is the one last solved, and max-min's rates are unique
     * (flows with the same uses, level and cap share one), so each takes its ended flow's
     * rate and nothing is solved (IncrementalSolve). A flow with levels per use that starts
     * or ends clears m_replaceable (the instant is solved); nothing is recorded under
     * SourceLockStep.
     * When they do not pair up so, nothing changes (Update then solves as usual); when they
     * do, m_dirty and the records are cleared.
     */
    void ReplaceEnded();
    /// \return a key of a flow's uses, level and cap (equal flows, equal keys)
    static uint64_t ReplacementKey(const std::pair<uint32_t, double>* uses,
                                   std::size_t n,
                                   uint8_t level,
                                   double cap);
    /// Forget the flows started and ended since the last Update (ReplaceEnded's records).
    void ClearReplacements();
    /// \param flow a flow \param now the time its bytes are brought up to
    void Advance(Flow& flow, Time now) const;
    /// \return the bytes flow has left to send at now (Advance's, without changing it)
    double RemainingAt(const Flow& flow, Time now) const;
    /// Update: bring m_solveFlows' bytes up to now and add them to the solver, in order
    void AddSolveFlows(Time now);
    /// Update: take the solver's rates for m_solveFlows and schedule their ends
    void TakeRates(Time now);
    /**
     * Give a flow its rate and schedule its end.
     * \param id the flow \param rate its rate \param now the time its bytes are brought up to
     * \param horizon ClockHorizon(now)
     */
    void TakeRate(uint32_t id, double rate, const Time& now, double horizon);
    /// Update with SourceLockStep: a solver flow per endpoint link and level for the
    /// messages, merged uses
    void AddBundles(const std::vector<uint32_t>& flows);
    /// \return the level of the flow's use u: 2 x class, plus 1 on VC 0 (VC 1 is served first)
    /// (in the class: out of line it went through the shared library's PLT, per use of every
    /// solve)
    static uint8_t UseLevel(const Flow& flow, std::size_t u)
    {
        return flow.usePriority.empty() ? flow.priority : flow.usePriority[u];
    }
    /// Ask the cache for a flow's lines: a large component's flows lie all over m_flows, and
    /// the passes over them wait on memory more than they compute.
    void PrefetchFlow(uint32_t flow) const;
    /// How many flows ahead PrefetchFlow runs.
    static constexpr std::size_t PREFETCH_AHEAD = 8;
    /// Bytes of a cache line (x86-64, ARMv8).
    static constexpr uintptr_t CACHE_LINE = 64;
    void OnFinish();
    /// \return whether the flow of this end, due after now, ends now: within FinishTolerance
    /// of the time it has been sending
    bool EndsNow(const Finish& e, Time now) const;
    void Reschedule();
    void Remove(uint32_t flow);

    std::vector<FabricEndpoint*> m_endpoints;          //!< by address
    std::vector<const FabricNetDevice*> m_endpointDev; //!< by address: the endpoint's device
    std::vector<uint32_t> m_endpointLink;              //!< by address: its link, or NONE
    std::unordered_map<const FabricNetDevice*, uint32_t> m_linkOf;
    std::vector<Link> m_links;
    std::vector<LinkMark> m_linkMark; //!< by link
    std::unordered_map<const FabricSwitch*, uint32_t> m_switchOf;
    std::vector<SwitchLinks> m_switches;
    std::vector<Flow> m_flows;
    /// What a component's search reads of a flow, once per flow and link (apart from
    /// m_flows: a compact array stays in cache).
    struct FlowMark
    {
        uint32_t stamp{0};  //!< the Update that last met it
        uint8_t level{0};   //!< Flow::priority
        bool perUse{false}; //!< levels per use (Flow::usePriority not empty)
        double rate{0};     //!< Flow::rate
    };

    std::vector<FlowMark> m_flowMark; //!< by flow
    std::vector<uint32_t> m_freeFlows;
    std::vector<Pending> m_pending;
    std::vector<uint32_t> m_freePending;
    absl::flat_hash_map<QueueKey, Queue> m_queues;
    std::vector<CachedRoute> m_routes;
    /// by source: (destination, its route in m_routes), destinations in order
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_routeIndex;
    uint64_t m_routesGeneration{~uint64_t(0)}; //!< of the switches' tables m_routes holds

    std::vector<uint32_t> m_dirty; //!< links whose flows changed
    bool m_updatePending{false};
    // since the last Update: what changed (IncrementalSolve)
    bool m_startedSinceUpdate{false};                              //!< a flow on links started
    double m_endedLowest{std::numeric_limits<double>::infinity()}; //!< lowest ended rate
    bool m_endedAny{false};                                        //!< a flow on links ended
    uint8_t m_endedLevel{0};   //!< the ended flows' solver level
    bool m_endedLevels{false}; //!< ended flows of two levels, or of levels per use
    bool m_incremental{true};  //!< the attribute IncrementalSolve
    uint64_t m_incrementalSolves{0};
    /// A flow that ended since the last Update, for ReplaceEnded.
    struct EndedFlow
    {
        uint64_t key;   //!< ReplacementKey, set by ReplaceEnded (most records never need one)
        uint32_t begin; //!< its uses in m_endedUses
        uint32_t n;     //!< how many
        uint8_t level;
        double cap;
        double rate; //!< its rate when it ended
    };
    std::vector<EndedFlow> m_endedFlows;
    std::vector<std::pair<uint32_t, double>> m_endedUses; //!< the ended flows' uses, in a row
    std::vector<uint32_t> m_startedFlows;                 //!< flows on links started since
    bool m_replaceable{true};             //!< no flow with levels per use started or ended since
    std::vector<uint32_t> m_endedOrder;   //!< ReplaceEnded: m_endedFlows by key
    std::vector<uint64_t> m_startedKey;   //!< ReplaceEnded: by started flow, its key
    std::vector<uint32_t> m_startedOrder; //!< ReplaceEnded: the started flows by key
    std::vector<double> m_replacedRate;   //!< ReplaceEnded: by started flow, its rate
    std::vector<uint32_t> m_replacing;    //!< ReplaceEnded: the started flows, rates taken
    uint64_t m_replacements{0};
    std::vector<double> m_residual; //!< UpdateAfterEnds: by local link, what the kept flows leave
    uint32_t m_stamp{0};
    MaxMinSolver m_solver;
    IndexedHeap<Finish> m_finishes; //!< by flow: when its last byte leaves at its current rate
    EventId m_finishEvent;
    Time m_finishAt;
    uint32_t m_active{0};
    uint64_t m_carried{0}; //!< messages Carry took

    // scratch, kept warm between calls
    std::vector<uint32_t> m_path;    //!< Walk: the links of the path being walked
    std::vector<double> m_rates;     //!< Walk: their rates
    std::vector<double> m_tailRates; //!< QueuedLatency: the rates from a link on
    bool m_walkHashed{false};        //!< Walk: an ECMP hash chose a port
    std::vector<std::pair<double, std::vector<double>>> m_walkPaths; //!< Walk: (delay, rates)
    std::vector<uint32_t> m_linkQueue;  //!< Update: the component's links
    std::vector<uint32_t> m_solveFlows; //!< Update: its flows
    bool m_sourceLockStep{false};       //!< the attribute SourceLockStep
    double m_finishTolerance{1e-4};     //!< the attribute FinishTolerance
    std::vector<uint32_t> m_solverFlow; //!< Update: each of its flows' solver flow
    /// Update with SourceLockStep: (solver flow, local link, priority, weight) to merge
    struct BundleUse
    {
        uint32_t flow;
        uint32_t link;
        uint8_t priority;
        double weight;
    };

    std::vector<BundleUse> m_bundleUses;
    std::vector<Done> m_done; //!< OnFinish: the flows that finished

    std::vector<std::vector<uint32_t>> m_batches; //!< messages that share a delivery event
    std::vector<uint32_t> m_freeBatches;
    std::vector<std::pair<double, uint32_t>> m_openBatches; //!< (latency, batch) sent at m_openAt
    Time m_openAt{Time::Min()};
    double m_ticksPerSecond; //!< of the simulator's time resolution

    uint64_t m_messages{0};
    uint64_t m_solves{0};
    uint32_t m_maxActive{0};
    TracedCallback<uint32_t, double, Time> m_flowDoneTrace;

public:
    /**
     * \param link a link
     * \return its fixed delay, s: propagation plus the receiving switch's latency
     */
    double GetDelay(uint32_t link) const;

    /**
     * A link that is no device's: a resource flows share as they share a
     * link (an aggregator's processor: capacity in its own units, e.g.
     * packets per second, the weights of the uses in the same units).
     * \param capacity its capacity, units per second (> 0)
     * \return its link number
     */
    uint32_t AddLink(double capacity);

    /**
     * The latency of a stream of equal packets along links they cross one
     * after another, beyond its bytes at the slowest link's rate (as Resolve
     * counts it for a path): every link's delay and the store and forward of
     * StoreAndForward. A node that relays a packet (an endpoint passing it on)
     * stores and forwards it as a switch does.
     * \param links the links, first hop first
     * \param packetBytes each packet's bytes on the wire
     * \return s
     */
    double GetPathLatency(const std::vector<uint32_t>& links, double packetBytes) const;
};

// (inline: called once per flow of every solve; out of line each went through the PLT)
inline Time
FlowNetwork::ToTime(double seconds) const
{
    // Seconds() goes through long double arithmetic; once per flow and solve that shows
    return TimeStep(std::llround(seconds * m_ticksPerSecond));
}

inline double
FlowNetwork::ToSeconds(Time t) const
{
    return double(t.GetTimeStep()) / m_ticksPerSecond;
}

} // namespace ns3

#endif /* DLNET_FLOW_NETWORK_H */
