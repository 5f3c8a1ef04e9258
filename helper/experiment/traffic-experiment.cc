/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "traffic-experiment.h"

#include "simulation-scope.h"

#include "ns3/ceil-divide.h"
#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/splitmix64.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrafficExperiment");

namespace
{

/// One flow of the pattern: messages from src to dst.
struct Flow
{
    uint32_t src;
    uint32_t dst;
};

/// The bytes message k of flow (src, dst) carries: reproducible from the seed alone.
std::vector<uint8_t>
MessageBytes(uint32_t seed, uint32_t src, uint32_t dst, uint32_t k, uint64_t bytes)
{
    std::vector<uint8_t> out(bytes);
    uint64_t state = dlnet::SplitMix64((uint64_t(seed) << 40) ^ (uint64_t(src) << 20) ^ dst
                                       ^ (uint64_t(k) << 60));
    for (uint64_t i = 0; i < bytes; i += 8)
    {
        state = dlnet::SplitMix64(state);
        for (uint64_t j = 0; j < 8 && i + j < bytes; ++j)
        {
            out[i + j] = static_cast<uint8_t>(state >> (8 * j));
        }
    }
    return out;
}

std::vector<Flow>
MakeFlows(const TrafficConfig& c, uint32_t n)
{
    std::vector<Flow> flows;
    if (c.pattern == "point-to-point")
    {
        flows.push_back({c.src, c.dst});
    }
    else if (c.pattern == "incast")
    {
        uint32_t senders = c.senders == 0 ? n - 1 : c.senders;
        for (uint32_t i = 1; i <= senders; ++i)
        {
            flows.push_back({(c.target + i) % n, c.target});
        }
    }
    else if (c.pattern == "all-to-all")
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t k = 1; k < n; ++k)
            {
                flows.push_back({s, (s + k) % n});
            }
        }
    }
    else // permutation
    {
        std::vector<uint32_t> dst(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            dst[i] = (i + (c.shift == 0 ? 1 : c.shift)) % n;
        }
        if (c.shift == 0)
        {
            // Sattolo's shuffle: a uniformly random single cycle, so nobody sends to itself.
            Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
            u->SetStream(0);
            for (uint32_t i = 0; i < n; ++i)
            {
                dst[i] = i;
            }
            for (uint32_t i = n - 1; i > 0; --i)
            {
                uint32_t j = u->GetInteger(0, i - 1);
                std::swap(dst[i], dst[j]);
            }
        }
        for (uint32_t s = 0; s < n; ++s)
        {
            flows.push_back({s, dst[s]});
        }
    }
    return flows;
}

} // namespace

const std::vector<std::string>&
TrafficPatterns()
{
    static const std::vector<std::string> patterns
        = {"point-to-point", "incast", "all-to-all", "permutation"};
    return patterns;
}

