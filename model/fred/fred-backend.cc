/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-backend.h"

#include "fred-header.h"

#include "ns3/boolean.h"
#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/reduction.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FredBackend");

NS_OBJECT_ENSURE_REGISTERED(FredBackend);

namespace
{

/// \return the wafer, when the topology is one whose switches reduce; else null
const WaferScaleTopology*
InSwitchWafer(const Topology& topology)
{
    const auto* wafer = dynamic_cast<const WaferScaleTopology*>(&topology);
    return wafer && InSwitch(wafer->GetVariant()) ? wafer : nullptr;
}

/// \return [first, last) of part p of n over elements, as FredEngine splits
std::pair<uint64_t, uint64_t>
FredPart(uint64_t elements, uint32_t n, uint32_t p)
{
    uint64_t first = p * (elements / n) + std::min<uint64_t>(p, elements % n);
    return {first, first + elements / n + (p < elements % n ? 1 : 0)};
}

/// \return the largest |output - expected| of a reduce-scatter or all-gather
/// with FRED's parts (infinity when an output is missing or short)
double
FredMaxError(CollectiveOp op,
             DataType type,
             uint32_t n,
             uint64_t elements,
             const std::vector<std::vector<uint8_t>>& inputs,
             const std::vector<std::vector<uint8_t>>& outputs)
{
    uint32_t es = ElementSize(type);
    double worst = 0;
    for (uint32_t m = 0; m < n; ++m)
    {
        if (m >= outputs.size() || outputs[m].size() < elements * es)
        {
            return std::numeric_limits<double>::infinity();
        }
        for (uint32_t p = 0; p < n; ++p)
        {
            if (op == CollectiveOp::REDUCE_SCATTER && p != m)
            {
                continue; // only its own part is defined
            }
            auto [first, last] = FredPart(elements, n, p);
            for (uint64_t i = first; i < last; ++i)
            {
                double want = 0;
                if (op == CollectiveOp::ALL_GATHER)
                {
                    want = ElementValue(type, inputs[p].data(), i);
                }
                else
                {
                    for (uint32_t s = 0; s < n; ++s)
                    {
                        want += ElementValue(type, inputs[s].data(), i);
                    }
                    uint8_t cell[8] = {};
                    SetElementValue(type, cell, 0, want); // in the element type
                    want = ElementValue(type, cell, 0);
                }
                double got = ElementValue(type, outputs[m].data(), i);
                worst = std::max(worst, std::abs(got - want));
            }
        }
    }
    return worst;
}

} // namespace

TypeId
FredBackend::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FredBackend")
              .SetParent<CollectiveBackend>()
              .SetGroupName("Dlnet")
              .AddConstructor<FredBackend>()
              .AddAttribute("SerialiseConflicts",
                            "a collective whose flows cannot share the switches with the running "
                            "ones waits for them (FRED's compile-time scheduling); false: refused",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FredBackend::m_serialise),
                            MakeBooleanChecker());
    return tid;
}

std::string
FredBackend::GetName() const
{
    return "fred-in-switch";
}

bool
FredBackend::Implements(CollectiveOp op) const
{
    return op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::REDUCE_SCATTER
           || op == CollectiveOp::ALL_GATHER;
}

std::string
FredBackend::CheckTopology(const Topology& topology, const Communicator& comm) const
{
    if (!InSwitchWafer(topology))
    {
        return "reduces in the switches of a FRED wafer that has in-switch collectives "
               "(topology fred-b or fred-d)";
    }
    return "";
}

uint32_t
FredBackend::PayloadBytes(uint32_t mtu)
{
    uint32_t headers = FabricHeader::SERIALIZED_SIZE + FredHeader::SERIALIZED_SIZE;
    uint32_t room = mtu > headers ? mtu - headers : 0;
    return room - room % 4; // FredCollectives::GetPayloadBytes
}

void
FredBackend::Validate(const CollectiveRequest& request,
                      const Topology& topology,
                      const Communicator& comm) const
{
    if (InSwitchWafer(topology))
    {
        for (uint32_t r : comm.ranks)
        {
            if (r >= WAFER_NPUS)
            {
                throw std::invalid_argument("ranks: rank " + std::to_string(r)
                                            + " is not one of the wafer's "
                                            + std::to_string(WAFER_NPUS) + " NPUs (0 to "
                                            + std::to_string(WAFER_NPUS - 1) + ")");
            }
        }
    }
    CollectiveBackend::Validate(request, topology, comm); // the op, the topology, the group
    FredJob job;
    job.name = comm.name;
    job.op = request.op;
    job.type = request.type;
    job.bytes = request.bytes;
    job.tc = comm.tc;
    job.payloadBytes = PayloadBytes(topology.GetConfig().mtu);
    job.sources = comm.ranks;
    job.receivers = comm.ranks;
    job.Validate();
    if (!request.inputs.empty() && request.inputs.size() != comm.GetSize())
    {
        throw std::invalid_argument("inputs: " + std::to_string(request.inputs.size())
                                    + " buffers for a group of " + std::to_string(comm.GetSize()));
    }
}

