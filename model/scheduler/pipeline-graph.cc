/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pipeline-graph.h"

#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/time-resolution.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetPipelineGraph");

namespace
{
constexpr uint32_t NONE = UINT32_MAX;

/// One step of a replica's chain.
struct Op
{
    enum Kind : uint8_t
    {
        FORWARD,  //!< its forward compute, then its activation sends
        BACKWARD, //!< its gradient pulls, then its backward compute
        SYNC,     //!< its synchronisation
    } kind;
    uint32_t batch;
};

/// Samples [first, first + count) of a batch that replica r of k holds.
std::pair<uint64_t, uint64_t>
Samples(uint64_t batch, uint32_t r, uint32_t k)
{
    auto floorOf = [&](uint64_t i)
    {
        return uint64_t((unsigned __int128) (i) *batch / k);
    };
    uint64_t first = floorOf(r);
    return {first, floorOf(r + 1) - first};
}

/// ceil(bytes x part / whole), at least 1.
uint64_t
Share(uint64_t bytes, uint64_t part, uint64_t whole)
{
    unsigned __int128 p = (unsigned __int128) (bytes) *part;
    uint64_t share = uint64_t((p + whole - 1) / whole);
    return std::max<uint64_t>(share, 1);
}

/// A transfer between replicas of neighbouring stages: sender r, receiver q, bytes.
struct Overlap
{
    uint32_t r; //!< replica of stage i
    uint32_t q; //!< replica of stage i + 1
    uint64_t bytes;
};

void
CheckPlan(const SchedulingProblem& problem, const PlanEvaluation& plan, uint32_t batches)
{
    if (batches == 0)
    {
        throw std::invalid_argument("batches: is 0; expected at least 1");
    }
    if (plan.stages.empty())
    {
        throw std::invalid_argument("plan: has no stages; expected a provisioned plan");
    }
    uint32_t types = problem.catalogue.types.size();
    uint32_t next = 0;
    for (uint32_t i = 0; i < plan.stages.size(); ++i)
    {
        const PlanStage& s = plan.stages[i];
        std::string where = "plan: stages[" + std::to_string(i) + "]";
        if (s.first != next || s.last < s.first || s.last >= problem.profile.layers.size())
        {
            throw std::invalid_argument(where + " holds layers " + std::to_string(s.first) + ".."
                                        + std::to_string(s.last) + "; expected to start at layer "
                                        + std::to_string(next) + " and end before layer "
                                        + std::to_string(problem.profile.layers.size()));
        }
        if (s.type >= types)
        {
            throw std::invalid_argument(where + ".type " + std::to_string(s.type)
                                        + " is not a catalogue type (0 to "
                                        + std::to_string(types - 1) + ")");
        }
        if (s.instances == 0)
        {
            throw std::invalid_argument(where
                                        + ".instances is 0; expected a provisioned plan (>= 1)");
        }
        if (s.psServers > 0
            && (problem.sync != SyncMode::PARAMETER_SERVER || problem.psType >= types))
        {
            throw std::invalid_argument(where
                                        + ".psServers is set but the problem's sync is not ps "
                                          "with a catalogue type for the servers");
        }
        if (!(s.computeSeconds >= 0) || !(s.computeSeconds < 1e9))
        {
            throw std::invalid_argument(where + ".computeSeconds is not a time in [0, 1e9) s");
        }
        next = s.last + 1;
    }
    if (next != problem.profile.layers.size())
    {
        throw std::invalid_argument("plan: stages end at layer " + std::to_string(next)
                                    + "; expected all " + std::to_string(next) + " layers");
    }
    if (problem.profile.batch == 0)
    {
        throw std::invalid_argument("profile: batch is 0");
    }
}
} // namespace

std::string
ToString(PipelineRole role)
{
    switch (role)
    {
        case PipelineRole::FORWARD:
            return "forward";
        case PipelineRole::BACKWARD:
            return "backward";
        case PipelineRole::ACTIVATION:
            return "activation";
        case PipelineRole::GRADIENT:
            return "gradient";
        case PipelineRole::SYNC:
            return "sync";
    }
    return "?";
}

