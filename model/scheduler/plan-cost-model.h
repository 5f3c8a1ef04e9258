/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_PLAN_COST_MODEL_H
#define DLNET_PLAN_COST_MODEL_H

#include "layer-profile.h"
#include "resource-catalogue.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup dlnet How the replicas of a stage synchronise their gradients.
enum class SyncMode : uint8_t
{
    ALL_REDUCE,       //!< ring AllReduce among the stage's replicas, every stage
    PARAMETER_SERVER, //!< stages holding an embedding layer push to and pull from
                      //!< parameter servers; the other stages AllReduce
};

/// \return allreduce or ps
std::string ToString(SyncMode mode);
/// \return the mode named so; std::invalid_argument naming field and "allreduce or ps"
SyncMode ParseSyncMode(const std::string& field, const std::string& text);

/// The highest throughput a layer alone in a stage may reach, samples/s: far
/// above any machine, and far below 1e15, the limit heterps asks for as one
/// no plan reaches
constexpr double MAX_THROUGHPUT = 1e12;

/**
 * \ingroup dlnet
 * \brief A heterogeneous scheduling problem (HeterPS-style): the profile,
 * the catalogue, the throughput limit and how much training to pay for.
 */
struct SchedulingProblem
{
    LayerProfile profile;
    ResourceCatalogue catalogue;
    double throughputLimit{0}; //!< samples/s the plan must reach, > 0
    double samples{0};         //!< samples to train (dataset x epochs), > 0: cost = samples /
                               //!< throughput x hourly price
    SyncMode sync{SyncMode::ALL_REDUCE};
    uint32_t psType{0}; //!< PARAMETER_SERVER: the catalogue type the servers are

    /// Throw std::invalid_argument naming the first bad field (profile, catalogue, limit, ...)
    void Validate() const;
};

/// \ingroup dlnet A scheduling plan: the catalogue type of each layer (size L).
using SchedulingPlan = std::vector<uint32_t>;

/// \ingroup dlnet One pipeline stage of a plan: consecutive layers on one type.
struct PlanStage
{
    uint32_t first{0};         //!< first layer
    uint32_t last{0};          //!< last layer (inclusive)
    uint32_t type{0};          //!< catalogue type
    uint32_t instances{0};     //!< k, its replicas (0 while unprovisioned)
    uint32_t psServers{0};     //!< parameter servers of the problem's psType it uses (PS stages)
    double computeSeconds{0};  //!< CT: sum of layer seconds x ((1 - a) + a / k)
    double syncSeconds{0};     //!< gradient synchronisation per batch
    double transferSeconds{0}; //!< DT: activations out + gradients back over the next boundary
    double stageSeconds{0};    //!< ET = CT + sync + DT
    double throughput{0};      //!< batch / ET, samples/s
};

/**
 * \ingroup dlnet
 * \brief A plan with its provisioning, throughput and cost, or why no
 * provisioning meets the limit.
 */
struct PlanEvaluation
{
    SchedulingPlan plan;
    std::vector<PlanStage> stages; //!< provisioned (feasible), or at the best throughput reachable
    bool feasible{false};          //!< the limit is met within the available counts
    double throughput{0};          //!< samples/s: the slowest stage's
    double hourlyPrice{0};         //!< USD/h: sum of price x instances (servers included)
    double trainingHours{0};       //!< samples / throughput / 3600
    double cost{0};                //!< USD: trainingHours x hourlyPrice (feasible plans)
    uint32_t bottleneck{0};        //!< the stage whose throughput is the plan's
    /// Infeasible: the best throughput this plan reaches within the available
    /// counts (its stages hold that provisioning) and the stage that caps it.
    std::string reason;
};

