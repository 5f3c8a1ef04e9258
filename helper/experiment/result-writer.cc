/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "result-writer.h"

#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/json-document.h"
#include "ns3/log.h"
#include "ns3/topology.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetResultWriter");

std::string
ExactText(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return buf;
}

std::string
TraceMicroseconds(Time t)
{
    char buf[48];
    // picoseconds as microseconds with 6 decimals: exact, the same text every run
    int64_t ps = t.GetPicoSeconds();
    std::snprintf(buf,
                  sizeof buf,
                  "%lld.%06lld",
                  static_cast<long long>(ps / 1000000),
                  static_cast<long long>(ps % 1000000));
    return buf;
}

ChromeTraceWriter::ChromeTraceWriter(std::ostream& out)
    : m_out(out)
{
    m_out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
}

void
ChromeTraceWriter::Event(const std::string& json)
{
    m_out << (m_first ? "" : ",\n") << json;
    m_first = false;
}

void
ChromeTraceWriter::Process(uint32_t pid, const std::string& name)
{
    std::string id = std::to_string(pid);
    Event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + id
          + ",\"args\":{\"name\":" + dlnet::JsonText(name) + "}}");
    Event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + id
          + ",\"args\":{\"sort_index\":" + id + "}}");
}

void
ChromeTraceWriter::Thread(uint32_t pid, uint32_t tid, const std::string& name)
{
    Event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) + ",\"tid\":"
          + std::to_string(tid) + ",\"args\":{\"name\":" + dlnet::JsonText(name) + "}}");
}

void
ChromeTraceWriter::Finish()
{
    m_out << "\n]}\n";
}

