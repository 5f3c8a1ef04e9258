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
    auto group = [](const std::string& name, uint8_t tc)
    {
        Communicator c;
        c.name = name;
        c.tc = tc;
        return c;
    };
    for (uint32_t d = 0; d < dp; ++d)
    {
        for (uint32_t p = 0; p < pp; ++p)
        {
            Communicator c
                = group("mp(p" + std::to_string(p) + ",d" + std::to_string(d) + ")", MP_CLASS);
            for (uint32_t m = 0; m < mp; ++m)
            {
                c.ranks.push_back(g.RankOf(m, p, d));
            }
            g.mpGroups.push_back(c);
        }
    }
    for (uint32_t d = 0; d < dp; ++d)
    {
        for (uint32_t m = 0; m < mp; ++m)
        {
            Communicator c
                = group("pp(m" + std::to_string(m) + ",d" + std::to_string(d) + ")", PP_CLASS);
            for (uint32_t p = 0; p < pp; ++p)
            {
                c.ranks.push_back(g.RankOf(m, p, d));
            }
            g.ppGroups.push_back(c);
        }
    }
    for (uint32_t p = 0; p < pp; ++p)
    {
        for (uint32_t m = 0; m < mp; ++m)
        {
            Communicator c
                = group("dp(m" + std::to_string(m) + ",p" + std::to_string(p) + ")", DP_CLASS);
            for (uint32_t d = 0; d < dp; ++d)
            {
                c.ranks.push_back(g.RankOf(m, p, d));
            }
            g.dpGroups.push_back(c);
        }
    }
    return g;
}

} // namespace ns3
