/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TOPOLOGY_H
#define DLNET_TOPOLOGY_H

#include "cluster.h"
#include "fabric-helper.h"

#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

struct TopologyConfig;

/**
 * \ingroup dlnet
 * \brief One link of the path between two ranks, as a predictor sees it.
 */
struct PathLink
{
    double rate{0};  //!< bit/s
    double delay{0}; //!< s, propagation
};

/**
 * \ingroup dlnet
 * \brief The route a message takes between two ranks on an idle fabric.
 */
struct TopologyPath
{
    std::vector<PathLink> links; //!< from the source's device to the destination's, in order
    uint32_t switches{0};        //!< switches crossed (each adds the switch latency)
};

/**
 * \ingroup dlnet
 * \brief Two dimensions of a topology for hierarchical collectives: rank =
 * y * dim1 + x, dimension 1 along x (consecutive ranks), dimension 2 along y.
 */
struct TopologyGrid
{
    uint32_t dim1{0};          //!< ranks along dimension 1; 0: no grid
    uint32_t dim2{0};          //!< ranks along dimension 2
    bool bidirectional{false}; //!< rings may run both ways at once (torus rings of 3 or more)
    double dim1Rate{0};        //!< bit/s a rank has toward its dimension-1 neighbours
    double dim2Rate{0};        //!< bit/s a rank has toward its dimension-2 neighbours
};

/**
 * \ingroup dlnet
 * \brief Switches that can aggregate a group's data in the network: a tree
 * whose leaves are the group's ranks (SwitchML-style dense aggregation, the
 * OmniReduce switch placement).
 */
struct AggregationTree
{
    static constexpr uint32_t NO_PARENT = UINT32_MAX; //!< the root's parent

    /// One aggregating switch.
    struct Node
    {
        uint32_t switchIndex{0};          //!< in Cluster::switches
        std::vector<uint32_t> ranks;      //!< group ranks attached below it
        std::vector<uint32_t> rankPorts;  //!< its port toward each of those ranks
        std::vector<uint32_t> children;   //!< child nodes (indices into nodes)
        std::vector<uint32_t> childPorts; //!< its port toward each child node
        uint32_t parent{NO_PARENT};       //!< parent node index
        uint32_t parentPort{0};           //!< its port toward the parent
    };

    std::vector<Node> nodes; //!< leaves first, the root last; empty: cannot aggregate

    /// \return the number of switch levels (0: no tree)
    uint32_t GetDepth() const;
};

/**
 * \ingroup dlnet
 * \brief A topology: validated parameters, the builder of its cluster, and
 * the answers that predictors and in-network backends ask of it.
 *
 * One class (and one file) per topology, registered by name with
 * TopologyRegistry; strings end at the command-line/Python boundary
 * (MakeTopology), everything below holds a Ptr<const Topology>.
 */
class Topology : public SimpleRefCount<Topology>
{
public:
    virtual ~Topology() = default;

    /// \return the registered kind ("star", "fat-tree", ...)
    virtual std::string GetKind() const = 0;
    /// \return the config it was made from (device, switch and link settings: mtu, latency)
    virtual const TopologyConfig& GetConfig() const = 0;
    /// \return the number of ranks (endpoints)
    virtual uint32_t GetNRanks() const = 0;

    /**
     * Build nodes, links, switches and endpoints, and install the routes,
     * with the device, switch and endpoint settings of the config the
     * topology was made from.
     * \return the cluster
     */
    virtual Cluster Build() const = 0;

    /// \return the path between two ranks on an idle fabric
    virtual TopologyPath GetPath(uint32_t a, uint32_t b) const = 0;

    /// \return bit/s of the link that limits a rank's own sending (the bound's bandwidth)
    virtual double GetRankRate() const = 0;

    /// \return whether some two ranks have two or more equal-cost paths, among which
    ///         load-balancing chooses (by the ECMP hash, or by spraying)
    virtual bool HasEqualCostPaths() const = 0;

    /// \return the two dimensions of hierarchical algorithms over every rank, or dim1 = 0
    virtual TopologyGrid GetGrid() const;

    /**
     * \param rank a rank (below GetNRanks)
     * \return the host (server) that holds it: ranks of one host reach each
     *         other without the network (NCCL's node); by default every rank
     *         is a host of its own
     */
    virtual uint32_t GetHostOf(uint32_t rank) const;

    /**
     * \param ranks a group (distinct cluster ranks)
     * \param job the job number (spreads roots over equal switches)
     * \return the switches that aggregate the group, or an empty tree when
     *         the topology has none that can
     */
    virtual AggregationTree GetAggregationTree(const std::vector<uint32_t>& ranks,
                                               uint32_t job) const;
};

/**
 * \ingroup dlnet
 * \brief A topology kind: its name, what it is, the options that shape it,
 * and how to make it from a config.
 */