void
TrafficConfig::Validate() const
{
    topology.Validate();
    dlnet::ParseChoice("pattern", pattern, TrafficPatterns());
    uint32_t n = topology.GetNRanks();
    if (messageBytes == 0)
    {
        throw std::invalid_argument("message-bytes: got 0; expected at least 1 byte");
    }
    uint64_t payload = topology.mtu > FabricHeader::SERIALIZED_SIZE
                           ? topology.mtu - FabricHeader::SERIALIZED_SIZE
                           : 1;
    if (dlnet::CeilDivide(messageBytes, payload) > UINT32_MAX)
    {
        throw std::invalid_argument("message-bytes: " + std::to_string(messageBytes)
                                    + " bytes need more than 2^32 packets of mtu "
                                    + std::to_string(topology.mtu)
                                    + "; lower message-bytes or raise mtu");
    }
    if (messages == 0)
    {
        throw std::invalid_argument("messages: got 0; expected at least 1 message per flow");
    }
    auto rank = [n, this](const std::string& field, uint32_t r)
    {
        if (r >= n)
        {
            throw std::invalid_argument(field + ": rank " + std::to_string(r)
                                        + " is out of range; the " + topology.kind
                                        + " has ranks 0 to " + std::to_string(n - 1));
        }
    };
    if (n < 2)
    {
        throw std::invalid_argument("topology: traffic needs at least 2 ranks, the " + topology.kind
                                    + " has " + std::to_string(n));
    }
    // another pattern's options were taken and dropped
    const TrafficConfig defaults;
    RefuseInapplicable(
        {{"src", src, defaults.src, "point-to-point"},
         {"dst", dst, defaults.dst, "point-to-point"},
         {"target", target, defaults.target, "incast"},
         {"senders", senders, defaults.senders, "incast"},
         {"shift", shift, defaults.shift, "permutation"}},
        [this](const std::string& owner)
        {
            return pattern == owner;
        },
        [this](const std::string& owner)
        {
            return "to pattern " + owner + " only, and the pattern is " + pattern;
        });
    if (pattern == "point-to-point")
    {
        rank("src", src);
        rank("dst", dst);
        if (src == dst)
        {
            throw std::invalid_argument("dst: equals src (" + std::to_string(src)
                                        + "); a message must cross the fabric");
        }
    }
    if (pattern == "incast")
    {
        rank("target", target);
        if (senders > n - 1)
        {
            throw std::invalid_argument("senders: got " + std::to_string(senders)
                                        + "; expected 0 (all others) to " + std::to_string(n - 1));
        }
    }
    if (pattern == "permutation" && (shift % n) == 0 && shift != 0)
    {
        throw std::invalid_argument("shift: " + std::to_string(shift) + " is a multiple of the "
                                    + std::to_string(n)
                                    + " ranks, so every rank would send to itself");
    }
    if (tc >= topology.trafficClasses)
    {
        throw std::invalid_argument("tc: got " + std::to_string(tc) + "; expected 0 to "
                                    + std::to_string(topology.trafficClasses - 1));
    }
    if (seed == 0)
    {
        throw std::invalid_argument("seed: got 0; expected a whole number of at least 1");
    }
    dlnet::ParseTime(
        "stop-time", stopTime, dlnet::MAX_TIME_SECONDS, dlnet::MIN_POSITIVE_TIME_SECONDS);
    uint64_t flows = pattern == "point-to-point" ? 1
                     : pattern == "incast"       ? (senders ? senders : n - 1)
                     : pattern == "all-to-all"   ? uint64_t(n) * (n - 1)
                                                 : n;
    // Every message keeps about 1.5 KB until the run ends (its record, its delivery-map
    // entry, its endpoint state: 800k messages measured 1.2 GB at either network level), and
    // all are sent at time 0: beyond 2^21 in all the run needs more than 3 GB (2^31 per flow
    // ran out of memory).
    const uint64_t maxMessages = 1ULL << 21;
    if (messages > maxMessages / flows)
    {
        throw std::invalid_argument(
            "messages: " + std::to_string(messages) + " per flow x " + std::to_string(flows)
            + " flows is more than " + std::to_string(maxMessages)
            + " messages in all; each keeps about 1.5 KB of memory to the end of the run "
              "(over 3 GB beyond that)");
    }
    if (functional && messageBytes > (1ULL << 30) / messages / flows)
    {
        throw std::invalid_argument(
            "message-bytes: functional mode keeps every message in "
            "memory; message-bytes x messages x flows must stay within 1 GiB");
    }
}

