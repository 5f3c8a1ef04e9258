/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-cost-model.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PlanCostModel");

namespace
{

/// \return value with `digits` significant digits (messages only)
std::string
Short(double value, int digits = 6)
{
    std::ostringstream os;
    os << std::setprecision(digits) << value;
    return os.str();
}

/// Positive doubles order like their bit patterns.
uint64_t
Bits(double value)
{
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

double
FromBits(uint64_t bits)
{
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

} // namespace

std::string
ToString(SyncMode mode)
{
    switch (mode)
    {
        case SyncMode::ALL_REDUCE:
            return "allreduce";
        case SyncMode::PARAMETER_SERVER:
            return "ps";
    }
    return "unknown";
}

SyncMode
ParseSyncMode(const std::string& field, const std::string& text)
{
    return dlnet::ParseChoice(field, text, {"allreduce", "ps"}) == "ps" ? SyncMode::PARAMETER_SERVER
                                                                        : SyncMode::ALL_REDUCE;
}

void
SchedulingProblem::Validate() const
{
    profile.Validate();
    catalogue.Validate();
    profile.CheckAgainst(catalogue);
    if (!(throughputLimit > 0) || !std::isfinite(throughputLimit))
    {
        throw std::invalid_argument("limit: " + dlnet::ShortestText(throughputLimit)
                                    + " must be a finite number of samples/s > 0");
    }
    if (!(samples > 0) || !std::isfinite(samples))
    {
        throw std::invalid_argument("samples: " + dlnet::ShortestText(samples)
                                    + " must be a finite number > 0");
    }
    if (sync != SyncMode::ALL_REDUCE && sync != SyncMode::PARAMETER_SERVER)
    {
        throw std::invalid_argument("sync: must be allreduce or ps");
    }
    if (psType >= catalogue.types.size())
    {
        throw std::invalid_argument("psType: " + std::to_string(psType)
                                    + " is not a catalogue type index (0 .. "
                                    + std::to_string(catalogue.types.size() - 1) + ": "
                                    + dlnet::JoinChoices(catalogue.Names()) + ")");
    }
}

CostModel::CostModel(SchedulingProblem problem)
    : m_problem(std::move(problem))
{
    m_problem.Validate();
    const auto& layers = m_problem.profile.layers;
    const size_t n = layers.size();
    const size_t types = m_problem.catalogue.types.size();
    m_seconds.assign(types, std::vector<double>(n + 1, 0));
    m_parallelSeconds.assign(types, std::vector<double>(n + 1, 0));
    m_syncBytes.assign(n + 1, 0);
    m_embeddingSyncBytes.assign(n + 1, 0);
    m_embeddings.assign(n + 1, 0);
    for (size_t l = 0; l < n; ++l)
    {
        for (size_t t = 0; t < types; ++t)
        {
            m_seconds[t][l + 1] = m_seconds[t][l] + layers[l].seconds[t];
            m_parallelSeconds[t][l + 1]
                = m_parallelSeconds[t][l] + layers[l].seconds[t] * layers[l].parallelFraction;
        }
        m_syncBytes[l + 1] = m_syncBytes[l] + static_cast<double>(layers[l].syncBytes);
        const bool embedding = layers[l].kind == "embedding";
        m_embeddings[l + 1] = m_embeddings[l] + (embedding ? 1 : 0);
        m_embeddingSyncBytes[l + 1]
            = m_embeddingSyncBytes[l] + (embedding ? static_cast<double>(layers[l].syncBytes) : 0);
    }
    // A layer alone in a stage, on 1 or all instances (ET = A + B / k: one of
    // the two is its fastest). Far faster layers would give throughputs that
    // overflow, or costs of 0; a longer stage's time, a difference of the
    // same prefix sums, is not shorter.
    for (uint32_t l = 0; l < n; ++l)
    {
        for (uint32_t t = 0; t < types; ++t)
        {
            for (uint32_t k : {uint32_t{1}, m_problem.catalogue.types[t].available})
            {
                const double thr = StageTime(l, l, t, NO_NEXT, k).throughput;
                if (!(thr <= MAX_THROUGHPUT))
                {
                    throw std::invalid_argument(
                        "profile.layers[" + std::to_string(l) + "].seconds[" + std::to_string(t)
                        + "] (" + dlnet::PrintableText(m_problem.catalogue.types[t].name)
                        + "): " + dlnet::ShortestText(layers[l].seconds[t]) + " s for a batch of "
                        + std::to_string(m_problem.profile.batch) + " samples gives a stage of "
                        + Short(thr) + " samples/s on " + std::to_string(k) + " instance"
                        + (k == 1 ? "" : "s") + ", more than the " + Short(MAX_THROUGHPUT)
                        + " samples/s the cost model takes; give a longer time or a smaller "
                          "batch");
                }
            }
        }
    }
}

const SchedulingProblem&
CostModel::GetProblem() const
{
    return m_problem;
}

uint32_t
CostModel::Layers() const
{
    return m_problem.profile.Size();
}

uint32_t
CostModel::Types() const
{
    return static_cast<uint32_t>(m_problem.catalogue.types.size());
}

PlanStage
CostModel::StageTime(
    uint32_t first, uint32_t last, uint32_t type, uint32_t nextType, uint32_t k) const
{
    if (first > last || last >= Layers() || type >= Types()
        || (nextType != NO_NEXT && nextType >= Types()) || k < 1)
    {
        throw std::invalid_argument(
            "stage: layers " + std::to_string(first) + ".." + std::to_string(last) + " on type "
            + std::to_string(type) + " (next " + std::to_string(nextType) + ") with "
            + std::to_string(k) + " instances is not a stage of " + std::to_string(Layers())
            + " layers and " + std::to_string(Types()) + " types with k >= 1");
    }
    const auto& cat = m_problem.catalogue;
    const ResourceType& rt = cat.types[type];
    const double kd = k;
    PlanStage s;
    s.first = first;
    s.last = last;
    s.type = type;
    s.instances = k;
    const double seconds = m_seconds[type][last + 1] - m_seconds[type][first];
    const double parallel = m_parallelSeconds[type][last + 1] - m_parallelSeconds[type][first];
    s.computeSeconds = (seconds - parallel) + parallel / kd;
    const double syncBits = (m_syncBytes[last + 1] - m_syncBytes[first]) * 8;
    const bool embedding = m_embeddings[last + 1] > m_embeddings[first];
    if (m_problem.sync == SyncMode::PARAMETER_SERVER && embedding)
    {
        // Push the gradients, pull the parameters: each replica's NIC carries
        // S both ways whatever k, once there are enough servers not to limit it.
        // A sparse gradient holds the rows of the samples a replica ran (B / k of
        // each batch); dense gradients are whole whatever the samples.
        const double embeddingBits
            = (m_embeddingSyncBytes[last + 1] - m_embeddingSyncBytes[first]) * 8;
        s.syncSeconds = 2 * (embeddingBits / kd + (syncBits - embeddingBits)) / rt.nicRate;
        const double servers = std::ceil(kd * rt.nicRate / cat.types[m_problem.psType].nicRate);
        s.psServers = servers >= UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(servers);
    }
    else
    {
        s.syncSeconds = k == 1 ? 0 : 2 * (kd - 1) / kd * syncBits / rt.nicRate;
    }
    if (nextType != NO_NEXT)
    {
        const double bits = static_cast<double>(m_problem.profile.layers[last].outputBytes) * 8;
        s.transferSeconds = 2 * bits / (kd * cat.Bandwidth(type, nextType));
    }
    s.stageSeconds = s.computeSeconds + s.syncSeconds + s.transferSeconds;
    s.throughput = static_cast<double>(m_problem.profile.batch) / s.stageSeconds;
    return s;
}

uint32_t
CostModel::MinInstances(
    uint32_t first, uint32_t last, uint32_t type, uint32_t nextType, double throughput) const
{
    // ET(k) = CT + SYNC + DT has the form A + B / k under both sync modes
    // (AllReduce's 2 (k - 1) / k Y is 2 Y - 2 Y / k), so it is monotone in k:
    // either k = 1 is fastest (B <= 0) or ET falls with k. A binary search
    // then returns exactly what a scan of 1 .. available would, in O(log
    // available) even for huge counts.
    auto reaches = [&](uint32_t k)
    {
        return StageTime(first, last, type, nextType, k).throughput >= throughput;
    };
    if (reaches(1))
    {
        return 1;
    }
    const uint32_t available = m_problem.catalogue.types[type].available;
    if (available < 2 || !reaches(available))
    {
        return 0;
    }
    uint32_t lo = 1; // does not reach
    uint32_t hi = available;
    while (hi - lo > 1)
    {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (reaches(mid))
        {
            hi = mid;
        }
        else
        {
            lo = mid;
        }
    }
    return hi;
}

std::vector<PlanStage>
CostModel::Stages(const SchedulingPlan& plan) const
{
    if (plan.size() != Layers())
    {
        throw std::invalid_argument("plan: " + std::to_string(plan.size()) + " types for "
                                    + std::to_string(Layers())
                                    + " layers; a plan names one type per layer");
    }
    for (size_t l = 0; l < plan.size(); ++l)
    {
        if (plan[l] >= Types())
        {
            throw std::invalid_argument("plan[" + std::to_string(l) + "]: type index "
                                        + std::to_string(plan[l]) + " is not in 0 .. "
                                        + std::to_string(Types() - 1) + " ("
                                        + dlnet::JoinChoices(m_problem.catalogue.Names()) + ")");
        }
    }
    std::vector<PlanStage> stages;
    for (uint32_t l = 0; l < plan.size(); ++l)
    {
        if (stages.empty() || stages.back().type != plan[l])
        {
            PlanStage s;
            s.first = l;
            s.type = plan[l];
            stages.push_back(s);
        }
        stages.back().last = l;
    }
    return stages;
}

namespace
{

/// Fill the totals of an evaluation from its provisioned stages. The hourly
/// price adds stage by stage in plan order (the exact scheduler sums in the
/// same order, so both get the same bits).
void
Price(const SchedulingProblem& problem, PlanEvaluation& e)
{
    const auto& types = problem.catalogue.types;
    e.throughput = std::numeric_limits<double>::infinity();
    e.hourlyPrice = 0;
    for (uint32_t i = 0; i < e.stages.size(); ++i)
    {
        const PlanStage& s = e.stages[i];
        e.hourlyPrice += types[s.type].pricePerHour * s.instances
                         + types[problem.psType].pricePerHour * s.psServers;
        if (s.throughput < e.throughput)
        {
            e.throughput = s.throughput;
            e.bottleneck = i;
        }
    }
    e.trainingHours = problem.samples / e.throughput / 3600;
    e.cost = e.trainingHours * e.hourlyPrice;
}

/// \return whether the stages' instances and servers fit the available
/// counts; `usage` gets the count per type
bool
Fits(const SchedulingProblem& problem,
     const std::vector<PlanStage>& stages,
     std::vector<uint64_t>& usage)
{
    const auto& types = problem.catalogue.types;
    usage.assign(types.size(), 0);
    for (const auto& s : stages)
    {
        usage[s.type] += s.instances;
        usage[problem.psType] += s.psServers;
    }
    for (size_t t = 0; t < types.size(); ++t)
    {
        if (usage[t] > types[t].available)
        {
            return false;
        }
    }
    return true;
}

} // namespace

PlanEvaluation
CostModel::Evaluate(const SchedulingPlan& plan) const
{
    PlanEvaluation e;
    e.stages = Stages(plan);
    ++m_evaluations;
    e.plan = plan;
    bool reachable = true;
    for (size_t i = 0; i < e.stages.size() && reachable; ++i)
    {
        PlanStage& s = e.stages[i];
        const uint32_t next = i + 1 < e.stages.size() ? e.stages[i + 1].type : NO_NEXT;
        const uint32_t k = MinInstances(s.first, s.last, s.type, next, m_problem.throughputLimit);
        if (k == 0)
        {
            reachable = false;
            break;
        }
        s = StageTime(s.first, s.last, s.type, next, k);
    }
    std::vector<uint64_t> usage;
    if (reachable && Fits(m_problem, e.stages, usage))
    {
        e.feasible = true;
        Price(m_problem, e);
        return e;
    }
    PlanEvaluation best = BestThroughput(plan);
    std::ostringstream reason;
    reason << "limit " << Short(m_problem.throughputLimit) << " samples/s not reachable: ";
    const auto& types = m_problem.catalogue.types;
    const auto& layers = m_problem.profile.layers;
    if (best.throughput <= 0)
    {
        // Even one instance per stage does not fit: say which type runs out.
        std::vector<PlanStage> ones = Stages(plan);
        for (size_t i = 0; i < ones.size(); ++i)
        {
            const uint32_t next = i + 1 < ones.size() ? ones[i + 1].type : NO_NEXT;
            ones[i] = StageTime(ones[i].first, ones[i].last, ones[i].type, next, 1);
        }
        Fits(m_problem, ones, usage);
        for (size_t t = 0; t < types.size(); ++t)
        {
            if (usage[t] > types[t].available)
            {
                reason << "this plan cannot be provisioned at all: one instance per stage"
                       << (m_problem.sync == SyncMode::PARAMETER_SERVER
                               ? " (and its parameter servers)"
                               : "")
                       << " needs " << usage[t] << " " << types[t].name << " but "
                       << types[t].available << " are available";
                break;
            }
        }
    }
    else
    {
        const PlanStage& s = best.stages[best.bottleneck];
        Fits(m_problem, best.stages, usage);
        reason << "this plan reaches at most " << Short(best.throughput) << " samples/s; stage "
               << best.bottleneck << " (layer" << (s.first == s.last ? " " : "s ")
               << layers[s.first].name;
        if (s.first != s.last)
        {
            reason << ".." << layers[s.last].name;
        }
        reason << " on " << types[s.type].name << ", " << s.instances << " instance"
               << (s.instances == 1 ? "" : "s") << " (the plan uses " << usage[s.type] << " of "
               << types[s.type].available << " " << types[s.type].name << "): compute "
               << Short(s.computeSeconds, 4) << " s, sync " << Short(s.syncSeconds, 4)
               << " s, transfer " << Short(s.transferSeconds, 4) << " s) caps it";
    }
    best.reason = reason.str();
    return best;
}

PlanEvaluation
CostModel::BestThroughput(const SchedulingPlan& plan) const
{
    PlanEvaluation e;
    e.stages = Stages(plan);
    e.plan = plan;
    std::vector<uint64_t> usage;
    // Provision every stage minimally for theta; \return the lowest stage
    // throughput it gives, or 0 when theta is out of reach.
    std::vector<PlanStage> trial = e.stages;
    auto provision = [&](double theta)
    {
        double reached = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < trial.size(); ++i)
        {
            const uint32_t next = i + 1 < trial.size() ? trial[i + 1].type : NO_NEXT;
            const uint32_t k
                = MinInstances(trial[i].first, trial[i].last, trial[i].type, next, theta);
            if (k == 0)
            {
                return 0.0;
            }
            trial[i] = StageTime(trial[i].first, trial[i].last, trial[i].type, next, k);
            reached = std::min(reached, trial[i].throughput);
        }
        return Fits(m_problem, trial, usage) ? reached : 0.0;
    };
    // Feasibility is monotone in theta (every stage's minimal k only grows),
    // and the optimum is a stage throughput batch / ET_i(k): the largest
    // feasible double, found by bisection on the bits of doubles in [0, inf),
    // is that value. A feasible trial jumps straight to the throughput it
    // reaches, which is feasible too. This gives the same answer as a binary
    // search over the sorted candidate throughputs without listing
    // stages x available of them.
    double lowest = provision(0);
    if (lowest <= 0)
    {
        e.throughput = 0;
        return e;
    }
    provision(LargestReached(lowest, provision));
    e.stages = trial;
    Price(m_problem, e);
    return e;
}

double
LargestReached(double lowest, const std::function<double(double)>& reach)
{
    uint64_t lo = Bits(lowest);
    uint64_t hi = Bits(std::numeric_limits<double>::infinity());
    while (hi - lo > 1)
    {
        const uint64_t mid = lo + (hi - lo) / 2;
        const double reached = reach(FromBits(mid));
        if (reached > 0)
        {
            lo = std::min(std::max(mid, Bits(reached)), hi - 1);
        }
        else
        {
            hi = mid;
        }
    }
    return FromBits(lo);
}

uint64_t
CostModel::GetEvaluations() const
{
    return m_evaluations;
}

} // namespace ns3