struct TopologyKind
{
    std::string name;                 //!< as users write it
    uint32_t order{0};                //!< position in listings (kinds are listed by it)
    std::string help;                 //!< one line
    std::vector<std::string> options; //!< TopologyConfig options that apply to it (shape, rates)
    std::function<Ptr<const Topology>(const TopologyConfig&)> make; //!< validates, throws
    /// fabric options (TopologyConfig::IsFabricOption) it does not take: refused when given
    /// (MakeTopology), left out of a result's config (TopologyOptionApplies)
    std::vector<std::string> refusedFabricOptions{};
    std::string refusedWhy{}; //!< what it takes instead, for the refusal's message
    /// fabric options it takes only when given (else a value of its own): left out of a
    /// result's config unless given, which would otherwise run again with the option's default
    std::vector<std::string> givenOnlyOptions{};
};

/**
 * \ingroup dlnet
 * \brief Topology kinds by name. A topology file registers its kind with a
 * static TopologyRegistry::Add; the boundary looks names up here once.
 */
class TopologyRegistry
{
public:
    /// Register a kind (throws std::logic_error for a name taken twice); returns true.
    static bool Add(TopologyKind kind);
    /// \return the kind, or throw std::invalid_argument naming `field` and the kinds
    static const TopologyKind& Get(const std::string& name, const std::string& field = "topology");
    /// \return the registered names, by order
    static std::vector<std::string> Names();
};

/**
 * \param kind a registered kind \param option an option name
 * \return false when the option shapes other topology kinds and not this
 *         one, or is a fabric option the kind refuses (a config lists only the
 *         options that apply to its kind)
 */
bool TopologyOptionApplies(const std::string& kind, const std::string& option);

/**
 * One config per kind from a config given for several (a comparison of topologies): each
 * keeps the given options that apply to its kind; load-balancing and ecmp-seed stay with
 * the kinds that have equal-cost paths, the others run at their defaults (one route per
 * pair: nothing to balance), unless no kind has such paths (then MakeTopology refuses them).
 * \param config the options as given (its kind is ignored)
 * \param kinds the kinds compared
 * \return a config per kind, in order
 * \throw std::invalid_argument naming a given option that applies to none of the kinds
 */
std::vector<TopologyConfig> SplitTopologyList(const TopologyConfig& config,
                                              const std::vector<std::string>& kinds);

/**
 * \param config a topology config \param option an option name
 * \return TopologyOptionApplies of its kind, and false for an option the kind takes only
 *         when given (TopologyKind::givenOnlyOptions) that the config does not give
 */
bool TopologyOptionApplies(const TopologyConfig& config, const std::string& option);

/**
 * The boundary: parse the config's kind once and make the topology
 * (parameters validated, std::invalid_argument naming the field).
 */
Ptr<const Topology> MakeTopology(const TopologyConfig& config);

/**
 * Fixed cost of one message between two ranks on an idle fabric:
 * propagation, switching, and the store-and-forward of one packet of
 * `packetBits` on every link but the one the bandwidth term counts (a link
 * at `rankRate`, or the slowest link of a path that has none).
 * \param path the path \param switchLatency s per switch
 * \param packetBits bits of a full packet \param rankRate bit/s of the bandwidth term
 * \return seconds
 */
double PathLatency(const TopologyPath& path,
                   double switchLatency,
                   double packetBits,
                   double rankRate);

/// The most ranks a topology may have (CheckRankCount).
constexpr uint64_t MAX_RANKS = 1 << 16;

/**
 * Throw std::invalid_argument unless a topology of `ranks` ranks is one
 * dlnet can simulate: 2 to MAX_RANKS (65536) ranks.
 * \param kind the topology, for the message \param ranks its rank count
 */
void CheckRankCount(const std::string& kind, uint64_t ranks);

/// The most switch-to-switch links a topology may have (CheckFabricLinkCount): at packet level
/// 262144 of them (131072 spines of a 2-leaf leaf-spine) took 1.1 GB; ranks are bounded apart.
constexpr uint64_t MAX_FABRIC_LINKS = 1 << 19;

/**
 * Throw std::invalid_argument naming field when a topology would have more than
 * MAX_FABRIC_LINKS switch-to-switch links (spines are not ranks: CheckRankCount does not
 * bound them).
 * \param field the option that makes them many \param what how they come about, e.g.
 * "2 leaves x 10000000 spines" \param links their count
 */
void CheckFabricLinkCount(const std::string& field, const std::string& what, uint64_t links);

/**
 * \param field the option \param text its value, empty for the default
 * \param otherwise the default \return the rate (std::invalid_argument naming field)
 */
DataRate ParseRateOr(const std::string& field, const std::string& text, DataRate otherwise);

/**
 * \param field the option \param text its value, empty for the default
 * \param otherwise the default \return the time (std::invalid_argument naming field)
 */
Time ParseTimeOr(const std::string& field, const std::string& text, Time otherwise);

/**
 * Throw std::invalid_argument naming `field` when value is 0.
 * \param field the option \param value its value
 */
void CheckPositive(const std::string& field, uint64_t value);

} // namespace ns3

#endif /* DLNET_TOPOLOGY_H */
