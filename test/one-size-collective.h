/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_ONE_SIZE_COLLECTIVE_H
#define DLNET_ONE_SIZE_COLLECTIVE_H

#include "ns3/collective-experiment.h"

#include <string>

namespace ns3
{

/// \return a collective experiment of one buffer size on a topology (tests' shorthand)
inline CollectiveConfig
OneSizeCollective(const TopologyConfig& t,
                  const std::string& op,
                  const std::string& alg,
                  uint64_t bytes)
{
    CollectiveConfig c;
    c.topology = t;
    c.op = op;
    c.algorithm = alg;
    c.minBytes = c.maxBytes = bytes;
    return c;
}

} // namespace ns3

#endif /* DLNET_ONE_SIZE_COLLECTIVE_H */