TrafficResult
RunTraffic(const TrafficConfig& c)
{
    c.Validate();
    auto wallStart = std::chrono::steady_clock::now();
    SimulationScope scope(c.seed, c.run, c.ns3Attributes);
    Cluster cluster = BuildCluster(c.topology);
    uint32_t n = cluster.GetNRanks();
    std::vector<Flow> flows = MakeFlows(c, n);

    TrafficResult result;
    result.topology = c.topology.kind;
    result.network = cluster.GetNetwork();
    result.pattern = c.pattern;
    result.ranks = n;
    result.expectedMessages = uint64_t(flows.size()) * c.messages;

    // (src, msgId) -> index of the flow message, for intactness and duplicates.
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> deliveries;
    std::map<std::pair<uint32_t, uint32_t>, FabricPayload> sentBytes;
    for (uint32_t r = 0; r < n; ++r)
    {
        cluster.endpoints[r]->SetReceiveCallback(FabricEndpoint::MessageCallback(
            [&](const FabricMessage& m)
            {
                auto key = std::make_pair(m.src, m.msgId);
                if (deliveries[key]++ > 0)
                {
                    ++result.duplicateDeliveries;
                    return;
                }
                MessageResult r;
                r.src = m.src;
                r.dst = m.dst;
                r.msgId = m.msgId;
                r.bytes = m.bytes;
                r.packets = m.packets;
                r.hops = m.hops;
                r.start = m.sent.GetSeconds();
                r.end = m.delivered.GetSeconds();
                r.fct = r.end - r.start;
                r.goodput = r.fct > 0 ? m.bytes * 8.0 / r.fct : 0;
                if (c.functional)
                {
                    auto sent = sentBytes.find(key);
                    r.intact = m.data && sent != sentBytes.end() && *m.data == *sent->second;
                }
                result.messages.push_back(r);
            }));
    }
    Simulator::Schedule(
        Seconds(0),
        [&]()
        {
            for (uint32_t k = 0; k < c.messages; ++k)
            {
                for (const Flow& f : flows)
                {
                    FabricPayload data;
                    if (c.functional)
                    {
                        data = std::make_shared<const std::vector<uint8_t>>(
                            MessageBytes(c.seed, f.src, f.dst, k, c.messageBytes));
                    }
                    uint32_t id = cluster.endpoints[f.src]->Send(
                        f.dst, c.messageBytes, c.tc, FabricEndpoint::MessageCallback(), data);
                    if (data)
                    {
                        sentBytes[{f.src, id}] = data;
                    }
                }
            }
        });
    const Time stopTime = dlnet::ParseTime("stop-time", c.stopTime);
    Simulator::Stop(stopTime);
    Simulator::Run();
    const bool reachedStopTime = Simulator::Now() >= stopTime;

    result.deliveredMessages = result.messages.size();
    result.allDelivered = result.deliveredMessages == result.expectedMessages;
    result.cutByStopTime = !result.allDelivered && reachedStopTime;
    result.allIntact = result.allDelivered;
    for (const auto& m : result.messages)
    {
        result.payloadBytes += m.bytes;
        result.makespan = std::max(result.makespan, m.end);
        result.allIntact = result.allIntact && m.intact;
    }
    result.aggregateGoodput = result.makespan > 0 ? result.payloadBytes * 8.0 / result.makespan : 0;
    // Utilisation is over the makespan, from the first send to the last
    // delivery (not over the simulated time, which runs on to stop-time); of a
    // run cut by its stop-time, over the time to it, since every message is sent
    // at 0 and some were still in flight there (its makespan, 0 with none
    // delivered, gave 0, or a full link's share of more than the makespan, 1).
    double firstSend = result.messages.empty() ? 0 : result.messages.front().start;
    for (const auto& m : result.messages)
    {
        firstSend = std::min(firstSend, m.start);
    }
    double window = result.cutByStopTime ? stopTime.GetSeconds() : result.makespan - firstSend;
    for (const auto& ep : cluster.endpoints)
    {
        result.duplicatePackets += ep->GetDuplicatePackets();
        result.retransmissions += ep->GetRetransmittedPackets();
    }
    result.links = CollectLinkStats(cluster, window);
    for (const auto& l : result.links)
    {
        result.drops += l.drops;
    }
    result.events = Simulator::GetEventCount();
    result.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

const std::vector<ExperimentOption<TrafficConfig>>&
TrafficOptions()
{
    using C = TrafficConfig;
    static const std::vector<ExperimentOption<C>> options = []()
    {
        std::vector<ExperimentOption<C>> o = {
            ChoiceOption<C>("pattern",
                            "point-to-point, incast, all-to-all or permutation",
                            &C::pattern,
                            TrafficPatterns()),
            BytesOption<C>("message-bytes", "bytes per message, e.g. 1MiB", &C::messageBytes, 1),
            UnsignedOption<C>("messages", "messages per flow, all sent at time 0", &C::messages, 1),
            UnsignedOption<C>("src", "point-to-point: source rank", &C::src),
            UnsignedOption<C>("dst", "point-to-point: destination rank", &C::dst),
            UnsignedOption<C>("target", "incast: the rank the others send to", &C::target),
            UnsignedOption<C>("senders",
                              "incast: number of senders (the ranks after target); 0 = all others",
                              &C::senders),
            UnsignedOption<C>(
                "shift",
                "permutation: 0 = random derangement (seeded), k = rank r sends to r+k",
                &C::shift),
            TimeOption<C>("stop-time",
                          "simulated-time limit, e.g. 100s (at most 1d)",
                          &C::stopTime,
                          dlnet::MAX_TIME_SECONDS,
                          false,
                          dlnet::MIN_POSITIVE_TIME_SECONDS),
        };
        return WithCommonAndTopologyOptions<C>(std::move(o));
    }();
    return options;
}

void
SetTrafficOption(TrafficConfig& config, const std::string& name, const std::string& value)
{
    SetOption(TrafficOptions(), config, name, value);
}

} // namespace ns3
