/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_EXPERIMENT_H
#define DLNET_COLLECTIVE_EXPERIMENT_H

#include "experiment-options.h"
#include "link-stats.h"
#include "simulation-scope.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-backend.h"
#include "ns3/collective-check.h"
#include "ns3/collective-engine.h"
#include "ns3/topology-helper.h"

#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// The largest buffer: 1 TiB, as the wafer experiment's (a rank's share of a
/// larger collective would not simulate in any reasonable time).
constexpr uint64_t MAX_COLLECTIVE_BYTES = 1ULL << 40;

/**
 * Throw std::invalid_argument naming field unless bytes is a whole number of
 * elements of type, one at least (the check CollectiveConfig::Validate makes
 * of min-bytes and max-bytes, for a program that sets them from an option of
 * its own).
 */
void CheckElementBytes(const std::string& field, uint64_t bytes, const std::string& type);

/**
 * Throw NotApplicable (a std::invalid_argument) naming field unless an alltoall
 * of bytes splits into one equal block of type elements per rank (the engine's
 * own check names no option; CollectiveConfig::Validate names min-bytes or
 * max-bytes, a program with a size option of its own names that).
 */
void CheckAllToAllBytes(const std::string& field,
                        uint64_t bytes,
                        const std::string& type,
                        uint32_t ranks);

/**
 * Throw std::invalid_argument naming field when functional mode would keep
 * more than 2 GiB of buffers: bytes on each of ranks (CollectiveConfig::Validate's
 * check of max-bytes, for a program that sets the size from an option of its own).
 */
void CheckFunctionalBytes(const std::string& field, uint64_t bytes, uint32_t ranks);

/**
 * \ingroup dlnet
 * \brief A collective swept over sizes on a topology, in the manner of nccl-tests.
 */
struct CollectiveConfig
{
    TopologyConfig topology;       //!< where it runs
    std::string op{"allreduce"};   //!< allreduce, reducescatter, allgather, alltoall, broadcast,
                                   //!< reduce, sendrecv
    std::string algorithm{"ring"}; //!< a registered backend (CollectiveRegistry::Names) or auto
    std::string type{"fp32"};      //!< fp32, fp16, bf16 or int32
    uint64_t minBytes{1 << 20};    //!< first size
    uint64_t maxBytes{1 << 20};    //!< last size
    double stepFactor{2};          //!< size multiplier between rows (> 1)
    std::string ranks{""};         //!< communicator: empty = every rank; "0-7", "0,2,4"
    uint32_t root{0};              //!< communicator index of the root
    uint32_t chunks{0}; //!< pipelining chunks; 0 = per algorithm (trees and chains 8, others 1)
    uint32_t chunksInFlight{0}; //!< 0 = all chunks at once
    bool staggerChunks{false};  //!< chunk c enters a step after chunk c-1 has left it
    uint32_t tc{0};             //!< traffic class
    bool functional{false};     //!< carry real data and check the result
    bool estimate{true};        //!< compute the link-load estimate (false: skip it, at thousands of
                                //!< ranks it costs about what the run costs)
    uint32_t packetElements{256}; //!< switchml: int32 values per packet (k)
    uint32_t poolSlots{256};      //!< switchml: slots of the pool (outstanding packets per worker)
    std::string aggregationTimeout{"1ms"}; //!< switchml, omnireduce: worker retransmission timeout
    double density{1};                     //!< omnireduce: non-zero block density per worker
    std::string sparsityPlacement{"random"}; //!< omnireduce: random, overlap or disjoint
    std::string sparsityFile{""}; //!< omnireduce: a block pattern file instead (see sparsity.h)
    uint32_t blockElements{256};  //!< omnireduce: float32 per block
    uint32_t messageBlocks{1};    //!< omnireduce: blocks fused per packet
    std::string aggregatorPlacement{"servers"}; //!< omnireduce: servers, colocated or switch
    uint32_t aggregators{0};                    //!< omnireduce: 0 = as many as workers
    double threshold{0};                        //!< omnireduce: functional zero-block threshold
    std::string aggregatorPacketTime{
        "0ns"};               //!< omnireduce: per-packet processing time of an aggregator server
    bool stats{false};        //!< collect per-link and per-rank statistics (links, ranks tables)
    std::string timeline{""}; //!< non-empty: write the messages as a Chrome trace to this file
    uint32_t seed{1};
    uint64_t run{1};
    Ns3Attributes ns3Attributes; //!< ns-3 attribute defaults, set after each run's reset
    /// Options the user set: one that does not apply to the algorithm is refused.
    std::set<std::string> given;

    /// Throw std::invalid_argument naming the first bad field.
    void Validate() const;

    /**
     * \param name a registered backend
     * \return a new backend with its attributes set from this config's options
     */
    Ptr<CollectiveBackend> MakeBackend(const std::string& name) const;