/**
 * \ingroup dlnet
 * \brief The cost model and provisioning of `doc/dlnet.rst`, "Heterogeneous
 * scheduling", for one problem; every scheduler evaluates plans through it.
 *
 * - Stage time with k replicas: ET(k) = CT(k) + SYNC(k) + DT(k), with
 *   CT(k) = sum over its layers of s_l x ((1 - a_l) + a_l / k);
 *   SYNC(k) = 2 (k - 1) / k x S / nic (ring AllReduce of the stage's sync
 *   bytes S), or under PARAMETER_SERVER for a stage holding an embedding
 *   layer 2 (E / k + D) / nic, a push and a pull of the rows the replica's
 *   own B / k samples touched (E: the embedding layers' sync bytes, which
 *   are per batch) and of the dense layers' whole gradients D, with
 *   m = ceil(k x nic / nic_ps) servers (enough that
 *   the replicas' NICs limit); DT(k) = 2 A / (k x BW(t, t_next)) for the
 *   activations A of its last layer (0 for the last stage).
 * - Throughput: min over stages of batch / ET.
 * - Provisioning: each stage's smallest k in 1 .. available with
 *   batch / ET(k) >= limit (a scan, since ET need not fall with k); the
 *   instances of one type over all stages (and its servers) must not
 *   exceed its available count.
 * - Cost: samples / throughput / 3600 x sum of price x instances.
 *
 * Stage sums use prefix sums: StageTime is O(1), Evaluate O(L + stages x available).
 */
class CostModel
{
public:
    /// Validates the problem (std::invalid_argument naming the field).
    explicit CostModel(SchedulingProblem problem);

    const SchedulingProblem& GetProblem() const;
    uint32_t Layers() const; //!< L
    uint32_t Types() const;  //!< |T|

    /// The value of nextType for a stage that is the last.
    static constexpr uint32_t NO_NEXT = UINT32_MAX;

    /**
     * \return the stage of layers first..last on `type` with k instances
     * followed by a stage on nextType (NO_NEXT: none), timed (psServers set
     * when the stage uses parameter servers)
     */
    PlanStage StageTime(
        uint32_t first, uint32_t last, uint32_t type, uint32_t nextType, uint32_t k) const;

    /**
     * \return the smallest k in 1 .. available of `type` whose stage reaches
     * `throughput`, or 0 when none does (the stage alone, ignoring other stages' use of the type)
     */
    uint32_t MinInstances(
        uint32_t first, uint32_t last, uint32_t type, uint32_t nextType, double throughput) const;

    /// \return the plan's maximal runs of one type, unprovisioned
    std::vector<PlanStage> Stages(const SchedulingPlan& plan) const;

    /**
     * Provision a plan at the problem's limit and price it; std::invalid_argument
     * for a plan of the wrong length or naming a type that is not in the catalogue.
     */
    PlanEvaluation Evaluate(const SchedulingPlan& plan) const;

    /**
     * \return the highest throughput the plan reaches within the available
     * counts (all types together), and the provisioning that does: binary search on
     * the throughput over MinInstances
     */
    PlanEvaluation BestThroughput(const SchedulingPlan& plan) const;

    /// \return evaluations done so far (Evaluate calls; schedulers report it)
    uint64_t GetEvaluations() const;

private:
    SchedulingProblem m_problem;
    // prefix sums per type over layers: seconds, seconds x a, sync bytes
    std::vector<std::vector<double>> m_seconds;
    std::vector<std::vector<double>> m_parallelSeconds;
    std::vector<double> m_syncBytes;
    std::vector<double> m_embeddingSyncBytes; //!< prefix sums of the embedding layers' sync bytes
    std::vector<uint32_t> m_embeddings;       //!< prefix count of embedding layers
    mutable uint64_t m_evaluations{0};
};

/**
 * \return the largest double theta >= lowest at which `reach` holds, for a
 * `reach` monotone in theta (it holds at lowest): reach(theta) > 0 when it
 * holds, and then a value it also holds at, which the search jumps to
 * (theta itself will do). Bisection on the bits of positive doubles, whose
 * order is theirs: at most 64 calls.
 */
double LargestReached(double lowest, const std::function<double(double)>& reach);

} // namespace ns3

#endif /* DLNET_PLAN_COST_MODEL_H */
