/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "interrupt.h"

#include <chrono>

namespace ns3
{
namespace dlnet
{

namespace
{
std::function<bool()> g_check;                //!< SetInterruptCheck
std::chrono::steady_clock::time_point g_last; //!< the last check
} // namespace

Interrupted::Interrupted()
    : std::runtime_error("the simulation was interrupted")
{
}

void
SetInterruptCheck(std::function<bool()> check)
{
    g_check = std::move(check);
}

void
PollInterrupt()
{
    if (!g_check)
    {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - g_last < std::chrono::milliseconds(50))
    {
        return;
    }
    const bool stop = g_check();
    g_last = std::chrono::steady_clock::now(); // (the check may wait for Python's lock)
    if (stop)
    {
        throw Interrupted();
    }
}

} // namespace dlnet
} // namespace ns3