    /// \return false for an option of another topology kind or algorithm than this config's
    /// (algorithm may be a list: an option of any of them; auto: one every candidate takes)
    bool Applies(const std::string& option) const;

    /// Throw std::invalid_argument naming a given option that does not apply to the algorithm.
    void CheckGivenOptions() const;

    /**
     * \return the most chunks a rank runs, over the sizes of the sweep and the
     *         algorithms (a list; auto: any step schedule it may pick), as the
     *         engine resolves chunks 0; 0 when no algorithm runs chunks
     */
    uint32_t MostChunks() const;

    /// \return whether chunks-in-flight or stagger-chunks changes a run: a rank runs two or
    /// more chunks at once
    bool ChunkOptionApplies(const std::string& option) const;

    /// \return the request of one size (timing mode; chunks as configured)
    CollectiveRequest RequestOf(uint64_t bytes, const NetworkModel& model) const;
};

/**
 * One config per algorithm from a config given for several (a comparison of algorithms),
 * each validated before any runs: each keeps the given options that apply to its algorithm.
 * \param config the options as given (its algorithm is ignored)
 * \param algorithms a comma-separated list
 * \return a config per algorithm, in order
 * \throw std::invalid_argument naming an option that applies to none of them, or an
 *        entry's refusal with the entry named after it
 */
std::vector<CollectiveConfig> SplitAlgorithmList(const CollectiveConfig& config,
                                                 const std::string& algorithms);

/// One communicator rank of one size (stats): the shared per-rank record.
using CollectiveRankResult = RankResult;

/// One row of the table (one size).
struct CollectiveRow
{
    uint64_t bytes{0};
    uint64_t count{0}; //!< elements
    std::string type;
    std::string redop;           //!< sum, or none for data movement
    std::string algorithm;       //!< the one that ran (auto resolved)
    double time{0};              //!< s
    double algbw{0};             //!< B/s: bytes / time
    double busbw{0};             //!< B/s: algbw x nccl-tests factor
    double bound{0};             //!< s, contention-free bound (the backend's alpha-beta model)
    double estimate{-1};         //!< s, shared-link estimate over the installed routes; -1: none
    std::string busiestLink;     //!< the estimate's most-loaded link
    bool checked{false};         //!< functional mode ran the check
    bool correct{true};          //!< functional mode: every rank's buffer equals the reference
    double maxError{0};          //!< functional mode: largest |result - exact sum| of any element
    uint64_t packets{0};         //!< in-network: packets the workers sent; else messages
    uint64_t retransmissions{0}; //!< in-network: packets sent again after a timeout
    double bytesUp{0};           //!< payload bytes a worker sent, mean over workers
    double bytesDown{0};         //!< payload bytes a worker received, mean over workers
    double aggregatorUtilisation{
        0}; //!< in-network: busiest aggregator-to-worker link, busy fraction
    uint64_t events{0};
    std::string network;           //!< the model that carried the messages: packet or flow
    double wallSeconds{0};         //!< not written to result files
    std::vector<LinkResult> links; //!< stats: every directed link
    std::vector<CollectiveRankResult> ranks; //!< stats: every communicator rank
    std::vector<SwitchResult> switches;      //!< stats: every switch
};

/// What a collective experiment measured.
struct CollectiveResult
{
    std::string topology;
    std::string network; //!< the model that carried the messages: packet or flow
    std::string op;
    uint32_t ranks{0};
    NetworkModel model; //!< what the predictor assumed
    std::vector<CollectiveRow> rows;
};

/// \return the options of a collective experiment (topology options included)
const std::vector<ExperimentOption<CollectiveConfig>>& CollectiveOptions();

/**
 * Run the sweep: one simulation per size; validate first.
 */
CollectiveResult RunCollective(const CollectiveConfig& config);

/**
 * \param attributes a run's ns-3 attribute defaults
 * \return the collective engine's latencies a run with them will have (its
 *         defaults, then EnvironmentNs3Attributes, then the attributes in order);
 *         std::invalid_argument naming a bad one
 */
LibraryLatencies LatenciesOf(const Ns3Attributes& attributes);

/**
 * \param topology the topology \param ranks the communicator
 * \param latencies the library's latencies (LatenciesOf)
 * \return the alpha-beta model of a topology for a communicator (used by auto and the tests)
 */
NetworkModel ModelOf(const TopologyConfig& topology,
                     const std::vector<uint32_t>& ranks,
                     const LibraryLatencies& latencies = LibraryLatencies());

/// \return the communicator a ranks text names ("" = all), validated against the topology
Communicator ParseCommunicator(const std::string& text, uint32_t clusterRanks);

} // namespace ns3

#endif /* DLNET_COLLECTIVE_EXPERIMENT_H */
