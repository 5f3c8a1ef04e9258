/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-import-checks.h"
#include "workload-import.h"

#include "ns3/config-parse.h"
#include "ns3/json-document.h"
#include "ns3/time-resolution.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace ns3
{

using namespace workloadimport;

namespace
{

constexpr uint64_t MAX_CHAKRA_NODES = 1000000;

/// One node of a rank's trace, and what the import derives from it.
struct ChakraNode
{
    uint64_t id{0};
    std::string name;
    int type{0};
    double runtime{0};
    std::vector<uint64_t> deps;
    int commType{-1};
    uint64_t commSize{0};
    int64_t src{-1}, dst{-1}, tag{0};
    std::string pg;
    // derived
    std::vector<uint32_t> succ;
    uint32_t pending{0};
    uint32_t task{NO_TASK};
    uint32_t seq{0}; //!< collective: index among this rank's collectives of its group
};

/**
 * A Chakra execution trace (JSON: one workload_graph for every rank, or a trace per rank)
 * read into a training graph, step by step; every refusal names the file and the field.
 */
class ChakraImport
{
public:
    ChakraImport(const std::string& file,
                 const std::string& groupsText,
                 const WorkloadImportOptions& options,
                 const std::string& groupsFileName)
        : m_file(file)
        , m_groupsText(groupsText)
        , m_options(options)
        , m_groupsFileName(groupsFileName)
    {
    }

    TrainingGraph Run(const std::string& text)
    {
        CheckOptions(m_file, m_options);
        RefuseClock(m_file, m_options, "Chakra");
        if (m_options.modelParallel != 0)
        {
            Fail(m_file,
                 0,
                 "workload-model-parallel",
                 "got " + std::to_string(m_options.modelParallel)
                     + "; a Chakra trace names its groups itself (pg_name)",
                 "0");
        }
        m_doc = dlnet::ParseJsonDocument(text, m_file);
        if (!m_doc.is_object())
        {
            fail("json",
                 "the document is not an object",
                 "{\"workload_graph\": [...]} or {\"traces\": [...]}");
        }
        ReadTraces();
        if (m_doc.contains("groups"))
        {
            ReadGroups(m_doc["groups"], m_file);
        }
        if (!m_groupsText.empty())
        {
            const std::string groupsFile
                = m_groupsFileName.empty() ? m_file + " (groups)" : m_groupsFileName;
            ReadGroups(dlnet::ParseJsonDocument(m_groupsText, groupsFile), groupsFile);
        }
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            m_everyone.push_back(r);
        }
        ReadNodes();
        m_graph.name = m_file;
        m_graph.ranks = m_ranks;
        m_graph.iterations = 1;
        CheckMembers();
        BuildTasks();
        CheckMatched();
        m_graph.Validate();
        return std::move(m_graph);
    }

private:
    using json = nlohmann::json;

    [[noreturn]] void fail(const std::string& field,
                           const std::string& what,
                           const std::string& allowed = "") const
    {
        Fail(m_file, 0, field, what, allowed);
    }

    /// One node list per rank; SPMD: the same list for every rank.
    void ReadTraces()
    {
        m_spmd = m_doc.contains("workload_graph");
        if (m_spmd)
        {
            m_ranks = m_options.ranks;
            if (m_doc.contains("ranks"))
            {
                const json& jr = m_doc["ranks"];
                if (!jr.is_number_unsigned() || jr.get<uint64_t>() < 1
                    || jr.get<uint64_t>() > MAX_RANKS)
                {
                    fail("ranks", "is not a whole number from 1 to " + std::to_string(MAX_RANKS));
                }
                uint32_t n = jr.get<uint64_t>();
                if (m_ranks != 0 && m_ranks != n)
                {
                    fail("ranks",
                         std::to_string(n) + " disagrees with the option's "
                             + std::to_string(m_ranks));
                }
                m_ranks = n;
            }
            if (m_ranks == 0)
            {
                fail("ranks",
                     "is 0 (a single workload_graph runs on every rank: give ranks)",
                     "1 to " + std::to_string(MAX_RANKS));
            }
            m_lists.assign(m_ranks, &m_doc["workload_graph"]);
        }
        else
        {
            if (!m_doc.contains("traces") || !m_doc["traces"].is_array())
            {
                fail("traces", "missing (need \"workload_graph\" or \"traces\")");
            }
            const json& tr = m_doc["traces"];
            if (tr.empty() || tr.size() > MAX_RANKS)
            {
                fail("traces",
                     "holds " + std::to_string(tr.size()) + " traces",
                     "1 to " + std::to_string(MAX_RANKS));
            }
            m_ranks = tr.size();
            if (m_doc.contains("ranks"))
            {
                const json& jr = m_doc["ranks"];
                if (!jr.is_number_unsigned())
                {
                    // (4.0 and "4" were told they did not equal 4)
                    fail("ranks",
                         "is not a JSON integer from 1",
                         "the number of traces, " + std::to_string(m_ranks));
                }
                if (jr.get<uint64_t>() != m_ranks)
                {
                    fail("ranks",
                         std::to_string(jr.get<uint64_t>())
                             + " does not equal the number of traces " + std::to_string(m_ranks));
                }
            }
            if (m_options.ranks != 0 && m_options.ranks != m_ranks)
            {
                fail("workload-ranks",
                     "the file has " + std::to_string(m_ranks) + " traces, the option says "
                         + std::to_string(m_options.ranks));
            }
            m_lists.assign(m_ranks, nullptr);
            for (const json& t : tr)
            {
                if (!t.is_object() || !t.contains("rank") || !t["rank"].is_number_unsigned()
                    || t["rank"].get<uint64_t>() >= m_ranks)
                {
                    fail("traces", "each trace needs \"rank\" below " + std::to_string(m_ranks));
                }
                uint32_t r = t["rank"].get<uint64_t>();
                if (m_lists[r] != nullptr)
                {
                    fail("traces", "rank " + std::to_string(r) + " has two traces");
                }
                if (!t.contains("workload_graph"))
                {
                    fail("traces",
                         "the trace of rank " + std::to_string(r) + " has no workload_graph");
                }
                m_lists[r] = &t["workload_graph"];
            }
        }
    }

    /// Communicator groups: name -> distinct ranks.
    void ReadGroups(const json& gj, const std::string& where)
    {
        if (!gj.is_object())
        {
            Fail(where, 0, "groups", "is not an object {\"name\": [ranks...]}");
        }
        for (auto it = gj.begin(); it != gj.end(); ++it)
        {
            if (!it.value().is_array() || it.value().empty() || it.value().size() > m_ranks)
            {
                Fail(where,
                     0,
                     "groups",
                     "group " + Quote(it.key()) + " is not a list of 1 to "
                         + std::to_string(m_ranks) + " ranks");
            }
            std::vector<uint32_t> m;
            std::set<uint32_t> seen;
            for (const json& x : it.value())
            {
                if (!x.is_number_unsigned() || x.get<uint64_t>() >= m_ranks
                    || !seen.insert(x.get<uint64_t>()).second)
                {
                    Fail(where,
                         0,
                         "groups",
                         "group " + Quote(it.key())
                             + " holds a rank that is not a distinct whole number below "
                             + std::to_string(m_ranks));
                }
                m.push_back(x.get<uint64_t>());
            }
            m_groups[it.key()] = m;
        }
    }

    /// One node of rank r's trace, its fields in their ranges (at: where it is, for the
    /// messages; its Id is added)
    ChakraNode ParseNode(const json& n, std::string& at, uint32_t r, std::size_t listSize) const
    {
        auto uint = [&](const char* f, bool required, uint64_t max, uint64_t def) -> uint64_t
        {
            if (!n.contains(f))
            {
                if (required)
                {
                    fail(f, "missing in " + at);
                }
                return def;
            }
            const json& x = n[f];
            if (!x.is_number_unsigned() || x.get<uint64_t>() > max)
            {
                fail(f, "in " + at + " is not a whole number from 0 to " + std::to_string(max));
            }
            return x.get<uint64_t>();
        };
        ChakraNode c;
        c.id = uint("Id", true, UINT64_MAX, 0);
        at += " (Id " + std::to_string(c.id) + ")";
        if (n.contains("Name") && n["Name"].is_string())
        {
            c.name = n["Name"].get<std::string>();
        }
        c.type = uint("NodeType", true, 7, 0);
        if (c.type < 1)
        {
            fail("NodeType",
                 "in " + at + " is 0",
                 "1 METADATA, 2 MEM_LOAD, 3 MEM_STORE, 4 COMP, 5 COMM_SEND, 6 COMM_RECV, 7 "
                 "COMM_COLL");
        }
        if (n.contains("runtime"))
        {
            const json& x = n["runtime"];
            if (!x.is_number() || !(x.get<double>() >= 0) || x.get<double>() > 1e12)
            {
                fail("runtime", "in " + at + " is not a number of microseconds from 0 to 1e12");
            }
            c.runtime = x.get<double>();
        }
        if (n.contains("data_deps"))
        {
            const json& d = n["data_deps"];
            if (!d.is_array())
            {
                fail("data_deps", "in " + at + " is not a list of node Ids");
            }
            if (d.size() > listSize)
            {
                fail("data_deps",
                     "in " + at + " lists " + std::to_string(d.size())
                         + " Ids, more than the trace's " + std::to_string(listSize) + " nodes");
            }
            for (const json& x : d)
            {
                if (!x.is_number_unsigned())
                {
                    fail("data_deps", "in " + at + " holds a value that is not a node Id");
                }
                c.deps.push_back(x.get<uint64_t>());
            }
        }
        if (c.type == 7)
        {
            if (!n.contains("comm_type"))
            {
                fail("comm_type", "missing in " + at);
            }
            c.commType = uint("comm_type", true, 9, 0);
            if (c.commType == 3 || c.commType == 4)
            {
                fail("comm_type",
                     "in " + at + ": GATHER and SCATTER are not supported",
                     "0 ALL_REDUCE, 1 REDUCE, 2 ALL_GATHER, 5 BROADCAST, 6 ALL_TO_ALL, 7 "
                     "REDUCE_SCATTER, 8 REDUCE_SCATTER_BLOCK, 9 BARRIER");
            }
        }
        if (c.type >= 5)
        {
            c.commSize = uint("comm_size", c.type != 7 || c.commType != 9, MAX_BYTES, 0);
        }
        if (c.type == 5 || c.type == 6)
        {
            c.src = uint(c.type == 6 ? "comm_src" : "comm_src", c.type == 6, m_ranks - 1, r);
            c.dst = uint("comm_dst", c.type == 5, m_ranks - 1, r);
            c.tag = uint("comm_tag", false, UINT32_MAX, 0);
            if (m_spmd)
            {
                fail("NodeType",
                     "in " + at
                         + ": send and receive need one trace per rank (\"traces\"), not a "
                           "shared workload_graph");
            }
            if ((c.type == 5 && c.src != r) || (c.type == 6 && c.dst != r))
            {
                fail(c.type == 5 ? "comm_src" : "comm_dst",
                     "in " + at + " is not the trace's own rank " + std::to_string(r));
            }
            if (c.src == c.dst)
            {
                fail("comm_dst", "in " + at + ": a rank sends to itself");
            }
        }
        if (n.contains("pg_name"))
        {
            if (!n["pg_name"].is_string())
            {
                fail("pg_name", "in " + at + " is not a string");
            }
            c.pg = n["pg_name"].get<std::string>();
        }
        return c;
    }

    /// Parse the nodes of each rank (SPMD: parse once); their dependencies known and
    /// acyclic; each collective's place among its group's.
    void ReadNodes()
    {
        m_nodes.resize(m_ranks);
        uint64_t total = 0;
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            if (m_spmd && r > 0)
            {
                m_nodes[r] = m_nodes[0];
                total += m_nodes[0].size();
                if (total > MAX_CHAKRA_NODES)
                {
                    fail("workload_graph",
                         "more than " + std::to_string(MAX_CHAKRA_NODES) + " nodes over all ranks");
                }
                continue;
            }
            const json& list = *m_lists[r];
            std::string where = "rank " + std::to_string(r);
            if (!list.is_array())
            {
                fail("workload_graph", "of " + where + " is not an array");
            }
            total += list.size();
            if (total > MAX_CHAKRA_NODES)
            {
                fail("workload_graph",
                     "more than " + std::to_string(MAX_CHAKRA_NODES) + " nodes over all ranks");
            }
            std::map<uint64_t, uint32_t> byId;
            auto& v = m_nodes[r];
            v.reserve(list.size());
            for (std::size_t k = 0; k < list.size(); ++k)
            {
                const json& n = list[k];
                std::string at = where + ", node #" + std::to_string(k);
                if (!n.is_object())
                {
                    fail("workload_graph", at + " is not an object");
                }
                ChakraNode c = ParseNode(n, at, r, list.size());
                if (!byId.emplace(c.id, v.size()).second)
                {
                    fail("Id", at + ": the Id is given twice");
                }
                v.push_back(std::move(c));
            }
            // Dependencies: known Ids, no cycle.
            for (uint32_t k = 0; k < v.size(); ++k)
            {
                std::sort(v[k].deps.begin(), v[k].deps.end());
                v[k].deps.erase(std::unique(v[k].deps.begin(), v[k].deps.end()), v[k].deps.end());
                for (uint64_t d : v[k].deps)
                {
                    auto it = byId.find(d);
                    if (it == byId.end())
                    {
                        fail("data_deps",
                             where + ", node Id " + std::to_string(v[k].id) + " " + Quote(v[k].name)
                                 + " depends on unknown Id " + std::to_string(d));
                    }
                    v[it->second].succ.push_back(k);
                    v[k].pending++;
                }
            }
            std::vector<uint32_t> order, pend(v.size());
            for (uint32_t k = 0; k < v.size(); ++k)
            {
                pend[k] = v[k].pending;
                if (pend[k] == 0)
                {
                    order.push_back(k);
                }
            }
            for (std::size_t q = 0; q < order.size(); ++q)
            {
                for (uint32_t s : v[order[q]].succ)
                {
                    if (--pend[s] == 0)
                    {
                        order.push_back(s);
                    }
                }
            }
            if (order.size() != v.size())
            {
                for (uint32_t k = 0; k < v.size(); ++k)
                {
                    if (pend[k] != 0)
                    {
                        fail("data_deps",
                             where + ", node Id " + std::to_string(v[k].id) + " " + Quote(v[k].name)
                                 + " is on a dependency cycle");
                    }
                }
            }
            // Issue order of collectives per group = this topological order.
            std::map<std::string, uint32_t> count;
            for (uint32_t k : order)
            {
                if (v[k].type == 7)
                {
                    if (!v[k].pg.empty() && !m_groups.count(v[k].pg)
                        && !(m_groups.empty() && v[k].pg.empty()))
                    {
                        std::vector<std::string> names;
                        for (const auto& e : m_groups)
                        {
                            names.push_back(e.first);
                        }
                        fail("pg_name",
                             where + ", node Id " + std::to_string(v[k].id) + ": " + Quote(v[k].pg)
                                 + " is not a group",
                             !names.empty()         ? Join(names)
                             : m_groupsText.empty() ? "none: no groups given"
                             : m_groupsFileName.empty()
                                 ? "none: the groups given hold none"
                                 : "none: " + dlnet::PrintablePath(m_groupsFileName)
                                       + " holds none");
                    }
                    v[k].seq = count[v[k].pg]++;
                }
            }
        }
    }

    /// Every rank that issues a collective must belong to its group (SPMD traces too: a
    /// shared trace names the same group on every rank).
    void CheckMembers() const
    {
        std::map<std::string, std::set<uint32_t>> member;
        for (const auto& e : m_groups)
        {
            member[e.first] = std::set<uint32_t>(e.second.begin(), e.second.end());
        }
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (const ChakraNode& c : m_nodes[r])
            {
                if (c.type == 7 && !c.pg.empty() && member[c.pg].count(r) == 0)
                {
                    fail("pg_name",
                         "rank " + std::to_string(r) + ", node Id " + std::to_string(c.id)
                             + ": the rank is not in group " + Quote(c.pg));
                }
            }
        }
    }

    /// Event-driven matching: a node is ready when its deps have tasks.
    void BuildTasks()
    {
        std::vector<std::pair<uint32_t, uint32_t>> ready;
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (uint32_t k = 0; k < m_nodes[r].size(); ++k)
            {
                if (m_nodes[r][k].pending == 0)
                {
                    ready.emplace_back(r, k);
                }
            }
        }
        std::vector<std::map<uint64_t, uint32_t>> index(m_ranks);
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (uint32_t k = 0; k < m_nodes[r].size(); ++k)
            {
                index[r][m_nodes[r][k].id] = k;
            }
        }
        auto deps = [&](uint32_t r, const ChakraNode& c)
        {
            std::vector<uint32_t> d;
            for (uint64_t id : c.deps)
            {
                d.push_back(m_nodes[r][index[r][id]].task);
            }
            return d;
        };
        auto finish = [&](uint32_t r, uint32_t k, uint32_t task)
        {
            m_nodes[r][k].task = task;
            for (uint32_t s : m_nodes[r][k].succ)
            {
                if (--m_nodes[r][s].pending == 0)
                {
                    ready.emplace_back(r, s);
                }
            }
        };
        auto delay = [&](uint32_t r, const ChakraNode& c, Time t)
        {
            TrainingTask x;
            x.kind = c.type == 4 ? TrainingTaskKind::COMPUTE : TrainingTaskKind::DELAY;
            x.label = c.name.empty() ? "node " + std::to_string(c.id) : c.name;
            x.ranks = {r};
            x.duration = t;
            x.deps = deps(r, c);
            return AddTask(m_graph, std::move(x));
        };
        std::map<std::pair<std::string, uint32_t>, std::vector<std::pair<uint32_t, uint32_t>>>
            collWait;
        std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<std::pair<uint32_t, uint32_t>>>
            sends, recvs;
        static const CollectiveOp OPS[] = {CollectiveOp::ALL_REDUCE,
                                           CollectiveOp::REDUCE,
                                           CollectiveOp::ALL_GATHER,
                                           CollectiveOp::ALL_REDUCE,
                                           CollectiveOp::ALL_REDUCE,
                                           CollectiveOp::BROADCAST,
                                           CollectiveOp::ALL_TO_ALL,
                                           CollectiveOp::REDUCE_SCATTER,
                                           CollectiveOp::REDUCE_SCATTER,
                                           CollectiveOp::ALL_REDUCE};
        for (std::size_t q = 0; q < ready.size(); ++q)
        {
            auto [r, k] = ready[q];
            ChakraNode& c = m_nodes[r][k];
            if (c.type == 4)
            {
                if (c.runtime == 0)
                {
                    finish(r, k, delay(r, c, Time(0)));
                }
                else
                {
                    finish(r, k, delay(r, c, Time::FromDouble(c.runtime, Time::US)));
                }
            }
            else if (c.type <= 3)
            {
                finish(r, k, delay(r, c, Time(0)));
            }
            else if (c.type == 7)
            {
                auto key = std::make_pair(c.pg, c.seq);
                auto& slot = collWait[key];
                slot.emplace_back(r, k);
                const auto& m = c.pg.empty() ? m_everyone : m_groups[c.pg];
                if (slot.size() < m.size())
                {
                    continue;
                }
                // All members reached it: check they agree, then one task.
                const ChakraNode& f = m_nodes[slot[0].first][slot[0].second];
                std::vector<uint32_t> d;
                for (auto [rr, kk] : slot)
                {
                    const ChakraNode& x = m_nodes[rr][kk];
                    if (x.commType != f.commType || x.commSize != f.commSize)
                    {
                        fail("comm_type",
                             "rank " + std::to_string(rr) + ", node Id " + std::to_string(x.id)
                                 + ": collective #" + std::to_string(c.seq) + " of group "
                                 + Quote(c.pg) + " differs in type or size from rank "
                                 + std::to_string(slot[0].first) + "'s");
                    }
                    auto dd = deps(rr, x);
                    d.insert(d.end(), dd.begin(), dd.end());
                }
                uint64_t bytes = f.commType == 9 ? std::max<uint64_t>(f.commSize, 1) : f.commSize;
                uint32_t task;
                if (m.size() < 2 || bytes == 0)
                {
                    TrainingTask x;
                    x.kind = TrainingTaskKind::DELAY;
                    x.label = f.name;
                    x.ranks = {m[0]};
                    x.deps = d;
                    task = AddTask(m_graph, std::move(x));
                }
                else
                {
                    TrainingTask x;
                    x.kind = TrainingTaskKind::COLLECTIVE;
                    x.label = f.name.empty() ? "coll " + std::to_string(f.id) : f.name;
                    x.ranks = m;
                    x.dimension = f.commType == 6 ? TrainingDimension::EP : TrainingDimension::DP;
                    x.op = OPS[f.commType];
                    x.type = m_options.type;
                    x.bytes = bytes;
                    x.deps = d;
                    x.group = c.pg.empty() ? "all" : c.pg;
                    task = AddTask(m_graph, std::move(x));
                }
                auto members = slot;
                collWait.erase(key);
                for (auto [rr, kk] : members)
                {
                    finish(rr, kk, task);
                }
            }
            else
            {
                // Send/receive: the i-th send of (src, dst, tag) meets the i-th receive.
                auto key = std::make_tuple(c.src, c.dst, c.tag);
                (c.type == 5 ? sends : recvs)[key].emplace_back(r, k);
                auto& s = sends[key];
                auto& v = recvs[key];
                while (!s.empty() && !v.empty())
                {
                    auto [sr, sk] = s.front();
                    auto [vr, vk] = v.front();
                    const ChakraNode& sn = m_nodes[sr][sk];
                    const ChakraNode& vn = m_nodes[vr][vk];
                    if (sn.commSize != vn.commSize)
                    {
                        // which of the two moved? (the larger was taken without a word)
                        fail("comm_size",
                             "rank " + std::to_string(vr) + ", node Id " + std::to_string(vn.id)
                                 + ": receive of " + std::to_string(vn.commSize)
                                 + " bytes from rank " + std::to_string(sr) + " (tag "
                                 + std::to_string(vn.tag) + ") meets a send of "
                                 + std::to_string(sn.commSize) + " bytes (node Id "
                                 + std::to_string(sn.id)
                                 + "); a send and its receive give the same size");
                    }
                    uint64_t bytes = sn.commSize;
                    uint32_t task;
                    auto d = deps(sr, sn);
                    auto d2 = deps(vr, vn);
                    d.insert(d.end(), d2.begin(), d2.end());
                    TrainingTask x;
                    if (bytes == 0)
                    {
                        x.kind = TrainingTaskKind::DELAY;
                        x.ranks = {static_cast<uint32_t>(sr)};
                    }
                    else
                    {
                        x.kind = TrainingTaskKind::SEND;
                        x.ranks = {static_cast<uint32_t>(sn.src), static_cast<uint32_t>(sn.dst)};
                        x.bytes = bytes;
                        x.dimension = TrainingDimension::PP;
                    }
                    x.label = sn.name.empty() ? "send " + std::to_string(sn.id) : sn.name;
                    x.deps = d;
                    task = AddTask(m_graph, std::move(x));
                    s.erase(s.begin());
                    v.erase(v.begin());
                    finish(sr, sk, task);
                    finish(vr, vk, task);
                }
            }
        }
    }

    /// Every node ran: a send met its receive, a collective every member.
    void CheckMatched() const
    {
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (const ChakraNode& c : m_nodes[r])
            {
                if (c.task == NO_TASK && c.pending == 0)
                {
                    std::string what
                        = c.type == 5 ? "send to rank " + std::to_string(c.dst) + " (tag "
                                            + std::to_string(c.tag) + ") has no matching receive"
                          : c.type == 6 ? "receive from rank " + std::to_string(c.src) + " (tag "
                                              + std::to_string(c.tag) + ") has no matching send"
                                        : "collective #" + std::to_string(c.seq) + " of group "
                                              + Quote(c.pg.empty() ? "all" : c.pg)
                                              + " is not reached by every member";
                    fail(c.type == 7 ? "pg_name" : "comm_tag",
                         "rank " + std::to_string(r) + ", node Id " + std::to_string(c.id) + " "
                             + Quote(c.name) + ": " + what);
                }
            }
        }
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (const ChakraNode& c : m_nodes[r])
            {
                if (c.task == NO_TASK)
                {
                    fail("data_deps",
                         "rank " + std::to_string(r) + ", node Id " + std::to_string(c.id) + " "
                             + Quote(c.name)
                             + " waits for a node that never ran (an unmatched send, receive or "
                               "collective before it)");
                }
            }
        }
    }

    const std::string& m_file;
    const std::string& m_groupsText;
    const WorkloadImportOptions& m_options;
    const std::string& m_groupsFileName;
    json m_doc;
    std::vector<const json*> m_lists; //!< per rank, its node list (in doc)
    uint32_t m_ranks{0};              //!< ranks
    bool m_spmd{false};               //!< one workload_graph for every rank
    std::map<std::string, std::vector<uint32_t>> m_groups;
    std::vector<uint32_t> m_everyone;
    std::vector<std::vector<ChakraNode>> m_nodes; //!< per rank
    TrainingGraph m_graph;
};

} // namespace

TrainingGraph
ImportChakraJson(const std::string& text,
                 const std::string& fileName,
                 const std::string& groupsText,
                 const WorkloadImportOptions& o,
                 const std::string& groupsFileName)
{
    dlnet::UsePicoseconds(); // the tasks' Times in the clusters' resolution from the start
    return ChakraImport(fileName, groupsText, o, groupsFileName).Run(text);
}

} // namespace ns3
