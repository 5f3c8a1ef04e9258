/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_TIME_RESOLUTION_H
#define DLNET_TIME_RESOLUTION_H

namespace ns3
{
namespace dlnet
{

/**
 * Switch ns-3 to picosecond time steps, once per process, before any Time
 * is kept (later calls do nothing). Every builder of a cluster calls it.
 */
void UsePicoseconds();

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_TIME_RESOLUTION_H */
