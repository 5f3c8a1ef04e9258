/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FRED_ENGINE_H
#define FRED_ENGINE_H

#include "ns3/callback.h"
#include "ns3/collective-types.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One in-switch collective: who sends, who receives, what.
 *
 * All-reduce and reduce-scatter: sources = receivers = the group; every
 * source sends its whole buffer; reduce-scatter part i (an element-aligned
 * split) goes to receiver i only. All-gather: source i sends part i of the
 * buffer to every other member. Broadcast: every source streams `bytes` of
 * its own to every receiver (I/O controllers streaming weights); receiver
 * buffers hold the streams one after the other.
 */
struct FredJob
{
    uint32_t id{0};   //!< unique among running jobs
    std::string name; //!< for records and errors
    CollectiveOp op{
        CollectiveOp::ALL_REDUCE};   //!< all-reduce, reduce-scatter, all-gather, broadcast
    DataType type{DataType::FP32};   //!< element type
    uint64_t bytes{0};               //!< buffer size (broadcast: per source)
    uint8_t tc{0};                   //!< traffic class
    uint32_t payloadBytes{4084};     //!< data per packet (element-aligned)
    std::vector<uint32_t> sources;   //!< endpoint addresses
    std::vector<uint32_t> receivers; //!< endpoint addresses
    /// Functional mode: per source, its buffer (bytes long); empty: timing mode.
    std::vector<std::vector<uint8_t>> inputs;

    /// \return true for the reducing operations
    bool Reduces() const
    {
        return op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::REDUCE_SCATTER;
    }

    /// Throw std::invalid_argument naming the first bad field.
    void Validate() const;

    /// Throw std::invalid_argument naming sources or receivers when a rank is not below
    /// \p endpoints (the endpoints an engine serves).
    void CheckEndpoints(std::size_t endpoints) const;
};

/**
 * \ingroup dlnet
 * \brief A contiguous piece of a job's buffer, cut into packets: a part of
 * a reduce-scatter or all-gather split, a broadcast source's stream, or the
 * whole buffer of an all-reduce. Packet indices run over the parts in order.
 */
struct FredPart
{
    uint64_t offset;      //!< bytes into the buffer (broadcast: into the receivers' buffer)
    uint64_t bytes;       //!< its size
    uint32_t firstPacket; //!< the index of its first packet
    uint32_t packets;     //!< packets of at most payloadBytes
};

/**
 * The parts of a (valid) job: all-reduce one (the buffer), broadcast one per
 * source, reduce-scatter and all-gather one per member (element-aligned,
 * the first elements % n parts one element longer).
 * \param job the job \return its parts, in packet order
 */
std::vector<FredPart> FredParts(const FredJob& job);

/**
 * \param job a (valid) job \param parts its parts (FredParts)
 * \param source a source index \return the parts it sends, in order
 */
std::vector<uint32_t> FredPartsSent(const FredJob& job,
                                    const std::vector<FredPart>& parts,
                                    uint32_t source);

/**
 * \param job a (valid) job \param parts its parts (FredParts)
 * \param receiver a receiver index \return the parts it receives
 */
std::vector<uint32_t> FredPartsReceived(const FredJob& job,
                                        const std::vector<FredPart>& parts,
                                        uint32_t receiver);

/**
 * \ingroup dlnet
 * \brief What one in-switch collective did.
 */
struct FredRecord
{
    uint32_t id{0};
    std::string name;
    CollectiveOp op{CollectiveOp::ALL_REDUCE};
    uint64_t bytes{0};
    Time start;                          //!< Start() called
    Time end;                            //!< last receiver complete
    std::vector<uint64_t> bytesSent;     //!< payload bytes, per source
    std::vector<uint64_t> bytesReceived; //!< payload bytes, per receiver
    /// per receiver: when its last packet arrived (FredEngine: packet level); empty from
    /// FredFlowEngine, whose flows end every receiver with the job
    std::vector<Time> receiverEnd;
    std::vector<std::vector<uint8_t>> outputs; //!< functional mode: per receiver
};

/**
 * A job's record as it starts: now, its fields, nothing sent or received
 * yet; functional mode: every receiver's buffer zeroed, an all-gather
 * member's own part in place.
 * \param job a (valid) job \param parts its parts (FredParts) \return the record
 */
FredRecord StartRecord(const FredJob& job, const std::vector<FredPart>& parts);

/**
 * \ingroup dlnet
 * \brief The NPU side of FRED's in-switch collectives: packetises each
 * source's data, hands it to the first switch, and collects what comes back.
 * The switches (FredSwitchProgram) must hold the job's flows before Start.
 */
class FredEngine : public Object
{
public:
    /// Called once every receiver of a job has everything.
    typedef Callback<void, const FredRecord&> DoneCallback;
    /// Signature of the Done trace source.
    typedef void (*DoneTracedCallback)(const FredRecord& record);

    static TypeId GetTypeId();
    FredEngine();
    ~FredEngine() override;

    /// \param endpoints endpoints by address; their FRED protocol handlers are taken
    void SetEndpoints(const std::vector<Ptr<FabricEndpoint>>& endpoints);

    /**
     * Start a job now (validates first: std::invalid_argument).
     * \param job the job
     * \param done called when it has finished
     */
    void Start(const FredJob& job, DoneCallback done);

    /// \return jobs running
    uint32_t GetRunning() const;

protected:
    void DoDispose() override;

private:
    struct Running
    {
        FredJob job;
        DoneCallback done;
        std::vector<FredPart> parts;
        std::vector<uint32_t> expected;             //!< packets per receiver
        std::vector<uint32_t> arrived;              //!< packets per receiver
        std::map<uint32_t, uint32_t> receiverIndex; //!< by address
        uint32_t complete{0};
        FredRecord record;
        /// per source: the parts it sends, in order, and where it is in them
        struct Cursor
        {
            std::vector<uint32_t> parts;
            uint32_t part{0}; //!< index into parts
            uint32_t packet{0};
        };
        std::vector<Cursor> cursors;
    };

    void Receive(uint32_t address, Ptr<Packet> packet, const FabricHeader& header);
    /// Hand a source's next packets to its device, and come back when the
    /// device has had time to send them (so the queue never holds more than
    /// two batches while the link is free).
    void SendBatch(uint32_t job, uint32_t source);
    void SendPacket(Running& run, uint32_t source, uint32_t part, uint32_t k);

    std::vector<Ptr<FabricEndpoint>> m_endpoints;
    std::map<uint32_t, Running> m_running; //!< by job id
    TracedCallback<const FredRecord&> m_doneTrace;
    uint32_t m_batch; //!< Batch attribute
};

} // namespace ns3

#endif /* FRED_ENGINE_H */
