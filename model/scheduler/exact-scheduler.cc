/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The exact optimum of the cost model (a label-setting dynamic programme over
// the layer chain) and exhaustive enumeration, which checks it on small cases.
// Method and proof of exactness: doc/heterps-cost-model.md, "Exact optimum".

#include "plan-scheduler.h"

#include "ns3/interrupt.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
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
        const std::vector<uint64_t> none(m_types, 0);
        std::vector<uint64_t> scratch(m_types);
        m_table.assign(static_cast<size_t>(m_layers) * m_types, {});
        m_suffixPrice.assign(static_cast<size_t>(m_layers) * m_types, INF);
        m_suffixThroughput.assign(static_cast<size_t>(m_layers) * m_types, 0);
        std::vector<std::pair<uint32_t, uint32_t>> choice(static_cast<size_t>(m_layers) * m_types,
                                                          {0, 0});
        size_t entries = 0;
        for (uint32_t s = m_layers; s-- > 0;)
        {
            dlnet::PollInterrupt(); // (Ctrl-C: a layer at a time)
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const size_t state = static_cast<size_t>(s) * m_types + t;
                std::vector<Entry>& row = m_table[state];
                Provision(s, t, limit, row);
                entries += row.size();
                if (entries > MAX_ENTRIES)
                {
                    throw std::invalid_argument(
                        "exact: more than " + std::to_string(MAX_ENTRIES)
                        + " stage provisionings to tabulate (" + std::to_string(m_layers)
                        + " layers, " + std::to_string(m_types)
                        + " types, long stages); use fewer layers or another scheduler");
                }
                for (uint32_t e = s + 1; e - s - 1 < row.size() / m_types; ++e)
                {
                    const bool last = e == m_layers;
                    for (uint32_t u = 0; u < m_types; ++u)
                    {
                        Entry& entry = row[static_cast<size_t>(e - s - 1) * m_types + u];
                        // A stage that does not fit alone is in no plan.
                        if (!Add(none.data(), t, entry, scratch.data()))
                        {
                            entry = {0, 0, INF, 0};
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
            dlnet::PollInterrupt(); // (Ctrl-C: a layer at a time)
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
            dlnet::PollInterrupt(); // (Ctrl-C: a layer at a time)
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
     * at throughput theta; `plan` gets the first one found
     */
    bool FeasibleAt(double theta, SchedulingPlan& plan)
    {
        Reset();
        std::vector<Entry> row;
        for (uint32_t s = 0; s < m_layers; ++s)
        {
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const std::vector<uint32_t> bucket = PruneUsage(Bucket(s, t));
                if (bucket.empty())
                {
                    continue;
                }
                // The stages from (s, t) at theta do not depend on the prefix:
                // provision them once for every label of the bucket.
                Provision(s, t, theta, row);
                for (uint32_t id : bucket)
                {
                    for (uint32_t e = s + 1; e - s - 1 < row.size() / m_types; ++e)
                    {
                        const Entry* entries = &row[static_cast<size_t>(e - s - 1) * m_types];
                        double price;
                        double thr;
                        if (e == m_layers)
                        {
                            if (Extend(id, t, entries[t], price, thr))
                            {
                                plan = Prefix(id);
                                plan.resize(m_layers, t);
                                return true;
                            }
                            continue;
                        }
                        for (uint32_t next = 0; next < m_types; ++next)
                        {
                            if (next != t && Extend(id, t, entries[next], price, thr))
                            {
                                Push(e, next, id, price, thr);
                            }
                        }
                    }
                }
            }
        }
        return false;
    }

    /**
     * \return whether some plan is provisioned within the available counts
     * at throughput theta; `plan` gets the lexicographically smallest of
     * them. Backward, every state (s, t) gets the minimal usages with which a
     * stage on t from layer s and the stages after it fit; forward, each
     * layer then takes the smallest type that still leaves such a
     * completion, which makes the plan the smallest.
     */
    bool SmallestFeasibleAt(double theta, SchedulingPlan& plan)
    {
        // The last search's labels are not needed: their memory is this pass's.
        std::vector<Label>().swap(m_labels);
        std::vector<uint64_t>().swap(m_usage);
        std::vector<std::vector<uint32_t>>().swap(m_buckets);
        // One row of stages at a time: all of them at once can be
        // layers^2 x types^2 entries.
        std::vector<Entry> row;
        std::vector<std::vector<uint64_t>> minimal(static_cast<size_t>(m_layers) * m_types);
        const std::vector<uint64_t> none(m_types, 0);
        std::vector<uint64_t> candidates;
        size_t kept = 0;
        for (uint32_t s = m_layers; s-- > 0;)
        {
            dlnet::PollInterrupt(); // (Ctrl-C: a layer at a time)
            for (uint32_t t = 0; t < m_types; ++t)
            {
                const size_t state = static_cast<size_t>(s) * m_types + t;
                Provision(s, t, theta, row);
                candidates.clear();
                Completions(s,
                            t,
                            row,
                            minimal,
                            none.data(),
                            s + 1,
                            [this, &candidates, &kept](const uint64_t* usage, size_t n)
                            {
                                candidates.insert(candidates.end(), usage, usage + n);
                                CheckLabels(kept + candidates.size() / n);
                                return false;
                            });
                minimal[state] = MinimalUsages(candidates);
                kept += minimal[state].size() / m_types;
                CheckLabels(kept);
            }
        }
        uint32_t t = 0;
        while (t < m_types && minimal[t].empty())
        {
            ++t;
        }
        if (t == m_types)
        {
            return false;
        }
        // The current stage (from layer first, on type t, after stages that
        // use `used`) always has a completion: the one the choice was made for.
        plan.assign(m_layers, t);
        uint32_t first = 0;
        std::vector<uint64_t> used = none;
        std::vector<uint64_t> after(m_types);
        Provision(first, t, theta, row);
        auto any = [](const uint64_t*, size_t)
        {
            return true;
        };
        for (uint32_t l = 1; l < m_layers; ++l)
        {
            uint32_t chosen = m_types;
            for (uint32_t n = 0; n < m_types && chosen == m_types; ++n)
            {
                if (n == t)
                {
                    // Layer l stays in the stage: it ends at some e > l.
                    if (Completions(first, t, row, minimal, used.data(), l + 1, any))
                    {
                        chosen = t;
                    }
                    continue;
                }
                // The stage ends before layer l and one on n starts there.
                const size_t at = static_cast<size_t>(l - first - 1) * m_types + n;
                if (at >= row.size() || !Add(used.data(), t, row[at], after.data()))
                {
                    continue;
                }
                const std::vector<uint64_t>& rest = minimal[static_cast<size_t>(l) * m_types + n];
                for (size_t i = 0; i < rest.size() && chosen == m_types; i += m_types)
                {
                    if (FitsWith(after.data(), &rest[i]))
                    {
                        chosen = n;
                    }
                }
            }
            if (chosen == m_types)
            {
                throw std::logic_error("exact: a plan prefix lost its completion");
            }
            if (chosen != t)
            {
                used = after;
                first = l;
                t = chosen;
                Provision(first, t, theta, row);
            }
            std::fill(plan.begin() + l, plan.end(), t);
        }
        return true;
    }

private:
    /// One provisioned stage (of the table at the limit, or of Provision's row
    /// at theta): k = 0 when none reaches it (in the table, also when it does
    /// not fit alone)
    struct Entry
    {
        uint32_t instances;
        uint32_t psServers;
        double price;      //!< USD/h of its instances and servers
        double throughput; //!< batch / ET
    };

    /// The stage table's most entries (about 24 bytes each)
    static constexpr size_t MAX_ENTRIES = size_t{1} << 24;
    /// The most memory labels (or the smallest plan's completion usages) may take
    static constexpr size_t MAX_LABEL_BYTES = size_t{2} << 30;

    /// Refuse a search that would hold more than MAX_LABEL_BYTES of labels
    void CheckLabels(size_t labels) const
    {
        const size_t each = sizeof(Label) + m_types * sizeof(uint64_t);
        if (labels > MAX_LABEL_BYTES / each)
        {
            throw std::invalid_argument(
                "exact: more than " + std::to_string(MAX_LABEL_BYTES / each)
                + " partial plans or completions to keep (2 GiB) for " + std::to_string(m_layers)
                + " layers and " + std::to_string(m_types) + " types; use fewer types or layers");
        }
    }
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
        if (!Add(Usage(id), type, st, m_scratch.data()))
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

    /**
     * `row` gets the stages from layer s on type t minimally provisioned for
     * theta, laid out as m_table's rows: m_types entries per end e = s+1 ..
     * while the stage alone reaches theta (slot t at the last layer, the
     * next stage's type otherwise; instances 0 where none reaches it)
     */
    void Provision(uint32_t s, uint32_t t, double theta, std::vector<Entry>& row) const
    {
        row.clear();
        for (uint32_t e = s + 1; e <= m_layers; ++e)
        {
            // Without its transfer a longer stage is only slower: once no k
            // reaches theta, no longer stage will.
            const uint32_t alone = m_model.MinInstances(s, e - 1, t, CostModel::NO_NEXT, theta);
            if (alone == 0)
            {
                break;
            }
            for (uint32_t next = 0; next < m_types; ++next)
            {
                Entry entry{0, 0, INF, 0};
                if (e == m_layers)
                {
                    if (next == t)
                    {
                        entry = Of(m_model.StageTime(s, e - 1, t, CostModel::NO_NEXT, alone));
                    }
                }
                else if (next != t)
                {
                    const uint32_t k = m_model.MinInstances(s, e - 1, t, next, theta);
                    if (k > 0)
                    {
                        entry = Of(m_model.StageTime(s, e - 1, t, next, k));
                    }
                }
                row.push_back(entry);
            }
        }
    }

    /**
     * `sum` gets `usage` plus a stage on `type`; \return whether the stage
     * is reachable and the sum fits the available counts
     */
    bool Add(const uint64_t* usage, uint32_t type, const Entry& st, uint64_t* sum) const
    {
        if (st.instances == 0)
        {
            return false;
        }
        std::copy(usage, usage + m_types, sum);
        sum[type] += st.instances;
        sum[m_problem.psType] += st.psServers;
        return FitsWith(sum, nullptr);
    }

    /// \return whether a + b (b may be null) fits the available counts
    bool FitsWith(const uint64_t* a, const uint64_t* b) const
    {
        const auto& types = m_problem.catalogue.types;
        for (uint32_t u = 0; u < m_types; ++u)
        {
            if (a[u] + (b ? b[u] : 0) > types[u].available)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Calls visit(usage, m_types) with `used` plus a stage on t from layer
     * s to e - 1 (e from `from` on, as `row` allows) plus a minimal usage
     * after it, for each such sum within the available counts, until visit
     * returns true. \return whether it did
     */
    template <typename Visit>
    bool Completions(uint32_t s,
                     uint32_t t,
                     const std::vector<Entry>& row,
                     const std::vector<std::vector<uint64_t>>& minimal,
                     const uint64_t* used,
                     uint32_t from,
                     Visit visit) const
    {
        std::vector<uint64_t> stage(m_types);
        std::vector<uint64_t> total(m_types);
        for (uint32_t e = from; e - s - 1 < row.size() / m_types; ++e)
        {
            const Entry* entries = &row[static_cast<size_t>(e - s - 1) * m_types];
            for (uint32_t n = 0; n < m_types; ++n)
            {
                // Provision leaves instances 0 in the slots that are not stages.
                if (!Add(used, t, entries[n], stage.data()))
                {
                    continue;
                }
                if (e == m_layers)
                {
                    if (visit(stage.data(), m_types))
                    {
                        return true;
                    }
                    continue;
                }
                const std::vector<uint64_t>& rest = minimal[static_cast<size_t>(e) * m_types + n];
                for (size_t i = 0; i < rest.size(); i += m_types)
                {
                    if (!FitsWith(stage.data(), &rest[i]))
                    {
                        continue;
                    }
                    for (uint32_t u = 0; u < m_types; ++u)
                    {
                        total[u] = stage[u] + rest[i + u];
                    }
                    if (visit(total.data(), m_types))
                    {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * \return the indices 0 .. count - 1 whose usage (usageOf(i), m_types
     * counts) no other's bounds componentwise, once each, taken by total
     * usage so that a bounding usage always comes first
     */
    template <typename UsageOf>
    std::vector<size_t> Minimal(size_t count, UsageOf usageOf) const
    {
        std::vector<std::pair<uint64_t, size_t>> order;
        for (size_t i = 0; i < count; ++i)
        {
            const uint64_t* u = usageOf(i);
            order.emplace_back(std::accumulate(u, u + m_types, uint64_t{0}), i);
        }
        std::sort(order.begin(), order.end());
        std::vector<size_t> kept;
        for (const auto& [total, i] : order)
        {
            const uint64_t* x = usageOf(i);
            const bool dominated
                = std::any_of(kept.begin(),
                              kept.end(),
                              [&](size_t k)
                              {
                                  const uint64_t* y = usageOf(k);
                                  return std::equal(y, y + m_types, x, std::less_equal<uint64_t>());
                              });
            if (!dominated)
            {
                kept.push_back(i);
            }
        }
        return kept;
    }

    /// \return the usages (m_types counts each) that no other bounds componentwise, once each
    std::vector<uint64_t> MinimalUsages(const std::vector<uint64_t>& usages) const
    {
        std::vector<uint64_t> kept;
        for (size_t i : Minimal(usages.size() / m_types,
                                [&](size_t i)
                                {
                                    return &usages[i * m_types];
                                }))
        {
            kept.insert(kept.end(), &usages[i * m_types], &usages[i * m_types] + m_types);
        }
        return kept;
    }

    void Push(uint32_t s, uint32_t t, uint32_t parent, double price, double throughput)
    {
        CheckLabels(m_labels.size() + 1);
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
     * componentwise (feasibility depends on nothing else), taken by total
     * usage so that a bounding label always comes first
     */
    std::vector<uint32_t> PruneUsage(const std::vector<uint32_t>& bucket) const
    {
        // Ids grow in a bucket, so ties in total keep the older label first.
        std::vector<uint32_t> kept;
        for (size_t i : Minimal(bucket.size(),
                                [&](size_t i)
                                {
                                    return Usage(bucket[i]);
                                }))
        {
            kept.push_back(bucket[i]);
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
    const double reached = LargestReached(model.BestThroughput(found).throughput,
                                          [&](double theta)
                                          {
                                              return search.FeasibleAt(theta, found)
                                                         ? model.BestThroughput(found).throughput
                                                         : 0.0;
                                          });
    // Of the plans reaching that throughput, IsBetter keeps the smallest.
    SchedulingPlan fastest;
    if (!search.SmallestFeasibleAt(reached, fastest))
    {
        throw std::logic_error("exact: no plan at the throughput the search reached");
    }
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
        if (n % 4096 == 0)
        {
            dlnet::PollInterrupt(); // (up to 1e7 plans by default: minutes)
        }
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
