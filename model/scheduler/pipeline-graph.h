/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_PIPELINE_GRAPH_H
#define DLNET_PIPELINE_GRAPH_H

#include "plan-cost-model.h"

#include "ns3/training-graph.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// \ingroup dlnet What a task of a pipeline graph does for its replica.
enum class PipelineRole : uint8_t
{
    FORWARD,    //!< the stage's forward compute of a batch
    BACKWARD,   //!< the stage's backward compute of a batch
    ACTIVATION, //!< a send of activations to a replica of the next stage
    GRADIENT,   //!< a pull of gradients from a replica of the next stage
    SYNC,       //!< gradient synchronisation: the stage's AllReduce, or a push to or
                //!< pull from a parameter server
};

/// \ingroup dlnet One job rank of a pipeline graph: a stage's replica or a parameter server.
struct PipelineRank
{
    uint32_t type{0};    //!< catalogue type
    uint32_t stage{0};   //!< the stage it runs, or the stage whose parameters it serves
    uint32_t index{0};   //!< replica in the stage, or server of the stage
    bool server{false};  //!< a parameter server
    uint64_t first{0};   //!< replicas: first sample of each batch it holds
    uint64_t samples{0}; //!< replicas: samples of each batch it holds
};

/**
 * \ingroup dlnet
 * \brief A provisioned plan as a training graph: the tasks of `batches`
 * iterations on the ranks of the plan's stages and parameter servers, with
 * what each rank and task is (doc/heterps-simulation.md).
 */
struct PipelineGraph
{
    TrainingGraph graph;
    std::vector<PipelineRank> ranks;          //!< per job rank
    std::vector<uint32_t> firstRank;          //!< per stage: its replica 0's rank
    std::vector<std::vector<uint32_t>> chain; //!< per rank: its tasks in order (servers: none)
    std::vector<PipelineRole> roles;          //!< per task
};

/**
 * Turn a provisioned plan into a pipeline of stages with data parallelism
 * inside each (HeterPS-style), so that a run on an idle network takes each
 * replica the cost model's ET per batch:
 *
 * - ranks: stage 0's k_0 replicas, then stage 1's, ...; then the parameter
 *   servers of the stages that have some (PARAMETER_SERVER), stage by stage;
 * - replica r of k holds samples [floor(rB/k), floor((r+1)B/k)) of a batch
 *   and runs CT(k) per batch: a forward of sum s_l f_l ((1-a_l)+a_l/k), a
 *   backward of the rest;
 * - per batch a replica's tasks form one chain: forward; activation SENDs
 *   (pp) to the next stage's replicas whose samples overlap its own (A x
 *   overlap / B bytes, at least 1); later the gradient pulls from them
 *   (pull SENDs, each after that replica's backward); backward; then its
 *   stage's ring AllReduce of the sync bytes (dp, k >= 2) or its pushes to
 *   and pulls from its m servers (S / m each, starting at server r mod m);
 * - 1F1B without flushes (asynchronous updates, PipeDream / HeterPS's
 *   asynchronous parameter servers): stage i of n keeps w_i = n - i batches
 *   in flight, its backward of batch b coming after its forward of b + w_i - 1.
 *
 * Tasks are added in an order in which every dep is earlier and each
 * rank's streams run its chain. std::invalid_argument for batches of 0, a
 * plan without stages or with a stage of 0 instances, stages that do not
 * cover the layers in order, or a type or server count out of range.
 */
PipelineGraph BuildPipelineGraph(const SchedulingProblem& problem,
                                 const PlanEvaluation& plan,
                                 uint32_t batches);

/// \return forward, backward, activation, gradient or sync
std::string ToString(PipelineRole role);

} // namespace ns3

#endif /* DLNET_PIPELINE_GRAPH_H */
