/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-simulation.h"

#include "ns3/boolean.h"
#include "ns3/config-parse.h"
#include "ns3/pipeline-graph.h"
#include "ns3/simulator.h"
#include "ns3/training-simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{
std::string
Gbps(double bps)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%g", bps / 1e9);
    return std::string(text) + " Gbit/s";
}

std::string
Sec(double s)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.4g s", s);
    return text;
}

std::string
Bytes(double b)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.4g MB", b / 1e6);
    return text;
}

/// \return the host groups: runs of consecutive ranks of one NIC rate, COUNTxRATE (a
/// single rank gets an idle second host)
std::string
HostGroupsOf(const SchedulingProblem& problem, const PipelineGraph& pg)
{
    std::string out;
    uint64_t run = 0;
    uint64_t rate = 0;
    auto flush = [&]()
    {
        if (run > 0)
        {
            out += (out.empty() ? "" : ",") + std::to_string(run) + "x" + std::to_string(rate)
                   + "bps";
        }
    };
    for (const PipelineRank& r : pg.ranks)
    {
        double nic = problem.catalogue.types.at(r.type).nicRate;
        if (!(nic >= 1 && nic <= double(dlnet::MAX_RATE_BPS)))
        {
            throw std::invalid_argument("catalogue: types[" + std::to_string(r.type) + "].nic_rate "
                                        + std::to_string(nic)
                                        + " bit/s cannot be simulated; expected 1bps to "
                                        + std::to_string(dlnet::MAX_RATE_BPS) + "bps");
        }
        uint64_t bps = uint64_t(std::llround(nic));
        if (run > 0 && bps != rate)
        {
            flush();
            run = 0;
        }
        rate = bps;
        ++run;
    }
    // a fabric has at least two hosts: a lone instance gets an idle neighbour of its rate
    run += pg.ranks.size() == 1 ? 1 : 0;
    flush();
    return out;
}

