/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "simulation-scope.h"

#include "ns3/config.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/time-resolution.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SimulationScope");

SimulationScope::SimulationScope(uint32_t seed, uint64_t run)
{
    if (seed == 0)
    {
        throw std::invalid_argument("seed: got 0; expected a whole number of at least 1");
    }
    Clean();
    dlnet::UsePicoseconds();
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
}

SimulationScope::~SimulationScope()
{
    Clean();
}

void
SimulationScope::Clean()
{
    Simulator::Destroy();
    Names::Clear();
    Config::Reset();
}

} // namespace ns3