PipelineGraph
BuildPipelineGraph(const SchedulingProblem& problem, const PlanEvaluation& plan, uint32_t batches)
{
    dlnet::UsePicoseconds(); // the tasks' Times in the clusters' resolution from the start
    CheckPlan(problem, plan, batches);
    const LayerProfile& profile = problem.profile;
    const uint64_t B = profile.batch;
    const uint32_t n = plan.stages.size();
    PipelineGraph out;
    TrainingGraph& g = out.graph;
    g.name = profile.name;
    g.iterations = batches;
    g.samplesPerIteration = B;

    // ranks: replicas stage by stage, then the servers stage by stage
    std::vector<uint32_t> firstServer(n, NONE);
    for (uint32_t i = 0; i < n; ++i)
    {
        const PlanStage& s = plan.stages[i];
        out.firstRank.push_back(out.ranks.size());
        for (uint32_t r = 0; r < s.instances; ++r)
        {
            auto [first, count] = Samples(B, r, s.instances);
            out.ranks.push_back({s.type, i, r, false, first, count});
            if (out.ranks.size() > MAX_TRAINING_TASKS)
            {
                throw std::invalid_argument("plan: more than " + std::to_string(MAX_TRAINING_TASKS)
                                            + " instances");
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const PlanStage& s = plan.stages[i];
        if (s.psServers == 0)
        {
            continue;
        }
        firstServer[i] = out.ranks.size();
        for (uint32_t m = 0; m < s.psServers; ++m)
        {
            out.ranks.push_back({problem.psType, i, m, true, 0, 0});
            if (out.ranks.size() > MAX_TRAINING_TASKS)
            {
                throw std::invalid_argument("plan: more than " + std::to_string(MAX_TRAINING_TASKS)
                                            + " instances and servers");
            }
        }
    }
    g.ranks = out.ranks.size();
    out.chain.assign(g.ranks, {});

    // per stage: forward seconds (the rest of CT is backward) and sync bytes
    std::vector<double> forward(n, 0);
    std::vector<uint64_t> sync(n, 0);
    std::vector<uint64_t> sparseSync(n, 0); // the embedding layers' part of sync
    for (uint32_t i = 0; i < n; ++i)
    {
        const PlanStage& s = plan.stages[i];
        double k = s.instances;
        for (uint32_t l = s.first; l <= s.last; ++l)
        {
            const ProfiledLayer& layer = profile.layers[l];
            double a = layer.parallelFraction;
            forward[i] += layer.seconds.at(s.type) * layer.forwardFraction * ((1 - a) + a / k);
            sync[i] += layer.syncBytes;
            if (layer.kind == "embedding")
            {
                sparseSync[i] += layer.syncBytes;
            }
        }
        forward[i] = std::min(forward[i], s.computeSeconds);
    }

    // transfers across each boundary: replicas whose samples overlap
    std::vector<std::vector<Overlap>> across(n);
    // per stage i + 1 replica q: how many senders it waits for
    std::vector<std::vector<uint32_t>> senders(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        senders[i].assign(plan.stages[i].instances, 0);
    }
    for (uint32_t i = 0; i + 1 < n; ++i)
    {
        uint64_t A = profile.layers[plan.stages[i].last].outputBytes;
        uint32_t k = plan.stages[i].instances;
        uint32_t kn = plan.stages[i + 1].instances;
        uint32_t q = 0;
        for (uint32_t r = 0; r < k; ++r)
        {
            const PipelineRank& a = out.ranks[out.firstRank[i] + r];
            // the next stage's replicas in sample order: a two-pointer sweep
            while (q < kn)
            {
                const PipelineRank& b = out.ranks[out.firstRank[i + 1] + q];
                uint64_t lo = std::max(a.first, b.first);
                uint64_t hi = std::min(a.first + a.samples, b.first + b.samples);
                if (hi > lo)
                {
                    across[i].push_back({r, q, Share(A, hi - lo, B)});
                    ++senders[i + 1][q];
                }
                if (b.first + b.samples > a.first + a.samples)
                {
                    break; // q goes on past r: the next r may overlap it too
                }
                ++q;
            }
        }
    }
    // per boundary and sender r: its transfers (indices into across[i])
    std::vector<std::vector<std::vector<uint32_t>>> outOf(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        outOf[i].assign(plan.stages[i].instances, {});
        for (uint32_t x = 0; x < across[i].size(); ++x)
        {
            outOf[i][across[i][x].r].push_back(x);
        }
    }

    // the chains: stage i runs forward b + w_i - 1 before backward b
    auto offsetOf = [&](uint32_t i, uint32_t r)
    {
        return size_t(out.firstRank[i] + r) * batches;
    };
    std::vector<uint32_t> backwardTask(size_t(g.ranks) * batches, NONE);
    std::vector<std::vector<uint32_t>> arrivals(size_t(g.ranks) * batches);
    std::vector<std::vector<Op>> ops(g.ranks);
    for (uint32_t i = 0; i < n; ++i)
    {
        uint32_t w = n - i;
        std::vector<Op> chain;
        for (uint32_t b = 0; b < std::min(w - 1, batches); ++b)
        {
            chain.push_back({Op::FORWARD, b});
        }
        for (uint32_t b = 0; b < batches; ++b)
        {
            if (b + w - 1 < batches)
            {
                chain.push_back({Op::FORWARD, b + w - 1});
            }
            chain.push_back({Op::BACKWARD, b});
            chain.push_back({Op::SYNC, b});
        }
        for (uint32_t r = 0; r < plan.stages[i].instances; ++r)
        {
            ops[out.firstRank[i] + r] = chain;
        }
    }

    std::vector<uint32_t> position(g.ranks, 0);
    std::vector<uint32_t> last(g.ranks, NONE); // each chain's last task
    auto add = [&](uint32_t rank, TrainingTask t, PipelineRole role)
    {
        if (last[rank] != NONE && (t.ranks.size() == 1 || t.kind == TrainingTaskKind::SEND))
        {
            t.deps.push_back(last[rank]);
        }
        uint32_t index = g.Add(std::move(t));
        out.roles.push_back(role);
        out.chain[rank].push_back(index);
        last[rank] = index;
        return index;
    };
    auto compute = [&](uint32_t rank, const Op& op, double seconds, bool fwd)
    {
        const PipelineRank& pr = out.ranks[rank];
        TrainingTask t;
        t.kind = TrainingTaskKind::COMPUTE;
        t.ranks = {rank};
        t.duration = Seconds(seconds);
        t.phase = fwd ? TrainingPhase::FORWARD : TrainingPhase::BACKWARD;
        t.iteration = op.batch;
        t.label = std::string(fwd ? "fwd" : "bwd") + " s" + std::to_string(pr.stage) + " r"
                  + std::to_string(pr.index) + " b" + std::to_string(op.batch);
        return t;
    };
    auto send = [&](uint32_t from, uint32_t to, uint64_t bytes, bool pull, const Op& op)
    {
        TrainingTask t;
        t.kind = TrainingTaskKind::SEND;
        t.ranks = {from, to};
        t.bytes = bytes;
        t.pull = pull;
        t.iteration = op.batch;
        return t;
    };

    // Add each chain's next step once the tasks it depends on are in the
    // graph; a pass that adds nothing would mean a cycle (a bug).
    uint32_t done = 0;
    uint32_t chains = 0;
    for (uint32_t rank = 0; rank < g.ranks; ++rank)
    {
        chains += out.ranks[rank].server ? 0 : 1;
    }
    while (done < chains)
    {
        bool progress = false;
        for (uint32_t rank = 0; rank < g.ranks; ++rank)
        {
            if (out.ranks[rank].server)
            {
                continue;
            }
            const PipelineRank& pr = out.ranks[rank];
            uint32_t i = pr.stage;
            uint32_t r = pr.index;
            const PlanStage& s = plan.stages[i];
            while (position[rank] < ops[rank].size())
            {
                const Op& op = ops[rank][position[rank]];
                size_t at = offsetOf(i, r) + op.batch;
                if (op.kind == Op::FORWARD)
                {
                    if (i > 0 && arrivals[at].size() < senders[i][r])
                    {
                        break;
                    }
                    TrainingTask f = compute(rank, op, forward[i], true);
                    if (i > 0)
                    {
                        f.deps = arrivals[at];
                    }
                    add(rank, f, PipelineRole::FORWARD);
                    if (i + 1 < n)
                    {
                        for (uint32_t x : outOf[i][r])
                        {
                            const Overlap& o = across[i][x];
                            uint32_t to = out.firstRank[i + 1] + o.q;
                            TrainingTask t = send(rank, to, o.bytes, false, op);
                            t.dimension = TrainingDimension::PP;
                            t.phase = TrainingPhase::FORWARD;
                            t.group = "pp" + std::to_string(i);
                            t.label = "act s" + std::to_string(i) + " r" + std::to_string(r) + "->r"
                                      + std::to_string(o.q) + " b" + std::to_string(op.batch);
                            uint32_t task = add(rank, t, PipelineRole::ACTIVATION);
                            arrivals[offsetOf(i + 1, o.q) + op.batch].push_back(task);
                        }
                    }
                }
                else if (op.kind == Op::BACKWARD)
                {
                    bool ready = true;
                    if (i + 1 < n)
                    {
                        for (uint32_t x : outOf[i][r])
                        {
                            ready = ready
                                    && backwardTask[offsetOf(i + 1, across[i][x].q) + op.batch]
                                           != NONE;
                        }
                    }
                    if (!ready)
                    {
                        break;
                    }
                    if (i + 1 < n)
                    {
                        for (uint32_t x : outOf[i][r])
                        {
                            const Overlap& o = across[i][x];
                            uint32_t from = out.firstRank[i + 1] + o.q;
                            TrainingTask t = send(from, rank, o.bytes, true, op);
                            t.dimension = TrainingDimension::PP;
                            t.phase = TrainingPhase::BACKWARD;
                            t.group = "pp" + std::to_string(i);
                            t.label = "grad s" + std::to_string(i) + " r" + std::to_string(r)
                                      + "<-r" + std::to_string(o.q) + " b"
                                      + std::to_string(op.batch);
                            t.deps.push_back(backwardTask[offsetOf(i + 1, o.q) + op.batch]);
                            add(rank, t, PipelineRole::GRADIENT);
                        }
                    }
                    backwardTask[at] = add(rank,
                                           compute(rank, op, s.computeSeconds - forward[i], false),
                                           PipelineRole::BACKWARD);
                }
                else if (s.psServers > 0 && sync[i] > 0)
                {
                    // A replica pushes to all its servers at once and then pulls from
                    // them (an asynchronous RPC client, as PaddlePaddle's PS client is):
                    // the transfers are detached, so its own NIC and the servers' NICs,
                    // shared by the network, are the limit, as in the cost model.
                    uint32_t m = s.psServers;
                    uint64_t k = s.instances;
                    uint64_t bytes = (sparseSync[i] + k - 1) / k + (sync[i] - sparseSync[i]);
                    uint64_t share = std::max<uint64_t>(1, (bytes + m - 1) / m);
                    const uint32_t before = last[rank];
                    auto addSync = [&](TrainingTask t)
                    {
                        t.phase = TrainingPhase::OPTIMIZER;
                        t.group = "ps" + std::to_string(i);
                        uint32_t index = g.Add(std::move(t));
                        out.roles.push_back(PipelineRole::SYNC);
                        out.chain[rank].push_back(index);
                        return index;
                    };
                    std::vector<uint32_t> pulls;
                    for (uint32_t j = 0; j < m; ++j)
                    {
                        uint32_t server = firstServer[i] + (r + j) % m;
                        std::string tag = " s" + std::to_string(i) + " r" + std::to_string(r)
                                          + " ps" + std::to_string((r + j) % m) + " b"
                                          + std::to_string(op.batch);
                        TrainingTask push = send(rank, server, share, false, op);
                        push.detached = true;
                        push.dimension = TrainingDimension::DP;
                        push.label = "push" + tag;
                        if (before != NONE)
                        {
                            push.deps.push_back(before);
                        }
                        uint32_t pushed = addSync(push);
                        TrainingTask pull = send(server, rank, share, false, op);
                        pull.detached = true;
                        pull.dimension = TrainingDimension::DP;
                        pull.label = "pull" + tag;
                        pull.deps.push_back(pushed);
                        pulls.push_back(addSync(pull));
                    }
                    // the chain goes on once every pull is back
                    TrainingTask join;
                    join.kind = TrainingTaskKind::DELAY;
                    join.ranks = {rank};
                    join.label = "synced s" + std::to_string(i) + " r" + std::to_string(r) + " b"
                                 + std::to_string(op.batch);
                    join.iteration = op.batch;
                    join.deps = pulls;
                    last[rank] = addSync(join);
                }
                else if (s.instances >= 2 && sync[i] > 0)
                {
                    // one AllReduce of the stage's replicas: when the last one reaches it
                    if (r + 1 < s.instances)
                    {
                        break;
                    }
                    uint32_t first = out.firstRank[i];
                    bool all = true;
                    for (uint32_t x = first; x < first + s.instances; ++x)
                    {
                        const auto& o = ops[x];
                        all = all && position[x] < o.size() && o[position[x]].kind == Op::SYNC
                              && o[position[x]].batch == op.batch;
                    }
                    if (!all)
                    {
                        break;
                    }
                    TrainingTask t;
                    t.kind = TrainingTaskKind::COLLECTIVE;
                    t.op = CollectiveOp::ALL_REDUCE;
                    t.dimension = TrainingDimension::DP;
                    t.bytes = sync[i];
                    t.phase = TrainingPhase::OPTIMIZER;
                    t.iteration = op.batch;
                    t.group = "dp" + std::to_string(i);
                    t.label = "allreduce s" + std::to_string(i) + " b" + std::to_string(op.batch);
                    for (uint32_t x = first; x < first + s.instances; ++x)
                    {
                        t.ranks.push_back(x);
                        t.deps.push_back(last[x]);
                    }
                    uint32_t task = g.Add(std::move(t));
                    out.roles.push_back(PipelineRole::SYNC);
                    for (uint32_t x = first; x < first + s.instances; ++x)
                    {
                        out.chain[x].push_back(task);
                        last[x] = task;
                        if (x != rank && ++position[x] == ops[x].size())
                        {
                            ++done;
                        }
                    }
                }
                progress = true;
                if (++position[rank] == ops[rank].size())
                {
                    ++done;
                }
            }
        }
        if (!progress && done < chains)
        {
            throw std::logic_error("BuildPipelineGraph: the chains wait for each other");
        }
    }
    return out;
}

} // namespace ns3
