/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_AGGREGATION_BACKEND_UTIL_H
#define DLNET_AGGREGATION_BACKEND_UTIL_H

#include "ns3/cluster.h"
#include "ns3/collective-request.h"

#include <cstring>
#include <vector>

namespace ns3
{

/// Busy fraction of a device's sending side over a span of seconds.
double BusyFraction(Ptr<FabricNetDevice> device, double span);

/// The busiest switch-to-host link over a span: the switch side of every "host" link.
double SwitchToHostUtilisation(const Cluster& cluster, double span);

/// Functional inputs as float32 tensors (moved out of the byte buffers).
std::vector<std::vector<float>> FloatInputs(std::vector<std::vector<uint8_t>>& inputs);

/**
 * Fill a record from an in-network job's workers: per-member payload bytes,
 * packets, retransmissions, outputs (functional) and the span.
 */
template <typename JobRecord>
void
FillWorkerRecord(CollectiveRecord& record, const JobRecord& job, bool functional)
{
    record.start = job.start;
    record.end = job.end;
    record.bytesSent.clear();
    record.bytesReceived.clear();
    for (const auto& w : job.workers)
    {
        record.bytesSent.push_back(w.bytesUp);
        record.bytesReceived.push_back(w.bytesDown);
        record.messages += w.packetsSent;
        record.retransmissions += w.retransmissions;
        if (functional)
        {
            std::vector<uint8_t> out(w.output.size() * 4);
            std::memcpy(out.data(), w.output.data(), out.size());
            record.outputs.push_back(std::move(out));
        }
    }
}

} // namespace ns3

#endif /* DLNET_AGGREGATION_BACKEND_UTIL_H */
