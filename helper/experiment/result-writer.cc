/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "result-writer.h"

#include "ns3/log.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetResultWriter");

namespace
{

std::ofstream
Open(const std::string& path)
{
    std::ofstream out(path);
    if (!out)
    {
        throw std::runtime_error("cannot write " + path);
    }
    return out;
}

} // namespace

std::string
ExactText(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return buf;
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
        throw std::runtime_error("results: cannot create folder " + dir + ": " + ec.message());
    }
}

void
CheckResultsDir(const std::string& field, const std::string& dir)
{
    if (dir.empty())
    {
        throw std::invalid_argument(field + ": empty; expected a folder");
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
    {
        throw std::invalid_argument(field + ": cannot create folder " + dir + ": " + ec.message());
    }
    std::string probe = dir + "/.dlnet-write-check";
    bool writable = static_cast<bool>(std::ofstream(probe));
    std::filesystem::remove(probe, ec);
    if (!writable)
    {
        throw std::invalid_argument(field + ": cannot write in folder " + dir);
    }
}

nlohmann::json
ToJson(const TrafficConfig& config)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& o : TrafficOptions())
    {
        j[o.name] = o.get(config);
    }
    return j;
}

nlohmann::json
ToJson(const TrafficResult& r)
{
    nlohmann::json j;
    j["topology"] = r.topology;
    j["pattern"] = r.pattern;
    j["ranks"] = r.ranks;
    j["expected_messages"] = r.expectedMessages;
    j["delivered_messages"] = r.deliveredMessages;
    j["duplicate_deliveries"] = r.duplicateDeliveries;
    j["duplicate_packets"] = r.duplicatePackets;
    j["retransmissions"] = r.retransmissions;
    j["drops"] = r.drops;
    j["payload_bytes"] = r.payloadBytes;
    j["makespan_s"] = r.makespan;
    j["aggregate_goodput_bps"] = r.aggregateGoodput;
    j["all_delivered"] = r.allDelivered;
    j["all_intact"] = r.allIntact;
    j["events"] = r.events;
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : r.messages)
    {
        messages.push_back({{"src", m.src},
                            {"dst", m.dst},
                            {"msg_id", m.msgId},
                            {"bytes", m.bytes},
                            {"packets", m.packets},
                            {"hops", m.hops},
                            {"start_s", m.start},
                            {"end_s", m.end},
                            {"fct_s", m.fct},
                            {"goodput_bps", m.goodput},
                            {"intact", m.intact}});
    }
    j["messages"] = messages;
    nlohmann::json links = nlohmann::json::array();
    for (const auto& l : r.links)
    {
        links.push_back({{"tier", l.tier},
                         {"from", l.from},
                         {"to", l.to},
                         {"rate_bps", l.rate},
                         {"tx_bytes", l.txBytes},
                         {"tx_packets", l.txPackets},
                         {"drops", l.drops},
                         {"max_queue_bytes", l.maxQueueBytes},
                         {"utilisation", l.utilisation}});
    }
    j["links"] = links;
    return j;
}

void
WriteTrafficResults(const TrafficConfig& config, const TrafficResult& r, const std::string& dir)
{
    MakeResultsDir(dir);
    {
        std::ofstream out = Open(dir + "/messages.csv");
        out << "src,dst,msg_id,bytes,packets,hops,start_s,end_s,fct_s,goodput_bps,intact\n";
        for (const auto& m : r.messages)
        {
            out << m.src << ',' << m.dst << ',' << m.msgId << ',' << m.bytes << ',' << m.packets
                << ',' << m.hops << ',' << ExactText(m.start) << ',' << ExactText(m.end) << ','
                << ExactText(m.fct) << ',' << ExactText(m.goodput) << ',' << (m.intact ? 1 : 0)
                << '\n';
        }
    }
    {
        std::ofstream out = Open(dir + "/links.csv");
        out << "tier,from,to,rate_bps,tx_bytes,tx_packets,drops,max_queue_bytes,utilisation\n";
        for (const auto& l : r.links)
        {
            out << l.tier << ',' << l.from << ',' << l.to << ',' << ExactText(l.rate) << ','
                << l.txBytes << ',' << l.txPackets << ',' << l.drops << ',' << l.maxQueueBytes
                << ',' << ExactText(l.utilisation) << '\n';
        }
    }
    {
        std::ofstream out = Open(dir + "/result.json");
        nlohmann::json j;
        j["config"] = ToJson(config);
        j["result"] = ToJson(r);
        out << j.dump(2) << '\n';
    }
}

} // namespace ns3
