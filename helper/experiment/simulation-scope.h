/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SIMULATION_SCOPE_H
#define DLNET_SIMULATION_SCOPE_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief Seeds ns-3 on entry and leaves it clean on exit, even on an exception.
 *
 * Every experiment runs inside one, so that runs can follow each other in
 * one process (Python) and give the same result for the same seed.
 */
class SimulationScope
{
public:
    /// \param seed RngSeedManager seed (at least 1) \param run RngSeedManager run
    SimulationScope(uint32_t seed, uint64_t run);
    ~SimulationScope();
    SimulationScope(const SimulationScope&) = delete;
    SimulationScope& operator=(const SimulationScope&) = delete;

    /// Simulator::Destroy, Names::Clear, Config::Reset.
    static void Clean();
};

} // namespace ns3

#endif /* DLNET_SIMULATION_SCOPE_H */
