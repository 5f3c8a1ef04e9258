/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "omnireduce-backend.h"

#include "aggregation-backend-util.h"
#include "omnireduce-header.h"

#include "ns3/double.h"
#include "ns3/fabric-header.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OmniReduceBackend");

NS_OBJECT_ENSURE_REGISTERED(OmniReduceBackend);

TypeId
OmniReduceBackend::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OmniReduceBackend")
              .SetParent<CollectiveBackend>()
              .SetGroupName("Dlnet")
              .AddConstructor<OmniReduceBackend>()
              .AddAttribute("BlockElements",
                            "float32 elements per block (b)",
                            UintegerValue(256),
                            MakeUintegerAccessor(&OmniReduceBackend::m_blockElements),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("MessageBlocks",
                            "blocks fused in one packet (f, 1 to 32)",
                            UintegerValue(1),
                            MakeUintegerAccessor(&OmniReduceBackend::m_messageBlocks),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Slots",
                            "slots: packets in flight per worker",
                            UintegerValue(256),
                            MakeUintegerAccessor(&OmniReduceBackend::m_slots),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Placement",
                            "aggregators: servers, colocated or switch",
                            StringValue("servers"),
                            MakeStringAccessor(&OmniReduceBackend::m_placement),
                            MakeStringChecker())
              .AddAttribute("Aggregators",
                            "aggregators; 0: one per worker (the switch placement has one)",
                            UintegerValue(0),
                            MakeUintegerAccessor(&OmniReduceBackend::m_aggregators),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Timeout",
                            "worker retransmission timeout",
                            TimeValue(MilliSeconds(1)),
                            MakeTimeAccessor(&OmniReduceBackend::m_timeout),
                            MakeTimeChecker())
              .AddAttribute("Threshold",
                            "functional: a block is zero when every |value| is at most this",
                            DoubleValue(0),
                            MakeDoubleAccessor(&OmniReduceBackend::m_threshold),
                            MakeDoubleChecker<double>(0))
              .AddAttribute("PacketTime",
                            "processing time per packet of a server or colocated aggregator",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&OmniReduceBackend::m_packetTime),
                            MakeTimeChecker())
              .AddAttribute("Density",
                            "fraction of each worker's blocks that are non-zero",
                            DoubleValue(1),
                            MakeDoubleAccessor(&OmniReduceBackend::m_density),
                            MakeDoubleChecker<double>(0, 1))
              .AddAttribute("SparsityPlacement",
                            "random, overlap or disjoint non-zero blocks",
                            StringValue("random"),
                            MakeStringAccessor(&OmniReduceBackend::m_sparsityPlacement),
                            MakeStringChecker())
              .AddAttribute("SparsityFile",
                            "read each worker's non-zero blocks from this file instead",
                            StringValue(""),
                            MakeStringAccessor(&OmniReduceBackend::m_sparsityFile),
                            MakeStringChecker())
              .AddAttribute("Seed",
                            "seed of the generated patterns and sparse tensors",
                            UintegerValue(1),
                            MakeUintegerAccessor(&OmniReduceBackend::m_seed),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

std::string
OmniReduceBackend::GetName() const
{
    return "omnireduce";
}

bool
OmniReduceBackend::Implements(CollectiveOp op) const
{
    return op == CollectiveOp::ALL_REDUCE;
}

OmniReduceSettings
OmniReduceBackend::Settings() const
{
    OmniReduceSettings s;
    s.blockElements = m_blockElements;
    s.messageBlocks = m_messageBlocks;
    s.slots = m_slots;
    s.placement = m_placement;
    s.aggregators = m_aggregators;
    s.timeout = m_timeout;
    s.threshold = m_threshold;
    s.packetTime = m_packetTime;
    return s;
}

std::string
OmniReduceBackend::CheckTopology(const Topology& topology, const Communicator& comm) const
{
    return ""; // the placement's needs are checked with the settings (OmniReduceHelper::Validate)
}

uint64_t
OmniReduceBackend::PaddedElements(uint64_t bytes) const
{
    if (m_blockElements == 0)
    {
        return bytes / 4; // refused by Validate, naming block-elements
    }
    return SparsityBlocks(bytes, m_blockElements) * m_blockElements;
}

SparsityPattern
OmniReduceBackend::PatternOf(uint32_t n, uint64_t bytes) const
{
    uint64_t blocks = SparsityBlocks(bytes, m_blockElements);
    if (!m_sparsityFile.empty())
    {
        return ReadSparsityFile(m_sparsityFile, n, blocks);
    }
    return GenerateSparsity(n,
                            blocks,
                            m_density,
                            ParseSparsityPlacement("sparsity-placement", m_sparsityPlacement),
                            m_seed);
}

void
OmniReduceBackend::Validate(const CollectiveRequest& request,
                            const Topology& topology,
                            const Communicator& comm) const
{
    if (!Implements(request.op))
    {
        throw NotApplicable("algorithm: omnireduce does not implement " + ToString(request.op)
                            + "; it is an allreduce");
    }
    CollectiveBackend::Validate(request, topology, comm);
    if (request.type != DataType::FP32)
    {
        throw std::invalid_argument("type: omnireduce aggregates fp32 tensors; got "
                                    + ToString(request.type));
    }
    if (!(m_density >= 0 && m_density <= 1))
    {
        throw std::invalid_argument("density: got " + std::to_string(m_density)
                                    + "; expected a fraction from 0 to 1");
    }
    ParseSparsityPlacement("sparsity-placement", m_sparsityPlacement);
    if (m_slots == 0)
    {
        // the helper's own name for it is slots; the runs' option is pool-slots
        throw std::invalid_argument("pool-slots: got 0; expected at least 1 slot");
    }
    OmniReduceHelper::Validate(
        Settings(), topology, comm, PaddedElements(request.bytes), topology.GetConfig().mtu);
    if (!m_sparsityFile.empty())
    {
        PatternOf(comm.GetSize(), request.bytes); // the file must exist and fit the size
    }
}

double
OmniReduceBackend::Bound(const CollectiveRequest& request,
                         const Communicator& comm,
                         const NetworkModel& model) const
{
    uint32_t n = comm.GetSize();
    uint64_t bytes = PaddedElements(request.bytes) * 4;
    SparsityPattern pattern = PatternOf(n, bytes);
    // The blocks each worker sends: its non-zero ones, and in round 0 every slot's first
    // blocks, zero or not (counted on the pattern: the expected share of zeros among them
    // put the bound above the time where the non-zero blocks come first)
    const uint64_t blocks = pattern.blocks;
    const uint64_t first = std::min<uint64_t>(uint64_t(m_slots) * m_messageBlocks, blocks);
    double d = 0;
    for (uint32_t w = 0; w < n; ++w)
    {
        uint64_t sent = pattern.NonZeroBlocks(w);
        for (uint64_t k = 0; k < first; ++k)
        {
            sent += !pattern.nonZero[w][k];
        }
        d += double(sent) / blocks / n;
    }
    uint64_t results = first; // the blocks some worker sends: a result for each
    for (uint64_t k = first; k < blocks; ++k)
    {
        for (uint32_t w = 0; w < n; ++w)
        {
            if (pattern.nonZero[w][k])
            {
                ++results;
                break;
            }
        }
    }
    const double du = double(results) / blocks;
    // the busiest link: a worker's (d up, d_union down) or, with A
    // aggregators, an aggregator's; colocated ones share the worker's link, where the
    // worker's own share stays on the host
    double a = m_aggregators ? m_aggregators : n;
    double factor;
    if (m_placement == "servers")
    {
        factor = std::max({d, du, n * d / a, n * du / a});
    }
    else if (m_placement == "colocated")
    {
        double in = (n - 1) * d / a + du * (a - 1) / a;
        double out = (n - 1) * du / a + d * (a - 1) / a;
        // d and d_union whole only on the link of a worker that hosts no aggregator
        factor = std::max({in, out, a < n ? std::max(d, du) : 0.0});
    }
    else
    {
        factor = std::max(d, du); // the switch's ports are the workers' links
    }
    double packets = n * d * double(blocks) / m_messageBlocks / a;
    double busy = packets * m_packetTime.GetSeconds();
    // a packet: f blocks of b values, f block indices, the OmniReduce and fabric headers (the
    // bytes on the wire per value at the fewest packets); the latency with the smallest
    // packet a job sends, one block's (a lane without a block sends none)
    double f = m_messageBlocks;
    double values = 4.0 * m_blockElements * f;
    const double headers = OmniReduceHeader::FIXED_SIZE + FabricHeader::SERIALIZED_SIZE;
    const double wire = (values + 4 * f + headers) / values;
    const double smallest = 4.0 * m_blockElements + 4 * f + headers;
    // T_fixed + (S / B) max(d, d_union) when the aggregators keep up, T_fixed the paths a
    // byte must take besides the busiest link: up to a server and down again (two), to the
    // switch or a colocated aggregator and on (one path: a colocated aggregator's own
    // worker's share needs none); when they do not keep up, the busiest one's work between
    // those ways. (T_fixed was three paths everywhere, above the packet level's time: 2
    // workers, 2 servers, 64 KiB, 8.75 against 7.92 us; colocated 8.75 against 6.57 us.)
    const double alpha = WithPacket(model, smallest).alpha;
    const double ways = m_placement == "servers" ? 2 : 1;
    return ways * alpha + std::max(factor * bytes * wire / model.linkRate, busy);
}

void
OmniReduceBackend::MakeInputs(CollectiveRequest& request, uint32_t n, uint32_t seed) const
{
    SparsityPattern pattern = PatternOf(n, request.bytes);
    request.inputs.clear();
    for (uint32_t w = 0; w < n; ++w)
    {
        std::vector<float> t = MakeSparseTensor(pattern, w, m_blockElements, seed);
        t.resize(request.bytes / 4); // the padding is the workers', not the caller's
        request.inputs.emplace_back(t.size() * 4);
        std::memcpy(request.inputs.back().data(), t.data(), t.size() * 4);
    }
}

void
OmniReduceBackend::Start(const Cluster& cluster,
                         const Topology& topology,
                         const Communicator& comm,
                         CollectiveRequest request,
                         DoneCallback done)
{
    uint32_t n = comm.GetSize();
    bool functional = !request.inputs.empty();
    SparsityPattern pattern = PatternOf(n, request.bytes);
    const uint64_t elements = PaddedElements(request.bytes);
    std::vector<std::vector<float>> tensors = FloatInputs(request.inputs);
    for (auto& t : tensors)
    {
        t.resize(elements, 0.0f); // the last block padded with zeros
    }
    // the exact sums, to check the workers' results against
    auto expected = std::make_shared<std::vector<float>>();
    if (functional)
    {
        // the exact sum of what the workers send: a block whose every |value| is at most the
        // threshold counts as zero, but for the first block of every lane of every slot,
        // which round 0 sends whatever it holds
        expected->assign(elements, 0.0f);
        uint64_t roundZero = uint64_t(m_slots) * m_messageBlocks * m_blockElements;
        for (const auto& t : tensors)
        {
            for (uint64_t first = 0; first < t.size(); first += m_blockElements)
            {
                uint64_t last = std::min<uint64_t>(first + m_blockElements, t.size());
                bool zero = first >= roundZero;
                for (uint64_t i = first; i < last && zero; ++i)
                {
                    zero = std::fabs(t[i]) <= m_threshold;
                }
                for (uint64_t i = first; i < last && !zero; ++i)
                {
                    (*expected)[i] += t[i];
                }
            }
        }
    }
    CollectiveRecord record;
    record.communicator = comm.name;
    record.op = request.op;
    record.algorithm = GetName();
    record.bytes = request.bytes;
    bool inSwitch = m_placement == "switch";
    OmniReduceHelper::Start(
        cluster,
        topology,
        comm,
        elements,
        Settings(),
        pattern.nonZero,
        tensors,
        OmniReduceHelper::DoneCallback(
            [record, functional, expected, inSwitch, done, &cluster](const OmniReduceJobRecord& r)
            {
                CollectiveRecord out = record;
                FillWorkerRecord(out, r, false, !cluster.flow);
                out.switchPeakSlots = r.switchPeakSlots;
                if (functional)
                {
                    out.checked = true;
                    for (const auto& w : r.workers)
                    {
                        for (uint64_t i = 0; i < expected->size(); ++i)
                        {
                            out.maxError
                                = std::max(out.maxError,
                                           std::fabs(double(w.output[i]) - double((*expected)[i])));
                        }
                    }
                }
                double span = (r.end - r.start).GetSeconds();
                if (inSwitch)
                {
                    out.aggregatorUtilisation = SwitchToHostUtilisation(cluster, span);
                }
                for (uint32_t address : r.aggregators)
                {
                    if (address < cluster.GetNRanks())
                    {
                        out.aggregatorUtilisation = std::max(
                            out.aggregatorUtilisation,
                            BusyFraction(cluster, cluster.endpoints[address]->GetDevice(), span));
                    }
                }
                done(out);
            }));
}

static const bool g_registered
    = CollectiveRegistry::Add({"omnireduce",
                               11,
                               "sparse block aggregation through aggregators (OmniReduce)",
                               {{"block-elements", "BlockElements"},
                                {"message-blocks", "MessageBlocks"},
                                {"pool-slots", "Slots"},
                                {"aggregator-placement", "Placement"},
                                {"aggregators", "Aggregators"},
                                {"aggregation-timeout", "Timeout"},
                                {"threshold", "Threshold"},
                                {"aggregator-packet-time", "PacketTime"},
                                {"density", "Density"},
                                {"sparsity-placement", "SparsityPlacement"},
                                {"sparsity-file", "SparsityFile"},
                                {"seed", "Seed"}},
                               []()
                               {
                                   return Ptr<CollectiveBackend>(CreateObject<OmniReduceBackend>());
                               },
                               true});

} // namespace ns3
