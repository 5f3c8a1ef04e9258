/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-import.h"

#include "workload-import-checks.h"

#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/log.h"
#include "ns3/time-resolution.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadImport");

using namespace workloadimport;

namespace
{

constexpr uint64_t MAX_CYCLES = 1000000000000000ULL; // 1e15
constexpr uint64_t MAX_LAYERS = 100000;

const std::vector<std::string> POLICIES = {"DATA",
                                           "MODEL",
                                           "HYBRID_DATA_MODEL",
                                           "HYBRID_MODEL_DATA",
                                           "HYBRID_TRANSFORMER",
                                           "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
                                           "HYBRID_DLRM",
                                           "HYBRID_CUSTOMIZED",
                                           "MICRO"};
const std::vector<std::string> COMMS
    = {"NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL", "ALLREDUCEALLTOALL"};

/// A whole number in [min, max]: digits only. (other: what else the field takes, as text)
uint64_t
Number(const std::string& file,
       uint64_t line,
       const std::string& field,
       const std::string& t,
       uint64_t max,
       uint64_t min = 0,
       const std::string& other = "")
{
    std::string allowed = other + (other.empty() ? "a" : " or a") + " whole number from "
                          + std::to_string(min) + " to " + std::to_string(max);
    if (t.empty())
    {
        Fail(file, line, field, "is empty", allowed);
    }
    if (t[0] == '-')
    {
        Fail(file, line, field, Quote(t) + " is negative", allowed);
    }
    uint64_t v = 0;
    for (char c : t)
    {
        if (c < '0' || c > '9')
        {
            Fail(file, line, field, Quote(t) + " is not a whole number", allowed);
        }
        uint64_t d = c - '0';
        if (v > (max - d) / 10)
        {
            Fail(file, line, field, Quote(t) + " is too large", allowed);
        }
        v = v * 10 + d;
    }
    if (v < min)
    {
        Fail(file, line, field, "is " + std::to_string(v), allowed);
    }
    return v;
}

/// One collective of a layer's pass.
enum class Comm : uint8_t
{
    NONE,
    ALLREDUCE,
    ALLGATHER,
    REDUCESCATTER,
    ALLTOALL,
    ALLREDUCEALLTOALL
};

/// SimAI: which group a suffixed collective uses.
enum class Scope : uint8_t
{
    DEFAULT,
    EP,   //!< _EP: the expert-parallel group
    DP_EP //!< _DP_EP: the expert-data-parallel group
};

enum class Policy : uint8_t
{
    DATA,
    MODEL,
    DATA_MODEL,
    MODEL_DATA,
    TRANSFORMER,
    TRANSFORMER_FWD_IN_BCKWD,
    DLRM,
    CUSTOMIZED,
    MICRO,
    ALL,  //!< DLRM's layer 0: every pass on every rank
    NONE, //!< a customized layer without collectives
};

struct Pass
{
    uint64_t cycles{0};
    Comm comm{Comm::NONE};
    Scope scope{Scope::DEFAULT};
    uint64_t bytes{0};
};

struct Layer
{
    std::string name;
    uint64_t line{0};
    Pass fwd, ig, wg;
    uint64_t update{0};
    Policy policy{Policy::NONE}; //!< HYBRID_CUSTOMIZED
};

struct Line
{
    uint64_t no;
    std::vector<std::string> toks;
};

std::vector<Line>
Lines(const std::string& text)
{
    std::vector<Line> lines;
    uint64_t no = 1;
    std::size_t i = 0;
    while (i <= text.size())
    {
        std::size_t e = text.find('\n', i);
        if (e == std::string::npos)
        {
            e = text.size();
        }
        Line l{no, {}};
        std::size_t p = i;
        while (p < e)
        {
            while (p < e && std::isspace(static_cast<unsigned char>(text[p])))
            {
                ++p;
            }
            std::size_t q = p;
            while (q < e && !std::isspace(static_cast<unsigned char>(text[q])))
            {
                ++q;
            }
            if (q > p)
            {
                l.toks.emplace_back(text, p, q - p);
            }
            p = q;
        }
        if (!l.toks.empty())
        {
            lines.push_back(std::move(l));
        }
        ++no;
        i = e + 1;
    }
    return lines;
}

Policy
PolicyOf(const std::string& t, bool& known)
{
    known = true;
    static const std::map<std::string, Policy> m
        = {{"DATA", Policy::DATA},
           {"MODEL", Policy::MODEL},
           {"HYBRID_DATA_MODEL", Policy::DATA_MODEL},
           {"HYBRID_MODEL_DATA", Policy::MODEL_DATA},
           {"HYBRID_TRANSFORMER", Policy::TRANSFORMER},
           {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", Policy::TRANSFORMER_FWD_IN_BCKWD},
           {"HYBRID_DLRM", Policy::DLRM},
           {"HYBRID_CUSTOMIZED", Policy::CUSTOMIZED},
           {"MICRO", Policy::MICRO}};
    auto it = m.find(t);
    if (it == m.end())
    {
        known = false;
        return Policy::NONE;
    }
    return it->second;
}

Comm
CommOf(const std::string& file,
       uint64_t line,
       const std::string& field,
       const std::string& t,
       bool simai,
       Scope& scope)
{
    std::string base = t;
    scope = Scope::DEFAULT;
    auto ends = [&](const std::string& suffix)
    {
        return base.size() > suffix.size()
               && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (simai && ends("_DP_EP"))
    {
        scope = Scope::DP_EP;
        base.resize(base.size() - 6);
    }
    else if (simai && ends("_EP"))
    {
        scope = Scope::EP;
        base.resize(base.size() - 3);
    }
    for (std::size_t i = 0; i < COMMS.size(); ++i)
    {
        if (base == COMMS[i])
        {
            return static_cast<Comm>(i);
        }
    }
    Fail(file,
         line,
         field,
         Quote(t) + " is not a collective",
         Join(COMMS) + (simai ? ", each optionally with _EP or _DP_EP" : ""));
}

/// A partition of the job's ranks into communicators.
struct Partition
{
    std::vector<std::vector<uint32_t>> groups;
    std::string prefix;
    TrainingDimension dim{TrainingDimension::DP};
};

Partition
AllRanks(uint32_t n, TrainingDimension dim)
{
    Partition p;
    p.groups.emplace_back();
    for (uint32_t r = 0; r < n; ++r)
    {
        p.groups[0].push_back(r);
    }
    p.prefix = "all";
    p.dim = dim;
    return p;
}

/// Consecutive blocks of m ranks (block) or ranks with the same index in their block.
Partition
Blocks(uint32_t n, uint32_t m, bool strided, const std::string& prefix, TrainingDimension dim)
{
    Partition p;
    p.prefix = prefix;
    p.dim = dim;
    uint32_t blocks = n / m;
    if (!strided)
    {
        for (uint32_t b = 0; b < blocks; ++b)
        {
            p.groups.emplace_back();
            for (uint32_t i = 0; i < m; ++i)
            {
                p.groups.back().push_back(b * m + i);
            }
        }
    }
    else
    {
        for (uint32_t i = 0; i < m; ++i)
        {
            p.groups.emplace_back();
            for (uint32_t b = 0; b < blocks; ++b)
            {
                p.groups.back().push_back(b * m + i);
            }
        }
    }
    return p;
}

/// Builds a graph whose ranks all run the same program.
class Builder
{
public:
    Builder(TrainingGraph& g, DataType type, double nsPerCycle)
        : m_g(g)
        , m_type(type)
        , m_nsPerCycle(nsPerCycle)
        , m_cursor(g.ranks)
    {
    }

    uint32_t Add(TrainingTask t)
    {
        return AddTask(m_g, std::move(t));
    }

    Time Cycles(uint64_t c) const
    {
        double ns = static_cast<double>(c) * m_nsPerCycle;
        if (ns > 1e15)
        {
            // beyond a 64-bit picosecond Time once summed: refused, not wrapped
            throw std::invalid_argument("clock-ghz: " + std::to_string(c) + " cycles at "
                                        + dlnet::ShortestText(1 / m_nsPerCycle)
                                        + " GHz take more than 1e6 s (one task's limit)");
        }
        return Time::FromDouble(ns, Time::NS);
    }

    /// A compute task on rank r after its cursor (none for 0 cycles).
    void Compute(uint32_t r,
                 uint64_t cycles,
                 TrainingPhase phase,
                 int32_t layer,
                 int32_t mb,
                 uint32_t iter,
                 const std::string& label)
    {
        if (cycles == 0)
        {
            return;
        }
        TrainingTask t;
        t.kind = TrainingTaskKind::COMPUTE;
        t.label = label;
        t.ranks = {r};
        t.duration = Cycles(cycles);
        t.deps = m_cursor[r];
        t.phase = phase;
        t.layer = layer;
        t.microbatch = mb;
        t.iteration = iter;
        uint32_t i = Add(std::move(t));
        m_cursor[r] = {i};
    }

    /// The collective of every group of p over the members' cursors.
    /// \return per rank, the task that finishes its part (NO_TASK if none)
    std::vector<uint32_t> Collective(const Partition& p,
                                     Comm comm,
                                     uint64_t bytes,
                                     uint64_t updateCycles,
                                     TrainingPhase phase,
                                     int32_t layer,
                                     int32_t mb,
                                     uint32_t iter,
                                     const std::string& label,
                                     TrainingDimension dim)
    {
        std::vector<uint32_t> handle(m_g.ranks, NO_TASK);
        if (comm == Comm::NONE || bytes == 0)
        {
            return handle;
        }
        std::vector<CollectiveOp> ops;
        switch (comm)
        {
            case Comm::ALLREDUCE:
                ops = {CollectiveOp::ALL_REDUCE};
                break;
            case Comm::ALLGATHER:
                ops = {CollectiveOp::ALL_GATHER};
                break;
            case Comm::REDUCESCATTER:
                ops = {CollectiveOp::REDUCE_SCATTER};
                break;
            case Comm::ALLTOALL:
                ops = {CollectiveOp::ALL_TO_ALL};
                break;
            case Comm::ALLREDUCEALLTOALL:
                ops = {CollectiveOp::ALL_REDUCE, CollectiveOp::ALL_TO_ALL};
                break;
            default:
                break;
        }
        for (std::size_t gi = 0; gi < p.groups.size(); ++gi)
        {
            const auto& members = p.groups[gi];
            if (members.size() < 2)
            {
                continue;
            }
            uint32_t prev = NO_TASK;
            for (std::size_t k = 0; k < ops.size(); ++k)
            {
                TrainingTask t;
                t.kind = TrainingTaskKind::COLLECTIVE;
                t.label = label;
                t.ranks = members;
                t.dimension = dim;
                t.op = ops[k];
                t.type = m_type;
                t.bytes = bytes;
                if (k + 1 == ops.size())
                {
                    t.finishDelay = Cycles(updateCycles);
                }
                if (prev == NO_TASK)
                {
                    for (uint32_t r : members)
                    {
                        t.deps.insert(t.deps.end(), m_cursor[r].begin(), m_cursor[r].end());
                    }
                }
                else
                {
                    t.deps = {prev};
                }
                t.phase = phase;
                t.layer = layer;
                t.microbatch = mb;
                t.iteration = iter;
                t.group = p.prefix + std::to_string(gi);
                prev = Add(std::move(t));
            }
            for (uint32_t r : members)
            {
                handle[r] = prev;
            }
        }
        return handle;
    }

    /// Every rank's next work waits for its part of a collective.
    void Wait(const std::vector<uint32_t>& handle)
    {
        for (uint32_t r = 0; r < handle.size(); ++r)
        {
            if (handle[r] != NO_TASK)
            {
                m_cursor[r].push_back(handle[r]);
            }
        }
    }

    void WaitOne(uint32_t r, uint32_t task)
    {
        if (task != NO_TASK)
        {
            m_cursor[r].push_back(task);
        }
    }

    std::vector<uint32_t>& Cursor(uint32_t r)
    {
        return m_cursor[r];
    }

private:
    TrainingGraph& m_g;
    DataType m_type;
    double m_nsPerCycle;
    std::vector<std::vector<uint32_t>> m_cursor;
};

/// What a parsed text workload holds.
struct TextWorkload
{
    Policy policy{Policy::DATA};
    bool simai{false};
    uint64_t mpGroup{0}; //!< model_parallel_NPU_group, 0 if absent
    std::set<uint64_t> checkpoints;
    std::set<uint64_t> initiates;
    uint64_t lastBottom{0};
    uint64_t ep{1}, pp{1}, vpp{1}, ga{1}, allGpus{0}, ppComm{0};
    uint64_t headerLine{1};
    std::vector<Layer> layers;
};

TextWorkload
ParseText(const std::string& text, const std::string& file)
{
    TextWorkload w;
    std::vector<Line> lines = Lines(text);
    if (lines.empty())
    {
        Fail(file, 1, "policy", "the file is empty", Join(POLICIES));
    }
    const Line& h = lines[0];
    w.headerLine = h.no;
    const std::string& pol = h.toks[0];
    if (pol == "HYBRID_DLRM_ENHANCED" || pol == "DISTRIBUTED_INFERENCE")
    {
        Fail(file, h.no, "policy", Quote(pol) + " is not supported", Join(POLICIES));
    }
    bool known = false;
    w.policy = PolicyOf(pol, known);
    if (!known)
    {
        Fail(file, h.no, "policy", Quote(pol) + " is not a parallelism policy", Join(POLICIES));
    }
    for (const auto& t : h.toks)
    {
        if (t == "all_gpus:")
        {
            w.simai = true;
        }
    }
    std::size_t k = 1;
    auto next = [&](const std::string& field) -> const std::string&
    {
        if (k >= h.toks.size())
        {
            Fail(file, h.no, field, "missing (the header line ends early)");
        }
        return h.toks[k++];
    };
    auto key = [&](const std::string& want)
    {
        const std::string& t = next(want);
        if (t != want + ":")
        {
            Fail(file, h.no, want, "expected " + Quote(want + ":") + ", found " + Quote(t));
        }
    };
    auto idList = [&](const std::string& field, std::set<uint64_t>& out)
    {
        // (the count and the layer indices after it have ranges of their own)
        uint64_t n = Number(file, h.no, field + " count", next(field), MAX_LAYERS);
        for (uint64_t i = 0; i < n; ++i)
        {
            out.insert(Number(file, h.no, field + " layer index", next(field), MAX_LAYERS - 1));
        }
    };
    if (w.simai)
    {
        std::set<std::string> seen;
        while (k < h.toks.size())
        {
            std::string t = h.toks[k++];
            if (t == "pp_comm")
            {
                t = "pp_comm:"; // AICB writes this key without its colon
            }
            static const std::vector<std::string> keys = {"model_parallel_NPU_group:",
                                                          "ep:",
                                                          "pp:",
                                                          "vpp:",
                                                          "ga:",
                                                          "all_gpus:",
                                                          "checkpoints:",
                                                          "checkpoint_initiates:",
                                                          "pp_comm:"};
            if (std::find(keys.begin(), keys.end(), t) == keys.end())
            {
                Fail(file, h.no, "header", Quote(t) + " is not a SimAI header key", Join(keys));
            }
            std::string f = t.substr(0, t.size() - 1);
            if (!seen.insert(f).second)
            {
                Fail(file, h.no, f, "given twice");
            }
            if (f == "checkpoints")
            {
                idList(f, w.checkpoints);
            }
            else if (f == "checkpoint_initiates")
            {
                idList(f, w.initiates);
            }
            else if (f == "pp_comm")
            {
                w.ppComm = Number(file, h.no, f, next(f), MAX_BYTES);
            }
            else
            {
                uint64_t v = Number(file, h.no, f, next(f), MAX_RANKS, 1);
                if (f == "model_parallel_NPU_group")
                {
                    w.mpGroup = v;
                }
                else if (f == "ep")
                {
                    w.ep = v;
                }
                else if (f == "pp")
                {
                    w.pp = v;
                }
                else if (f == "vpp")
                {
                    w.vpp = v;
                }
                else if (f == "ga")
                {
                    w.ga = v;
                }
                else
                {
                    w.allGpus = v;
                }
            }
        }
        if (w.mpGroup == 0)
        {
            w.mpGroup = 1;
        }
    }
    else
    {
        if (w.policy == Policy::TRANSFORMER || w.policy == Policy::TRANSFORMER_FWD_IN_BCKWD)
        {
            key("model_parallel_NPU_group");
            w.mpGroup = Number(file,
                               h.no,
                               "model_parallel_NPU_group",
                               next("model_parallel_NPU_group"),
                               MAX_RANKS,
                               1);
            if (w.policy == Policy::TRANSFORMER_FWD_IN_BCKWD)
            {
                key("checkpoints");
                idList("checkpoints", w.checkpoints);
                key("checkpoint_initiates");
                idList("checkpoint_initiates", w.initiates);
            }
        }
        else if (w.policy == Policy::DLRM)
        {
            w.lastBottom = Number(
                file, h.no, "last_bottom_layer", next("last_bottom_layer"), MAX_LAYERS - 1);
        }
        if (k < h.toks.size())
        {
            Fail(file,
                 h.no,
                 "header",
                 "extra token " + Quote(h.toks[k]) + " after the policy's fields");
        }
    }
    if (lines.size() < 2)
    {
        Fail(file, h.no + 1, "layers", "missing (the file ends after the header)");
    }
    const Line& c = lines[1];
    if (c.toks.size() != 1)
    {
        Fail(file,
             c.no,
             "layers",
             "expected one number, found " + std::to_string(c.toks.size()) + " tokens");
    }
    uint64_t n = Number(file, c.no, "layers", c.toks[0], MAX_LAYERS, 1);
    if (lines.size() - 2 != n)
    {
        uint64_t at = lines.size() - 2 < n ? lines.back().no : lines[2 + n].no;
        Fail(file,
             at,
             "layers",
             "the file declares " + std::to_string(n) + " layers but has "
                 + std::to_string(lines.size() - 2) + " layer lines");
    }
    for (const auto& [field, ids] : {std::make_pair("checkpoints", &w.checkpoints),
                                     std::make_pair("checkpoint_initiates", &w.initiates)})
    {
        for (uint64_t id : *ids)
        {
            if (id >= n)
            {
                Fail(file,
                     h.no,
                     field,
                     "layer " + std::to_string(id) + " is not below the layer count "
                         + std::to_string(n));
            }
        }
    }
    if (w.policy == Policy::DLRM && !w.simai && w.lastBottom >= n)
    {
        Fail(file,
             h.no,
             "last_bottom_layer",
             std::to_string(w.lastBottom) + " is not below the layer count " + std::to_string(n));
    }
    std::size_t want = w.policy == Policy::CUSTOMIZED && !w.simai ? 13 : 12;
    static const std::vector<std::string> names = {"name",
                                                   "reserved",
                                                   "fwd_compute",
                                                   "fwd_comm_type",
                                                   "fwd_comm_bytes",
                                                   "ig_compute",
                                                   "ig_comm_type",
                                                   "ig_comm_bytes",
                                                   "wg_compute",
                                                   "wg_comm_type",
                                                   "wg_comm_bytes",
                                                   "update_time",
                                                   "layer_policy"};
    w.layers.reserve(n);
    for (uint64_t i = 0; i < n; ++i)
    {
        const Line& l = lines[2 + i];
        if (l.toks.size() < want)
        {
            Fail(file,
                 l.no,
                 names[l.toks.size()],
                 "missing (the layer line has " + std::to_string(l.toks.size())
                     + " fields, expected " + std::to_string(want) + ")");
        }
        if (l.toks.size() > want)
        {
            Fail(file,
                 l.no,
                 "layer",
                 "extra token " + Quote(l.toks[want]) + " (expected " + std::to_string(want)
                     + " fields)");
        }
        Layer y;
        y.line = l.no;
        y.name = l.toks[0];
        const std::string& res = l.toks[1];
        if (res != "-1")
        {
            Number(file, l.no, "reserved", res, MAX_LAYERS, 0, "-1");
        }
        auto pass = [&](std::size_t at, const std::string& p)
        {
            Pass x;
            x.cycles = Number(file, l.no, p + "_compute", l.toks[at], MAX_CYCLES);
            x.comm = CommOf(file, l.no, p + "_comm_type", l.toks[at + 1], w.simai, x.scope);
            x.bytes = Number(file, l.no, p + "_comm_bytes", l.toks[at + 2], MAX_BYTES);
            return x;
        };
        y.fwd = pass(2, "fwd");
        y.ig = pass(5, "ig");
        y.wg = pass(8, "wg");
        y.update = Number(file, l.no, "update_time", l.toks[11], MAX_CYCLES);
        if (want == 13)
        {
            const std::string& t = l.toks[12];
            bool ok = false;
            Policy p = PolicyOf(t, ok);
            if (t == "NONE")
            {
                p = Policy::NONE;
            }
            else if (!ok || p == Policy::CUSTOMIZED)
            {
                std::vector<std::string> allowed = POLICIES;
                allowed.erase(std::find(allowed.begin(), allowed.end(), "HYBRID_CUSTOMIZED"));
                allowed.push_back("NONE");
                Fail(
                    file, l.no, "layer_policy", Quote(t) + " is not a layer policy", Join(allowed));
            }
            y.policy = p;
        }
        w.layers.push_back(std::move(y));
    }
    return w;
}

/// Which partition a pass of a layer uses (nullptr: none).
struct Groups
{
    Partition all, allEp, allTp;
    Partition block, strided;     // model_parallel_NPU_group blocks and the strided rest
    Partition blockWg, stridedTp; // the same groups tagged the other way (HYBRID_MODEL_DATA)
    bool haveBlocks{false};
};

const Partition*
PassGroup(const Groups& g, Policy p, int pass /*0 fwd, 1 ig, 2 wg*/, Comm comm)
{
    switch (p)
    {
        case Policy::DATA:
        case Policy::DLRM:
        case Policy::MICRO:
            return pass == 2 ? &g.all : nullptr;
        case Policy::ALL:
            return pass == 2 ? &g.all : (comm == Comm::ALLTOALL ? &g.allEp : &g.allTp);
        case Policy::MODEL:
            return pass == 2 ? nullptr : &g.allTp;
        case Policy::DATA_MODEL:
        case Policy::TRANSFORMER:
        case Policy::TRANSFORMER_FWD_IN_BCKWD:
            return pass == 2 ? &g.strided : &g.block;
        case Policy::MODEL_DATA:
            return pass == 2 ? &g.blockWg : &g.stridedTp;
        default:
            return nullptr;
    }
}

TrainingGraph
BuildAstra(const TextWorkload& w, const std::string& file, const WorkloadImportOptions& o)
{
    uint64_t hl = w.headerLine;
    if (o.ranks < 2)
    {
        Fail(file,
             hl,
             "workload-ranks",
             "is " + std::to_string(o.ranks)
                 + " (an ASTRA-sim 1.0 file does not give the NPU count)",
             "2 to " + std::to_string(MAX_RANKS));
    }
    uint32_t R = o.ranks;
    uint64_t M = 0;
    bool needM = w.policy == Policy::DATA_MODEL || w.policy == Policy::MODEL_DATA
                 || w.policy == Policy::TRANSFORMER || w.policy == Policy::TRANSFORMER_FWD_IN_BCKWD;
    if (w.policy == Policy::CUSTOMIZED)
    {
        for (const auto& y : w.layers)
        {
            needM = needM || y.policy == Policy::DATA_MODEL || y.policy == Policy::MODEL_DATA
                    || y.policy == Policy::TRANSFORMER
                    || y.policy == Policy::TRANSFORMER_FWD_IN_BCKWD;
        }
    }
    if (!needM && o.modelParallel != 0)
    {
        // taken and ignored before
        Fail(file,
             hl,
             "workload-model-parallel",
             "got " + std::to_string(o.modelParallel)
                 + "; this file's policy has no MODEL groups to size",
             "0, or a HYBRID_DATA_MODEL, HYBRID_MODEL_DATA or HYBRID_CUSTOMIZED file");
    }
    if (w.mpGroup != 0)
    {
        M = w.mpGroup;
        if (o.modelParallel != 0 && o.modelParallel != M)
        {
            Fail(file,
                 hl,
                 "model_parallel_NPU_group",
                 std::to_string(M) + " disagrees with workload-model-parallel "
                     + std::to_string(o.modelParallel));
        }
    }
    else
    {
        M = o.modelParallel;
    }
    if (needM)
    {
        if (M == 0)
        {
            Fail(file,
                 hl,
                 "workload-model-parallel",
                 "is 0 and the file gives no model_parallel_NPU_group",
                 "a divisor of ranks " + std::to_string(R));
        }
        if (R % M != 0)
        {
            Fail(file,
                 hl,
                 w.mpGroup != 0 ? "model_parallel_NPU_group" : "workload-model-parallel",
                 std::to_string(M) + " does not divide ranks " + std::to_string(R),
                 "a divisor of " + std::to_string(R));
        }
    }
    Groups gs;
    gs.all = AllRanks(R, TrainingDimension::DP);
    gs.allEp = AllRanks(R, TrainingDimension::EP);
    gs.allTp = AllRanks(R, TrainingDimension::TP);
    if (needM)
    {
        gs.block = Blocks(R, M, false, "mp", TrainingDimension::TP);
        gs.strided = Blocks(R, M, true, "dp", TrainingDimension::DP);
        gs.blockWg = Blocks(R, M, false, "dp", TrainingDimension::DP);
        gs.stridedTp = Blocks(R, M, true, "mp", TrainingDimension::TP);
    }

    uint64_t recomputed = 0;
    if (w.policy == Policy::TRANSFORMER_FWD_IN_BCKWD)
    {
        for (uint64_t i : w.initiates)
        {
            auto c = w.checkpoints.lower_bound(i);
            if (c == w.checkpoints.begin())
            {
                Fail(file,
                     hl,
                     "checkpoint_initiates",
                     "layer " + std::to_string(i) + " has no checkpoint below it");
            }
            recomputed += i - *std::prev(c);
        }
    }
    // At most 3 computes and 3 collective tasks per rank per layer (6 with
    // ALLREDUCEALLTOALL's pair, at most R/2 groups): refuse before building.
    double estimate
        = static_cast<double>(o.iterations) * R * (6.0 * w.layers.size() + 2.0 * recomputed);
    if (estimate > MAX_IMPORT_TASKS)
    {
        Fail(file,
             hl,
             "ranks",
             "ranks x layers x iterations could make up to " + dlnet::ShortestText(estimate)
                 + " tasks",
             "at most " + std::to_string(MAX_IMPORT_TASKS));
    }
    TrainingGraph g;
    g.name = file;
    g.ranks = R;
    g.iterations = o.iterations;
    Builder b(g, o.type, 1e9 / o.clockHz);
    const auto& L = w.layers;
    uint32_t N = L.size();
    auto policyOf = [&](uint32_t i)
    {
        if (w.policy == Policy::CUSTOMIZED)
        {
            return L[i].policy;
        }
        if (w.policy == Policy::DLRM && i == 0)
        {
            return Policy::ALL;
        }
        return w.policy;
    };
    auto label = [&](uint32_t i, const std::string& what, uint32_t it)
    {
        return "L" + std::to_string(i) + " " + L[i].name + " " + what + " it" + std::to_string(it);
    };
    auto compute = [&](uint32_t i, int pass, TrainingPhase ph, uint32_t it, const std::string& what)
    {
        const Pass& p = pass == 0 ? L[i].fwd : pass == 1 ? L[i].ig : L[i].wg;
        for (uint32_t r = 0; r < R; ++r)
        {
            b.Compute(r, p.cycles, ph, i, -1, it, label(i, what, it));
        }
    };
    auto coll = [&](uint32_t i, int pass, TrainingPhase ph, uint32_t it, const std::string& what)
    {
        const Pass& p = pass == 0 ? L[i].fwd : pass == 1 ? L[i].ig : L[i].wg;
        const Partition* part = PassGroup(gs, policyOf(i), pass, p.comm);
        if (part == nullptr)
        {
            return std::vector<uint32_t>(R, NO_TASK);
        }
        return b.Collective(
            *part, p.comm, p.bytes, L[i].update, ph, i, -1, it, label(i, what, it), part->dim);
    };
    std::vector<std::vector<uint32_t>> wgPrev(N, std::vector<uint32_t>(R, NO_TASK));
    const auto FWD = TrainingPhase::FORWARD;
    const auto BWD = TrainingPhase::BACKWARD;

    if (w.policy == Policy::MICRO)
    {
        // ASTRA-sim issues only layer 0's weight-gradient collective once per
        // pass, all at once, without compute.
        for (uint32_t it = 0; it < o.iterations; ++it)
        {
            coll(0, 2, BWD, it, "wg comm");
        }
        return g;
    }
    for (uint32_t it = 0; it < o.iterations; ++it)
    {
        std::vector<std::vector<uint32_t>> wgNow(N, std::vector<uint32_t>(R, NO_TASK));
        std::vector<std::vector<uint32_t>> igNow(N, std::vector<uint32_t>(R, NO_TASK));
        if (w.policy == Policy::DATA || w.policy == Policy::DLRM)
        {
            bool dlrm = w.policy == Policy::DLRM;
            std::vector<uint32_t> emb(R, NO_TASK);
            for (uint32_t i = 0; i < N; ++i)
            {
                b.Wait(wgPrev[i]);
                compute(i, 0, FWD, it, "fwd");
                if (dlrm && L[i].fwd.comm == Comm::ALLTOALL)
                {
                    auto h = coll(i, 0, FWD, it, "fwd comm");
                    if (i == 0)
                    {
                        emb = h;
                    }
                }
                if (dlrm && i == w.lastBottom)
                {
                    b.Wait(emb);
                }
            }
            for (uint32_t i = N; i-- > 0;)
            {
                compute(i, 2, BWD, it, "wg");
                wgNow[i] = coll(i, 2, BWD, it, "wg comm");
                if (dlrm)
                {
                    b.Wait(igNow[i]);
                }
                if (i > 0)
                {
                    compute(i, 1, BWD, it, "ig");
                    if (dlrm && i == w.lastBottom + 1)
                    {
                        igNow[0] = coll(0, 1, BWD, it, "ig comm");
                    }
                }
            }
        }
        else
        {
            bool transformer
                = w.policy == Policy::TRANSFORMER || w.policy == Policy::TRANSFORMER_FWD_IN_BCKWD;
            for (uint32_t i = 0; i < N; ++i)
            {
                b.Wait(wgPrev[i]);
                compute(i, 0, FWD, it, "fwd");
                b.Wait(coll(i, 0, FWD, it, "fwd comm"));
            }
            for (uint32_t i = N; i-- > 0;)
            {
                if (w.policy == Policy::TRANSFORMER_FWD_IN_BCKWD && w.initiates.count(i))
                {
                    // Recompute the forward from the nearest checkpoint below.
                    auto c = w.checkpoints.lower_bound(i);
                    if (c == w.checkpoints.begin())
                    {
                        Fail(file,
                             hl,
                             "checkpoint_initiates",
                             "layer " + std::to_string(i) + " has no checkpoint below it");
                    }
                    --c;
                    for (uint32_t j = *c; j < i; ++j)
                    {
                        compute(j, 0, TrainingPhase::RECOMPUTE, it, "fwd recompute");
                        b.Wait(coll(j, 0, TrainingPhase::RECOMPUTE, it, "fwd comm recompute"));
                    }
                }
                compute(i, 1, BWD, it, "ig");
                if (transformer || i > 0)
                {
                    igNow[i] = coll(i, 1, BWD, it, "ig comm");
                }
                compute(i, 2, BWD, it, "wg");
                wgNow[i] = coll(i, 2, BWD, it, "wg comm");
                b.Wait(igNow[i]);
            }
        }
        wgPrev = std::move(wgNow);
    }
    return g;
}

/// SimAI: TP innermost, then PP, then DP.
TrainingGraph
BuildSimai(const TextWorkload& w, const std::string& file, const WorkloadImportOptions& o)
{
    uint64_t hl = w.headerLine;
    if (w.allGpus == 0)
    {
        Fail(file, hl, "all_gpus", "missing");
    }
    if (o.ranks != 0 && o.ranks != w.allGpus)
    {
        Fail(file,
             hl,
             "all_gpus",
             std::to_string(w.allGpus) + " disagrees with workload-ranks "
                 + std::to_string(o.ranks));
    }
    if (o.pipelineParallel != 0 && o.pipelineParallel != w.pp)
    {
        Fail(file,
             hl,
             "pp",
             std::to_string(w.pp) + " disagrees with pipelineParallel "
                 + std::to_string(o.pipelineParallel));
    }
    if (o.modelParallel != 0 && o.modelParallel != w.mpGroup)
    {
        Fail(file,
             hl,
             "model_parallel_NPU_group",
             std::to_string(w.mpGroup) + " disagrees with workload-model-parallel "
                 + std::to_string(o.modelParallel));
    }
    uint64_t N = w.allGpus, TP = w.mpGroup, PP = w.pp;
    if (N < 2)
    {
        Fail(file, hl, "all_gpus", "is " + std::to_string(N), "2 to " + std::to_string(MAX_RANKS));
    }
    if (N % (TP * PP) != 0)
    {
        Fail(file,
             hl,
             "all_gpus",
             std::to_string(N) + " is not a multiple of model_parallel_NPU_group x pp = "
                 + std::to_string(TP * PP));
    }
    uint64_t DP = N / (TP * PP);
    if (DP % w.ep != 0)
    {
        Fail(file,
             hl,
             "ep",
             std::to_string(w.ep) + " does not divide the data-parallel size "
                 + std::to_string(DP));
    }
    if (w.ga > 4096)
    {
        Fail(file, hl, "ga", std::to_string(w.ga) + " is too large", "1 to 4096");
    }
    uint32_t nl = w.layers.size();
    if (nl < PP)
    {
        Fail(file,
             hl,
             "pp",
             std::to_string(PP) + " stages but only " + std::to_string(nl) + " layers");
    }
    uint32_t R = N;
    double estimate = static_cast<double>(o.iterations) * w.ga * R * (6.0 * nl + 2.0);
    if (estimate > MAX_IMPORT_TASKS)
    {
        Fail(file,
             hl,
             "all_gpus",
             "all_gpus x ga x layers x iterations could make up to " + dlnet::ShortestText(estimate)
                 + " tasks",
             "at most " + std::to_string(MAX_IMPORT_TASKS));
    }
    auto rankOf = [&](uint64_t tp, uint64_t pp, uint64_t dp)
    {
        return static_cast<uint32_t>(tp + TP * (pp + PP * dp));
    };
    auto make = [&](const std::string& prefix, TrainingDimension dim, auto key)
    {
        Partition p;
        p.prefix = prefix;
        p.dim = dim;
        std::map<uint64_t, uint32_t> index;
        for (uint64_t dp = 0; dp < DP; ++dp)
            for (uint64_t pp = 0; pp < PP; ++pp)
                for (uint64_t tp = 0; tp < TP; ++tp)
                {
                    uint64_t k = key(tp, pp, dp);
                    auto it = index.find(k);
                    if (it == index.end())
                    {
                        it = index.emplace(k, p.groups.size()).first;
                        p.groups.emplace_back();
                    }
                    p.groups[it->second].push_back(rankOf(tp, pp, dp));
                }
        return p;
    };
    uint64_t EP = w.ep;
    Partition tpG = make("tp",
                         TrainingDimension::TP,
                         [&](uint64_t, uint64_t pp, uint64_t dp)
                         {
                             return pp + PP * dp;
                         });
    Partition dpG = make("dp",
                         TrainingDimension::DP,
                         [&](uint64_t tp, uint64_t pp, uint64_t)
                         {
                             return tp + TP * pp;
                         });
    Partition epG = make("ep",
                         TrainingDimension::EP,
                         [&](uint64_t tp, uint64_t pp, uint64_t dp)
                         {
                             return tp + TP * (pp + PP * (dp / EP));
                         });
    Partition edpG = make("edp",
                          TrainingDimension::DP,
                          [&](uint64_t tp, uint64_t pp, uint64_t dp)
                          {
                              return tp + TP * (pp + PP * (dp % EP));
                          });

    RefuseClock(file, o, "SimAI");
    TrainingGraph g;
    g.name = file;
    g.ranks = R;
    g.iterations = o.iterations;
    Builder b(g, o.type, 1.0); // SimAI compute is in nanoseconds
    // Balanced contiguous stages: the first (layers % pp) stages get one more.
    std::vector<uint32_t> first(PP + 1, 0);
    for (uint64_t s = 0; s < PP; ++s)
    {
        first[s + 1] = first[s] + nl / PP + (s < nl % PP ? 1 : 0);
    }
    const auto& L = w.layers;
    auto partOf = [&](const Pass& p, bool wg) -> const Partition&
    {
        if (p.scope == Scope::EP)
            return epG;
        if (p.scope == Scope::DP_EP)
            return edpG;
        return wg ? dpG : tpG;
    };
    // A layer's pass on the ranks of one stage only: run it on a sub-builder view.
    // Every partition's groups lie inside one stage, so we issue per stage by
    // filtering groups.
    auto stagePart = [&](const Partition& p, uint64_t s)
    {
        Partition q;
        q.prefix = p.prefix;
        q.dim = p.dim;
        for (std::size_t gi = 0; gi < p.groups.size(); ++gi)
        {
            uint32_t r = p.groups[gi][0];
            if ((r / TP) % PP == s)
            {
                q.groups.push_back(p.groups[gi]);
            }
            else
            {
                q.groups.emplace_back(); // keeps the group numbering
            }
        }
        return q;
    };
    // Pre-split partitions per stage.
    std::vector<std::array<Partition, 4>> sp(PP);
    for (uint64_t s = 0; s < PP; ++s)
    {
        sp[s] = {stagePart(tpG, s), stagePart(dpG, s), stagePart(epG, s), stagePart(edpG, s)};
    }
    auto pick = [&](const Pass& p, bool wg, uint64_t s) -> const Partition&
    {
        if (p.scope == Scope::EP)
            return sp[s][2];
        if (p.scope == Scope::DP_EP)
            return sp[s][3];
        return wg ? sp[s][1] : sp[s][0];
    };
    (void) partOf;
    std::vector<std::vector<uint32_t>> wgPrev(nl, std::vector<uint32_t>(R, NO_TASK));
    auto label = [&](uint32_t i, const std::string& what, uint32_t mb, uint32_t it)
    {
        return "L" + std::to_string(i) + " " + L[i].name + " " + what + " mb" + std::to_string(mb)
               + " it" + std::to_string(it);
    };
    auto stageRanks = [&](uint64_t s)
    {
        std::vector<uint32_t> v;
        for (uint64_t dp = 0; dp < DP; ++dp)
            for (uint64_t tp = 0; tp < TP; ++tp)
                v.push_back(rankOf(tp, s, dp));
        return v;
    };
    std::vector<std::vector<uint32_t>> ranksOf(PP);
    for (uint64_t s = 0; s < PP; ++s)
    {
        ranksOf[s] = stageRanks(s);
    }
    auto send = [&](uint64_t from,
                    uint64_t to,
                    uint32_t mb,
                    uint32_t it,
                    TrainingPhase ph,
                    const std::string& what)
    {
        for (uint64_t dp = 0; dp < DP; ++dp)
            for (uint64_t tp = 0; tp < TP; ++tp)
            {
                uint32_t a = rankOf(tp, from, dp), c = rankOf(tp, to, dp);
                if (w.ppComm == 0)
                {
                    // No bytes: the receiver still waits for the sender.
                    auto cur = b.Cursor(a);
                    b.Cursor(c).insert(b.Cursor(c).end(), cur.begin(), cur.end());
                    continue;
                }
                TrainingTask t;
                t.kind = TrainingTaskKind::SEND;
                t.label = what + " mb" + std::to_string(mb) + " it" + std::to_string(it) + " stage"
                          + std::to_string(from) + "->" + std::to_string(to);
                t.ranks = {a, c};
                t.dimension = TrainingDimension::PP;
                t.bytes = w.ppComm;
                t.deps = b.Cursor(a);
                t.phase = ph;
                t.microbatch = mb;
                t.iteration = it;
                t.group = "pp";
                uint32_t k = b.Add(std::move(t));
                b.WaitOne(c, k);
            }
    };
    for (uint32_t it = 0; it < o.iterations; ++it)
    {
        std::vector<std::vector<uint32_t>> wgNow(nl, std::vector<uint32_t>(R, NO_TASK));
        // GPipe: every microbatch's forward, then every microbatch's backward.
        for (uint32_t mb = 0; mb < w.ga; ++mb)
        {
            for (uint64_t s = 0; s < PP; ++s)
            {
                for (uint32_t i = first[s]; i < first[s + 1]; ++i)
                {
                    if (mb == 0)
                    {
                        b.Wait(wgPrev[i]);
                    }
                    for (uint32_t r : ranksOf[s])
                    {
                        b.Compute(r,
                                  L[i].fwd.cycles,
                                  TrainingPhase::FORWARD,
                                  i,
                                  mb,
                                  it,
                                  label(i, "fwd", mb, it));
                    }
                    b.Wait(b.Collective(pick(L[i].fwd, false, s),
                                        L[i].fwd.comm,
                                        L[i].fwd.bytes,
                                        L[i].update,
                                        TrainingPhase::FORWARD,
                                        i,
                                        mb,
                                        it,
                                        label(i, "fwd comm", mb, it),
                                        pick(L[i].fwd, false, s).dim));
                }
                if (s + 1 < PP)
                {
                    send(s, s + 1, mb, it, TrainingPhase::FORWARD, "activation");
                }
            }
        }
        for (uint32_t mb = w.ga; mb-- > 0;)
        {
            for (uint64_t s = PP; s-- > 0;)
            {
                for (uint32_t i = first[s + 1]; i-- > first[s];)
                {
                    for (uint32_t r : ranksOf[s])
                    {
                        b.Compute(r,
                                  L[i].ig.cycles,
                                  TrainingPhase::BACKWARD,
                                  i,
                                  mb,
                                  it,
                                  label(i, "ig", mb, it));
                    }
                    auto ig = b.Collective(pick(L[i].ig, false, s),
                                           L[i].ig.comm,
                                           L[i].ig.bytes,
                                           L[i].update,
                                           TrainingPhase::BACKWARD,
                                           i,
                                           mb,
                                           it,
                                           label(i, "ig comm", mb, it),
                                           pick(L[i].ig, false, s).dim);
                    for (uint32_t r : ranksOf[s])
                    {
                        b.Compute(r,
                                  L[i].wg.cycles,
                                  TrainingPhase::BACKWARD,
                                  i,
                                  mb,
                                  it,
                                  label(i, "wg", mb, it));
                    }
                    if (mb == 0)
                    {
                        // Gradient accumulation: one reduction per iteration, after the last
                        // microbatch.
                        wgNow[i] = b.Collective(pick(L[i].wg, true, s),
                                                L[i].wg.comm,
                                                L[i].wg.bytes,
                                                L[i].update,
                                                TrainingPhase::BACKWARD,
                                                i,
                                                -1,
                                                it,
                                                label(i, "wg comm", mb, it),
                                                pick(L[i].wg, true, s).dim);
                    }
                    b.Wait(ig);
                }
                if (s > 0)
                {
                    send(s, s - 1, mb, it, TrainingPhase::BACKWARD, "gradient");
                }
            }
        }
        wgPrev = std::move(wgNow);
    }
    return g;
}

} // namespace

TrainingGraph
ImportAstraSimText(const std::string& text,
                   const std::string& fileName,
                   const WorkloadImportOptions& o)
{
    dlnet::UsePicoseconds(); // the tasks' Times in the clusters' resolution from the start
    CheckOptions(fileName, o);
    TextWorkload w = ParseText(text, fileName);
    TrainingGraph g = w.simai ? BuildSimai(w, fileName, o) : BuildAstra(w, fileName, o);
    g.Validate();
    NS_LOG_INFO(fileName << ": " << g.tasks.size() << " tasks on " << g.ranks << " ranks");
    return g;
}

bool
IsChakraJson(const std::string& text)
{
    // JSON is Chakra's (its "workload_graph" or "traces"; a text workload starts with a
    // policy name)
    std::size_t p = text.find_first_not_of(" \t\r\n");
    return p != std::string::npos && (text[p] == '{' || text[p] == '[');
}

TrainingGraph
ImportWorkloadFile(const std::string& path, const WorkloadImportOptions& o)
{
    std::string text = dlnet::ReadInputFile("workload-file", path);
    if (IsChakraJson(text))
    {
        return ImportChakraJson(text, path, "", o);
    }
    return ImportAstraSimText(text, path, o);
}

} // namespace ns3