double
FredBackend::Bound(const CollectiveRequest& request,
                   const Communicator& comm,
                   const NetworkModel& model) const
{
    // Every member's link carries the group's buffer S once, in the
    // direction that carries the most: all-reduce S up and the reduced S
    // down at once, reduce-scatter S up (S/n down), all-gather S down less
    // the member's own part (which it has; it sends only that part up). The
    // switches reduce and copy as packets pass, so with no contention the
    // time is that stream through the NPU link at its raw rate plus the
    // latency of one path:
    //
    //   T = (D + ceil(D / P) * (H_fabric + H_fred)) / linkRate + alpha
    //
    // D: S (all-gather: S less the largest part, ceil(S/n) elements);
    // P: payload per FRED packet (mtu - 24 - 12, whole elements), the mtu
    // read back from the model (bandwidth / linkRate = (mtu - 24) / mtu);
    // alpha: the latency of one path (PathLatency: propagation, switching,
    // store-and-forward of one packet on each link but the NPU's own). A
    // reduced packet needs every member's contribution, so all-reduce and
    // reduce-scatter wait for the group's longest path: for the wafer-wide
    // group the model's dimension-2 alpha (across L1s, through an L2), else
    // the model's alpha (the mean over ring neighbours: one L1, or across
    // L1s for a group of one NPU per L1). All-gather's last packet may come
    // from a neighbour under the same L1: the dimension-1 alpha when the
    // model has one.
    double share = model.bandwidth / model.linkRate;
    uint32_t mtu = uint32_t(std::lround(FabricHeader::SERIALIZED_SIZE / (1 - share)));
    uint32_t payload = PayloadBytes(mtu);
    double data = double(request.bytes);
    double message = data; // the most one member sends in one flow
    if (request.op == CollectiveOp::ALL_GATHER && comm.GetSize() > 0)
    {
        uint32_t es = ElementSize(request.type);
        uint64_t elements = request.bytes / es;
        uint64_t largest = (elements + comm.GetSize() - 1) / comm.GetSize();
        data -= double(largest * es);
        message = double(largest * es);
    }
    double packets = std::ceil(data / payload);
    double wire = data + packets * (FabricHeader::SERIALIZED_SIZE + FredHeader::SERIALIZED_SIZE);
    // a buffer smaller than a packet is stored and forwarded in its own bytes
    const NetworkModel sized
        = WithPacket(model,
                     std::min(message, double(payload)) + FabricHeader::SERIALIZED_SIZE
                         + FredHeader::SERIALIZED_SIZE);
    const double alpha = request.op == CollectiveOp::ALL_GATHER
                             ? (sized.alpha1 > 0 ? sized.alpha1 : sized.alpha)
                             : std::max(sized.alpha, sized.alpha2);
    return wire / model.linkRate + alpha;
}

void
FredBackend::Start(const Cluster& cluster,
                   const Topology& topology,
                   const Communicator& comm,
                   CollectiveRequest request,
                   DoneCallback done)
{
    Validate(request, topology, comm);
    Attach(cluster, topology);
    CollectiveRecord record;
    record.communicator = comm.name;
    record.op = request.op;
    record.algorithm = GetName();
    record.bytes = request.bytes;
    uint32_t payload = m_fred->GetPayloadBytes();
    // FRED splits reduce-scatter and all-gather parts with the first
    // (elements % n) parts one element longer; the engine's checker expects
    // [elements * p / n, elements * (p + 1) / n). Where they differ (uneven
    // parts), the backend checks the outputs against its inputs itself.
    uint32_t n = comm.GetSize();
    uint64_t elements = request.bytes / ElementSize(request.type);
    bool partitioned
        = request.op == CollectiveOp::REDUCE_SCATTER || request.op == CollectiveOp::ALL_GATHER;
    std::shared_ptr<std::vector<std::vector<uint8_t>>> inputs;
    if (partitioned && elements % n != 0 && !request.inputs.empty())
    {
        inputs = std::make_shared<std::vector<std::vector<uint8_t>>>(request.inputs);
    }
    CollectiveOp op = request.op;
    DataType type = request.type;
    m_fred->Start(comm,
                  request.op,
                  request.type,
                  request.bytes,
                  request.inputs,
                  FredEngine::DoneCallback(
                      [record, done, payload, inputs, op, type, n, elements](const FredRecord& r)
                      {
                          CollectiveRecord out = record;
                          out.start = r.start;
                          out.end = r.end;
                          // sources and receivers are the group, in its order
                          out.bytesSent = r.bytesSent;
                          out.bytesReceived = r.bytesReceived;
                          // each member's last result (packet level; empty at flow level)
                          out.rankEnd = r.receiverEnd;
                          for (uint64_t sent : r.bytesSent)
                          {
                              out.messages += (sent + payload - 1) / payload; // packets
                          }
                          out.outputs = r.outputs;
                          if (inputs)
                          {
                              out.checked = true;
                              out.maxError
                                  = FredMaxError(op, type, n, elements, *inputs, r.outputs);
                          }
                          done(out);
                      }));
}

FredCollectives&
FredBackend::Attach(const Cluster& cluster, const Topology& topology)
{
    const auto* wafer = InSwitchWafer(topology);
    if (!wafer)
    {
        throw std::invalid_argument("topology: " + topology.GetKind() + "; fred-in-switch "
                                    + CheckTopology(topology, Communicator()));
    }
    if (!m_fred || m_directory != cluster.directory)
    {
        m_fred.reset(); // takes its programs off the old cluster's switches
        m_wafer = std::make_unique<Wafer>(wafer->Describe(cluster));
        m_fred = std::make_unique<FredCollectives>(*m_wafer);
        m_directory = cluster.directory;
    }
    m_fred->SetSerialise(m_serialise);
    return *m_fred;
}

const FredCollectives*
FredBackend::GetCollectives() const
{
    return m_fred.get();
}

void
FredBackend::DoDispose()
{
    m_fred.reset();
    m_wafer.reset();
    m_directory = nullptr;
    CollectiveBackend::DoDispose();
}

static const bool g_registered = CollectiveRegistry::Add(
    {"fred-in-switch",
     12,
     "FRED in-switch reduction and distribution on the fred-b and fred-d wafers",
     {},
     []()
     {
         return Ptr<CollectiveBackend>(CreateObject<FredBackend>());
     },
     true});

} // namespace ns3
