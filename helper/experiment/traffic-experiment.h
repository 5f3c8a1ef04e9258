/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TRAFFIC_EXPERIMENT_H
#define DLNET_TRAFFIC_EXPERIMENT_H

#include "experiment-options.h"
#include "link-stats.h"
#include "simulation-scope.h"

#include "ns3/topology-helper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief A traffic pattern on a topology: the first experiment kind.
 */
struct TrafficConfig
{
    TopologyConfig topology;            //!< where the traffic runs
    std::string pattern{"permutation"}; //!< point-to-point, incast, all-to-all or permutation
    uint64_t messageBytes{1 << 20};     //!< bytes per message
    uint32_t messages{1};               //!< messages per flow, sent at once
    uint32_t src{0};                    //!< point-to-point: source rank
    uint32_t dst{1};                    //!< point-to-point: destination rank
    uint32_t target{0};                 //!< incast: the rank everybody sends to
    uint32_t senders{0};    //!< incast: senders (the ranks after target); 0 = all others
    uint32_t shift{0};      //!< permutation: 0 = random derangement, k = rank r sends to r+k
    uint32_t tc{0};         //!< traffic class of every message
    bool functional{false}; //!< carry and check real bytes
    uint32_t seed{1};       //!< RngSeedManager seed
    uint64_t run{1};        //!< RngSeedManager run
    std::string stopTime{
        "100s"}; //!< simulated-time limit (a run that hits it reports undelivered messages)
    Ns3Attributes ns3Attributes; //!< ns-3 attribute defaults, set after the run's reset

    /// Throw std::invalid_argument naming the first bad field.
    void Validate() const;
};

/// One message, as measured.
struct MessageResult
{
    uint32_t src{0};
    uint32_t dst{0};
    uint32_t msgId{0};
    uint64_t bytes{0};
    uint32_t packets{0};
    uint32_t hops{0};  //!< switches on its path
    double start{0};   //!< s
    double end{0};     //!< s, last byte delivered
    double fct{0};     //!< s, end - start
    double goodput{0}; //!< bit/s, bytes * 8 / fct
    bool intact{true}; //!< functional mode: bytes equal what was sent
};

/// What a traffic experiment measured.
struct TrafficResult
{
    std::string topology;
    std::string network; //!< the model that carried the messages: packet or flow
    std::string pattern;
    uint32_t ranks{0};
    std::vector<MessageResult> messages; //!< in delivery order
    std::vector<LinkResult> links;
    uint64_t expectedMessages{0};
    uint64_t deliveredMessages{0};
    uint64_t duplicateDeliveries{0}; //!< messages reported more than once (must be 0)
    uint64_t duplicatePackets{0};    //!< packets the receivers dropped as duplicates
    uint64_t retransmissions{0};
    uint64_t drops{0};
    uint64_t payloadBytes{0};   //!< delivered
    double makespan{0};         //!< s, last delivery
    double aggregateGoodput{0}; //!< bit/s, payloadBytes * 8 / makespan
    bool allDelivered{false};
    /// the run ended at stop-time with messages still in flight (not every one delivered)
    bool cutByStopTime{false};
    bool allIntact{false};
    uint64_t events{0};    //!< simulator events executed
    double wallSeconds{0}; //!< not written to result files (not deterministic)
};

/// \return the allowed patterns
const std::vector<std::string>& TrafficPatterns();

/**
 * Run one traffic experiment: validate, build, simulate, measure, clean up.
 * \param config the experiment
 * \return its result
 */
TrafficResult RunTraffic(const TrafficConfig& config);

/// \return the options of a traffic experiment (topology options included)
const std::vector<ExperimentOption<TrafficConfig>>& TrafficOptions();

/**
 * Set one option by name.
 * \param config the config
 * \param name option name (kebab-case; underscores are accepted for dashes)
 * \param value its text
 */
void SetTrafficOption(TrafficConfig& config, const std::string& name, const std::string& value);

} // namespace ns3

#endif /* DLNET_TRAFFIC_EXPERIMENT_H */
