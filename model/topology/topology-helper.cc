/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-helper.h"

#include "topology.h"

#include "ns3/config-parse.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/time-resolution.h"
#include "ns3/uinteger.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetTopologyHelper");

bool
TopologyConfig::IsFabricOption(const std::string& option)
{
    return FabricOptions().count(option) > 0;
}

const std::set<std::string>&
TopologyConfig::FabricOptions()
{
    static const std::set<std::string> fabric = {"topology",
                                                 "nodes",
                                                 "link-rate",
                                                 "link-delay",
                                                 "latency",
                                                 "switch-latency",
                                                 "mtu",
                                                 "traffic-classes",
                                                 "flow-control",
                                                 "loss-rate",
                                                 "buffer-bytes",
                                                 "rx-buffer-bytes",
                                                 "window",
                                                 "retransmit-timeout",
                                                 "load-balancing",
                                                 "ecmp-seed",
                                                 "pcap",
                                                 "network"};
    return fabric;
}

void
TopologyConfig::Validate() const
{
    MakeTopology(*this);
}

uint32_t
TopologyConfig::GetNRanks() const
{
    return MakeTopology(*this)->GetNRanks();
}

void
TopologyConfig::CheckSizeBesideNodes(const std::string& field,
                                     uint64_t value,
                                     uint64_t fallback) const
{
    if (nodes != 0 && value != fallback)
    {
        throw std::invalid_argument(
            field + ": got " + std::to_string(value) + "; nodes (" + std::to_string(nodes)
            + ") sets the " + kind + "'s size in its place: give one of the two (" + field
            + " at its default, " + std::to_string(fallback) + ", with nodes)");
    }
}

