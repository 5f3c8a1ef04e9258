/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAINING_BREAKDOWN_H
#define DLNET_TRAINING_BREAKDOWN_H

#include "ns3/training-graph.h"
#include "ns3/training-simulation.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Where one rank's (or the mean rank's) iteration time goes.
 *
 * Over the span of the iterations measured (IterationSeconds), every instant of a rank is
 * counted once, first match wins: compute (its compute stream busy); exposed
 * communication of a dimension (a task of that dimension in progress on the
 * rank, sends counted on both ends; dimensions in the order TP, EP, PP, WS,
 * DP); pipeline bubble (nothing in progress, in a job with pp > 1); idle
 * (nothing in progress otherwise). So compute + exposed + bubble + idle =
 * the iteration time.
 */
struct TrainingBreakdown
{
    double iterationSeconds{0}; //!< mean over the iterations measured
    double computeSeconds{0};
    std::array<double, TRAINING_DIMENSIONS> exposedSeconds{}; //!< by TrainingDimension
    std::array<double, TRAINING_DIMENSIONS> commSeconds{};    //!< busy, overlapped or not
    double bubbleSeconds{0};
    double idleSeconds{0};
};

/**
 * \param graph the job's graph \param runs its task runs
 * \param pipelined the job has more than one pipeline stage
 * \param firstIteration the first measured iteration (1 leaves out a warm-up)
 * \return per job rank, the breakdown of iterations firstIteration.. (seconds per iteration)
 */
std::vector<TrainingBreakdown> ComputeBreakdown(const TrainingGraph& graph,
                                                const std::vector<TrainingTaskRun>& runs,
                                                bool pipelined,
                                                uint32_t firstIteration);

/// \return the mean of the ranks' breakdowns
TrainingBreakdown MeanBreakdown(const std::vector<TrainingBreakdown>& ranks);

/**
 * Iteration i ends when its last task ends (finishDelay included); it
 * lasts from the end of iteration i-1 (iteration 0: from time 0, when the
 * job started), so overlapping iterations are not counted twice.
 * \return seconds of every iteration
 */
std::vector<double> IterationSeconds(const TrainingGraph& graph,
                                     const std::vector<TrainingTaskRun>& runs);

} // namespace ns3

#endif /* DLNET_TRAINING_BREAKDOWN_H */
