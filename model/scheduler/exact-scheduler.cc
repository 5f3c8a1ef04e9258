/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The exact optimum of the cost model (a label-setting dynamic programme over
// the layer chain) and exhaustive enumeration, which checks it on small cases.
// Method and proof of exactness: doc/heterps-cost-model.md, "Exact optimum".

#include "plan-scheduler.h"

#include "ns3/log.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ExactScheduler");

namespace
{

constexpr double INF = std::numeric_limits<double>::infinity();

/**
 * Labels over positions: a label at (s, t) is a prefix plan of layers
 * 0 .. s-1 whose next stage starts at layer s on type t. Every stage of the
 * prefix is provisioned already, because a stage's time depends only on its
 * own layers, its type and the next stage's type, and that is fixed once the
 * next stage's type is.
 */
class LabelSearch
{
public:
    explicit LabelSearch(const CostModel& model)
        : m_model(model)
        , m_problem(model.GetProblem())
        , m_layers(model.Layers())
        , m_types(model.Types())
    {
    }

    /**
     * The cheapest feasible plan, beating `plan` (cost, throughput) under
     * IsBetter's order, or false when none does.
     */
    bool Cheapest(SchedulingPlan& plan, double& cost, double& throughput)
    {
        Reset();
        const double limit = m_problem.throughputLimit;
        bool improved = false;
        for (uint32_t s = 0; s < m_layers; ++s)
        {
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const std::vector<uint32_t> bucket = PruneCheapest(Bucket(s, t), cost);
                for (uint32_t id : bucket)
                {
                    if (Bound(id) > cost)
                    {
                        continue; // the incumbent improved since the prune
                    }
                    for (uint32_t e = s + 1; e <= m_layers; ++e)
                    {
                        // Without its transfer a longer stage is only slower:
                        // once no k reaches the limit, no longer stage will.
                        const uint32_t alone
                            = m_model.MinInstances(s, e - 1, t, CostModel::NO_NEXT, limit);
                        if (alone == 0)
                        {
                            break;
                        }
                        if (e == m_layers)
                        {
                            const PlanStage st
                                = m_model.StageTime(s, e - 1, t, CostModel::NO_NEXT, alone);
                            double price;
                            double thr;
                            if (!Extend(id, st, price, thr))
                            {
                                continue;
                            }
                            const double c = m_problem.samples / thr / 3600 * price;
                            if (c > cost || (c == cost && thr < throughput))
                            {
                                continue;
                            }
                            SchedulingPlan candidate = Prefix(id);
                            candidate.resize(m_layers, t);
                            if (c == cost && thr == throughput && !(candidate < plan))
                            {
                                continue;
                            }
                            plan = candidate;
                            cost = c;
                            throughput = thr;
                            improved = true;
                            continue;
                        }
                        for (uint32_t next = 0; next < m_types; ++next)
                        {
                            if (next == t)
                            {
                                continue;
                            }
                            const uint32_t k = m_model.MinInstances(s, e - 1, t, next, limit);
                            if (k == 0)
                            {
                                continue;
                            }
                            const PlanStage st = m_model.StageTime(s, e - 1, t, next, k);
                            double price;
                            double thr;
                            if (!Extend(id, st, price, thr)
                                || m_problem.samples / thr / 3600 * price > cost)
                            {
                                continue;
                            }
                            Push(e, next, id, price, thr);
                        }
                    }
                }
            }
        }
        return improved;
    }

    /**
     * \return whether some plan is provisioned within the available counts
     * at throughput theta; `plan` gets the first one found or, with
     * `smallest`, the lexicographically smallest of them (a full search)
     */
    bool FeasibleAt(double theta, SchedulingPlan& plan, bool smallest = false)
    {
        Reset();
        bool found = false;
        for (uint32_t s = 0; s < m_layers; ++s)
        {
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const std::vector<uint32_t> bucket = PruneUsage(Bucket(s, t), smallest);
                for (uint32_t id : bucket)
                {
                    for (uint32_t e = s + 1; e <= m_layers; ++e)
                    {
                        const uint32_t alone
                            = m_model.MinInstances(s, e - 1, t, CostModel::NO_NEXT, theta);
                        if (alone == 0)
                        {
                            break;
                        }
                        double price;
                        double thr;
                        if (e == m_layers)
                        {
                            const PlanStage st
                                = m_model.StageTime(s, e - 1, t, CostModel::NO_NEXT, alone);
                            if (Extend(id, st, price, thr))
                            {
                                SchedulingPlan candidate = Prefix(id);
                                candidate.resize(m_layers, t);
                                if (!found || candidate < plan)
                                {
                                    plan = candidate;
                                }
                                found = true;
                                if (!smallest)
                                {
                                    return true;
                                }
                            }
                            continue;
                        }
                        for (uint32_t next = 0; next < m_types; ++next)
                        {
                            const uint32_t k
                                = next == t ? 0 : m_model.MinInstances(s, e - 1, t, next, theta);
                            if (k > 0
                                && Extend(id, m_model.StageTime(s, e - 1, t, next, k), price, thr))
                            {
                                Push(e, next, id, price, thr);
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    /// \return labels created by the last search (the bench reports it)
    size_t LabelCount() const
    {
        return m_labels.size();
    }

private:
    struct Label
    {
        double price;      //!< USD/h of the prefix's stages and servers
        double throughput; //!< the slowest prefix stage's samples/s
        int64_t parent;    //!< the label the last prefix stage started from, -1 at the root
        uint32_t position; //!< s
        uint32_t type;     //!< t
    };

    void Reset()
    {
        m_labels.clear();
        m_usage.clear();
        m_buckets.assign(static_cast<size_t>(m_layers) * m_types, {});
        m_scratch.assign(m_types, 0);
        for (uint32_t t = 0; t < m_types; ++t)
        {
            m_labels.push_back({0, INF, -1, 0, t});
            m_usage.insert(m_usage.end(), m_types, 0);
            Bucket(0, t).push_back(t);
        }
    }

    std::vector<uint32_t>& Bucket(uint32_t s, uint32_t t)
    {
        return m_buckets[static_cast<size_t>(s) * m_types + t];
    }

    const uint64_t* Usage(uint32_t id) const
    {
        return &m_usage[static_cast<size_t>(id) * m_types];
    }

    /// Add the provisioned stage to label id's prefix: m_scratch gets the
    /// usage, price and throughput the totals; false when it does not fit.
    bool Extend(uint32_t id, const PlanStage& st, double& price, double& throughput)
    {
        const auto& types = m_problem.catalogue.types;
        std::memcpy(m_scratch.data(), Usage(id), m_types * sizeof(uint64_t));
        m_scratch[st.type] += st.instances;
        m_scratch[m_problem.psType] += st.psServers;
        if (m_scratch[st.type] > types[st.type].available
            || m_scratch[m_problem.psType] > types[m_problem.psType].available)
        {
            return false;
        }
        // The same expression, in the same order, as CostModel::Evaluate's sum.
        price = m_labels[id].price
                + (types[st.type].pricePerHour * st.instances
                   + types[m_problem.psType].pricePerHour * st.psServers);
        throughput = std::min(m_labels[id].throughput, st.throughput);
        return true;
    }

    void Push(uint32_t s, uint32_t t, uint32_t parent, double price, double throughput)
    {
        const uint32_t id = static_cast<uint32_t>(m_labels.size());
        m_labels.push_back({price, throughput, parent, s, t});
        m_usage.insert(m_usage.end(), m_scratch.begin(), m_scratch.end());
        Bucket(s, t).push_back(id);
    }

    /// \return the least cost any completion of the label can have: the
    /// price only rises and the slowest stage only slows down
    double Bound(uint32_t id) const
    {
        const Label& l = m_labels[id];
        return l.throughput == INF ? 0 : m_problem.samples / l.throughput / 3600 * l.price;
    }

    /// \return the plan of layers 0 .. position-1 of a label
    SchedulingPlan Prefix(uint32_t id) const
    {
        SchedulingPlan plan(m_labels[id].position);
        for (int64_t at = id; m_labels[at].parent >= 0;)
        {
            const Label& child = m_labels[at];
            const Label& parent = m_labels[child.parent];
            std::fill(plan.begin() + parent.position, plan.begin() + child.position, parent.type);
            at = child.parent;
        }
        return plan;
    }

    bool UsageAtMost(uint32_t a, uint32_t b) const
    {
        const uint64_t* ua = Usage(a);
        const uint64_t* ub = Usage(b);
        for (uint32_t t = 0; t < m_types; ++t)
        {
            if (ua[t] > ub[t])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * \return the bucket without labels that cannot lead to the optimum: a
     * bound above the incumbent, or another label y at the same state with
     * price <=, throughput >= and usage <= (componentwise) and either a
     * lower price or a lexicographically smaller prefix. Every completion of
     * the pruned label is then no better under IsBetter's order (a lower
     * price gives a lower cost; equal prices and throughputs fall to the
     * plan, whose prefixes differ and whose suffixes are equal).
     */
    std::vector<uint32_t> PruneCheapest(const std::vector<uint32_t>& bucket, double cost) const
    {
        std::vector<uint32_t> order;
        for (uint32_t id : bucket)
        {
            if (Bound(id) <= cost)
            {
                order.push_back(id);
            }
        }
        std::stable_sort(order.begin(),
                         order.end(),
                         [this](uint32_t a, uint32_t b)
                         {
                             const Label& x = m_labels[a];
                             const Label& y = m_labels[b];
                             return x.price < y.price
                                    || (x.price == y.price && x.throughput > y.throughput);
                         });
        std::vector<uint32_t> kept;
        for (uint32_t x : order)
        {
            const Label& lx = m_labels[x];
            bool dominated = false;
            for (uint32_t y : kept)
            {
                const Label& ly = m_labels[y];
                if (ly.throughput >= lx.throughput && UsageAtMost(y, x)
                    && (ly.price < lx.price || Prefix(y) < Prefix(x)))
                {
                    dominated = true;
                    break;
                }
            }
            if (!dominated)
            {
                kept.push_back(x);
            }
        }
        return kept;
    }

    /**
     * \return the bucket without labels whose usage another's bounds
     * componentwise (feasibility depends on nothing else); with `smallest`,
     * only by a label with a lexicographically smaller prefix, so that the
     * smallest feasible plan survives (were it pruned, the pruning label with
     * its suffix would be feasible and smaller)
     */
    std::vector<uint32_t> PruneUsage(const std::vector<uint32_t>& bucket, bool smallest) const
    {
        std::vector<uint32_t> order = bucket;
        if (smallest)
        {
            std::vector<std::pair<SchedulingPlan, uint32_t>> prefixes;
            for (uint32_t id : bucket)
            {
                prefixes.emplace_back(Prefix(id), id);
            }
            std::sort(prefixes.begin(), prefixes.end());
            for (size_t i = 0; i < prefixes.size(); ++i)
            {
                order[i] = prefixes[i].second;
            }
        }
        std::vector<uint32_t> kept;
        for (uint32_t x : order)
        {
            bool dominated = false;
            for (uint32_t y : kept)
            {
                if (UsageAtMost(y, x))
                {
                    dominated = true;
                    break;
                }
            }
            if (!dominated)
            {
                kept.push_back(x);
            }
        }
        return kept;
    }

    const CostModel& m_model;
    const SchedulingProblem& m_problem;
    uint32_t m_layers;
    uint32_t m_types;
    std::vector<Label> m_labels;
    std::vector<uint64_t> m_usage; //!< m_types counts per label
    std::vector<std::vector<uint32_t>> m_buckets;
    std::vector<uint64_t> m_scratch;
};

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

ScheduleResult
RunExact(const CostModel& model, const SchedulerOptions& options)
{
    ScheduleResult result;
    // Single-type plans seed the incumbent, so the bound prunes from the start.
    PlanEvaluation best;
    bool any = false;
    for (uint32_t t = 0; t < model.Types(); ++t)
    {
        PlanEvaluation e = model.Evaluate(SchedulingPlan(model.Layers(), t));
        if (!any || IsBetter(e, best))
        {
            best = e;
            any = true;
        }
    }
    LabelSearch search(model);
    SchedulingPlan plan = best.plan;
    double cost = best.feasible ? best.cost : INF;
    double throughput = best.feasible ? best.throughput : 0;
    if (search.Cheapest(plan, cost, throughput))
    {
        best = model.Evaluate(plan);
    }
    if (best.feasible)
    {
        result.best = best;
        return result;
    }
    // No plan meets the limit: the fastest plan, by bisection on the
    // throughput over the feasibility version of the search (feasibility is
    // monotone in the throughput; a plan found at theta jumps the lower end
    // to that plan's own best throughput).
    SchedulingPlan found;
    if (!search.FeasibleAt(0, found))
    {
        result.best = best; // no plan can be provisioned at all: all tie at 0
        return result;
    }
    SchedulingPlan fastest = found;
    uint64_t lo = Bits(model.BestThroughput(found).throughput);
    uint64_t hi = Bits(INF);
    while (hi - lo > 1)
    {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (search.FeasibleAt(FromBits(mid), found))
        {
            fastest = found;
            lo = std::min(std::max(mid, Bits(model.BestThroughput(found).throughput)), hi - 1);
        }
        else
        {
            hi = mid;
        }
    }
    // Of the plans reaching that throughput, IsBetter keeps the smallest.
    search.FeasibleAt(FromBits(lo), fastest, true);
    PlanEvaluation e = model.Evaluate(fastest);
    result.best = IsBetter(e, best) ? e : best;
    return result;
}

ScheduleResult
RunExhaustive(const CostModel& model, const SchedulerOptions& options)
{
    const uint32_t layers = model.Layers();
    const uint32_t types = model.Types();
    // |T|^L, saturating: the count is only shown when it fits 64 bits.
    uint64_t plans = 1;
    bool overflow = false;
    for (uint32_t l = 0; l < layers && !overflow; ++l)
    {
        overflow = plans > UINT64_MAX / types;
        plans *= types;
    }
    if (overflow || plans > options.exhaustiveLimit)
    {
        throw std::invalid_argument(
            "exhaustive: " + std::to_string(types) + "^" + std::to_string(layers) + " plans"
            + (overflow ? "" : " (" + std::to_string(plans) + ")")
            + " exceed options.exhaustiveLimit (" + std::to_string(options.exhaustiveLimit) + ")");
    }
    ScheduleResult result;
    SchedulingPlan plan(layers, 0);
    result.best = model.Evaluate(plan);
    for (uint64_t n = 1; n < plans; ++n)
    {
        // The next plan in lexicographic order (an odometer, last layer fastest).
        uint32_t l = layers;
        while (plan[--l] + 1 == types)
        {
            plan[l] = 0;
        }
        ++plan[l];
        PlanEvaluation e = model.Evaluate(plan);
        if (IsBetter(e, result.best))
        {
            result.best = std::move(e);
        }
    }
    return result;
}

} // namespace

static const bool g_exactRegistered = SchedulerRegistry::Add(
    {"exact",
     0,
     "the cost model's optimum: a label-setting dynamic programme over the layer chain",
     RunExact});

static const bool g_exhaustiveRegistered = SchedulerRegistry::Add(
    {"exhaustive",
     1,
     "every plan of |T|^L through the cost model (small L; options.exhaustiveLimit)",
     RunExhaustive});

} // namespace ns3
