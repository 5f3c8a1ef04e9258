/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_SIMULATION_SCOPE_H
#define DLNET_SIMULATION_SCOPE_H

#include "ns3/interrupt.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief ns-3 attribute defaults of one run, in order: ("ns3::Type::Attribute", value text).
 */
typedef std::vector<std::pair<std::string, std::string>> Ns3Attributes;

/// Whether a config has an ns3Attributes member (an experiment that takes them).
template <typename Config, typename = void>
struct HasNs3Attributes : std::false_type
{
};

/// \copydoc HasNs3Attributes
template <typename Config>
struct HasNs3Attributes<Config, std::void_t<decltype(std::declval<Config&>().ns3Attributes)>>
    : std::true_type
{
};

/// Thrown out of Simulator::Run (and the long computations around it) when the interrupt hook
/// asked to stop.
using SimulationInterrupted = dlnet::Interrupted;

/**
 * \ingroup dlnet
 * \brief Thrown out of Simulator::Run, inside a SimulationScope, when the next
 * event is beyond dlnet::MAX_TIME_SECONDS (1 day) of simulated time: links of
 * a few bit/s would run for days (and past about 106 days ns-3's clock
 * overflows, giving negative times). A std::invalid_argument (exit 2,
 * Python ValueError) naming the rates; an experiment may catch it to say
 * which run it cut.
 */
class SimulatedTimeLimit : public std::invalid_argument
{
public:
    SimulatedTimeLimit();
};

/**
 * Name the options of the program in hand (its command line's), so that a refusal
 * of an attribute names the option only where the program has it. Unset (Python),
 * a run is taken to have its config's options.
 * \param names the options, without their "--"
 */
void SetProgramOptions(const std::vector<std::string>& names);

/// Forget SetProgramOptions's (the command line that set them is gone).
void ClearProgramOptions();

/**
 * Refuse the attributes that a run sets on every object from its options (a
 * default would be overwritten, silently), naming the option to use instead.
 * \param attributes the run's ns-3 attribute defaults
 * \param setByOptions ("ns3::Type::Attribute", option) pairs
 * \param withEnvironment check NS_ATTRIBUTE_DEFAULT's too
 * \throw std::invalid_argument "<attribute>: dlnet sets it ... use <option> instead", or,
 *        where the program in hand lacks the option (SetProgramOptions), that it sets it itself
 */
void RefuseSetByOptions(const Ns3Attributes& attributes,
                        const std::vector<std::pair<std::string, std::string>>& setByOptions,
                        bool withEnvironment = true);

/**
 * Check one ns-3 attribute default before a run sets it: the type exists,
 * has the attribute (as its own, as Config::SetDefault needs), and the value
 * reads as one, and no option of dlnet's sets it on every object. Throws
 * std::invalid_argument naming the attribute.
 * \param name "ns3::Type::Attribute"
 * \param value its text
 * \param programOptions the options of the program in hand, so that a refusal
 *        names one it has (or says it has none); nullptr: SetProgramOptions's, if
 *        any (none: NS_ATTRIBUTE_DEFAULT read before the command line)
 */
void CheckNs3Attribute(const std::string& name,
                       const std::string& value,
                       const std::vector<std::string>* programOptions = nullptr);

/**
 * The ns-3 attribute defaults of the environment variable NS_ATTRIBUTE_DEFAULT
 * (ns-3's "ns3::Type::Attribute=value;..."), each checked as CheckNs3Attribute
 * checks an option's. ns-3 itself aborts on a value it cannot read and skips
 * a name it does not know; so the variable is read once, here, and removed
 * from the environment, and SimulationScope sets these defaults before the
 * run's own. NS_GLOBAL_VALUE is refused: the global values it could set
 * (seed, run, scheduler) are set by every run from its options.
 * Throws std::invalid_argument naming the variable and the item.
 */
const Ns3Attributes& EnvironmentNs3Attributes();

/**
 * The defaults a run with these attributes sets, in order: the environment's
 * (EnvironmentNs3Attributes), then its own, which win.
 * \param attributes the run's own
 */
Ns3Attributes WithEnvironmentNs3Attributes(const Ns3Attributes& attributes);

/**
 * \ingroup dlnet
 * \brief Seeds ns-3 on entry and leaves it clean on exit, even on an exception.
 *
 * A run inside one ends with SimulatedTimeLimit rather than simulate beyond
 * dlnet::MAX_TIME_SECONDS (its scheduler checks each event's time: no event
 * is added, the events and results of a shorter run are the same).
 *
 * Every experiment runs inside one, so that runs can follow each other in
 * one process (Python) and give the same result for the same seed.
 */
class SimulationScope
{
public:
    /**
     * Clean, seed, then set the run's ns-3 attribute defaults (after the reset).
     * \param seed RngSeedManager seed (at least 1) \param run RngSeedManager run
     * \param attributes ns-3 attribute defaults (checked: std::invalid_argument)
     */
    SimulationScope(uint32_t seed, uint64_t run, const Ns3Attributes& attributes = {});
    ~SimulationScope();
    SimulationScope(const SimulationScope&) = delete;
    SimulationScope& operator=(const SimulationScope&) = delete;

    /// Simulator::Destroy, Names::Clear, Config::Reset.
    static void Clean();

    /**
     * The ns-3 time attributes a scope with these attributes (after the
     * environment's) sets above zero, each named once: a run can overrun
     * dlnet::MAX_TIME_SECONDS by its latencies as well as by its rates.
     * \param attributes the run's own (checked: std::invalid_argument)
     * \return "ns3::Type::Attribute" names
     */
    static std::vector<std::string> TimeAttributesOf(const Ns3Attributes& attributes);

    /**
     * The field a run that overran dlnet::MAX_TIME_SECONDS names: "rates",
     * after the time attributes, e.g. "ns3::FabricNetDevice::IngressLatency, rates".
     * \param timeAttributes TimeAttributesOf the run's attributes
     */
    static std::string ClockField(const std::vector<std::string>& timeAttributes);

    /**
     * What such a run's message advises: "raise the link rates (<rateOptions>),
     * lower <each time attribute>, lower the sizes", where the run drops packets
     * "lower the loss rate", then the caller's own, the last after "or".
     * \param timeAttributes TimeAttributesOf the run's attributes
     * \param rateOptions the options that set the rates, as text
     * \param lossy whether the run drops packets (retransmissions may be what takes so long)
     * \param more remedies of the caller's own, e.g. "lower aggregator-packet-time"
     */
    static std::string ClockAdvice(const std::vector<std::string>& timeAttributes,
                                   const std::string& rateOptions,
                                   bool lossy = LossyFabric(),
                                   const std::vector<std::string>& more = {});

    /// \return whether a fabric device of the simulation drops packets on purpose (a lossy
    /// run's error model); false once the simulation is destroyed
    static bool LossyFabric();

    /**
     * \return the options of the program in hand that set link rates ("link-rate,
     * nvlink-rate", then "; lower oversubscription" where it has that option), "none of
     * this program's options sets one", or without a program in hand (Python) the usual ones
     */
    static std::string RateOptions();

    /**
     * A check made about every 50 ms of wall time while Simulator::Run runs
     * inside a scope (from the simulator's thread, between events), and by the
     * long computations that call dlnet::PollInterrupt. When it returns true,
     * the run ends at once: SimulationInterrupted is thrown, and the scope
     * cleans up as usual. The simulated events and their results are the same
     * with and without a hook.
     * \param hook the check; empty: none (the default)
     */
    static void SetInterruptHook(std::function<bool()> hook);
};

} // namespace ns3

#endif /* DLNET_SIMULATION_SCOPE_H */
