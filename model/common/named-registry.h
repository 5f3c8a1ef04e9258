/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_NAMED_REGISTRY_H
#define DLNET_NAMED_REGISTRY_H

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace dlnet
{

/**
 * Kinds of a thing by name (topologies, collective backends): each file
 * registers its kind with a static Add; the boundary looks names up once.
 * Kind has `name` and `order` (position in listings).
 */
template <typename Kind>
class NamedRegistry
{
public:
    /// Register; std::logic_error for an empty name or one taken twice. \return true
    static bool Add(Kind kind)
    {
        if (kind.name.empty() || Kinds().count(kind.name))
        {
            throw std::logic_error("registry: '" + kind.name
                                   + "' is registered twice or has no name");
        }
        std::string name = kind.name;
        Kinds().emplace(name, std::move(kind));
        return true;
    }

    /// \return the kind of that name, or nullptr
    static const Kind* Find(const std::string& name)
    {
        auto it = Kinds().find(name);
        return it == Kinds().end() ? nullptr : &it->second;
    }

    /// \return the names, by order then name
    static std::vector<std::string> Names()
    {
        std::vector<const Kind*> kinds;
        for (const auto& entry : Kinds())
        {
            kinds.push_back(&entry.second);
        }
        std::stable_sort(kinds.begin(),
                         kinds.end(),
                         [](const Kind* a, const Kind* b)
                         {
                             return a->order < b->order;
                         });
        std::vector<std::string> names;
        for (const auto* k : kinds)
        {
            names.push_back(k->name);
        }
        return names;
    }

private:
    /// A function-local static: registrations from other files' static
    /// initialisers find it built.
    static std::map<std::string, Kind>& Kinds()
    {
        static std::map<std::string, Kind> kinds;
        return kinds;
    }
};

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_NAMED_REGISTRY_H */