/// Measured figures of one stage's replicas over the steady-state batches.
struct Measured
{
    double compute{0};
    double sync{0};
    double transfer{0};
    double wait{0};
    double boundary{0};
};
/// \return one paragraph: the two throughputs, the stage that limits in each, the largest
/// difference of a measured component from its prediction and what causes it
std::string
ExplainPlanSimulation(const SchedulingProblem& problem,
                      const PlanEvaluation& plan,
                      const PlanSimulationResult& result)
{
    const ResourceCatalogue& cat = problem.catalogue;
    const uint32_t n = result.stages.size();
    std::ostringstream os;
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%+.1f%%", 100 * result.difference);
    os << "Simulated " << dlnet::ShortestText(std::round(result.simulatedThroughput * 10) / 10)
       << " samples/s against "
       << dlnet::ShortestText(std::round(result.predictedThroughput * 10) / 10) << " predicted ("
       << pct << "). ";
    // busiest in the simulation: the most work (compute, sync, transfer) per batch per replica
    uint32_t busiest = 0;
    auto busy = [&](uint32_t i)
    {
        const SimulatedStage& s = result.stages[i];
        return s.computeSeconds + s.syncSeconds + s.transferSeconds;
    };
    for (uint32_t i = 1; i < n; ++i)
    {
        busiest = busy(i) > busy(busiest) ? i : busiest;
    }
    auto name = [&](uint32_t i)
    {
        return "stage " + std::to_string(i) + " (" + std::to_string(result.stages[i].instances)
               + " x " + result.stages[i].type + ")";
    };
    os << "The model's bottleneck is " << name(plan.bottleneck) << " at "
       << Sec(plan.stages[plan.bottleneck].stageSeconds) << " per batch; in the simulation "
       << (busiest == plan.bottleneck ? "it is also the busiest, "
                                      : name(busiest) + " is the busiest, ")
       << Sec(busy(busiest)) << " of work per batch per replica. ";

    // the largest difference between a measured component and its prediction
    struct Diff
    {
        uint32_t stage;
        std::string what;
        double measured;
        double predicted;
    };
    Diff worst{0, "", 0, 0};
    for (uint32_t i = 0; i < n; ++i)
    {
        const SimulatedStage& s = result.stages[i];
        const PlanStage& p = plan.stages[i];
        for (const Diff& d : {Diff{i, "compute", s.computeSeconds, p.computeSeconds},
                              Diff{i, "sync", s.syncSeconds, p.syncSeconds},
                              Diff{i, "transfer", s.transferSeconds, p.transferSeconds}})
        {
            if (std::abs(d.measured - d.predicted) > std::abs(worst.measured - worst.predicted))
            {
                worst = d;
            }
        }
    }
    // differences below a nanosecond are the picosecond rounding of the task durations
    if (worst.what.empty() || std::abs(worst.measured - worst.predicted) < 1e-9)
    {
        os << "Every stage's compute, sync and transfer took what the model predicts.";
        return os.str();
    }
    const SimulatedStage& s = result.stages[worst.stage];
    const PlanStage& p = plan.stages[worst.stage];
    const ResourceType& type = cat.types.at(p.type);
    os << "The largest difference: "
       << (worst.what == "transfer" ? "transfers out of " : worst.what + " of ") << "stage "
       << worst.stage << " took " << Sec(worst.measured) << " per batch against "
       << Sec(worst.predicted) << " predicted";
    if (worst.what == "transfer" && worst.stage + 1 < n)
    {
        const PlanStage& next = plan.stages[worst.stage + 1];
        const ResourceType& nextType = cat.types.at(next.type);
        double out = double(p.instances) * type.nicRate;
        double in = double(next.instances) * nextType.nicRate;
        auto key = std::make_pair(std::min(p.type, next.type), std::max(p.type, next.type));
        auto link = cat.links.find(key);
        if (link != cat.links.end() && link->second < std::min(type.nicRate, nextType.nicRate))
        {
            os << ": the catalogue's " << Gbps(link->second) << " link between " << type.name
               << " and " << nextType.name
               << " is not simulated (each instance has its NIC on one leaf-spine), so the "
                  "simulation moves the activations at the NICs' rate";
        }
        else if (out > in)
        {
            os << ": " << p.instances << " replicas at " << Gbps(type.nicRate) << " send into "
               << next.instances << " " << nextType.name << " replica"
               << (next.instances > 1 ? "s" : "") << " whose " << Gbps(nextType.nicRate)
               << " NICs receive " << Gbps(in) << " (incast, queueing at the boundary; the "
               << "gradients come back through the same NICs): a batch's activations ("
               << Bytes(double(problem.profile.layers[p.last].outputBytes)) << ") took "
               << Sec(s.boundarySeconds) << " to cross, against "
               << Sec(double(problem.profile.layers[p.last].outputBytes) * 8 / in)
               << " at the receivers' NICs; with its transfer at that rate, 2 A / " << Gbps(in)
               << ", the stage would take "
               << Sec(p.computeSeconds + p.syncSeconds
                      + 2 * double(problem.profile.layers[p.last].outputBytes) * 8 / in)
               << " per batch";
        }
        else if (in > out && next.instances > p.instances)
        {
            os << ": " << next.instances << " " << nextType.name << " replicas at "
               << Gbps(nextType.nicRate) << " answer the gradient pulls of " << p.instances
               << " replicas whose " << Gbps(type.nicRate) << " NICs receive " << Gbps(out)
               << " (incast at the receivers)";
        }
        else
        {
            os << ": packet headers and the per-hop latency of each of its sends and pulls, "
                  "which the model's 2A / (k BW) leaves out";
        }
    }
    else if (worst.what == "sync" && p.psServers > 0)
    {
        const ResourceType& ps = cat.types.at(problem.psType);
        os << ": " << p.instances << " replicas push to and pull from " << p.psServers << " "
           << ps.name << " server" << (p.psServers > 1 ? "s" : "") << " at " << Gbps(ps.nicRate)
           << " each; a replica's " << p.psServers << " pushes run at once, then its "
           << p.psServers << " pulls, and a server serves every replica in turn";
    }
    else if (worst.what == "sync")
    {
        os << ": the ring AllReduce of " << p.instances << " replicas takes "
           << 2 * (p.instances - 1) << " steps, each with its latency and packet headers, "
           << "and crosses the spines when the replicas span leaves";
    }
    os << ". ";
    os << "Stage " << worst.stage << " waited " << Sec(s.waitSeconds)
       << " per batch per replica for its neighbours.";
    return os.str();
}

} // namespace

