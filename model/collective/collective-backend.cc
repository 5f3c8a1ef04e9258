/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-backend.h"

#include "collective-check.h"
#include "reduction.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/named-registry.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveBackend");

NS_OBJECT_ENSURE_REGISTERED(CollectiveBackend);

TypeId
CollectiveBackend::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollectiveBackend").SetParent<Object>().SetGroupName("Dlnet");
    return tid;
}

std::string
CollectiveBackend::CheckTopology(const Topology& topology, const Communicator& comm) const
{
    return "";
}

void
CollectiveBackend::Validate(const CollectiveRequest& request,
                            const Topology& topology,
                            const Communicator& comm) const
{
    comm.Validate(topology.GetNRanks());
    if (!Implements(request.op))
    {
        throw NotApplicable(
            "algorithm: " + GetName() + " does not implement " + ToString(request.op)
            + "; algorithms for " + ToString(request.op) + ": "
            + dlnet::JoinChoices(CollectiveRegistry::Implementing(request.op), ", ") + " or auto");
    }
    std::string why = CheckTopology(topology, comm);
    if (!why.empty())
    {
        throw NotApplicable("algorithm: " + GetName() + " " + why + "; the topology is a "
                            + topology.GetKind());
    }
}

std::vector<LinkPhase>
CollectiveBackend::Phases(const CollectiveRequest& request, const Communicator& comm) const
{
    return {};
}

double
CollectiveBackend::LibraryLatency(const CollectiveRequest& request,
                                  const std::vector<LinkPhase>& phases,
                                  const Topology& topology,
                                  const LibraryLatencies& library) const
{
    return 0;
}

void
CollectiveBackend::MakeInputs(CollectiveRequest& request, uint32_t n, uint32_t seed) const
{
    uint64_t elements = request.bytes / ElementSize(request.type);
    request.inputs.assign(n, std::vector<uint8_t>(request.bytes));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint64_t i = 0; i < elements; ++i)
        {
            SetElementValue(
                request.type, request.inputs[r].data(), i, CollectiveInputValue(r, i, seed, n));
        }
    }
}

namespace
{
using Kinds = dlnet::NamedRegistry<CollectiveKind>;
} // namespace

bool
CollectiveRegistry::Add(CollectiveKind kind)
{
    if (kind.name == "auto" || !kind.create)
    {
        throw std::logic_error("CollectiveRegistry: backend '" + kind.name
                               + "' is named auto or has no maker");
    }
    return Kinds::Add(std::move(kind));
}

std::vector<std::string>
CollectiveRegistry::Names()
{
    return Kinds::Names();
}

std::vector<std::string>
CollectiveRegistry::Implementing(CollectiveOp op)
{
    std::vector<std::string> names;
    for (const auto& name : Names())
    {
        if (Create(name)->Implements(op))
        {
            names.push_back(name);
        }
    }
    return names;
}

const CollectiveKind&
CollectiveRegistry::Get(const std::string& name, const std::string& field)
{
    const CollectiveKind* kind = Kinds::Find(name);
    if (!kind)
    {
        std::vector<std::string> names = Names();
        names.push_back("auto");
        dlnet::ParseChoice(field, name, names); // throws, listing them
        throw std::invalid_argument(field + ": auto is not a backend; resolve it with ChooseAuto");
    }
    return *kind;
}

Ptr<CollectiveBackend>
CollectiveRegistry::Create(const std::string& name, const std::string& field)
{
    return Get(name, field).create();
}

std::string
CollectiveRegistry::ChooseAuto(const CollectiveRequest& request,
                               const Topology& topology,
                               const Communicator& comm,
                               const NetworkModel& model)
{
    std::string best;
    double bestTime = std::numeric_limits<double>::infinity();
    // (reason, the backends that gave it), in the order first given: said when none runs it
    std::vector<std::pair<std::string, std::string>> refusals;
    for (const auto& name : Names())
    {
        const CollectiveKind& kind = Get(name);
        if (kind.inNetwork)
        {
            continue; // switch or server resources a user asks for by name
        }
        Ptr<CollectiveBackend> b = kind.create();
        try
        {
            b->Validate(request, topology, comm);
        }
        catch (const std::invalid_argument& e)
        {
            // does not run this request here (said without its "algorithm: <name> ")
            std::string reason = e.what();
            const std::string own = "algorithm: " + name + " ";
            if (reason.compare(0, own.size(), own) == 0)
            {
                reason = reason.substr(own.size());
            }
            auto same = std::find_if(refusals.begin(),
                                     refusals.end(),
                                     [&reason](const auto& r)
                                     {
                                         return r.first == reason;
                                     });
            if (same == refusals.end())
            {
                refusals.emplace_back(reason, name);
            }
            else
            {
                same->second += ", " + name;
            }
            b->Dispose();
            continue;
        }
        double t = b->Bound(request, comm, model);
        if (t < bestTime)
        {
            best = name;
            bestTime = t;
        }
        b->Dispose();
    }
    if (best.empty())
    {
        std::string why;
        for (const auto& [reason, names] : refusals)
        {
            why += (why.empty() ? " (" : " | ") + names + ": " + reason; // (reasons hold ';')
        }
        throw std::invalid_argument("algorithm: auto found no backend that runs "
                                    + ToString(request.op) + " of " + std::to_string(request.bytes)
                                    + " bytes on this " + topology.GetKind()
                                    + (why.empty() ? "" : why + ")"));
    }
    return best;
}

} // namespace ns3
