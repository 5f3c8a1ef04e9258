/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fred-engine.h"

#include "fred-header.h"
#include "fred-switch-program.h"

#include "ns3/ceil-divide.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FredEngine");

NS_OBJECT_ENSURE_REGISTERED(FredEngine);

namespace
{

[[noreturn]] void
Fail(const std::string& job, const std::string& field, const std::string& why)
{
    throw std::invalid_argument(field + ": " + why + " (job '" + job + "')");
}

/// A job's pieces (offset, bytes), in packet order: see FredParts
std::vector<std::pair<uint64_t, uint64_t>>
Pieces(const FredJob& job)
{
    const uint64_t es = ElementSize(job.type);
    const uint32_t nRecv = job.receivers.size();
    const uint32_t nSrc = job.sources.size();
    std::vector<std::pair<uint64_t, uint64_t>> pieces; // offset, bytes
    if (job.op == CollectiveOp::ALL_REDUCE)
    {
        pieces.emplace_back(0, job.bytes);
    }
    else if (job.op == CollectiveOp::BROADCAST)
    {
        for (uint32_t s = 0; s < nSrc; ++s)
        {
            pieces.emplace_back(s * job.bytes, job.bytes);
        }
    }
    else
    {
        uint64_t elements = job.bytes / es;
        uint64_t offset = 0;
        for (uint32_t i = 0; i < nRecv; ++i)
        {
            uint64_t n = elements / nRecv + (i < elements % nRecv ? 1 : 0);
            pieces.emplace_back(offset, n * es);
            offset += n * es;
        }
    }
    return pieces;
}

} // namespace

void
FredJob::Validate() const
{
    bool gather = op == CollectiveOp::ALL_GATHER || op == CollectiveOp::BROADCAST;
    if (!Reduces() && !gather)
    {
        Fail(name,
             "op",
             "got " + ToString(op)
                 + "; in-switch collectives: allreduce, "
                   "reducescatter, allgather or broadcast");
    }
    uint32_t es = ElementSize(type);
    if (bytes == 0 || bytes % es != 0)
    {
        Fail(name,
             "bytes",
             "got " + std::to_string(bytes) + "; a positive multiple of the " + std::to_string(es)
                 + "-byte " + ToString(type) + " element");
    }
    if (payloadBytes == 0 || payloadBytes % es != 0)
    {
        Fail(name,
             "payload-bytes",
             "got " + std::to_string(payloadBytes) + "; a positive multiple of the element size");
    }
    auto distinct = [&](const std::vector<uint32_t>& list, const std::string& field)
    {
        std::set<uint32_t> seen;
        for (uint32_t a : list)
        {
            if (!seen.insert(a).second)
            {
                Fail(name, field, "rank " + std::to_string(a) + " appears twice");
            }
        }
    };
    distinct(sources, "sources");
    distinct(receivers, "receivers");
    if (sources.empty() || receivers.empty())
    {
        Fail(name, "group", "a job needs at least one source and one receiver");
    }
    if (op == CollectiveOp::BROADCAST)
    {
        for (uint32_t r : receivers)
        {
            if (std::find(sources.begin(), sources.end(), r) != sources.end())
            {
                Fail(name, "receivers", "rank " + std::to_string(r) + " is a source too");
            }
        }
    }
    else if (sources != receivers || sources.size() < 2)
    {
        Fail(name,
             "group",
             "all-reduce, reduce-scatter and all-gather need the same two or more "
             "ranks as sources and receivers");
    }
    if (op == CollectiveOp::REDUCE_SCATTER || op == CollectiveOp::ALL_GATHER)
    {
        if (bytes / es < sources.size())
        {
            Fail(name, "bytes", "fewer elements than ranks");
        }
    }
    // packet indices are 32-bit (FredPart)
    uint64_t packets = 0;
    for (auto [offset, size] : Pieces(*this))
    {
        packets += dlnet::CeilDivide(size, payloadBytes);
    }
    if (packets > UINT32_MAX)
    {
        // (the programs set the packet by mtu or by payload-bytes: the remedy names neither)
        Fail(name,
             "bytes",
             std::to_string(bytes) + " bytes make " + std::to_string(packets) + " packets of "
                 + std::to_string(payloadBytes) + " data bytes (a packet less its "
                 + std::to_string(FabricHeader::SERIALIZED_SIZE) + "-byte fabric and "
                 + std::to_string(FredHeader::SERIALIZED_SIZE)
                 + "-byte FRED headers, in whole elements), more than 2^32 - 1; lower the "
                   "sizes or raise the packet size");
    }
    if (!inputs.empty())
    {
        if (inputs.size() != sources.size())
        {
            Fail(name, "inputs", "one buffer per source");
        }
        for (const auto& in : inputs)
        {
            if (in.size() != bytes)
            {
                Fail(name, "inputs", "every buffer must be bytes long");
            }
        }
    }
}

