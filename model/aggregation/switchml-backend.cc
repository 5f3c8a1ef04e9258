/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switchml-backend.h"

#include "aggregation-backend-util.h"
#include "switchml-header.h"
#include "switchml-helper.h"

#include "ns3/config-parse.h"
#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchmlBackend");

NS_OBJECT_ENSURE_REGISTERED(SwitchmlBackend);

TypeId
SwitchmlBackend::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SwitchmlBackend")
                            .SetParent<CollectiveBackend>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<SwitchmlBackend>()
                            .AddAttribute("PacketElements",
                                          "int32 values per packet (k: 64 or 256 in the paper)",
                                          UintegerValue(256),
                                          MakeUintegerAccessor(&SwitchmlBackend::m_packetElements),
                                          MakeUintegerChecker<uint32_t>())
                            .AddAttribute("PoolSlots",
                                          "slots of the pool: each worker's window of packets",
                                          UintegerValue(256),
                                          MakeUintegerAccessor(&SwitchmlBackend::m_poolSlots),
                                          MakeUintegerChecker<uint32_t>())
                            .AddAttribute("Timeout",
                                          "worker retransmission timeout (doubles on each expiry)",
                                          TimeValue(MilliSeconds(1)),
                                          MakeTimeAccessor(&SwitchmlBackend::m_timeout),
                                          MakeTimeChecker())
                            .AddAttribute("Job",
                                          "job id: jobs that share a switch need different ids",
                                          UintegerValue(1),
                                          MakeUintegerAccessor(&SwitchmlBackend::m_job),
                                          MakeUintegerChecker<uint16_t>(1));
    return tid;
}

std::string
SwitchmlBackend::GetName() const
{
    return "switchml";
}

bool
SwitchmlBackend::Implements(CollectiveOp op) const
{
    return op == CollectiveOp::ALL_REDUCE;
}

std::string
SwitchmlBackend::CheckTopology(const Topology& topology, const Communicator& comm) const
{
    AggregationTree tree = topology.GetAggregationTree(comm.ranks, m_job);
    if (tree.nodes.empty() || tree.GetDepth() > 2)
    {
        return "aggregates in the switch of a star or the leaves and spine of a leaf-spine (an "
               "aggregation tree of at most two switch levels)";
    }
    return "";
}

void
SwitchmlBackend::Validate(const CollectiveRequest& request,
                          const Topology& topology,
                          const Communicator& comm) const
{
    if (!Implements(request.op))
    {
        throw NotApplicable("algorithm: switchml does not implement " + ToString(request.op)
                            + "; it is an allreduce");
    }
    CollectiveBackend::Validate(request, topology, comm);
    if (request.type != DataType::FP32)
    {
        throw std::invalid_argument("type: switchml aggregates fp32 tensors (quantised to "
                                    "int32 in the switch); got "
                                    + ToString(request.type));
    }
    uint32_t mtu = topology.GetConfig().mtu;
    if (m_packetElements == 0
        || uint64_t(m_packetElements) * 4 + SwitchmlHeader::SERIALIZED_SIZE
                   + FabricHeader::SERIALIZED_SIZE
               > mtu)
    {
        throw std::invalid_argument("packet-elements: " + std::to_string(m_packetElements)
                                    + " values do not fit a packet of mtu " + std::to_string(mtu)
                                    + " bytes (at least 1)");
    }
    if (m_poolSlots == 0)
    {
        throw std::invalid_argument("pool-slots: got 0; expected at least 1 slot");
    }
    dlnet::CheckTime("aggregation-timeout",
                     m_timeout,
                     dlnet::MIN_POSITIVE_TIME_SECONDS,
                     dlnet::MAX_TIMEOUT_SECONDS);
    // A slot whose timer fires before its packet is even on the wire resends every packet,
    // and the resends outrun the link: at 1 Mbit/s (8.5 ms a packet against 1 ms) the queues
    // grew by gigabytes in seconds and the run never ended. (Flow level has no timer.)
    uint64_t packetBytes = uint64_t(m_packetElements) * 4 + SwitchmlHeader::SERIALIZED_SIZE
                           + FabricHeader::SERIALIZED_SIZE;
    DataRate rate = dlnet::ParseRate("link-rate", topology.GetConfig().hostLinkRate);
    Time packetTime = rate.CalculateBytesTxTime(packetBytes);
    if (m_timeout <= packetTime && topology.GetConfig().network != "flow")
    {
        std::ostringstream os;
        os << "aggregation-timeout: " << dlnet::TimeText(m_timeout.GetSeconds())
           << " is not longer than one " << packetBytes << "-byte packet's time on the "
           << topology.GetConfig().hostLinkRate << " link ("
           << dlnet::TimeText(packetTime.GetSeconds())
           << "): every slot would time out and resend before its result could arrive; expected "
              "a longer aggregation-timeout (at most 10s), faster host links or fewer "
              "packet-elements";
        throw std::invalid_argument(os.str());
    }
}

double
SwitchmlBackend::Bound(const CollectiveRequest& request,
                       const Communicator& comm,
                       const NetworkModel& model) const
{
    // Every worker streams S up and gets S down at once, in packets of 4k
    // values behind a 16-byte SwitchML and a 24-byte fabric header; a probe
    // round trip agrees on the first exponents, and the last result crosses
    // the path: about three one-way latencies in all.
    const double payload = 4.0 * m_packetElements;
    const double packetBytes
        = payload + SwitchmlHeader::SERIALIZED_SIZE + FabricHeader::SERIALIZED_SIZE;
    const double wire = double(request.bytes) * packetBytes / payload;
    return 3 * WithPacket(model, packetBytes).alpha + wire / model.linkRate;
}

void
SwitchmlBackend::Start(const Cluster& cluster,
                       const Topology& topology,
                       const Communicator& comm,
                       CollectiveRequest request,
                       DoneCallback done)
{
    SwitchmlSettings settings;
    settings.elementsPerPacket = m_packetElements;
    settings.window = m_poolSlots;
    settings.timeout = m_timeout;
    settings.job = m_job;
    settings.windowName = "pool-slots";
    bool functional = !request.inputs.empty();
    std::vector<std::vector<float>> floats = FloatInputs(request.inputs);
    CollectiveRecord record;
    record.communicator = comm.name;
    record.op = request.op;
    record.algorithm = GetName();
    record.bytes = request.bytes;
    SwitchmlHelper::Start(cluster,
                          topology,
                          comm,
                          request.bytes / 4,
                          settings,
                          floats,
                          SwitchmlHelper::DoneCallback(
                              [record, functional, done, &cluster](const SwitchmlJobRecord& r)
                              {
                                  CollectiveRecord out = record;
                                  FillWorkerRecord(out, r, functional, !cluster.flow);
                                  // the aggregating switches' links toward the workers
                                  out.aggregatorUtilisation = SwitchToHostUtilisation(
                                      cluster, (r.end - r.start).GetSeconds());
                                  done(out);
                              }));
}

static const bool g_registered
    = CollectiveRegistry::Add({"switchml",
                               10,
                               "dense in-network aggregation in the switches (SwitchML)",
                               {{"packet-elements", "PacketElements"},
                                {"pool-slots", "PoolSlots"},
                                {"aggregation-timeout", "Timeout"}},
                               []()
                               {
                                   return Ptr<CollectiveBackend>(CreateObject<SwitchmlBackend>());
                               },
                               true});

} // namespace ns3
