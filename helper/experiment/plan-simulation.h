/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_PLAN_SIMULATION_H
#define DLNET_PLAN_SIMULATION_H

#include "simulation-scope.h"

#include "ns3/plan-cost-model.h"
#include "ns3/topology-helper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// The most batches a plan simulation runs (bounds the graph and the run).
constexpr uint32_t MAX_PLAN_BATCHES = 10000;

/**
 * \ingroup dlnet
 * \brief How a provisioned heterogeneous plan is run packet by packet: the
 * cluster it gets and how many batches.
 */
struct PlanSimulationConfig
{
    /// Fabric settings (mtu, delays, switch latency, flow control, spines,
    /// hosts-per-leaf, oversubscription...). Its kind is replaced by the
    /// heterogeneous leaf-spine that gives each instance its type's NIC rate.
    TopologyConfig topology;
    uint32_t batches{8}; //!< batches measured (>= warmup + 2); n - 1 more run after them
                         //!< (n stages) so that the last measured one is in steady state
    uint32_t warmup{2};  //!< first batches left out of the steady-state throughput
    uint32_t seed{1};
    uint64_t run{1};
    Ns3Attributes ns3Attributes;

    /// Throw std::invalid_argument naming the first bad field.
    void Validate() const;
};

/// \ingroup dlnet One stage of a simulated plan, predicted and measured.
struct SimulatedStage
{
    uint32_t stage{0};
    std::string type;
    uint32_t instances{0};
    uint32_t psServers{0};
    double predictedSeconds{0}; //!< the cost model's ET per batch
    double simulatedSeconds{0}; //!< steady-state time per batch a replica's chain takes
    double computeSeconds{0};   //!< measured, per batch, mean over replicas
    double syncSeconds{0};      //!< measured, per batch
    double transferSeconds{0};  //!< measured, per batch (activations out, gradients back)
    double waitSeconds{0};      //!< per batch idle waiting for a neighbour stage
    /// per batch: from the first activation send of the stage's replicas to the last
    /// one's end (the boundary's busy time when the sends overlap; 0 for the last stage)
    double boundarySeconds{0};
};

/// \ingroup dlnet What running a plan on a simulated cluster gave.
struct PlanSimulationResult
{
    double predictedThroughput{0}; //!< samples/s, the cost model's
    double simulatedThroughput{0}; //!< samples/s, steady state (batches after the warm-up)
    double difference{0};          //!< simulated / predicted - 1
    std::vector<SimulatedStage> stages;
    uint32_t ranks{0};          //!< instances (and servers) simulated
    double simulatedSeconds{0}; //!< simulated time of the whole run
    uint64_t events{0};         //!< ns-3 events executed
    std::string network;        //!< the model that carried the messages: packet or flow
    std::string explanation;    //!< what makes the two differ, measured (one paragraph)
};

/**
 * Run a provisioned feasible plan as a pipeline on a simulated heterogeneous
 * cluster through TrainingSimulation (doc/dlnet.rst, "Heterogeneous
 * scheduling"); std::invalid_argument for an infeasible plan or a bad config.
 */
PlanSimulationResult SimulatePlan(const CostModel& model,
                                  const PlanEvaluation& plan,
                                  const PlanSimulationConfig& config);

/**
 * The same for a plan whose stages were timed elsewhere (a test's closed
 * forms): the stages' predicted times and the plan's throughput are taken
 * as given.
 */
PlanSimulationResult SimulatePlan(const SchedulingProblem& problem,
                                  const PlanEvaluation& plan,
                                  const PlanSimulationConfig& config);

} // namespace ns3

#endif /* DLNET_PLAN_SIMULATION_H */
