/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "aggregation-backend-util.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetAggregationBackendUtil");

double
BusyFraction(const Cluster& cluster, Ptr<FabricNetDevice> device, double span)
{
    double bytes = cluster.flow ? cluster.flow->GetCarriedBytes(device) : device->GetTxBytes();
    return span > 0 ? bytes * 8.0 / device->GetDataRate().GetBitRate() / span : 0;
}

double
SwitchToHostUtilisation(const Cluster& cluster, double span)
{
    double busiest = 0;
    for (const auto& link : cluster.links)
    {
        if (link.tier == "host")
        {
            busiest = std::max(busiest, BusyFraction(cluster, link.b, span));
        }
    }
    return busiest;
}

std::vector<std::vector<float>>
FloatInputs(std::vector<std::vector<uint8_t>>& inputs)
{
    std::vector<std::vector<float>> floats;
    for (auto& in : inputs)
    {
        floats.emplace_back(in.size() / 4);
        std::memcpy(floats.back().data(), in.data(), in.size());
        std::vector<uint8_t>().swap(in); // one copy at a time
    }
    return floats;
}

} // namespace ns3
