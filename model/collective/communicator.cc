/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "communicator.h"

#include "ns3/log.h"

#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Communicator");

void
Communicator::Validate(uint32_t clusterRanks) const
{
    if (ranks.empty())
    {
        throw std::invalid_argument("ranks: communicator " + name
                                    + " is empty; expected at least 1 rank");
    }
    std::set<uint32_t> seen;
    for (uint32_t r : ranks)
    {
        if (r >= clusterRanks)
        {
            throw std::invalid_argument(
                "ranks: rank " + std::to_string(r) + " is out of range (communicator " + name
                + "); the cluster has ranks 0 to " + std::to_string(clusterRanks - 1));
        }
        if (!seen.insert(r).second)
        {
            throw std::invalid_argument("ranks: rank " + std::to_string(r)
                                        + " appears twice in communicator " + name
                                        + "; each rank may appear once");
        }
    }
}

std::vector<Communicator>
Communicator::Split(uint32_t size, bool strided) const
{
    uint32_t n = GetSize();
    if (size == 0 || n % size != 0)
    {
        throw std::invalid_argument("communicator " + name + ": split size " + std::to_string(size)
                                    + " does not divide its " + std::to_string(n) + " ranks");
    }
    uint32_t groups = n / size;
    std::vector<Communicator> out(groups);
    for (uint32_t g = 0; g < groups; ++g)
    {
        out[g].name = name + (strided ? "/col" : "/row") + std::to_string(g);
        out[g].tc = tc;
        for (uint32_t k = 0; k < size; ++k)
        {
            out[g].ranks.push_back(strided ? ranks[g + k * groups] : ranks[g * size + k]);
        }
    }
    return out;
}

Communicator
Communicator::World(uint32_t n)
{
    Communicator c;
    for (uint32_t r = 0; r < n; ++r)
    {
        c.ranks.push_back(r);
    }
    return c;
}

} // namespace ns3