std::vector<FredPart>
FredParts(const FredJob& job)
{
    std::vector<FredPart> parts;
    uint32_t next = 0;
    for (auto [offset, bytes] : Pieces(job))
    {
        // (no wrap: Validate refuses a job of more than UINT32_MAX packets)
        uint32_t packets = dlnet::CeilDivide(bytes, job.payloadBytes);
        parts.push_back(FredPart{offset, bytes, next, packets});
        next += packets;
    }
    return parts;
}

std::vector<uint32_t>
FredPartsSent(const FredJob& job, const std::vector<FredPart>& parts, uint32_t source)
{
    if (!job.Reduces())
    {
        return {source}; // its own part or stream
    }
    std::vector<uint32_t> all(parts.size());
    for (uint32_t p = 0; p < parts.size(); ++p)
    {
        all[p] = p;
    }
    return all;
}

std::vector<uint32_t>
FredPartsReceived(const FredJob& job, const std::vector<FredPart>& parts, uint32_t receiver)
{
    switch (job.op)
    {
        case CollectiveOp::ALL_REDUCE:
            return {0};
        case CollectiveOp::REDUCE_SCATTER:
            return {receiver};
        default:
        {
            // every other source's part or stream
            std::vector<uint32_t> from;
            for (uint32_t s = 0; s < job.sources.size(); ++s)
            {
                if (job.sources[s] != job.receivers[receiver])
                {
                    from.push_back(s);
                }
            }
            return from;
        }
    }
}

FredRecord
StartRecord(const FredJob& job, const std::vector<FredPart>& parts)
{
    const uint32_t nRecv = job.receivers.size();
    const uint32_t nSrc = job.sources.size();
    FredRecord rec;
    rec.id = job.id;
    rec.name = job.name;
    rec.op = job.op;
    rec.bytes = job.bytes;
    rec.start = Simulator::Now();
    rec.bytesSent.assign(nSrc, 0);
    rec.bytesReceived.assign(nRecv, 0);
    if (!job.inputs.empty())
    {
        uint64_t size = job.op == CollectiveOp::BROADCAST ? nSrc * job.bytes : job.bytes;
        rec.outputs.assign(nRecv, std::vector<uint8_t>(size, 0));
        for (uint32_t r = 0; r < nRecv; ++r)
        {
            // a gathering member keeps its own part
            for (uint32_t s = 0; s < nSrc; ++s)
            {
                if (job.sources[s] == job.receivers[r] && job.op == CollectiveOp::ALL_GATHER)
                {
                    const FredPart& p = parts[s];
                    std::copy_n(job.inputs[s].begin() + p.offset,
                                p.bytes,
                                rec.outputs[r].begin() + p.offset);
                }
            }
        }
    }
    return rec;
}

void
FredJob::CheckEndpoints(std::size_t endpoints) const
{
    for (const auto& [list, field] :
         {std::make_pair(&sources, "sources"), std::make_pair(&receivers, "receivers")})
    {
        for (uint32_t a : *list)
        {
            if (a >= endpoints)
            {
                Fail(name, field, "rank " + std::to_string(a) + " has no endpoint");
            }
        }
    }
}

