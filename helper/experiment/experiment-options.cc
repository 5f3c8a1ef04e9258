/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/config-parse.h"
#include "ns3/hetero-leaf-spine-topology.h"
#include "ns3/topology.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

const char* const NETWORK_OPTION_HELP
    = "packet (every packet through devices and switches) or flow (messages as max-min fair "
      "flows over the same routes; lossless only, no pcap)";

const std::vector<ExperimentOption<TopologyConfig>>&
TopologyOptions()
{
    using T = TopologyConfig;
    static const std::vector<ExperimentOption<T>> options = RecordGiven<T>({
        ChoiceOption<T>("topology",
                        dlnet::JoinChoices(TopologyRegistry::Names()),
                        &T::kind,
                        TopologyRegistry::Names()),
        UnsignedOption<T>("nodes",
                          "ranks of the topology (0: use the kind's own sizes): a star's "
                          "hosts, leaf-spine leaves of hosts-per-leaf each, the most square "
                          "mesh/torus, a fat tree of k^3/4 hosts, dragonfly groups, GPU servers",
                          &T::nodes,
                          0,
                          MAX_RANKS),
        UnsignedOption<T>("hosts", "star: hosts on the switch", &T::hosts, 1, MAX_RANKS),
        UnsignedOption<T>("leaves", "leaf-spine: leaf switches", &T::leaves, 1, MAX_RANKS),
        UnsignedOption<T>(
            "hosts-per-leaf", "leaf-spine: hosts under each leaf", &T::hostsPerLeaf, 1, MAX_RANKS),
        UnsignedOption<T>(
            "spines", "leaf-spine, rail-optimised, gpu-leaf-spine: spine switches", &T::spines, 1),
        RealOption<T>("oversubscription",
                      "leaf-spine: host bandwidth over uplink bandwidth per leaf (sets the uplink "
                      "rate)",
                      &T::oversubscription,
                      1e-9,
                      1e9),
        UnsignedOption<T>("rows", "mesh/torus: rows", &T::rows, 1, MAX_RANKS),
        UnsignedOption<T>("cols", "mesh/torus: columns", &T::cols, 1, MAX_RANKS),
        UnsignedOption<T>(
            "k", "fat-tree: switch radix, even (k pods, (k/2)^2 cores, k^3/4 hosts)", &T::k),
        UnsignedOption<T>("routers-per-group",
                          "dragonfly: routers per group (a), fully connected",
                          &T::routersPerGroup,
                          1,
                          MAX_RANKS),
        UnsignedOption<T>("hosts-per-router",
                          "dragonfly: hosts per router (p)",
                          &T::hostsPerRouter,
                          1,
                          MAX_RANKS),
        UnsignedOption<T>("global-links-per-router",
                          "dragonfly: global links per router (h)",
                          &T::globalLinksPerRouter,
                          1),
        UnsignedOption<T>(
            "groups", "dragonfly: groups (g), 2 to a x h + 1; 0: a x h + 1", &T::groups),
        RateOption<T>("global-link-rate",
                      "dragonfly: global link rate; empty: fabric-link-rate, else link-rate",
                      &T::globalLinkRate,
                      true),
        TimeOption<T>("global-link-delay",
                      "dragonfly: global link propagation delay; empty: fabric-link-delay",
                      &T::globalLinkDelay,
                      dlnet::MAX_DELAY_SECONDS,
                      true),
        UnsignedOption<T>(
            "servers", "rail-optimised/gpu-leaf-spine: GPU servers", &T::servers, 1, MAX_RANKS),
        UnsignedOption<T>("gpus-per-server",
                          "rail-optimised/gpu-leaf-spine: GPUs per server, one NIC each",
                          &T::gpusPerServer,
                          1,
                          MAX_RANKS),
        RateOption<T>("nvlink-rate",
                      "rail-optimised/gpu-leaf-spine: GPU-NVSwitch rate per direction, e.g. "
                      "450GBps",
                      &T::nvlinkRate),
        RateOption<T>("nic-rate",
                      "rail-optimised/gpu-leaf-spine: NIC-leaf rate (link-delay), e.g. 400Gbps",
                      &T::nicRate),
        UnsignedOption<T>("servers-per-leaf",
                          "gpu-leaf-spine: servers whose NICs share a leaf",
                          &T::serversPerLeaf,
                          1,
                          MAX_RANKS),
        CheckedTextOption<T>(
            "host-groups",
            "hetero-leaf-spine: hosts of each link rate in rank order, "
            "COUNTxRATE items, e.g. 4x25Gbps,3x100Gbps (each group starts on a "
            "new leaf)",
            &T::hostGroups,
            [](const std::string& v)
            {
                ParseHostGroups("host-groups", v);
            },
            true),
        RateOption<T>("link-rate",
                      "host-switch link rate (mesh/torus: every NPU-NPU link), e.g. 100Gbps",
                      &T::hostLinkRate),
        AliasOf(TimeOption<T>("link-delay",
                              "host-switch link propagation delay (mesh/torus: every NPU-NPU "
                              "link), e.g. 500ns",
                              &T::hostLinkDelay,
                              dlnet::MAX_DELAY_SECONDS),
                "latency"),
        AliasOf(
            TimeOption<T>(
                "latency", "the same as link-delay", &T::hostLinkDelay, dlnet::MAX_DELAY_SECONDS),
            "link-delay"),
        RateOption<T>("fabric-link-rate",
                      "switch-switch link rate; empty: from oversubscription (leaf-spine), "
                      "non-blocking from nic-rate (GPU servers) or link-rate",
                      &T::fabricLinkRate,
                      true),
        TimeOption<T>("fabric-link-delay",
                      "switch-switch link propagation delay; empty: link-delay",
                      &T::fabricLinkDelay,
                      dlnet::MAX_DELAY_SECONDS,
                      true),
        RateOption<T>("local-link-rate",
                      "mesh/torus: NPU-to-router rate; empty: 4 x the NPU-NPU link rate",
                      &T::localLinkRate,
                      true),
        TimeOption<T>("switch-latency",
                      "switching latency of every switch, e.g. 0ns",
                      &T::switchLatency,
                      dlnet::MAX_DELAY_SECONDS),
        BytesOption<T>(
            "mtu", "largest packet in bytes, 24-byte header included (25 to 1048576)", &T::mtu, 1),
        UnsignedOption<T>("traffic-classes",
                          "traffic classes per port, 1 to 8 (class 0 has the highest priority)",
                          &T::trafficClasses,
                          1,
                          8),
        ChoiceOption<T>("flow-control",
                        "lossless (credit-based) or lossy (drop-tail, retransmission)",
                        &T::flowControl,
                        {"lossless", "lossy"}),
        RealOption<T>("loss-rate",
                      "lossy: probability that a receiver drops a packet, below 1",
                      &T::lossRate,
                      0,
                      1,
                      true),
        BytesOption<T>(
            "buffer-bytes", "lossy: drop-tail buffer per output queue", &T::bufferBytes, 1),
        BytesOption<T>("rx-buffer-bytes",
                       "lossless: credits per queue; 0 sizes them from the bandwidth-delay product",
                       &T::rxBufferBytes,
                       0),
        UnsignedOption<T>(
            "window", "lossy: unacknowledged packets per message (0: no limit)", &T::window),
        TimeOption<T>("retransmit-timeout",
                      "lossy: first retransmission timeout, e.g. 1ms (doubles on each expiry up "
                      "to the larger of 100ms and itself)",
                      &T::retransmitTimeout,
                      dlnet::MAX_TIMEOUT_SECONDS,
                      false,
                      dlnet::MIN_POSITIVE_TIME_SECONDS),
        ChoiceOption<T>("load-balancing",
                        "equal-cost paths: flow (ECMP hash per message) or packet (per-packet "
                        "spraying)",
                        &T::loadBalancing,
                        {"flow", "packet"}),
        UnsignedOption<T>("ecmp-seed", "perturbation of the ECMP hash", &T::ecmpSeed),
        TextOption<T>(
            "pcap", "non-empty: write a PCAP file per device with this prefix", &T::pcapPrefix),
        ChoiceOption<T>("network", NETWORK_OPTION_HELP, &T::network, {"packet", "flow"}),
    });
    return options;
}

void
RefuseInapplicable(const std::string& field,
                   const std::string& value,
                   const std::string& fallback,
                   bool applies,
                   const std::string& where)
{
    if (!applies && value != fallback)
    {
        throw std::invalid_argument(
            field + ": got " + value + "; it applies " + where
            + (fallback.empty() ? " (leave it empty)" : " (leave it at " + fallback + ")"));
    }
}

void
RefuseInapplicable(const std::vector<ModeOption>& options,
                   const std::function<bool(const std::string& mode)>& applies,
                   const std::function<std::string(const std::string& mode)>& where)
{
    for (const auto& o : options)
    {
        if (!applies(o.mode) && o.value != o.fallback)
        {
            RefuseInapplicable(o.field, o.value, o.fallback, false, where(o.mode));
        }
    }
}

} // namespace ns3
