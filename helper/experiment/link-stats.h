/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_LINK_STATS_H
#define DLNET_LINK_STATS_H

#include "ns3/cluster.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief What one directed link (a sending device and its peer) carried in a run.
 *
 * At packet level every counter comes from the sending FabricNetDevice. At
 * flow level (perPacket false) only the bytes and the busy time are known:
 * no packets, queues, drops or credit stalls are modelled there.
 */
struct LinkResult
{
    std::string tier;
    std::string from;
    std::string to;
    double rate{0}; //!< bit/s
    uint64_t txBytes{0};
    uint64_t txPackets{0};
    uint64_t drops{0}; //!< at the sender's queue and the receiver's error model
    uint64_t maxQueueBytes{0};
    double utilisation{0}; //!< tx bytes over what the link could carry in the window
    double busy{0};        //!< s: serializing (packet) or with a flow on it (flow)
    uint64_t maxQueuePackets{0};
    uint64_t creditStalls{0};  //!< idle with packets queued, all waiting for credit
    double creditStallTime{0}; //!< s in such stalls
    /// false at flow level: no packets and no queues, so tx_packets, the queue peaks,
    /// drops and stalls are not known (null); tx_bytes are the messages' bytes on the wire
    bool perPacket{true};
};

/// What one switch did in a run (packet level; at flow level no packet is switched).
struct SwitchResult
{
    std::string name;
    uint64_t forwarded{0};    //!< packets forwarded (FabricSwitch::GetForwardedPackets)
    uint64_t noRouteDrops{0}; //!< packets dropped for want of a route
    /// most aggregation slots occupied at once (SwitchmlProgram and FredSwitchProgram
    /// GetPeakSlotsOccupied, or an OmniReduce job's CollectiveRecord::switchPeakSlots);
    /// false hasSlots: no aggregation program on the switch, or flow level (null)
    uint32_t peakSlots{0};
    bool hasSlots{false};
    bool perPacket{true}; //!< false at flow level: both counts unknown (null)
};

/// What one rank sent and received in a run, and when it finished (stats).
struct RankResult
{
    uint32_t index{0};         //!< communicator index (the wafer: the NPU; training: job rank)
    uint32_t rank{0};          //!< cluster rank
    uint64_t bytesSent{0};     //!< payload bytes it sent
    uint64_t bytesReceived{0}; //!< payload bytes it received
    bool counted{true};        //!< false: the bytes are not known (null)
    /// false: it exchanged no message with another rank and no in-network worker's end is
    /// known (in-network backends at flow level), finish and network unknown (null)
    bool timed{false};
    double finish{0};  //!< s after the start: delivery of the last of its messages
                       //!< (in-network: its worker's last result)
    double network{0}; //!< s with at least one of its messages outstanding (doc/statistics.md)
};

/**
 * \param cluster a cluster after its run
 * \param peakSlots slot peaks of programs no longer on the switches, by switch index
 *        (CollectiveRecord::switchPeakSlots: OmniReduce removes its program when the job ends)
 * \return one row per switch of the cluster, in its order
 */
std::vector<SwitchResult> CollectSwitchStats(const Cluster& cluster,
                                             const std::map<uint32_t, uint32_t>& peakSlots = {});

/**
 * \param cluster a cluster after its run
 * \param window s: the span utilisation is measured over (0: utilisation 0)
 * \return one row per directed link, in the cluster's link order (a to b, then b to a)
 */
std::vector<LinkResult> CollectLinkStats(const Cluster& cluster, double window);

} // namespace ns3

#endif /* DLNET_LINK_STATS_H */