TypeId
FredEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FredEngine")
                            .SetParent<Object>()
                            .SetGroupName("Dlnet")
                            .AddConstructor<FredEngine>()
                            .AddAttribute("Batch",
                                          "Packets a source hands to its device at a time; the "
                                          "next batch follows when the link could have sent "
                                          "this one",
                                          UintegerValue(64),
                                          MakeUintegerAccessor(&FredEngine::m_batch),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddTraceSource("Done",
                                            "An in-switch collective finished",
                                            MakeTraceSourceAccessor(&FredEngine::m_doneTrace),
                                            "ns3::FredEngine::DoneTracedCallback");
    return tid;
}

FredEngine::FredEngine()
    : m_batch(64)
{
}

FredEngine::~FredEngine() = default;

void
FredEngine::DoDispose()
{
    for (auto& endpoint : m_endpoints)
    {
        endpoint->SetProtocolHandler(FredHeader::PROTOCOL, FabricEndpoint::RawCallback());
    }
    m_endpoints.clear();
    m_running.clear();
    Object::DoDispose();
}

void
FredEngine::SetEndpoints(const std::vector<Ptr<FabricEndpoint>>& endpoints)
{
    m_endpoints = endpoints;
    for (auto& endpoint : m_endpoints)
    {
        uint32_t address = endpoint->GetAddress();
        endpoint->SetProtocolHandler(FredHeader::PROTOCOL,
                                     MakeCallback(&FredEngine::Receive, this).Bind(address));
    }
}

uint32_t
FredEngine::GetRunning() const
{
    return m_running.size();
}

void
FredEngine::Start(const FredJob& job, DoneCallback done)
{
    job.Validate();
    if (m_running.count(job.id) > 0)
    {
        Fail(job.name, "id", "job " + std::to_string(job.id) + " is running already");
    }
    job.CheckEndpoints(m_endpoints.size());
    Running& run = m_running[job.id];
    run.job = job;
    run.done = done;
    const uint32_t nRecv = job.receivers.size();
    const uint32_t nSrc = job.sources.size();
    run.parts = FredParts(job);
    const uint32_t next = run.parts.back().firstPacket + run.parts.back().packets;

    // What each receiver waits for.
    run.expected.assign(nRecv, 0);
    run.arrived.assign(nRecv, 0);
    for (uint32_t r = 0; r < nRecv; ++r)
    {
        run.receiverIndex[job.receivers[r]] = r;
        for (uint32_t p : FredPartsReceived(job, run.parts, r))
        {
            run.expected[r] += run.parts[p].packets;
        }
    }

    run.record = StartRecord(job, run.parts);
    run.record.receiverEnd.assign(nRecv, Time());
    NS_LOG_INFO("FRED job " << job.id << " '" << job.name << "' " << ToString(job.op) << " "
                            << job.bytes << " B, " << nSrc << " sources, " << nRecv
                            << " receivers, " << next << " packet indices");

    run.cursors.resize(nSrc);
    for (uint32_t s = 0; s < nSrc; ++s)
    {
        run.cursors[s].parts = FredPartsSent(job, run.parts, s);
        // a batch ahead: the device never waits for the next one
        SendBatch(job.id, s);
        SendBatch(job.id, s);
    }
}

