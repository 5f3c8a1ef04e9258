/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The exact optimum of the cost model (a label-setting dynamic programme over
// the layer chain) and exhaustive enumeration, which checks it on small cases.
// Method and proof of exactness: doc/heterps-cost-model.md, "Exact optimum".

#include "plan-scheduler.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
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
     * Tabulate every stage at the limit and, by a backward pass that ignores
     * the coupling of stages through the available counts, bounds on what
     * completing a prefix at each state (s, t) can give: the least hourly
     * price and the highest throughput. \return the plans that reach that
     * least price from each start type (good incumbents: the coupling rarely
     * binds)
     */
    std::vector<SchedulingPlan> Prepare()
    {
        const double limit = m_problem.throughputLimit;
        const auto& types = m_problem.catalogue.types;
        m_table.assign(static_cast<size_t>(m_layers) * m_types, {});
        m_suffixPrice.assign(static_cast<size_t>(m_layers) * m_types, INF);
        m_suffixThroughput.assign(static_cast<size_t>(m_layers) * m_types, 0);
        std::vector<std::pair<uint32_t, uint32_t>> choice(static_cast<size_t>(m_layers) * m_types,
                                                          {0, 0});
        size_t entries = 0;
        for (uint32_t s = m_layers; s-- > 0;)
        {
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const size_t state = static_cast<size_t>(s) * m_types + t;
                std::vector<Entry>& row = m_table[state];
                for (uint32_t e = s + 1; e <= m_layers; ++e)
                {
                    // Without its transfer a longer stage is only slower:
                    // once no k reaches the limit, no longer stage will.
                    if (m_model.MinInstances(s, e - 1, t, CostModel::NO_NEXT, limit) == 0)
                    {
                        break;
                    }
                    entries += m_types;
                    if (entries > MAX_ENTRIES)
                    {
                        throw std::invalid_argument(
                            "exact: more than " + std::to_string(MAX_ENTRIES)
                            + " stage provisionings to tabulate (" + std::to_string(m_layers)
                            + " layers, " + std::to_string(m_types)
                            + " types, long stages); use fewer layers or another scheduler");
                    }
                    for (uint32_t u = 0; u < m_types; ++u)
                    {
                        // Slot t holds the last stage (e = L) and is unused otherwise.
                        Entry entry{0, 0, INF, 0};
                        const bool last = e == m_layers;
                        if (last == (u == t))
                        {
                            const uint32_t next = last ? CostModel::NO_NEXT : u;
                            const uint32_t k = m_model.MinInstances(s, e - 1, t, next, limit);
                            if (k > 0)
                            {
                                const PlanStage st = m_model.StageTime(s, e - 1, t, next, k);
                                if (st.instances + (m_problem.psType == t ? st.psServers : 0)
                                        <= types[t].available
                                    && st.psServers <= types[m_problem.psType].available)
                                {
                                    // Evaluate's expression, for the same bits.
                                    entry = {k,
                                             st.psServers,
                                             types[t].pricePerHour * st.instances
                                                 + types[m_problem.psType].pricePerHour
                                                       * st.psServers,
                                             st.throughput};
                                }
                            }
                        }
                        row.push_back(entry);
                        if (entry.instances == 0)
                        {
                            continue;
                        }
                        const size_t after = static_cast<size_t>(e) * m_types + u;
                        const double price = entry.price + (last ? 0.0 : m_suffixPrice[after]);
                        const double thr
                            = last ? entry.throughput
                                   : std::min(entry.throughput, m_suffixThroughput[after]);
                        if (price < m_suffixPrice[state])
                        {
                            m_suffixPrice[state] = price;
                            choice[state] = {e, u};
                        }
                        m_suffixThroughput[state] = std::max(m_suffixThroughput[state], thr);
                    }
                }
            }
        }
        std::vector<SchedulingPlan> cheapest;
        for (uint32_t t = 0; t < m_types; ++t)
        {
            if (m_suffixPrice[t] == INF)
            {
                continue;
            }
            SchedulingPlan plan;
            for (uint32_t s = 0, u = t; s < m_layers;)
            {
                const auto [e, next] = choice[static_cast<size_t>(s) * m_types + u];
                plan.resize(e, u);
                s = e;
                u = next;
            }
            cheapest.push_back(plan);
        }
        return cheapest;
    }

    /**
     * The cheapest feasible plan, beating `plan` (cost, throughput) under
     * IsBetter's order, or false when none does. Call Prepare first.
     */
    bool Cheapest(SchedulingPlan& plan, double& cost, double& throughput)
    {
        Reset();
        for (uint32_t t = 0; t < m_types; ++t)
        {
            m_labels[t].throughput = m_suffixThroughput[t];
        }
        bool improved = false;
        for (uint32_t s = 0; s < m_layers; ++s)
        {
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const std::vector<uint32_t> bucket = PruneCheapest(Bucket(s, t), cost);
                Bucket(s, t).clear();
                const std::vector<Entry>& row = m_table[static_cast<size_t>(s) * m_types + t];
                for (uint32_t id : bucket)
                {
                    if (Bound(id) > cost * (1 + BOUND_SLACK))
                    {
                        continue; // the incumbent improved since the prune
                    }
                    for (uint32_t e = s + 1; e - s - 1 < row.size() / m_types; ++e)
                    {
                        const Entry* entries = &row[static_cast<size_t>(e - s - 1) * m_types];
                        if (e == m_layers)
                        {
                            double price;
                            double thr;
                            if (!Extend(id, t, entries[t], price, thr))
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
                            double price;
                            double thr;
                            if (next == t || !Extend(id, t, entries[next], price, thr)
                                || Bound(e, next, price, thr) > cost * (1 + BOUND_SLACK))
                            {
                                continue;
                            }
                            // A completion's throughput is at most the suffix bound,
                            // so more than that cannot matter: capping it lets more
                            // labels dominate, and every completion's min is unchanged.
                            Push(e,
                                 next,
                                 id,
                                 price,
                                 std::min(
                                     thr,
                                     m_suffixThroughput[static_cast<size_t>(e) * m_types + next]));
                        }
                    }
                }
            }
        }
        return improved;
    }

    /**
     * Of the plans with exactly this optimal cost and throughput (`plan` is
     * one, of hourly price `price`), make `plan` the lexicographically
     * smallest, IsBetter's choice. Every such plan has that price, so a label
     * survives only if its price plus the least suffix price does not exceed
     * it and its throughput is >= the optimum's; above the optimum the
     * throughput only matters as "above" (the suffix must then hold the
     * bottleneck). A label is pruned only by a lexicographically smaller one
     * at the same state with price <=, usage covered, and a throughput class
     * admitting its completions: with the same suffix that one is optimal
     * too, and smaller.
     */
    void Smallest(double cost, double throughput, double price, SchedulingPlan& plan)
    {
        Reset();
        const double most = price * (1 + BOUND_SLACK);
        auto cap = [throughput](double thr)
        {
            return thr > throughput ? INF : thr;
        };
        for (uint32_t t = 0; t < m_types; ++t)
        {
            m_labels[t].throughput = cap(m_suffixThroughput[t]);
        }
        auto viable = [&](uint32_t s, uint32_t t, double p, double thr)
        {
            const size_t state = static_cast<size_t>(s) * m_types + t;
            return thr >= throughput && m_suffixThroughput[state] >= throughput
                   && p + m_suffixPrice[state] <= most;
        };
        for (uint32_t s = 0; s < m_layers; ++s)
        {
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const std::vector<uint32_t> bucket = PruneSmallest(Bucket(s, t), most);
                Bucket(s, t).clear();
                const std::vector<Entry>& row = m_table[static_cast<size_t>(s) * m_types + t];
                for (uint32_t id : bucket)
                {
                    for (uint32_t e = s + 1; e - s - 1 < row.size() / m_types; ++e)
                    {
                        const Entry* entries = &row[static_cast<size_t>(e - s - 1) * m_types];
                        double p;
                        double thr;
                        if (e == m_layers)
                        {
                            if (!Extend(id, t, entries[t], p, thr) || thr != throughput
                                || m_problem.samples / thr / 3600 * p != cost)
                            {
                                continue;
                            }
                            SchedulingPlan candidate = Prefix(id);
                            candidate.resize(m_layers, t);
                            if (candidate < plan)
                            {
                                plan = candidate;
                            }
                            continue;
                        }
                        for (uint32_t next = 0; next < m_types; ++next)
                        {
                            if (next != t && Extend(id, t, entries[next], p, thr)
                                && viable(e, next, p, thr))
                            {
                                Push(e, next, id, p, cap(thr));
                            }
                        }
                    }
                }
            }
        }
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
                            if (Extend(id, t, Of(st), price, thr))
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
                                && Extend(
                                    id, t, Of(m_model.StageTime(s, e - 1, t, next, k)), price, thr))
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

