/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FRED_SWITCH_PROGRAM_H
#define FRED_SWITCH_PROGRAM_H

#include "fred-header.h"

#include "ns3/switch-program.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief What one FRED switch does for one job (one collective): its
 * reduction-distribution flow.
 *
 * Sources' data arrive UP on `inputs`; a reducing job adds the packets of
 * one index from every input, a gathering job copies each one. A switch with
 * `parents` passes the partial result (or the copy) up to the parent of the
 * packet's plane (index mod planes); the root of the plane (no parents) turns
 * it DOWN to `outputs`, behind which are the receivers. A DOWN packet from a
 * parent goes to the outputs (to the one toward its part's owner in a
 * reduce-scatter).
 */
struct FredSwitchFlow
{
    uint32_t job{0};                  //!< job id (FredHeader::m_job)
    std::string name;                 //!< for errors and logs
    bool reduce{true};                //!< add UP packets (all-reduce, reduce-scatter); else copy
    uint8_t tc{0};                    //!< traffic class (virtual channel) of the job
    std::vector<uint32_t> inputs;     //!< ports sources' data arrive on
    std::vector<uint32_t> outputs;    //!< ports receivers are behind
    std::vector<uint32_t> parents;    //!< uplink by plane; empty: root
    std::vector<uint32_t> targetPort; //!< reduce-scatter: by receiver index, its output (or NONE)
    std::map<uint32_t, uint32_t> endpointAt; //!< port -> address of the endpoint on it

    static constexpr uint32_t NONE = UINT32_MAX; //!< no port

    /**
     * Call f(port) for every port a packet going down leaves on: a
     * reduce-scatter part only toward its owner (none when the owner is not
     * below), anything else on every output but `except`.
     * \param target the packet's FredHeader::m_target \param except a port, or NONE
     * \param f called with each port
     */
    template <typename F>
    void ForEachDownPort(uint32_t target, uint32_t except, F f) const
    {
        if (reduce && !targetPort.empty())
        {
            uint32_t port = target < targetPort.size() ? targetPort[target] : NONE;
            if (port != NONE)
            {
                f(port);
            }
            return;
        }
        for (uint32_t port : outputs)
        {
            if (port != except)
            {
                f(port);
            }
        }
    }
};

/// Destination of packets that no endpoint takes (a switch on the way does).
constexpr uint32_t NO_ENDPOINT = UINT32_MAX;

/**
 * \ingroup dlnet
 * \brief FRED's in-switch collectives (Rashidi et al., ISCA 2025) as a
 * switch program: per job a reduction-distribution flow.
 *
 * Reduction happens while the packets pass through, so the switch adds no
 * time beyond its Latency attribute and forwards at link rate. Flows of one
 * traffic class that are installed at the same time must be routable at once
 * through the switch's Fred_m(P) interconnect (RouteFredFlows); classes
 * share ports through their own virtual channels, and strict priority (MP 0 >
 * PP 1 > DP 2) on every output decides who goes first.
 */
class FredSwitchProgram : public SwitchProgram
{
public:
    static TypeId GetTypeId();
    FredSwitchProgram();
    ~FredSwitchProgram() override;

    /**
     * Install a job's flow. Throws std::invalid_argument when a port is not
     * on the switch, the job is installed already, or the flows of its
     * traffic class cannot be routed at once with MiddleStages.
     * \param flow the flow
     */
    void InstallFlow(const FredSwitchFlow& flow);

    /// Remove a job's flow and any partial results it left.
    void RemoveFlow(uint32_t job);

    /// \return jobs installed
    uint32_t GetNFlows() const;

    /// \return packets that arrived UP and were added into a partial result
    uint64_t GetReducedPackets() const;

    /**
     * \return the most partial results held at once, all jobs together: a
     * packet index holds one from the first contribution of its inputs until
     * the last of them has been added (as SwitchmlProgram::GetPeakSlotsOccupied)
     */
    uint32_t GetPeakSlotsOccupied() const;

    Verdict Process(Ptr<Packet> packet, FabricHeader& header, uint32_t inPort) override;

protected:
    void DoDispose() override;

private:
    /// A partial result of one packet index.
    struct Slot
    {
        uint32_t arrived{0};
        uint32_t size{0};
        bool payload{false};
        std::vector<bool> seen; //!< by input: its contribution is in
        std::vector<uint8_t> sum;
    };

    void CheckRoutable(const FredSwitchFlow& flow) const;
    void Send(const FredSwitchFlow& flow,
              uint32_t port,
              const FabricHeader& header,
              const FredHeader& fred,
              Ptr<const Packet> data);

    uint32_t m_middleStages;                    //!< MiddleStages attribute
    std::map<uint32_t, FredSwitchFlow> m_flows; //!< by job
    std::unordered_map<uint64_t, Slot> m_slots; //!< by (job << 32 | index)
    uint64_t m_reduced{0};
    uint32_t m_peakSlots{0};                          //!< most entries of m_slots at once
    TracedCallback<uint32_t, uint32_t> m_resultTrace; //!< (job, index) a root finished a reduction
};

} // namespace ns3

#endif /* FRED_SWITCH_PROGRAM_H */
