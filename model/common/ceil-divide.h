/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_CEIL_DIVIDE_H
#define DLNET_CEIL_DIVIDE_H

#include <cstdint>

namespace ns3
{
namespace dlnet
{

/**
 * a / b rounded up, for every a (the usual (a + b - 1) / b wraps for a within b of 2^64:
 * sizes a user types can be that large).
 * \param a the dividend \param b the divisor, not 0
 * \return the smallest q with q b >= a
 */
constexpr uint64_t
CeilDivide(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

} // namespace dlnet
} // namespace ns3

#endif // DLNET_CEIL_DIVIDE_H