std::string
SizeLabel(uint64_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    double v = double(bytes);
    while (v >= 1024 && u < 3 && std::fmod(v, 1024) == 0)
    {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g%s", v, units[u]);
    return buf;
}

void
MakeResultsDir(const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
    {
        // (bad input found late, as CheckResultsDir would have: exit status 2)
        throw std::invalid_argument("results: cannot create folder " + dir + ": " + ec.message());
    }
}

const FieldTable<MessageResult>&
MessageFields()
{
    using M = MessageResult;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<M> fields = {
        {"src", "", [](const M& m) { return nlohmann::json(m.src); }},
        {"dst", "", [](const M& m) { return nlohmann::json(m.dst); }},
        {"msg_id", "", [](const M& m) { return nlohmann::json(m.msgId); }},
        {"bytes", "B", [](const M& m) { return nlohmann::json(m.bytes); }},
        {"packets", "", [](const M& m) { return nlohmann::json(m.packets); }},
        {"hops", "", [](const M& m) { return nlohmann::json(m.hops); }},
        {"start_s", "s", [](const M& m) { return nlohmann::json(m.start); }},
        {"end_s", "s", [](const M& m) { return nlohmann::json(m.end); }},
        {"fct_s", "s", [](const M& m) { return nlohmann::json(m.fct); }},
        {"goodput_bps", "bit/s", [](const M& m) { return nlohmann::json(m.goodput); }},
        {"intact", "", [](const M& m) { return nlohmann::json(m.intact); }},
    };
    // clang-format on
    return fields;
}

const FieldTable<LinkResult>&
LinkFields()
{
    using L = LinkResult;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<L> fields = {
        {"tier", "", [](const L& l) { return nlohmann::json(l.tier); }},
        {"from", "", [](const L& l) { return nlohmann::json(l.from); }},
        {"to", "", [](const L& l) { return nlohmann::json(l.to); }},
        {"rate_bps", "bit/s", [](const L& l) { return nlohmann::json(l.rate); }},
        {"tx_bytes", "B", [](const L& l) { return nlohmann::json(l.txBytes); }},
        {"tx_packets", "", [](const L& l) { return l.perPacket ? nlohmann::json(l.txPackets) : nlohmann::json(); }},
        {"drops", "", [](const L& l) { return nlohmann::json(l.drops); }},
        {"max_queue_bytes", "B", [](const L& l) { return l.perPacket ? nlohmann::json(l.maxQueueBytes) : nlohmann::json(); }},
        {"utilisation", "fraction", [](const L& l) { return nlohmann::json(l.utilisation); }},
        // columns after "utilisation" were added with the collective statistics
        {"busy_s", "s", [](const L& l) { return nlohmann::json(l.busy); }},
        {"max_queue_packets", "", [](const L& l) { return l.perPacket ? nlohmann::json(l.maxQueuePackets) : nlohmann::json(); }},
        {"credit_stalls", "", [](const L& l) { return l.perPacket ? nlohmann::json(l.creditStalls) : nlohmann::json(); }},
        {"credit_stall_s", "s", [](const L& l) { return l.perPacket ? nlohmann::json(l.creditStallTime) : nlohmann::json(); }},
    };
    // clang-format on
    return fields;
}

const FieldTable<SwitchResult>&
SwitchFields()
{
    using S = SwitchResult;
    using J = nlohmann::json;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<S> fields = {
        {"switch", "", [](const S& s) { return J(s.name); }},
        {"packets", "", [](const S& s) { return s.perPacket ? J(s.forwarded) : J(); }},
        {"no_route_drops", "", [](const S& s) { return s.perPacket ? J(s.noRouteDrops) : J(); }},
        {"peak_slots", "", [](const S& s) { return s.hasSlots ? J(s.peakSlots) : J(); }},
    };
    // clang-format on
    return fields;
}

const FieldTable<RankResult>&
RankFields()
{
    using R = RankResult;
    using J = nlohmann::json;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<R> fields = {
        {"rank", "", [](const R& r) { return J(r.rank); }},
        {"bytes_sent", "B", [](const R& r) { return r.counted ? J(r.bytesSent) : J(); }},
        {"bytes_received", "B", [](const R& r) { return r.counted ? J(r.bytesReceived) : J(); }},
        {"finish_s", "s", [](const R& r) { return r.timed ? J(r.finish) : J(); }},
        {"network_s", "s", [](const R& r) { return r.timed ? J(r.network) : J(); }},
    };
    // clang-format on
    return fields;
}

const FieldTable<TrafficResult>&
TrafficSummaryFields()
{
    using R = TrafficResult;
    // one line per field: name, unit, getter
    // clang-format off
    static const FieldTable<R> fields = {
        {"topology", "", [](const R& r) { return nlohmann::json(r.topology); }},
        {"network", "", [](const R& r) { return nlohmann::json(r.network); }},
        {"pattern", "", [](const R& r) { return nlohmann::json(r.pattern); }},
        {"ranks", "", [](const R& r) { return nlohmann::json(r.ranks); }},
        {"expected_messages", "", [](const R& r) { return nlohmann::json(r.expectedMessages); }},
        {"delivered_messages", "", [](const R& r) { return nlohmann::json(r.deliveredMessages); }},
        {"duplicate_deliveries", "", [](const R& r) { return nlohmann::json(r.duplicateDeliveries); }},
        {"duplicate_packets", "", [](const R& r) { return nlohmann::json(r.duplicatePackets); }},
        {"retransmissions", "", [](const R& r) { return nlohmann::json(r.retransmissions); }},
        {"drops", "", [](const R& r) { return nlohmann::json(r.drops); }},
        {"payload_bytes", "B", [](const R& r) { return nlohmann::json(r.payloadBytes); }},
        {"makespan_s", "s", [](const R& r) { return nlohmann::json(r.makespan); }},
        {"aggregate_goodput_bps", "bit/s", [](const R& r) { return nlohmann::json(r.aggregateGoodput); }},
        {"all_delivered", "", [](const R& r) { return nlohmann::json(r.allDelivered); }},
        {"all_intact", "", [](const R& r) { return nlohmann::json(r.allIntact); }},
        {"events", "", [](const R& r) { return nlohmann::json(r.events); }},
    };
    // clang-format on
    return fields;
}

void
CheckResultsDir(const std::string& field, const std::string& dir)
{
    if (dir.empty())
    {
        throw std::invalid_argument(field + ": empty; expected a folder");
    }
    // validation leaves nothing behind: the writers make the folder (MakeResultsDir)
    const dlnet::FolderCheck check = dlnet::CheckFolder(dir);
    if (check.error == EACCES && check.exists)
    {
        throw std::invalid_argument(field + ": cannot write in folder " + dir);
    }
    if (check.error != 0)
    {
        throw std::invalid_argument(field + ": cannot create folder " + dir + ": "
                                    + std::generic_category().message(check.error));
    }
}

void
CheckOutputFile(const std::string& field, const std::string& path)
{
    std::error_code ec;
    std::filesystem::path file(path);
    // a folder, or a FIFO that would hold the writer without end
    dlnet::CheckOutputFileKind(field, path);
    const std::size_t name = file.filename().string().size();
    if (name > NAME_MAX)
    {
        // the writer's open would fail after the run
        throw std::invalid_argument(field + ": got '" + dlnet::PrintablePath(path)
                                    + "'; its file name has " + std::to_string(name)
                                    + " bytes, more than the " + std::to_string(NAME_MAX)
                                    + " a name may have");
    }
    // validation touches nothing: the writer makes the folders (MakeParentFolders)
    if (std::filesystem::exists(file, ec))
    {
        if (access(path.c_str(), W_OK) != 0)
        {
            throw std::invalid_argument(field + ": cannot write " + path);
        }
        return;
    }
    dlnet::CheckParentFolders(field, path);
}

nlohmann::json
ToJson(const TrafficConfig& config)
{
    return ConfigJson(TrafficOptions(), config);
}

nlohmann::json
ToJson(const TrafficResult& r)
{
    nlohmann::json j = RowJson(TrafficSummaryFields(), r);
    j["messages"] = RowsJson(MessageFields(), r.messages);
    j["links"] = RowsJson(LinkFields(), r.links);
    return j;
}

void
WriteTrafficResults(const TrafficConfig& config, const TrafficResult& r, const std::string& dir)
{
    MakeResultsDir(dir);
    WriteCsv(dir + "/messages.csv", MessageFields(), r.messages);
    WriteCsv(dir + "/links.csv", LinkFields(), r.links);
    WriteJson(dir + "/result.json", {{"config", ToJson(config)}, {"result", ToJson(r)}});
}

} // namespace ns3