void
FredEngine::SendBatch(uint32_t id, uint32_t source)
{
    auto found = m_running.find(id);
    if (found == m_running.end())
    {
        return;
    }
    Running& run = found->second;
    auto& cursor = run.cursors[source];
    Ptr<FabricNetDevice> device = m_endpoints[run.job.sources[source]]->GetDevice();
    uint64_t wire = 0;
    for (uint32_t sent = 0; sent < m_batch && cursor.part < cursor.parts.size(); ++sent)
    {
        const FredPart& p = run.parts[cursor.parts[cursor.part]];
        SendPacket(run, source, cursor.parts[cursor.part], cursor.packet);
        wire += std::min<uint64_t>(run.job.payloadBytes,
                                   p.bytes - uint64_t(cursor.packet) * run.job.payloadBytes)
                + FredHeader::SERIALIZED_SIZE + FabricHeader::SERIALIZED_SIZE;
        if (++cursor.packet == p.packets)
        {
            cursor.packet = 0;
            ++cursor.part;
        }
    }
    if (cursor.part < cursor.parts.size())
    {
        Simulator::Schedule(device->GetDataRate().CalculateBytesTxTime(wire),
                            &FredEngine::SendBatch,
                            this,
                            id,
                            source);
    }
}

void
FredEngine::SendPacket(Running& run, uint32_t source, uint32_t part, uint32_t k)
{
    const FredJob& job = run.job;
    const FredPart& p = run.parts[part];
    Ptr<FabricEndpoint> endpoint = m_endpoints[job.sources[source]];
    // a broadcast source's stream starts at its own offset; its input is its stream
    uint64_t inputBase = job.op == CollectiveOp::BROADCAST ? p.offset : 0;
    uint64_t offset = p.offset + uint64_t(k) * job.payloadBytes;
    uint32_t size = std::min<uint64_t>(job.payloadBytes, p.offset + p.bytes - offset);
    Ptr<Packet> packet;
    if (job.inputs.empty())
    {
        packet = Create<Packet>(size);
    }
    else
    {
        packet = Create<Packet>(job.inputs[source].data() + (offset - inputBase), size);
    }
    FredHeader fred;
    fred.m_kind = FredHeader::UP;
    fred.m_type = static_cast<uint8_t>(job.type);
    fred.m_target = part;
    fred.m_job = job.id;
    fred.m_seq = p.firstPacket + k;
    packet->AddHeader(fred);
    // No endpoint is the destination: the first switch takes the packet.
    endpoint->SendRaw(packet, NO_ENDPOINT, FredHeader::PROTOCOL, job.tc, !job.inputs.empty());
    run.record.bytesSent[source] += size;
}

void
FredEngine::Receive(uint32_t address, Ptr<Packet> packet, const FabricHeader& header)
{
    FredHeader fred;
    packet->RemoveHeader(fred);
    auto found = m_running.find(fred.m_job);
    if (found == m_running.end())
    {
        NS_LOG_WARN("FRED packet for job " << fred.m_job << " that is not running");
        return;
    }
    Running& running = found->second;
    auto r = running.receiverIndex.find(address);
    if (r == running.receiverIndex.end())
    {
        NS_LOG_WARN("FRED job " << fred.m_job << ": rank " << address << " is not a receiver");
        return;
    }
    uint32_t idx = r->second;
    auto part = std::upper_bound(running.parts.begin(),
                                 running.parts.end(),
                                 fred.m_seq,
                                 [](uint32_t seq, const FredPart& p)
                                 {
                                     return seq < p.firstPacket;
                                 });
    --part;
    uint64_t offset
        = part->offset + uint64_t(fred.m_seq - part->firstPacket) * running.job.payloadBytes;
    uint32_t size = packet->GetSize();
    if (!running.record.outputs.empty() && (header.m_flags & FabricHeader::FLAG_PAYLOAD))
    {
        packet->CopyData(running.record.outputs[idx].data() + offset, size);
    }
    running.record.bytesReceived[idx] += size;
    if (++running.arrived[idx] != running.expected[idx])
    {
        return;
    }
    running.record.receiverEnd[idx] = Simulator::Now(); // its last packet
    if (++running.complete < running.expected.size())
    {
        return;
    }
    Running run = std::move(found->second);
    m_running.erase(found);
    run.record.end = Simulator::Now();
    m_doneTrace(run.record);
    if (!run.done.IsNull())
    {
        run.done(run.record);
    }
}

} // namespace ns3
