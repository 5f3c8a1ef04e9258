/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "link-stats.h"

#include "ns3/fred-switch-program.h"
#include "ns3/log.h"
#include "ns3/switchml-program.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetLinkStats");

std::vector<LinkResult>
CollectLinkStats(const Cluster& cluster, double window)
{
    std::vector<LinkResult> links;
    links.reserve(2 * cluster.links.size());
    for (const auto& link : cluster.links)
    {
        for (int dir = 0; dir < 2; ++dir)
        {
            Ptr<FabricNetDevice> tx = dir == 0 ? link.a : link.b;
            Ptr<FabricNetDevice> rx = dir == 0 ? link.b : link.a;
            LinkResult l;
            l.tier = link.tier;
            l.from = dir == 0 ? link.from : link.to;
            l.to = dir == 0 ? link.to : link.from;
            l.rate = tx->GetDataRate().GetBitRate();
            if (cluster.flow)
            {
                // no packets crossed the devices: the flow network's bytes per link
                // (lossless: nothing dropped; packets and queues not modelled)
                l.perPacket = false;
                l.txBytes = std::llround(cluster.flow->GetCarriedBytes(tx));
                l.busy = cluster.flow->GetBusyTime(tx).GetSeconds();
            }
            else
            {
                l.txBytes = tx->GetTxBytes();
                l.txPackets = tx->GetTxPackets();
                l.drops = tx->GetQueueDrops() + rx->GetRxErrorDrops();
                l.maxQueueBytes = tx->GetMaxQueuedBytes();
                l.maxQueuePackets = tx->GetMaxQueuedPackets();
                l.busy = tx->GetBusyTime().GetSeconds();
                l.creditStalls = tx->GetCreditStalls();
                l.creditStallTime = tx->GetCreditStallTime().GetSeconds();
            }
            // the few acknowledgements or credits a link still carries
            // after the last delivery may not lift it above fully busy
            l.utilisation = window > 0 ? std::min(1.0, l.txBytes * 8.0 / (l.rate * window)) : 0;
            links.push_back(l);
        }
    }
    return links;
}

std::vector<SwitchResult>
CollectSwitchStats(const Cluster& cluster, const std::map<uint32_t, uint32_t>& peakSlots)
{
    std::vector<SwitchResult> switches;
    for (std::size_t i = 0; i < cluster.switches.size(); ++i)
    {
        SwitchResult s;
        s.name = i < cluster.switchNames.size() ? cluster.switchNames[i] : std::to_string(i);
        s.perPacket = !cluster.flow;
        s.forwarded = cluster.switches[i]->GetForwardedPackets();
        s.noRouteDrops = cluster.switches[i]->GetNoRouteDrops();
        // at flow level a program sees no packet: its peak would read 0
        for (uint32_t k = 0; s.perPacket && k < cluster.switches[i]->GetNPrograms(); ++k)
        {
            Ptr<SwitchProgram> program = cluster.switches[i]->GetProgram(k);
            if (auto p = DynamicCast<SwitchmlProgram>(program))
            {
                s.hasSlots = true;
                s.peakSlots = std::max(s.peakSlots, p->GetPeakSlotsOccupied());
            }
            if (auto p = DynamicCast<FredSwitchProgram>(program))
            {
                s.hasSlots = true;
                s.peakSlots = std::max(s.peakSlots, p->GetPeakSlotsOccupied());
            }
        }
        auto gone = peakSlots.find(i);
        if (gone != peakSlots.end())
        {
            s.hasSlots = true;
            s.peakSlots = std::max(s.peakSlots, gone->second);
        }
        switches.push_back(s);
    }
    return switches;
}

} // namespace ns3
