/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OMNIREDUCE_H
#define OMNIREDUCE_H

#include "omnireduce-header.h"

#include "ns3/event-id.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The shape of one OmniReduce job, shared by its workers and aggregators.
 */
struct OmniReduceJob
{
    std::vector<uint32_t> workers;     //!< worker addresses, by worker index
    std::vector<uint32_t> aggregators; //!< aggregator addresses; slot j goes to j mod A
    uint32_t blockElements{256};       //!< b: float32 per block
    uint32_t lanes{1};                 //!< f: blocks per packet (fusion)
    uint32_t slots{64};                //!< S: slots (packets in flight per worker)
    uint64_t elements{0};              //!< E: tensor size
    uint8_t tc{0};
    bool functional{false}; //!< real float32 values travel and are summed

    /// \return blocks of the tensor
    uint64_t Blocks() const
    {
        return (elements + blockElements - 1) / blockElements;
    }

    /// \return distance between two blocks of one lane
    uint64_t Stride() const
    {
        return uint64_t(slots) * lanes;
    }

    /// \return the first block of a lane of a slot, or NONE
    uint32_t FirstBlock(uint32_t slot, uint32_t lane) const
    {
        uint64_t b = uint64_t(slot) * lanes + lane;
        return b < Blocks() ? uint32_t(b) : OmniReduceHeader::NONE;
    }

    /// \return elements of a block (the last may be short)
    uint32_t BlockSize(uint32_t block) const
    {
        uint64_t first = uint64_t(block) * blockElements;
        return uint32_t(std::min<uint64_t>(blockElements, elements - first));
    }

    /// \return slots that hold at least one block
    uint32_t UsedSlots() const
    {
        return uint32_t(std::min<uint64_t>(slots, (Blocks() + lanes - 1) / lanes));
    }
};

/**
 * \ingroup dlnet
 * \brief An OmniReduce aggregator: the slots of a job that map to it.
 *
 * For each slot and lane it keeps every worker's next non-zero block. A
 * round of a slot waits for the workers expected in it (those whose next
 * block in some lane is the block the round aggregates), sums the blocks,
 * and sends every worker the result with, per lane, the next block to
 * aggregate: the minimum of the workers' next blocks. Workers without that
 * block stay silent. Results of every round are kept, so that a worker whose
 * result was lost gets it again; a repeated contribution is never added
 * twice. The transport is given: an application on a host or a switch
 * program use the same aggregator.
 */
class OmniReduceAggregator : public Object
{
public:
    /// How the aggregator puts a result on the wire: destination address, packet (headers on).
    typedef std::function<void(uint32_t, Ptr<Packet>)> SendFunction;

    static TypeId GetTypeId();
    OmniReduceAggregator();
    ~OmniReduceAggregator() override;

    /**
     * \param job the job
     * \param self this aggregator's address (its slots are those mapped to it)
     * \param send how results leave
     */
    void Setup(const OmniReduceJob& job, uint32_t self, SendFunction send);

    /// A contribution arrived (OmniReduceHeader removed).
    void Contribution(const OmniReduceHeader& h, Ptr<Packet> values);

    /// \return contributions added
    uint64_t GetContributions() const;
    /// \return results sent again to a worker that asked twice
    uint64_t GetResultsResent() const;
    /// \return payload bytes of results sent (all workers)
    uint64_t GetResultBytes() const;
    /**
     * \return the most slots occupied at once: a slot is occupied from the first
     *         contribution of a round until the round is complete (as SwitchML's
     *         SwitchmlProgram::GetPeakSlotsOccupied); at most the job's slots
     */
    uint32_t GetPeakSlotsOccupied() const;

protected:
    void DoDispose() override;

private:
    /// A round's result, kept for resends.
    struct Result
    {
        uint32_t present{0};
        std::vector<uint32_t> next;
        std::vector<float> values;
        uint32_t bytes{0};
    };

    /// One slot.
    struct Slot
    {
        uint32_t round{0};
        std::vector<uint32_t> current;           //!< per lane: block of this round, or NONE
        std::vector<std::vector<uint32_t>> next; //!< [worker][lane]
        std::vector<bool> expected;
        std::vector<bool> received;
        uint32_t expectedCount{0};
        uint32_t receivedCount{0};
        std::vector<std::vector<float>> sums; //!< per lane (functional)
        std::vector<Result> results;          //!< per round
    };

