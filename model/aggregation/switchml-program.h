/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCHML_PROGRAM_H
#define SWITCHML_PROGRAM_H

#include "switchml-header.h"

#include "ns3/switch-program.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief How one switch takes part in one SwitchML job.
 */
struct SwitchmlJob
{
    uint16_t id{0};                          //!< job id
    uint32_t group{0};                       //!< address the workers send to
    uint32_t poolSize{0};                    //!< slots of the job on this switch
    std::string poolName{"window"};          //!< the pool in messages: the option that set it
    uint8_t tc{0};                           //!< traffic class of the results
    std::vector<uint32_t> childPorts;        //!< per contributor: the port toward it
    std::vector<uint32_t> childAddresses;    //!< per contributor: the destination of its results
    std::map<uint16_t, uint16_t> localIndex; //!< worker id -> contributor index (empty: the same)
    int32_t parentPort{-1};                  //!< -1: this switch is the root; else the port up
    uint16_t indexAtParent{0};               //!< this switch's contributor index at its parent
};

/**
 * \ingroup dlnet
 * \brief Dense in-network aggregation in the manner of SwitchML.
 *
 * Each job owns a pool of slots, twice (two pool sets chosen by the packet's
 * version bit: the shadow copies that let a retransmission after a loss find
 * its round's result without ever counting a contribution twice). A slot
 * adds the int32 values of each contributor once (a per-contributor bit),
 * and when all have contributed the root multicasts the aggregate to every
 * contributor, while a lower switch sends its partial aggregate up as one
 * contributor of its parent and multicasts the parent's result down. A
 * repeated contribution to a finished round gets the stored result back.
 * Slots hold only their state: the switch frees the ingress buffer of every
 * packet at once, so aggregation never holds a link's credit.
 */
class SwitchmlProgram : public SwitchProgram
{
public:
    static TypeId GetTypeId();
    SwitchmlProgram();
    ~SwitchmlProgram() override;

    /**
     * Add a job; throws std::invalid_argument if the switch lacks the slots.
     * \param job the job
     */
    void AddJob(const SwitchmlJob& job);

    /// Free a finished job's slots and id (no effect for an unknown id).
    void RemoveJob(uint16_t id);

    Verdict Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort) override;

    /// \return slots in use by all jobs
    uint32_t GetSlotsInUse() const;
    /// \return contributions added into slots
    uint64_t GetAggregated() const;
    /**
     * \return the most slots occupied at once (all jobs, both pool sets): a slot
     * is occupied from the first contribution of a round until the last of its
     * contributors on this switch has added to it
     */
    uint32_t GetPeakSlotsOccupied() const;
    /// \return results sent again to a contributor that repeated itself
    uint64_t GetResultsResent() const;

private:
    /// One slot of one pool set.
    struct Slot
    {
        std::vector<bool> seen; //!< contributor has added to this round
        uint32_t count{0};      //!< contributors so far, modulo their number
        uint32_t round{0};      //!< round being (or last) aggregated
        bool complete{false};   //!< the result is here
        int8_t exponent{SwitchmlHeader::NO_EXPONENT};
        int8_t nextExponent{SwitchmlHeader::NO_EXPONENT};
        uint32_t bytes{0};           //!< payload bytes of the round
        std::vector<int32_t> values; //!< functional mode
    };

    /// A job's state on this switch.
    struct JobState
    {
        SwitchmlJob job;
        std::vector<Slot> pool[2];
    };

    void Contribution(JobState& js, const SwitchmlHeader& h, Ptr<Packet> payload, uint32_t inPort);
    void Result(JobState& js, const SwitchmlHeader& h, Ptr<Packet> payload);
    void SendResult(JobState& js, const Slot& slot, const SwitchmlHeader& h, uint32_t contributor);
    void SendUp(JobState& js, const Slot& slot, const SwitchmlHeader& h);
    Ptr<Packet> Payload(const Slot& slot) const;

    uint32_t m_capacity;
    uint32_t m_used{0};
    std::map<uint16_t, JobState> m_jobs;
    uint64_t m_aggregated{0};
    uint64_t m_resent{0};
    uint32_t m_occupied{0};     //!< slots with a round partly aggregated
    uint32_t m_peakOccupied{0}; //!< most of them at once
    TracedCallback<uint16_t, uint32_t, uint32_t> m_roundTrace;
};

} // namespace ns3

#endif /* SWITCHML_PROGRAM_H */
