/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-helper.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveHelper");

CollectiveHelper::CollectiveHelper(const std::string& backend)
{
    SetBackend(backend);
}

void
CollectiveHelper::SetBackend(const std::string& name)
{
    CollectiveRegistry::Get(name, "backend"); // throws for an unknown name
    std::string previous = m_backend;
    m_backend = name;
    try
    {
        Create()->Dispose(); // the attributes set so far must fit the new backend too
    }
    catch (const std::invalid_argument&)
    {
        m_backend = previous;
        throw;
    }
}

std::string
CollectiveHelper::GetBackend() const
{
    return m_backend;
}

void
CollectiveHelper::SetBackendAttribute(const std::string& name, const AttributeValue& value)
{
    Ptr<CollectiveBackend> probe = CollectiveRegistry::Create(m_backend, "backend");
    if (!probe->SetAttributeFailSafe(name, value))
    {
        probe->Dispose();
        throw std::invalid_argument(name + ": not an attribute of " + m_backend + " ("
                                    + probe->GetInstanceTypeId().GetName()
                                    + "), or a value it does not take");
    }
    probe->Dispose();
    m_attributes.emplace_back(name, value.Copy());
}

void
CollectiveHelper::Apply(Ptr<CollectiveBackend> backend) const
{
    for (const auto& [name, value] : m_attributes)
    {
        if (!backend->SetAttributeFailSafe(name, *value))
        {
            std::string type = backend->GetInstanceTypeId().GetName();
            backend->Dispose();
            throw std::invalid_argument(name + ": not an attribute of " + m_backend + " (" + type
                                        + "), or a value it does not take");
        }
    }
}

Ptr<CollectiveBackend>
CollectiveHelper::Create() const
{
    Ptr<CollectiveBackend> backend = CollectiveRegistry::Create(m_backend, "backend");
    Apply(backend);
    return backend;
}

Ptr<CollectiveBackend>
CollectiveHelper::Start(const Cluster& cluster,
                        const Topology& topology,
                        const Communicator& comm,
                        CollectiveRequest request,
                        CollectiveBackend::DoneCallback done) const
{
    Ptr<CollectiveBackend> backend = Create();
    backend->Validate(request, topology, comm);
    NS_LOG_FUNCTION(this << m_backend << comm.name);
    backend->Start(cluster, topology, comm, std::move(request), done);
    return backend;
}

} // namespace ns3
