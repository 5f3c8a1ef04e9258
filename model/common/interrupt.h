/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_INTERRUPT_H
#define DLNET_INTERRUPT_H

#include <functional>
#include <stdexcept>

namespace ns3
{
namespace dlnet
{

/**
 * \ingroup dlnet
 * \brief Thrown by PollInterrupt when the interrupt check asked to stop
 * (Ctrl-C in Python): out of Simulator::Run between events, or out of a long
 * computation outside it (a scheduler's search, a large max-min solve, a
 * training graph's construction).
 */
class Interrupted : public std::runtime_error
{
public:
    Interrupted();
};

/**
 * Set the check PollInterrupt makes (Python's: has a signal handler raised?).
 * \param check true: stop; empty: no check (the default, and every program's)
 */
void SetInterruptCheck(std::function<bool()> check);

/**
 * Make the check if one is set and at least 50 ms of wall time passed since
 * the last one; throw Interrupted when it says stop. Long loops call it every
 * so often: without a check set it costs a test of one flag.
 */
void PollInterrupt();

} // namespace dlnet
} // namespace ns3

#endif /* DLNET_INTERRUPT_H */
