/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_FRED_ROUTING_H
#define DLNET_FRED_ROUTING_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One collective's traffic through a FRED switch: the data of its
 * input ports are reduced together and the result goes to every output port
 * (AllReduce: inputs = outputs; broadcast: one input; unicast: one of each).
 */
struct FredFlow
{
    std::string name;              //!< for errors and printing
    std::vector<uint32_t> inputs;  //!< input ports, reduced together
    std::vector<uint32_t> outputs; //!< output ports, each receives the result
};

/**
 * \ingroup dlnet
 * \brief Where the flows go inside a FRED switch: the middle subnetwork each
 * flow takes at every level of the recursion.
 *
 * Level 0 is the whole Fred_m(P); a flow's middle subnetwork at level k is
 * the one it takes inside the subnetwork its levels 0..k-1 led it into, so
 * two flows meet at level k only if their routes agree above k.
 */
struct FredRouting
{
    uint32_t ports{0};                  //!< P of the whole switch
    uint32_t middleStages{0};           //!< m
    std::vector<std::string> flowNames; //!< by flow index, as given
    /// P of the subnetworks at each level that has middle subnetworks
    /// (ports, ceil(ports/2), ... while above 2); empty for P <= 2
    std::vector<uint32_t> levelPorts;
    /// [level][flow]: the middle subnetwork, 0 .. m-1, the flow takes
    std::vector<std::vector<uint32_t>> middle;

    /// \return the flow's middle subnetworks, level 0 first
    std::vector<uint32_t> RouteOf(uint32_t flow) const;
};

/**
 * \brief Route concurrent flows through a FRED switch without conflicts.
 *
 * Our model of the paper's mechanism (Rashidi et al., FRED, ISCA 2025): a
 * switch with P ports holds Fred_m(P), a three-stage Clos-like network
 * (m, n = 2, r = ceil(P/2)) of 2-port micro-switches that can reduce two
 * inputs, distribute one to two outputs, or both. Ports 2i and 2i+1 share
 * input micro-switch i and output micro-switch i. Every input micro-switch
 * has one link to each of the m middle subnetworks, each a Fred_m(ceil(P/2))
 * whose ports are the micro-switch indices; at P <= 2 the network is one
 * micro-switch.
 *
 * A flow takes one middle subnetwork per level. Since a micro-switch has one
 * link per middle subnetwork, flows that share an input micro-switch or an
 * output micro-switch must take different ones: the choice is a colouring of
 * that conflict graph with m colours, done at compile time as in the paper.
 * Inside middle subnetwork c the flows coloured c continue with their ports
 * replaced by their micro-switch indices; they share no micro-switch, so they
 * are port-disjoint there, and at P <= 2 port-disjoint flows always fit.
 *
 * A colouring that works at one level can fail below it, so the search
 * backtracks over whole recursions: flows most-constrained first, colours
 * 0 .. m-1, colourings that merely rename the identical middle subnetworks
 * tried once. The result is deterministic.
 *
 * Throws std::invalid_argument naming the field when ports or middleStages
 * is 0, a flow has no input or no output, a port is out of range or appears
 * twice in a flow's inputs or outputs, or two flows share an input port or an
 * output port; when no routing exists (naming a set of flows that cannot
 * share the switch and that routes once any one of them is dropped, and the
 * level where they collide); and when the search gives up after
 * maxSearchSteps colour trials.
 *
 * \param ports P, the switch's ports
 * \param middleStages m, the middle subnetworks of every level
 * \param flows the flows to route at once
 * \param maxSearchSteps the colour trials after which the search gives up
 * \return the routing
 */
FredRouting RouteFredFlows(uint32_t ports,
                           uint32_t middleStages,
                           const std::vector<FredFlow>& flows,
                           uint64_t maxSearchSteps = 1000000);

/// \return "Fred_m(P): name route, ..." with routes as dotted middle indices
std::string ToString(const FredRouting& routing);

} // namespace ns3

#endif /* DLNET_FRED_ROUTING_H */