    void Apply(OmniReduceHeader h, Ptr<Packet> values);
    void Complete(uint32_t slotIndex, Slot& slot);
    void SendResult(uint32_t slotIndex, const Result& r, uint32_t round, uint32_t worker);

    OmniReduceJob m_job;
    uint32_t m_self{0};
    SendFunction m_send;
    std::map<uint32_t, Slot> m_slots;
    uint64_t m_contributions{0};
    uint64_t m_resent{0};
    uint64_t m_resultBytes{0};
    uint32_t m_occupied{0};     //!< slots with a round partly aggregated
    uint32_t m_peakOccupied{0}; //!< most of them at once
    Time m_packetTime;
    Time m_busyUntil;
};

/**
 * \ingroup dlnet
 * \brief What one OmniReduce worker did.
 */
struct OmniReduceWorkerRecord
{
    Time start;
    Time end;
    uint64_t packetsSent{0};
    uint64_t retransmissions{0};
    uint64_t bytesUp{0};   //!< value bytes sent
    uint64_t bytesDown{0}; //!< value bytes of results taken
    std::vector<float> output;
};

/**
 * \ingroup dlnet
 * \brief An OmniReduce worker: sends only its non-zero blocks, when asked.
 *
 * Round 0 of each slot sends the first block of every lane (zero or not)
 * with the worker's next non-zero block per lane. Each result brings the
 * aggregated blocks and, per lane, the block to send next: the worker sends
 * it only if it is one of its non-zero blocks, with its own next one. A
 * slot ends when every lane's next block is NONE. A block is zero when all
 * its values are within Threshold of 0 (functional mode) or when the given
 * pattern says so (timing mode). A slot without its result for Timeout
 * sends its round again (or an empty reminder), doubling the timeout.
 */
class OmniReduceWorker : public Object
{
public:
    /// Called when the worker has every result.
    typedef Callback<void, const OmniReduceWorkerRecord&> DoneCallback;

    static TypeId GetTypeId();
    OmniReduceWorker();
    ~OmniReduceWorker() override;

    /**
     * \param job the job
     * \param worker this worker's index
     * \param nonZero per block: does this worker have values there (timing mode)
     * \param input functional mode: E floats (the non-zero blocks follow from them)
     * \param send how contributions leave: aggregator address, packet
     */
    void Setup(const OmniReduceJob& job,
               uint16_t worker,
               std::vector<bool> nonZero,
               std::vector<float> input,
               OmniReduceAggregator::SendFunction send);

    /// Start; done is called once every slot has ended.
    void Start(DoneCallback done);

    /// A result arrived (OmniReduceHeader removed).
    void Result(const OmniReduceHeader& h, Ptr<Packet> values);

    /// \return the record so far
    const OmniReduceWorkerRecord& GetRecord() const;

    /**
     * \param job the job \param input E floats
     * \param threshold a block is zero when every |value| is at most this
     * \return per block: does it hold values
     */
    static std::vector<bool> NonZeroBlocks(const OmniReduceJob& job,
                                           const std::vector<float>& input,
                                           double threshold);

protected:
    void DoDispose() override;

private:
    /// One slot as this worker sees it.
    struct Slot
    {
        uint32_t round{0};
        std::vector<uint32_t> current; //!< per lane: block requested in this round
        std::vector<uint32_t> mine;    //!< per lane: my next non-zero block
        uint32_t present{0};           //!< lanes I contributed in this round
        uint32_t timeouts{0};
        EventId timer;
        bool done{false};
    };

    uint32_t NextNonZero(uint64_t from) const;
    void Send(uint32_t slotIndex, bool again);
    void Timeout(uint32_t slotIndex);

    OmniReduceJob m_job;
    uint16_t m_worker{0};
    std::vector<bool> m_nonZero;
    std::vector<float> m_input;
    OmniReduceAggregator::SendFunction m_send;
    double m_threshold;
    Time m_timeout;
    Time m_maxTimeout;
    std::vector<Slot> m_slots;
    uint32_t m_slotsLeft{0};
    DoneCallback m_done;
    OmniReduceWorkerRecord m_record;
};

} // namespace ns3

#endif /* OMNIREDUCE_H */
