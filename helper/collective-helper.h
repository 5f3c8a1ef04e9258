/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COLLECTIVE_HELPER_H
#define DLNET_COLLECTIVE_HELPER_H

#include "ns3/attribute.h"
#include "ns3/collective-backend.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Starts collectives on a built cluster, as ns-3's application
 * helpers install applications: the backend is chosen by its registered
 * name (SetBackend) and every backend it makes gets the attributes set with
 * SetBackendAttribute, the way an ObjectFactory applies its attributes.
 *
 * \code
 *   CollectiveHelper collectives("switchml");
 *   collectives.SetBackendAttribute("PoolSlots", UintegerValue(64));
 *   Ptr<CollectiveBackend> b = collectives.Start(cluster, *topology, world, request, done);
 *   Simulator::Run();
 * \endcode
 */
class CollectiveHelper
{
public:
    /// \param backend a registered backend (CollectiveRegistry::Names); ring by default
    explicit CollectiveHelper(const std::string& backend = "ring");

    /**
     * \param name a registered backend; std::invalid_argument naming "backend"
     *        and listing the names otherwise (auto is not a backend:
     *        CollectiveRegistry::ChooseAuto gives the name for a request)
     */
    void SetBackend(const std::string& name);
    /// \return the backend's registered name
    std::string GetBackend() const;

    /**
     * Attribute of every backend made from now on; std::invalid_argument
     * naming the attribute when the backend has no such attribute or does
     * not take the value.
     */
    void SetBackendAttribute(const std::string& name, const AttributeValue& value);

    /// \return a new backend with the attributes set
    Ptr<CollectiveBackend> Create() const;

    /**
     * Make a backend, validate the request for it (std::invalid_argument
     * naming the field) and start the request now.
     * \param cluster the built cluster \param topology its topology
     * \param comm the group \param request what to run \param done called
     *        when every member has finished
     * \return the backend running it: keep it until done is called
     */
    Ptr<CollectiveBackend> Start(const Cluster& cluster,
                                 const Topology& topology,
                                 const Communicator& comm,
                                 CollectiveRequest request,
                                 CollectiveBackend::DoneCallback done) const;

private:
    /// Set the attributes on a backend (std::invalid_argument naming a bad one).
    void Apply(Ptr<CollectiveBackend> backend) const;

    std::string m_backend;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_attributes;
};

} // namespace ns3

#endif /* DLNET_COLLECTIVE_HELPER_H */
