/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cluster.h"

#include <stdexcept>

namespace ns3
{

Ptr<FabricEndpoint>
Cluster::GetEndpoint(uint32_t rank, const std::string& field) const
{
    if (rank >= endpoints.size())
    {
        throw std::invalid_argument(field + ": rank " + std::to_string(rank)
                                    + " is out of range; the " + kind + " has ranks 0 to "
                                    + std::to_string(endpoints.size() - 1));
    }
    return endpoints[rank];
}

} // namespace ns3
