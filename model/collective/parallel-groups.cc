/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "parallel-groups.h"

#include "ns3/log.h"

#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ParallelGroups");

uint32_t
ParallelGroups::RankOf(uint32_t m, uint32_t p, uint32_t d) const
{
    return npus.at(m + mp * (p + pp * d));
}

ParallelGroups
MakeParallelGroups(uint32_t mp, uint32_t dp, uint32_t pp, const std::vector<uint32_t>& npus)
{
    if (mp == 0 || dp == 0 || pp == 0)
    {
        throw std::invalid_argument("parallelism: MP, DP and PP must each be at least 1; got MP "
                                    + std::to_string(mp) + ", DP " + std::to_string(dp) + ", PP "
                                    + std::to_string(pp));
    }
    uint64_t product = uint64_t(mp) * dp * pp;
    if (product != npus.size())
    {
        throw std::invalid_argument("parallelism: MP x DP x PP = " + std::to_string(mp) + " x "
                                    + std::to_string(dp) + " x " + std::to_string(pp) + " = "
                                    + std::to_string(product) + " does not equal the "
                                    + std::to_string(npus.size()) + " NPUs");
    }
    if (std::set<uint32_t>(npus.begin(), npus.end()).size() != npus.size())
    {
        throw std::invalid_argument("parallelism: an NPU appears twice in the placement");
    }
    ParallelGroups g;
    g.mp = mp;
    g.dp = dp;
    g.pp = pp;
    g.npus = npus;
    // npus is ordered m + MP (p + PP d): MP groups are consecutive runs, DP
    // groups stride over MP x PP, PP groups stride over MP within a replica.
    auto split = [](const std::vector<uint32_t>& ranks,
                    const std::string& name,
                    uint8_t tc,
                    uint32_t size,
                    bool strided)
    {
        Communicator whole;
        whole.name = name;
        whole.tc = tc;
        whole.ranks = ranks;
        return whole.Split(size, strided);
    };
    g.mpGroups = split(npus, "mp", MP_CLASS, mp, false);
    g.dpGroups = split(npus, "dp", DP_CLASS, dp, true);
    for (const Communicator& replica : split(npus, "replica", PP_CLASS, mp * pp, false))
    {
        for (Communicator& c : split(replica.ranks, "pp", PP_CLASS, pp, true))
        {
            g.ppGroups.push_back(c);
        }
    }
    return g;
}

} // namespace ns3
