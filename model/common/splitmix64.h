/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SPLITMIX64_H
#define DLNET_SPLITMIX64_H

#include <cstdint>

namespace ns3
{
namespace dlnet
{

/// The golden-ratio increment of SplitMix64, also a good stride between streams.
constexpr uint64_t SPLITMIX64_GAMMA = 0x9e3779b97f4a7c15ULL;

/**
 * SplitMix64's finaliser over x + gamma: a bijective, well-mixed 64-bit hash.
 * The one deterministic mixer of dlnet: ECMP flow hashing, sparsity patterns
 * and message contents all derive from it, so the same seed gives the same
 * bytes on every platform.
 * \param x the input
 * \return the mixed value
 */
inline uint64_t
SplitMix64(uint64_t x)
{
    x += SPLITMIX64_GAMMA;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_SPLITMIX64_H */