void
TopologyConfig::ValidateFabric() const
{
    dlnet::ParseRate("link-rate", hostLinkRate);
    dlnet::ParseTime("link-delay", hostLinkDelay, dlnet::MAX_DELAY_SECONDS);
    if (!fabricLinkRate.empty())
    {
        dlnet::ParseRate("fabric-link-rate", fabricLinkRate);
    }
    if (!fabricLinkDelay.empty())
    {
        dlnet::ParseTime("fabric-link-delay", fabricLinkDelay, dlnet::MAX_DELAY_SECONDS);
    }
    if (!localLinkRate.empty())
    {
        dlnet::ParseRate("local-link-rate", localLinkRate);
    }
    dlnet::ParseTime("switch-latency", switchLatency, dlnet::MAX_DELAY_SECONDS);
    if (mtu <= FabricHeader::SERIALIZED_SIZE || mtu > MAX_MTU)
    {
        throw std::invalid_argument("mtu: got " + std::to_string(mtu) + "; expected "
                                    + std::to_string(FabricHeader::SERIALIZED_SIZE + 1) + " to "
                                    + std::to_string(MAX_MTU) + " bytes (the "
                                    + std::to_string(FabricHeader::SERIALIZED_SIZE)
                                    + "-byte FabricHeader included)");
    }
    if (trafficClasses < 1 || trafficClasses > 8)
    {
        throw std::invalid_argument("traffic-classes: got " + std::to_string(trafficClasses)
                                    + "; expected 1 to 8");
    }
    dlnet::ParseChoice("flow-control", flowControl, {"lossless", "lossy"});
    dlnet::ParseChoice("load-balancing", loadBalancing, {"flow", "packet"});
    dlnet::ParseChoice("network", network, {"packet", "flow"});
    if (ecmpSeed != 0 && loadBalancing == "packet")
    {
        // taken and ignored before: spraying takes the ports in turn, hashing nothing
        throw std::invalid_argument("ecmp-seed: got " + std::to_string(ecmpSeed)
                                    + "; it perturbs the flow hash of load-balancing=flow only, "
                                      "and load-balancing is packet (leave it at 0)");
    }
    if (network == "flow" && flowControl == "lossy")
    {
        throw std::invalid_argument("network: flow models lossless fabrics only (no drops, "
                                    "no retransmission); use network=packet with "
                                    "flow-control=lossy");
    }
    if (network == "flow" && !pcapPrefix.empty())
    {
        throw std::invalid_argument("pcap: network=flow sends no packets to capture; use "
                                    "network=packet");
    }
    if (!(lossRate >= 0 && lossRate < 1))
    {
        throw std::invalid_argument("loss-rate: got " + std::to_string(lossRate)
                                    + "; expected a number from 0 to below 1");
    }
    if (lossRate > 0 && flowControl != "lossy")
    {
        throw std::invalid_argument("loss-rate: a packet loss rate needs flow-control=lossy "
                                    "(a lossless fabric never loses packets)");
    }
    if (flowControl == "lossy" && bufferBytes < mtu)
    {
        throw std::invalid_argument("buffer-bytes: got " + std::to_string(bufferBytes)
                                    + "; must hold one packet of mtu (" + std::to_string(mtu)
                                    + ") bytes");
    }
    if (rxBufferBytes != 0 && (flowControl == "lossy" || network == "flow"))
    {
        // taken and ignored before: only a lossless fabric's packets wait for credits
        throw std::invalid_argument(
            "rx-buffer-bytes: got " + std::to_string(rxBufferBytes)
            + "; it applies to the credits of a lossless packet-level fabric only, and "
            + (network == "flow" ? "network=flow has no credits"
                                 : "flow-control=lossy drops at buffer-bytes instead")
            + " (leave it at 0)");
    }
    if (rxBufferBytes != 0 && rxBufferBytes < mtu)
    {
        throw std::invalid_argument("rx-buffer-bytes: got " + std::to_string(rxBufferBytes)
                                    + "; expected 0 (automatic) or at least mtu ("
                                    + std::to_string(mtu) + ") bytes");
    }
    if (rxBufferBytes > UINT32_MAX)
    {
        throw std::invalid_argument(
            "rx-buffer-bytes: got " + std::to_string(rxBufferBytes)
            + "; at most 4294967295 bytes (the device's 32-bit RxBufferSize)");
    }
    if (bufferBytes > UINT32_MAX)
    {
        throw std::invalid_argument(
            "buffer-bytes: got " + std::to_string(bufferBytes)
            + "; at most 4294967295 bytes (the device's 32-bit TxBufferSize)");
    }
    Time rto = dlnet::ParseTime("retransmit-timeout",
                                retransmitTimeout,
                                dlnet::MAX_TIMEOUT_SECONDS,
                                dlnet::MIN_POSITIVE_TIME_SECONDS);
    if (flowControl != "lossy")
    {
        // another value was taken and then ignored: a lossless fabric's queues hold what
        // its credits let in (the default passes: a run's returned config repeats it)
        const TopologyConfig defaults;
        struct LossyOnly
        {
            const char* option;
            bool changed;
            std::string value;
            std::string byDefault;
        };
        const LossyOnly lossyOnly[] = {
            {"window",
             window != defaults.window,
             std::to_string(window),
             std::to_string(defaults.window)},
            {"buffer-bytes",
             bufferBytes != defaults.bufferBytes,
             std::to_string(bufferBytes),
             std::to_string(defaults.bufferBytes)},
            {"retransmit-timeout",
             rto != dlnet::ParseTime("retransmit-timeout", defaults.retransmitTimeout),
             retransmitTimeout,
             defaults.retransmitTimeout},
        };
        for (const auto& o : lossyOnly)
        {
            if (o.changed)
            {
                throw std::invalid_argument(
                    std::string(o.option) + ": got '" + dlnet::PrintableText(o.value)
                    + "'; it applies to a lossy fabric only, so on this lossless one expected "
                      "its default, "
                    + o.byDefault
                    + " (a lossless fabric neither drops nor retransmits; its credits, "
                      "rx-buffer-bytes, bound its queues)");
            }
        }
    }
    if (!pcapPrefix.empty())
    {
        // ns-3 aborts when it cannot open a PCAP file: check first that its folder can be
        // made and written. Validation touches nothing: ClusterBuilder::Finish makes the
        // folder just before it enables the capture, after every option was checked.
        if (pcapPrefix.find('\0') != std::string::npos || pcapPrefix.back() == '/')
        {
            throw std::invalid_argument("pcap: got '" + dlnet::PrintablePath(pcapPrefix)
                                        + "'; expected a file name prefix, e.g. out/run (files "
                                          "out/run-NODE-DEVICE.pcap), not a folder");
        }
        // ns-3 aborts, too, when a file's name is longer than a folder entry may be:
        // "-NODE-DEVICE.pcap" adds at most 27 bytes (two 10-digit ids)
        const std::string name = std::filesystem::path(pcapPrefix).filename().string();
        constexpr std::size_t MAX_PCAP_NAME = 255 - 27;
        if (name.size() > MAX_PCAP_NAME)
        {
            throw std::invalid_argument("pcap: got '" + dlnet::PrintablePath(pcapPrefix)
                                        + "'; its file name part has " + std::to_string(name.size())
                                        + " bytes, and with '-NODE-DEVICE.pcap' a file name may "
                                          "have at most 255: expected at most "
                                        + std::to_string(MAX_PCAP_NAME));
        }
        dlnet::CheckParentFolders("pcap", pcapPrefix);
    }
}

FabricHelper
MakeFabricHelper(const TopologyConfig& config)
{
    const TopologyConfig& c = config;
    FabricHelper h;
    h.SetDeviceAttribute("Mtu", UintegerValue(c.mtu));
    h.SetDeviceAttribute("TrafficClasses", UintegerValue(c.trafficClasses));
    h.SetDeviceAttribute(
        "FlowControl",
        EnumValue(c.flowControl == "lossy" ? FabricNetDevice::LOSSY : FabricNetDevice::LOSSLESS));
    h.SetDeviceAttribute("TxBufferSize", UintegerValue(c.bufferBytes));
    h.SetDeviceAttribute("RxBufferSize", UintegerValue(c.rxBufferBytes));
    h.SetSwitchAttribute("Latency", TimeValue(dlnet::ParseTime("switch-latency", c.switchLatency)));
    h.SetSwitchAttribute("EcmpSeed", UintegerValue(c.ecmpSeed));
    h.SetSwitchAttribute(
        "LoadBalancing",
        EnumValue(c.loadBalancing == "packet" ? FabricSwitch::PER_PACKET : FabricSwitch::PER_FLOW));
    h.SetEndpointAttribute("Window", UintegerValue(c.window));
    h.SetEndpointAttribute("RetransmitTimeout",
                           TimeValue(dlnet::ParseTime("retransmit-timeout", c.retransmitTimeout)));
    return h;
}

Cluster
BuildCluster(const TopologyConfig& config)
{
    return MakeTopology(config)->Build();
}

} // namespace ns3
