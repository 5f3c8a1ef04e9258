/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_BACKEND_H
#define DLNET_COLLECTIVE_BACKEND_H

#include "alpha-beta-model.h"
#include "collective-request.h"
#include "communicator.h"
#include "link-load-estimate.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/topology-helper.h"
#include "ns3/topology.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief The algorithm does not apply: it does not implement the operation or
 * cannot run on the topology or group (hierarchical on a star, switchml on a
 * mesh). A std::invalid_argument like any bad input (Python: ValueError); a
 * program that sweeps algorithms over cases catches this type alone to mark
 * such a case "n/a", while a bad value of the user's own options (sizes,
 * link settings, buffers) stays an error.
 */
class NotApplicable : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/**
 * \ingroup dlnet
 * \brief One way to run collectives: the one interface through which every
 * layer above starts any collective.
 *
 * A backend says which operations it implements on which topologies,
 * validates a request (std::invalid_argument naming the field), gives its
 * contention-free alpha-beta bound (not a lower bound everywhere: doc/dlnet.rst),
 * and starts a request on a built cluster with
 * a completion callback that receives one CollectiveRecord. Its settings
 * are ns-3 Attributes; the options of the experiments map onto them by
 * name (CollectiveKind::options). A backend runs one collective at a time
 * unless it says otherwise; create one per concurrent job.
 */
class CollectiveBackend : public Object
{
public:
    /// Called once the collective has finished on every rank.
    typedef Callback<void, const CollectiveRecord&> DoneCallback;

    static TypeId GetTypeId();

    /// \return the registered name (ring, halving-doubling, ...)
    virtual std::string GetName() const = 0;

    /// \return true when the backend implements the operation at all
    virtual bool Implements(CollectiveOp op) const = 0;

    /**
     * \param topology where it would run \param comm the group
     * \return "" when the backend can run on this topology and group, else
     *         the reason, as an error message's tail ("needs ...")
     */
    virtual std::string CheckTopology(const Topology& topology, const Communicator& comm) const;

    /**
     * Throw std::invalid_argument naming the first bad field of the request
     * for this backend on this topology; NotApplicable when the backend does
     * not implement the operation or CheckTopology gives a reason.
     */
    virtual void Validate(const CollectiveRequest& request,
                          const Topology& topology,
                          const Communicator& comm) const;

    /**
     * \return seconds: the contention-free alpha-beta bound of the request on the
     *         network the model describes
     */
    virtual double Bound(const CollectiveRequest& request,
                         const Communicator& comm,
                         const NetworkModel& model) const = 0;

    /**
     * The messages the backend sends, as phases, for the shared-link
     * estimate (LinkLoadEstimate); empty when the backend's traffic is not
     * a fixed message pattern (in-network protocols).
     */
    virtual std::vector<LinkPhase> Phases(const CollectiveRequest& request,
                                          const Communicator& comm) const;

    /**
     * The communication library's share of the estimate: its latencies
     * (CollectiveEngine's attributes) over the phases, LibraryLatencyOfPhases
     * with the request as the backend runs it; 0 for a backend that does not
     * run on the collective engine (the default).
     * \param request the request \param phases its Phases
     * \param topology which ranks share a host \param library the latencies
     */
    virtual double LibraryLatency(const CollectiveRequest& request,
                                  const std::vector<LinkPhase>& phases,
                                  const Topology& topology,
                                  const LibraryLatencies& library) const;

    /**
     * Functional mode: fill request.inputs (one buffer per member) with the
     * values the backend's check expects. The default: CollectiveInputValue.
     * \param request the request (op, type, bytes set) \param n members \param seed the run's
     */
    virtual void MakeInputs(CollectiveRequest& request, uint32_t n, uint32_t seed) const;

    /**
     * Start the collective now.
     * \param cluster the built cluster \param topology its topology
     * \param comm the group and its traffic class
     * \param request what to run (validated first; inputs are moved from)
     * \param done called when every member has finished
     */
    virtual void Start(const Cluster& cluster,
                       const Topology& topology,
                       const Communicator& comm,
                       CollectiveRequest request,
                       DoneCallback done)
        = 0;
};

/**
 * \ingroup dlnet
 * \brief A registered backend: its name, what it is, which experiment
 * options apply to it (mapped onto its Attributes), and how to make one.
 */
struct CollectiveKind
{
    std::string name;  //!< as users write it (--algorithm=NAME)
    uint32_t order{0}; //!< position in listings
    std::string help;  //!< one line
    /// experiment option -> the backend's attribute it sets (options not
    /// listed here, nor common to every backend, are refused with this backend)
    std::vector<std::pair<std::string, std::string>> options;
    std::function<Ptr<CollectiveBackend>()> create; //!< a new backend with default attributes
    bool inNetwork{false}; //!< aggregates in switches or servers: `auto` never picks it
};

/**
 * \ingroup dlnet
 * \brief Collective backends by name: the one place that lists the
 * algorithms. A backend's file registers it with a static Add.
 */
class CollectiveRegistry
{
public:
    /// Register (std::logic_error for a name taken twice); \return true
    static bool Add(CollectiveKind kind);
    /// \return the kind, or throw std::invalid_argument naming `field` and the names
    static const CollectiveKind& Get(const std::string& name,
                                     const std::string& field = "algorithm");
    /// \return the registered names, by order
    static std::vector<std::string> Names();
    /// \return the registered names, by order, of the backends that implement op
    static std::vector<std::string> Implementing(CollectiveOp op);
    /// \return a new backend by name (std::invalid_argument naming `field` when unknown)
    static Ptr<CollectiveBackend> Create(const std::string& name,
                                         const std::string& field = "algorithm");

    /**
     * `auto`: among the registered backends that implement op and run on the
     * topology and group, the one whose Bound is smallest, leaving out those
     * that aggregate in the network or in the switches (their bound assumes
     * switch resources a user must ask for); ties go to the earlier name.
     * \return the chosen backend's name
     */
    static std::string ChooseAuto(const CollectiveRequest& request,
                                  const Topology& topology,
                                  const Communicator& comm,
                                  const NetworkModel& model);
};

} // namespace ns3

#endif /* DLNET_COLLECTIVE_BACKEND_H */
