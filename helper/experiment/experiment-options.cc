/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/config-parse.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

namespace
{

std::string
Real(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

} // namespace

const std::vector<ExperimentOption<TopologyConfig>>&
TopologyOptions()
{
    using dlnet::ParseBytes;
    using dlnet::ParseChoice;
    using dlnet::ParseReal;
    using dlnet::ParseUnsigned;
    using T = TopologyConfig;
    auto u32 = [](const std::string& f, const std::string& v)
    {
        return static_cast<uint32_t>(ParseUnsigned(f, v, 0, UINT32_MAX));
    };
    static const std::vector<ExperimentOption<T>> options = {
        {"topology",
         "star, leaf-spine, mesh or torus",
         [](T& c, const std::string& v)
         {
             c.kind = ParseChoice("topology", v, TopologyKinds());
         },
         [](const T& c)
         {
             return c.kind;
         }},
        {"nodes",
         "ranks of the topology (0: use hosts, leaves or rows x cols): a star's hosts, "
         "leaf-spine leaves of hosts-per-leaf each, the most square mesh/torus",
         [u32](T& c, const std::string& v)
         {
             c.nodes = u32("nodes", v);
         },
         [](const T& c)
         {
             return std::to_string(c.nodes);
         }},
        {"hosts",
         "star: hosts on the switch",
         [u32](T& c, const std::string& v)
         {
             c.hosts = u32("hosts", v);
         },
         [](const T& c)
         {
             return std::to_string(c.hosts);
         }},
        {"leaves",
         "leaf-spine: leaf switches",
         [u32](T& c, const std::string& v)
         {
             c.leaves = u32("leaves", v);
         },
         [](const T& c)
         {
             return std::to_string(c.leaves);
         }},
        {"hosts-per-leaf",
         "leaf-spine: hosts under each leaf",
         [u32](T& c, const std::string& v)
         {
             c.hostsPerLeaf = u32("hosts-per-leaf", v);
         },
         [](const T& c)
         {
             return std::to_string(c.hostsPerLeaf);
         }},
        {"spines",
         "leaf-spine: spine switches",
         [u32](T& c, const std::string& v)
         {
             c.spines = u32("spines", v);
         },
         [](const T& c)
         {
             return std::to_string(c.spines);
         }},
        {"oversubscription",
         "leaf-spine: host bandwidth over uplink bandwidth per leaf (sets the uplink rate)",
         [](T& c, const std::string& v)
         {
             c.oversubscription = ParseReal("oversubscription", v, 1e-9, 1e9);
         },
         [](const T& c)
         {
             return Real(c.oversubscription);
         }},
        {"rows",
         "mesh/torus: rows",
         [u32](T& c, const std::string& v)
         {
             c.rows = u32("rows", v);
         },
         [](const T& c)
         {
             return std::to_string(c.rows);
         }},
        {"cols",
         "mesh/torus: columns",
         [u32](T& c, const std::string& v)
         {
             c.cols = u32("cols", v);
         },
         [](const T& c)
         {
             return std::to_string(c.cols);
         }},
        {"link-rate",
         "host-switch link rate (mesh/torus: every NPU-NPU link), e.g. 100Gbps",
         [](T& c, const std::string& v)
         {
             c.hostLinkRate = v;
         },
         [](const T& c)
         {
             return c.hostLinkRate;
         }},
        {"link-delay",
         "host-switch link propagation delay (mesh/torus: every NPU-NPU link), e.g. 500ns",
         [](T& c, const std::string& v)
         {
             c.hostLinkDelay = v;
         },
         [](const T& c)
         {
             return c.hostLinkDelay;
         }},
        {"latency",
         "the same as link-delay",
         [](T& c, const std::string& v)
         {
             c.hostLinkDelay = v;
         },
         [](const T& c)
         {
             return c.hostLinkDelay;
         }},
        {"fabric-link-rate",
         "switch-switch link rate; empty: from oversubscription (leaf-spine) or link-rate",
         [](T& c, const std::string& v)
         {
             c.fabricLinkRate = v;
         },
         [](const T& c)
         {
             return c.fabricLinkRate;
         }},
        {"fabric-link-delay",
         "switch-switch link propagation delay; empty: link-delay",
         [](T& c, const std::string& v)
         {
             c.fabricLinkDelay = v;
         },
         [](const T& c)
         {
             return c.fabricLinkDelay;
         }},
        {"local-link-rate",
         "mesh/torus: NPU-to-router rate; empty: 4 x the NPU-NPU link rate",
         [](T& c, const std::string& v)
         {
             c.localLinkRate = v;
         },
         [](const T& c)
         {
             return c.localLinkRate;
         }},
        {"switch-latency",
         "switching latency of every switch, e.g. 0ns",
         [](T& c, const std::string& v)
         {
             c.switchLatency = v;
         },
         [](const T& c)
         {
             return c.switchLatency;
         }},
        {"mtu",
         "largest packet in bytes, 24-byte header included (25 to 1048576)",
         [](T& c, const std::string& v)
         {
             uint64_t b = ParseBytes("mtu", v, 1);
             c.mtu = static_cast<uint32_t>(std::min<uint64_t>(b, UINT32_MAX));
         },
         [](const T& c)
         {
             return std::to_string(c.mtu);
         }},
        {"traffic-classes",
         "traffic classes per port, 1 to 8 (class 0 has the highest priority)",
         [u32](T& c, const std::string& v)
         {
             c.trafficClasses = u32("traffic-classes", v);
         },
         [](const T& c)
         {
             return std::to_string(c.trafficClasses);
         }},
        {"flow-control",
         "lossless (credit-based) or lossy (drop-tail, retransmission)",
         [](T& c, const std::string& v)
         {
             c.flowControl = ParseChoice("flow-control", v, {"lossless", "lossy"});
         },
         [](const T& c)
         {
             return c.flowControl;
         }},
        {"loss-rate",
         "lossy: probability that a receiver drops a packet",
         [](T& c, const std::string& v)
         {
             c.lossRate = ParseReal("loss-rate", v, 0, 1);
         },
         [](const T& c)
         {
             return Real(c.lossRate);
         }},
        {"buffer-bytes",
         "lossy: drop-tail buffer per output queue",
         [](T& c, const std::string& v)
         {
             c.bufferBytes = ParseBytes("buffer-bytes", v);
         },
         [](const T& c)
         {
             return std::to_string(c.bufferBytes);
         }},
        {"rx-buffer-bytes",
         "lossless: credits per queue; 0 sizes them from the bandwidth-delay product",
         [](T& c, const std::string& v)
         {
             c.rxBufferBytes = ParseBytes("rx-buffer-bytes", v, 0);
         },
         [](const T& c)
         {
             return std::to_string(c.rxBufferBytes);
         }},
        {"window",
         "lossy: unacknowledged packets per message (0: no limit)",
         [u32](T& c, const std::string& v)
         {
             c.window = u32("window", v);
         },
         [](const T& c)
         {
             return std::to_string(c.window);
         }},
        {"retransmit-timeout",
         "lossy: first retransmission timeout, e.g. 1ms",
         [](T& c, const std::string& v)
         {
             c.retransmitTimeout = v;
         },
         [](const T& c)
         {
             return c.retransmitTimeout;
         }},
        {"load-balancing",
         "equal-cost paths: flow (ECMP hash per message) or packet (per-packet spraying)",
         [](T& c, const std::string& v)
         {
             c.loadBalancing = ParseChoice("load-balancing", v, {"flow", "packet"});
         },
         [](const T& c)
         {
             return c.loadBalancing;
         }},
        {"ecmp-seed",
         "perturbation of the ECMP hash",
         [u32](T& c, const std::string& v)
         {
             c.ecmpSeed = u32("ecmp-seed", v);
         },
         [](const T& c)
         {
             return std::to_string(c.ecmpSeed);
         }},
        {"pcap",
         "non-empty: write a PCAP file per device with this prefix",
         [](T& c, const std::string& v)
         {
             c.pcapPrefix = v;
         },
         [](const T& c)
         {
             return c.pcapPrefix;
         }},
    };
    return options;
}

} // namespace ns3
