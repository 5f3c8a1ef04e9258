/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCHML_WORKER_H
#define SWITCHML_WORKER_H

#include "switchml-header.h"

#include "ns3/event-id.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief What one SwitchML worker did.
 */
struct SwitchmlWorkerRecord
{
    Time start;              //!< Start() called
    Time end;                //!< last result in
    uint64_t packetsSent{0}; //!< contributions, retransmissions included
    uint64_t retransmissions{0};
    uint64_t bytesUp{0};       //!< payload bytes sent
    uint64_t bytesDown{0};     //!< payload bytes of results taken
    std::vector<float> output; //!< functional mode: the aggregate
};

/**
 * \ingroup dlnet
 * \brief The worker side of SwitchML-style aggregation, on an endpoint.
 *
 * The tensor of E float32 elements is cut into chunks of k; slot j of the
 * pool carries chunks j, j + P, j + 2P, ... (P slots: the window of
 * outstanding packets). Round 0 of a slot is a probe without values that
 * agrees on the block exponent of the slot's first chunk; each later round
 * sends one chunk scaled by the agreed exponent and proposes its exponent
 * for the slot's next chunk; a round's result brings the aggregate and the
 * agreed next exponent, and clocks the next round (self-clocked windows).
 * Functional mode scales each chunk to int32 by INT32_MAX / (N 2^e), e the
 * largest exponent over the workers (block floating point), so that N
 * values never overflow. A slot that sees no result for Timeout sends its
 * round again (doubling the timeout up to MaxTimeout).
 */
class SwitchmlWorker : public Object
{
public:
    /// Called when the worker has every result.
    typedef Callback<void, const SwitchmlWorkerRecord&> DoneCallback;

    static TypeId GetTypeId();
    SwitchmlWorker();
    ~SwitchmlWorker() override;

    /**
     * \param endpoint the worker's endpoint (its SWITCHML handler is taken)
     * \param job job id
     * \param group the address contributions go to
     * \param worker this worker's index
     * \param workers number of workers
     * \param poolSize slots (window)
     * \param elementsPerPacket k
     * \param elements E
     * \param tc traffic class
     * \param input functional mode: E floats; empty: timing mode
     */
    void Setup(Ptr<FabricEndpoint> endpoint,
               uint16_t job,
               uint32_t group,
               uint16_t worker,
               uint32_t workers,
               uint32_t poolSize,
               uint32_t elementsPerPacket,
               uint64_t elements,
               uint8_t tc,
               std::vector<float> input);

    /// Start sending; done is called once every chunk's result is in.
    void Start(DoneCallback done);

    /// \return the record so far
    const SwitchmlWorkerRecord& GetRecord() const;

    /// \return the exponent e of a block: every |x| < 2^e (NO_EXPONENT when all are 0)
    static int8_t BlockExponent(const float* values, uint64_t count);
    /// \return the factor that maps floats below 2^exponent to int32 for n workers
    static double Scale(int8_t exponent, uint32_t workers);

protected:
    void DoDispose() override;

private:
    void Send(uint32_t slot, bool again);
    void Receive(Ptr<Packet> packet, const FabricHeader& header);
    void Timeout(uint32_t slot);
    uint64_t ChunkOf(uint32_t slot, uint32_t round) const;
    int8_t ExponentOf(uint64_t chunk) const;

    Ptr<FabricEndpoint> m_endpoint;
    uint16_t m_job{0};
    uint32_t m_group{0};
    uint16_t m_worker{0};
    uint32_t m_workers{1};
    uint32_t m_pool{1};
    uint32_t m_k{256};
    uint64_t m_elements{0};
    uint64_t m_chunks{0};
    uint8_t m_tc{0};
    std::vector<float> m_input;
    Time m_timeout;
    Time m_maxTimeout;

    std::vector<uint32_t> m_round;    //!< per slot: the round in flight
    std::vector<int8_t> m_exponent;   //!< per slot: agreed exponent of the round in flight
    std::vector<uint32_t> m_timeouts; //!< per slot: expiries since the last result
    std::vector<EventId> m_timers;
    uint32_t m_slotsLeft{0};
    DoneCallback m_done;
    SwitchmlWorkerRecord m_record;
};

} // namespace ns3

#endif /* SWITCHML_WORKER_H */
