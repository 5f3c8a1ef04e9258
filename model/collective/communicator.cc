/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "communicator.h"

#include <set>
#include <stdexcept>

namespace ns3
{

void
Communicator::Validate(uint32_t clusterRanks) const
{
    if (ranks.empty())
    {
        throw std::invalid_argument("communicator " + name
                                    + ": ranks: empty; expected at least 1 rank");
    }
    std::set<uint32_t> seen;
    for (uint32_t r : ranks)
    {
        if (r >= clusterRanks)
        {
            throw std::invalid_argument("communicator " + name + ": ranks: rank "
                                        + std::to_string(r)
                                        + " is out of range; the cluster has ranks 0 to "
                                        + std::to_string(clusterRanks - 1));
        }
        if (!seen.insert(r).second)
        {
            throw std::invalid_argument("communicator " + name + ": ranks: rank "
                                        + std::to_string(r)
                                        + " appears twice; each rank may appear once");
        }
    }
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