private:
    /// One stage of the table at the limit: k = 0 when none reaches it or fits alone
    struct Entry
    {
        uint32_t instances;
        uint32_t psServers;
        double price;      //!< USD/h of its instances and servers
        double throughput; //!< batch / ET
    };

    /// The stage table's most entries (about 24 bytes each)
    static constexpr size_t MAX_ENTRIES = size_t{1} << 24;
    /// Bounds are formed in another order than costs: leave room for rounding
    static constexpr double BOUND_SLACK = 1e-12;

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

    /// Add a provisioned stage on `type` to label id's prefix: m_scratch
    /// gets the usage, price and throughput the totals; false when the stage
    /// is unreachable or does not fit.
    bool Extend(uint32_t id, uint32_t type, const Entry& st, double& price, double& throughput)
    {
        if (st.instances == 0)
        {
            return false;
        }
        const auto& types = m_problem.catalogue.types;
        std::memcpy(m_scratch.data(), Usage(id), m_types * sizeof(uint64_t));
        m_scratch[type] += st.instances;
        m_scratch[m_problem.psType] += st.psServers;
        if (m_scratch[type] > types[type].available
            || m_scratch[m_problem.psType] > types[m_problem.psType].available)
        {
            return false;
        }
        // Evaluate's sum, in the same order, so that costs are the same bits.
        price = m_labels[id].price + st.price;
        throughput = std::min(m_labels[id].throughput, st.throughput);
        return true;
    }

    /// \return a stage as a table entry
    Entry Of(const PlanStage& st) const
    {
        const auto& types = m_problem.catalogue.types;
        return {st.instances,
                st.psServers,
                types[st.type].pricePerHour * st.instances
                    + types[m_problem.psType].pricePerHour * st.psServers,
                st.throughput};
    }

    void Push(uint32_t s, uint32_t t, uint32_t parent, double price, double throughput)
    {
        const uint32_t id = static_cast<uint32_t>(m_labels.size());
        m_labels.push_back({price, throughput, parent, s, t});
        m_usage.insert(m_usage.end(), m_scratch.begin(), m_scratch.end());
        Bucket(s, t).push_back(id);
    }

    /**
     * \return the least cost any completion of a prefix (price, throughput)
     * at state (s, t) can have: its price plus the least suffix price, at
     * the lower of its throughput and the highest suffix throughput (the
     * suffix bounds ignore the available counts, so they only loosen)
     */
    double Bound(uint32_t s, uint32_t t, double price, double throughput) const
    {
        const size_t state = static_cast<size_t>(s) * m_types + t;
        const double thr = std::min(throughput, m_suffixThroughput[state]);
        const double total = price + m_suffixPrice[state];
        if (total == INF || thr <= 0)
        {
            return INF;
        }
        return m_problem.samples / thr / 3600 * total;
    }

    double Bound(uint32_t id) const
    {
        const Label& l = m_labels[id];
        return Bound(l.position, l.type, l.price, l.throughput);
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
     * \return the bucket without labels that cannot lead to a better
     * (cost, throughput): a bound above the incumbent, or another label y at
     * the same state (kept before it: cheaper, or as cheap and faster) with
     * throughput >= and, per type u, usage <= or room for whatever an
     * improving completion of x could still add of u (its hourly budget /
     * p_u). With the same suffix y is then feasible whenever x improves,
     * at no higher price and no lower throughput. Ties in both cost and
     * throughput may lose the lexicographically smaller plan (doc).
     */
    std::vector<uint32_t> PruneCheapest(const std::vector<uint32_t>& bucket, double cost) const
    {
        std::vector<uint32_t> order;
        for (uint32_t id : bucket)
        {
            if (Bound(id) <= cost * (1 + BOUND_SLACK))
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
            // What an improving completion of x may still add per hour, hence
            // at most budget / p_u more instances (or servers) of type u.
            const double budget
                = cost * (1 + BOUND_SLACK) * 3600 / m_problem.samples * lx.throughput - lx.price;
            bool dominated = false;
            for (uint32_t y : kept)
            {
                const Label& ly = m_labels[y];
                if (ly.throughput < lx.throughput)
                {
                    continue;
                }
                if (Covers(y, x, budget))
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
     * \return whether label y's usage serves wherever x's does: per type,
     * y uses no more than x, or the budget left cannot buy enough instances
     * of it to exhaust what y leaves
     */
    bool Covers(uint32_t y, uint32_t x, double budget) const
    {
        const auto& types = m_problem.catalogue.types;
        const uint64_t* ux = Usage(x);
        const uint64_t* uy = Usage(y);
        for (uint32_t u = 0; u < m_types; ++u)
        {
            const double room = static_cast<double>(types[u].available) - uy[u];
            if (!(uy[u] <= ux[u] || std::floor(budget / types[u].pricePerHour) <= room))
            {
                return false;
            }
        }
        return true;
    }

    /// \return the bucket without labels Smallest may drop (see there)
    std::vector<uint32_t> PruneSmallest(const std::vector<uint32_t>& bucket, double most) const
    {
        std::vector<std::pair<SchedulingPlan, uint32_t>> order;
        for (uint32_t id : bucket)
        {
            order.emplace_back(Prefix(id), id);
        }
        std::sort(order.begin(), order.end());
        std::vector<uint32_t> kept;
        for (const auto& [prefix, x] : order)
        {
            const Label& lx = m_labels[x];
            const double budget = most - lx.price;
            bool dominated = false;
            for (uint32_t y : kept)
            {
                const Label& ly = m_labels[y];
                if (ly.price > lx.price || ly.throughput > lx.throughput)
                {
                    continue;
                }
                if (Covers(y, x, budget))
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
    /// Per state (s, t): entries for e = s+1 .. (while reachable), m_types each
    std::vector<std::vector<Entry>> m_table;
    std::vector<double> m_suffixPrice;      //!< per state: least price of a completion
    std::vector<double> m_suffixThroughput; //!< per state: highest throughput of a completion
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
    for (const SchedulingPlan& seed : search.Prepare())
    {
        PlanEvaluation e = model.Evaluate(seed);
        if (IsBetter(e, best))
        {
            best = e;
        }
    }
    SchedulingPlan plan = best.plan;
    double cost = best.feasible ? best.cost : INF;
    double throughput = best.feasible ? best.throughput : 0;
    if (search.Cheapest(plan, cost, throughput) || best.feasible)
    {
        search.Smallest(cost,
                        throughput,
                        best.feasible && plan == best.plan ? best.hourlyPrice
                                                           : model.Evaluate(plan).hourlyPrice,
                        plan);
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
            + (overflow ? "" : " (" + std::to_string(plans) + ")") + " exceed exhaustive-limit ("
            + std::to_string(options.exhaustiveLimit) + ")");
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
