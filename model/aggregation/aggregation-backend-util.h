/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_AGGREGATION_BACKEND_UTIL_H
#define DLNET_AGGREGATION_BACKEND_UTIL_H

#include "ns3/cluster.h"
#include "ns3/collective-request.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace ns3
{

/// Busy fraction of a device's sending side over a span of seconds (at
/// flow level: the bytes the flows put on its link).
double BusyFraction(const Cluster& cluster, Ptr<FabricNetDevice> device, double span);

/// The busiest switch-to-host link over a span: the switch side of every "host" link.
double SwitchToHostUtilisation(const Cluster& cluster, double span);

/// Functional inputs as float32 tensors (moved out of the byte buffers).
std::vector<std::vector<float>> FloatInputs(std::vector<std::vector<uint8_t>>& inputs);

/**
 * Fill a record from an in-network job's workers: per-member payload bytes,
 * packets, retransmissions, outputs (functional), the span and, when the
 * workers' end times are their own (workerTimes: packet level), each
 * member's end (CollectiveRecord::rankEnd).
 */
template <typename JobRecord>
void
FillWorkerRecord(CollectiveRecord& record, const JobRecord& job, bool functional, bool workerTimes)
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
        if (workerTimes)
        {
            record.rankEnd.push_back(w.end);
        }
        if (functional)
        {
            std::vector<uint8_t> out(w.output.size() * 4);
            std::memcpy(out.data(), w.output.data(), out.size());
            record.outputs.push_back(std::move(out));
        }
    }
}

/**
 * The job barrier of an in-network job: `progress` (a std::shared_ptr to a
 * struct with record {start, end, workers}, left and done, and a
 * Release(Progress&) found beside it) waits for every worker. Start counts
 * the workers in and releases a job that never finishes with the
 * simulator; WorkerDone files a worker's record and, for the last one, lets
 * `finish` add the job's own counts, then frees the job and reports outside
 * the worker's call (the report may start the next job on the same endpoints).
 */
template <typename Progress, typename Done>
void
StartJobBarrier(const std::shared_ptr<Progress>& progress, uint32_t workers, Done done)
{
    progress->record.start = Simulator::Now();
    progress->record.workers.resize(workers);
    progress->left = workers;
    progress->done = done;
    Simulator::ScheduleDestroy(
        [progress]()
        {
            Release(*progress);
        });
}

/// \copydoc StartJobBarrier
template <typename Progress, typename WorkerRecord, typename Finish>
void
WorkerDone(const std::shared_ptr<Progress>& progress,
           uint32_t i,
           const WorkerRecord& r,
           Finish finish)
{
    progress->record.workers[i] = r;
    progress->record.end = std::max(progress->record.end, r.end);
    if (--progress->left > 0)
    {
        return;
    }
    finish(*progress);
    Simulator::ScheduleNow(
        [progress]()
        {
            Release(*progress);
            if (!progress->done.IsNull())
            {
                progress->done(progress->record);
            }
        });
}

} // namespace ns3

#endif /* DLNET_AGGREGATION_BACKEND_UTIL_H */