void
PlanSimulationConfig::Validate() const
{
    if (warmup == 0)
    {
        throw std::invalid_argument("warmup: is 0; expected at least 1 (the throughput counts "
                                    "from the end of the last warm-up batch)");
    }
    if (batches < warmup + 2 || batches > MAX_PLAN_BATCHES)
    {
        throw std::invalid_argument("batches: " + std::to_string(batches) + "; expected "
                                    + std::to_string(uint64_t(warmup) + 2) + " (warmup + 2) to "
                                    + std::to_string(MAX_PLAN_BATCHES));
    }
    if (seed == 0)
    {
        throw std::invalid_argument("seed: is 0; expected at least 1");
    }
    topology.ValidateFabric();
    for (const auto& [name, value] : ns3Attributes)
    {
        CheckNs3Attribute(name, value);
    }
}

PlanSimulationResult
SimulatePlan(const CostModel& model, const PlanEvaluation& plan, const PlanSimulationConfig& config)
{
    return SimulatePlan(model.GetProblem(), plan, config);
}

PlanSimulationResult
SimulatePlan(const SchedulingProblem& problem,
             const PlanEvaluation& plan,
             const PlanSimulationConfig& config)
{
    config.Validate();
    if (!plan.feasible)
    {
        throw std::invalid_argument("plan: is infeasible (" + plan.reason
                                    + "); only a provisioned plan can be simulated");
    }
    // n - 1 batches more than measured: the last measured batch's backward then still
    // comes after the forward of a later one, as in the steady state (without them the
    // pipeline drains and the last cycles look shorter)
    const uint32_t n = plan.stages.size();
    PipelineGraph pg = BuildPipelineGraph(problem, plan, config.batches + n - 1);
    const ResourceCatalogue& cat = problem.catalogue;

    TopologyConfig tc = config.topology;
    tc.kind = "hetero-leaf-spine";
    tc.nodes = 0;
    tc.hostGroups = HostGroupsOf(problem, pg);

    PlanSimulationResult result;
    result.ranks = pg.graph.ranks;
    result.predictedThroughput = plan.throughput;
    std::vector<TrainingTaskRun> runs;
    {
        SimulationScope scope(config.seed, config.run, config.ns3Attributes);
        Ptr<const Topology> topology = MakeTopology(tc);
        Cluster cluster = topology->Build();
        result.network = cluster.GetNetwork();
        Ptr<TrainingSimulation> sim = CreateObject<TrainingSimulation>();
        // disposed before the cluster and the simulator go, even when the run throws
        struct DisposeAtExit
        {
            Ptr<TrainingSimulation> sim;

            ~DisposeAtExit()
            {
                sim->Dispose();
            }
        } disposeAtExit{sim};

        TrainingJobSetup job;
        job.name = "plan";
        job.graph = pg.graph;
        for (uint32_t r = 0; r < pg.graph.ranks; ++r)
        {
            job.placement.push_back(r);
        }
        // ring: the cost model's AllReduce term is a ring's; sends go point to point
        for (auto& d : job.dimensions)
        {
            d.backend = "ring";
        }
        sim->Setup(cluster, topology, {job});
        sim->Start();
        Simulator::Run();
        if (!sim->IsFinished())
        {
            throw std::runtime_error("plan simulation: the pipeline did not finish: "
                                     + sim->DescribeStuck());
        }
        runs = sim->TakeRuns(0); // (the simulation is disposed next)
        result.events = Simulator::GetEventCount();
    }

    const TrainingGraph& g = pg.graph;
    const uint32_t batches = config.batches;
    const uint32_t warmup = config.warmup;
    const double steady = batches - warmup;
    // a batch ends with the latest end of its tasks (all stages, and per stage)
    std::vector<double> end(batches, 0);
    std::vector<std::vector<double>> stageEnd(n, std::vector<double>(batches, 0));
    for (uint32_t t = 0; t < g.tasks.size(); ++t)
    {
        double e = runs[t].end.GetSeconds();
        uint32_t b = g.tasks[t].iteration;
        if (b < batches)
        {
            end[b] = std::max(end[b], e);
        }
        result.simulatedSeconds = std::max(result.simulatedSeconds, e);
    }
    for (uint32_t rank = 0; rank < g.ranks; ++rank)
    {
        if (pg.ranks[rank].server)
        {
            continue;
        }
        uint32_t i = pg.ranks[rank].stage;
        for (uint32_t t : pg.chain[rank])
        {
            uint32_t b = g.tasks[t].iteration;
            if (b < batches)
            {
                stageEnd[i][b] = std::max(stageEnd[i][b], runs[t].end.GetSeconds());
            }
        }
    }
    double window = end[batches - 1] - end[warmup - 1];
    result.simulatedThroughput = window > 0 ? problem.profile.batch * steady / window : 0;
    result.difference = result.predictedThroughput > 0
                            ? result.simulatedThroughput / result.predictedThroughput - 1
                            : 0;

    // per stage: mean over replicas of each kind of time per steady-state batch
    std::vector<Measured> measured(n);
    for (uint32_t rank = 0; rank < g.ranks; ++rank)
    {
        if (pg.ranks[rank].server)
        {
            continue;
        }
        uint32_t i = pg.ranks[rank].stage;
        double k = plan.stages[i].instances;
        Measured& m = measured[i];
        double previous = -1;
        const auto& chain = pg.chain[rank];
        for (size_t c = 0; c < chain.size(); ++c)
        {
            const uint32_t t = chain[c];
            const TrainingTaskRun& run = runs[t];
            double start = run.start.GetSeconds();
            double finish = run.end.GetSeconds();
            // a parameter-server sync is a run of concurrent pushes and pulls: one span,
            // from its first start to its last end
            size_t next = c + 1;
            if (pg.roles[t] == PipelineRole::SYNC)
            {
                while (next < chain.size() && pg.roles[chain[next]] == PipelineRole::SYNC
                       && g.tasks[chain[next]].iteration == g.tasks[t].iteration)
                {
                    start = std::min(start, runs[chain[next]].start.GetSeconds());
                    finish = std::max(finish, runs[chain[next]].end.GetSeconds());
                    ++next;
                }
            }
            double span = finish - start;
            bool counted = g.tasks[t].iteration >= warmup && g.tasks[t].iteration < batches;
            if (counted)
            {
                double share = 1 / (k * steady);
                switch (pg.roles[t])
                {
                    case PipelineRole::FORWARD:
                    case PipelineRole::BACKWARD:
                        m.compute += span * share;
                        break;
                    case PipelineRole::ACTIVATION:
                    case PipelineRole::GRADIENT:
                        m.transfer += span * share;
                        break;
                    case PipelineRole::SYNC:
                        m.sync += span * share;
                        break;
                }
                if (previous >= 0)
                {
                    m.wait += std::max(0.0, start - previous) * share;
                }
            }
            previous = finish;
            c = next - 1;
        }
    }
    // per stage and batch: the span of its activation sends
    std::vector<std::vector<std::pair<double, double>>> span(
        n, std::vector<std::pair<double, double>>(batches, {1e300, -1e300}));
    for (uint32_t t = 0; t < g.tasks.size(); ++t)
    {
        uint32_t b = g.tasks[t].iteration;
        if (pg.roles[t] != PipelineRole::ACTIVATION || b >= batches)
        {
            continue;
        }
        auto& [lo, hi] = span[pg.ranks[g.tasks[t].ranks[0]].stage][b];
        lo = std::min(lo, runs[t].start.GetSeconds());
        hi = std::max(hi, runs[t].end.GetSeconds());
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t b = warmup; b < batches; ++b)
        {
            measured[i].boundary += std::max(0.0, span[i][b].second - span[i][b].first) / steady;
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const PlanStage& s = plan.stages[i];
        SimulatedStage out;
        out.stage = i;
        out.type = cat.types.at(s.type).name;
        out.instances = s.instances;
        out.psServers = s.psServers;
        out.predictedSeconds = s.stageSeconds;
        out.simulatedSeconds = (stageEnd[i][batches - 1] - stageEnd[i][warmup - 1]) / steady;
        out.computeSeconds = measured[i].compute;
        out.syncSeconds = measured[i].sync;
        out.transferSeconds = measured[i].transfer;
        out.waitSeconds = measured[i].wait;
        out.boundarySeconds = measured[i].boundary;
        result.stages.push_back(out);
    }
    result.explanation = ExplainPlanSimulation(problem, plan, result);
    return result;
}

} // namespace ns3
