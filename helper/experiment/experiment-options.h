/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_EXPERIMENT_OPTIONS_H
#define DLNET_EXPERIMENT_OPTIONS_H

#include "ns3/config-parse.h"
#include "ns3/topology-helper.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One user-settable option of an experiment. The same names serve the
 * examples' command line (--name=value) and the Python module's keys
 * (name with underscores).
 */
template <typename Config>
struct ExperimentOption
{
    std::string name;                                     //!< kebab-case
    std::string help;                                     //!< one line
    std::function<void(Config&, const std::string&)> set; //!< parse and store (throws)
    std::function<std::string(const Config&)> get;        //!< current value as text
    /// what the text of get is, for typed values (Python): "int", "float", "bool", "text"
    /// or "path" (a file: Python also takes bytes and os.PathLike)
    std::string kind{"text"};
};

/**
 * \return the options, each noting its name in the config's `given` when
 *         set (so that an option that does not apply can be refused)
 */
template <typename Config>
std::vector<ExperimentOption<Config>>
RecordGiven(std::vector<ExperimentOption<Config>> options)
{
    for (auto& o : options)
    {
        o.set = [set = o.set, name = o.name](Config& c, const std::string& v)
        {
            set(c, v);
            c.given.insert(name);
        };
    }
    return options;
}

/**
 * \return the option under a second name: set after the other name to another value, it
 *         throws (the later name would win, silently); set to the same value (a result's
 *         config repeats both) it is taken
 */
template <typename Config>
ExperimentOption<Config>
AliasOf(ExperimentOption<Config> option, const std::string& other)
{
    option.set = [set = option.set, get = option.get, name = option.name, other](
                     Config& c, const std::string& v)
    {
        const bool otherGiven = c.given.count(other) > 0;
        const std::string before = get(c);
        set(c, v);
        if (otherGiven && get(c) != before)
        {
            throw std::invalid_argument(name + ": got '" + dlnet::PrintableText(v)
                                        + "'; it is the setting " + other + " gave as '"
                                        + dlnet::PrintableText(before) + "'; give one of them");
        }
    };
    return option;
}

/// \return the options of a TopologyConfig
const std::vector<ExperimentOption<TopologyConfig>>& TopologyOptions();

/**
 * Refuse an option set where it does not apply (it would be taken and ignored).
 * Only a value other than its default is refused: a result's config repeats
 * every option at its default, and must still run again.
 * \param field the option
 * \param value its value here
 * \param fallback its default
 * \param applies whether it applies here
 * \param where where it applies, e.g. "to pattern incast only, and the pattern is
 *        permutation"
 * \throw std::invalid_argument "<field>: got <value>; it applies <where> (leave it at
 *        <fallback>)"
 */
void RefuseInapplicable(const std::string& field,
                        const std::string& value,
                        const std::string& fallback,
                        bool applies,
                        const std::string& where);

/**
 * RefuseInapplicable of a number or a flag: compared as numbers (-0 is 0), written as
 * the options write them (true/false, whole numbers, the shortest real).
 */
template <typename Number,
          typename Fallback,
          typename = std::enable_if_t<std::is_arithmetic_v<Number>>>
void
RefuseInapplicable(const std::string& field,
                   Number value,
                   Fallback fallback,
                   bool applies,
                   const std::string& where)
{
    const auto text = [](Number n) -> std::string
    {
        if constexpr (std::is_same_v<Number, bool>)
        {
            return n ? "true" : "false";
        }
        else if constexpr (std::is_floating_point_v<Number>)
        {
            return dlnet::ShortestText(n);
        }
        else
        {
            return std::to_string(n);
        }
    };
    const auto standard = static_cast<Number>(fallback);
    if (!applies && value != standard)
    {
        RefuseInapplicable(field, text(value), text(standard), false, where);
    }
}

/// An option that applies to one mode (a pattern, a scheduler) only.
struct ModeOption
{
    std::string field; //!< the option
    uint64_t value;    //!< its value here
    uint64_t fallback; //!< its default
    std::string mode;  //!< the mode it applies to
};

/**
 * RefuseInapplicable for each of a table of options of one mode each.
 * \param options the table
 * \param applies whether a mode is the one in hand
 * \param where where a mode's option applies (RefuseInapplicable's where)
 */
void RefuseInapplicable(const std::vector<ModeOption>& options,
                        const std::function<bool(const std::string& mode)>& applies,
                        const std::function<std::string(const std::string& mode)>& where);

/// The help of every experiment's network option (packet or flow).
extern const char* const NETWORK_OPTION_HELP;

/**
 * \return the topology options, applied to the `topology` member of Config
 */
template <typename Config>
std::vector<ExperimentOption<Config>>
LiftTopologyOptions()
{
    std::vector<ExperimentOption<Config>> out;
    for (const auto& o : TopologyOptions())
    {
        out.push_back({o.name,
                       o.help,
                       [set = o.set](Config& c, const std::string& v)
                       {
                           set(c.topology, v);
                       },
                       [get = o.get](const Config& c)
                       {
                           return get(c.topology);
                       },
                       o.kind});
    }
    return out;
}

/// An option stored as an unsigned integer member.
template <typename Config, typename T>
ExperimentOption<Config>
UnsignedOption(const std::string& name,
               const std::string& help,
               T Config::*member,
               uint64_t min = 0,
               uint64_t max = std::numeric_limits<T>::max())
{
    return {name,
            help,
            [name, member, min, max](Config& c, const std::string& v)
            {
                c.*member = static_cast<T>(dlnet::ParseUnsigned(name, v, min, max));
            },
            [member](const Config& c)
            {
                return std::to_string(c.*member);
            },
            "int"};
}

/// The random seed, 1 to dlnet::MAX_RNG_SEED (ns-3's generator aborts on a larger one).
template <typename Config, typename T>
ExperimentOption<Config>
SeedOption(T Config::*member)
{
    return UnsignedOption<Config>("seed",
                                  "random seed, 1 to " + std::to_string(dlnet::MAX_RNG_SEED)
                                      + " (ns-3's generator takes no more)",
                                  member,
                                  1,
                                  dlnet::MAX_RNG_SEED);
}

/// A byte count with an optional unit.
template <typename Config, typename T>
ExperimentOption<Config>
BytesOption(const std::string& name,
            const std::string& help,
            T Config::*member,
            uint64_t min,
            uint64_t max = std::numeric_limits<T>::max())
{
    return {name,
            help,
            [name, member, min, max](Config& c, const std::string& v)
            {
                c.*member = static_cast<T>(dlnet::ParseBytes(name, v, min, max));
            },
            [member](const Config& c)
            {
                return std::to_string(c.*member);
            },
            "int"};
}

/// A real number in [min, max].
template <typename Config>
ExperimentOption<Config>
RealOption(const std::string& name,
           const std::string& help,
           double Config::*member,
           double min,
           double max,
           bool belowMax = false)
{
    return {name,
            help,
            [name, member, min, max, belowMax](Config& c, const std::string& v)
            {
                c.*member = dlnet::ParseReal(name, v, min, max, belowMax);
            },
            [member](const Config& c)
            {
                return dlnet::ShortestText(c.*member);
            },
            "float"};
}

/// Text kept as given (a rate, a time, a path): the config's validation parses it.
template <typename Config>
ExperimentOption<Config>
TextOption(const std::string& name, const std::string& help, std::string Config::*member)
{
    return {name,
            help,
            [member](Config& c, const std::string& v)
            {
                c.*member = v;
            },
            [member](const Config& c)
            {
                return c.*member;
            }};
}

/// A file the run reads or writes (empty: none). Python takes it as str, bytes or os.PathLike,
/// through os.fsencode (a name that is not UTF-8 comes back from os.fsdecode and goes in again).
template <typename Config>
ExperimentOption<Config>
PathOption(const std::string& name, const std::string& help, std::string Config::*member)
{
    ExperimentOption<Config> o = TextOption<Config>(name, help, member);
    o.kind = "path";
    return o;
}

/**
 * Text checked when set (check throws std::invalid_argument) and kept as
 * given; optional: the empty text is taken too.
 */
template <typename Config>
ExperimentOption<Config>
CheckedTextOption(const std::string& name,
                  const std::string& help,
                  std::string Config::*member,
                  std::function<void(const std::string&)> check,
                  bool optional)
{
    return {name,
            help,
            [member, check, optional](Config& c, const std::string& v)
            {
                if (!(optional && v.empty()))
                {
                    check(v);
                }
                c.*member = v;
            },
            [member](const Config& c)
            {
                return c.*member;
            }};
}

/// A time with its unit, from minSeconds (0 unless said) to maxSeconds (dlnet::ParseTime).
template <typename Config>
ExperimentOption<Config>
TimeOption(const std::string& name,
           const std::string& help,
           std::string Config::*member,
           double maxSeconds,
           bool optional = false,
           double minSeconds = 0)
{
    return CheckedTextOption<Config>(
        name,
        help,
        member,
        [name, maxSeconds, minSeconds](const std::string& v)
        {
            dlnet::ParseTime(name, v, maxSeconds, minSeconds);
        },
        optional);
}

/// A data rate with its unit, minBps (1 bit/s unless said) to dlnet::MAX_RATE_BPS
/// (dlnet::ParseRate).
template <typename Config>
ExperimentOption<Config>
RateOption(const std::string& name,
           const std::string& help,
           std::string Config::*member,
           bool optional = false,
           uint64_t minBps = 1)
{
    return CheckedTextOption<Config>(
        name,
        help,
        member,
        [name, minBps](const std::string& v)
        {
            dlnet::ParseRate(name, v, minBps);
        },
        optional);
}

/// A comma-separated list (dlnet::ParseList), each item one of allowed().
template <typename Config>
ExperimentOption<Config>
ListOption(const std::string& name,
           const std::string& help,
           std::vector<std::string> Config::*member,
           const std::vector<std::string>& (*allowed)())
{
    return {name,
            help,
            [name, member, allowed](Config& c, const std::string& v)
            {
                c.*member = dlnet::ParseList(name, v, allowed());
            },
            [member](const Config& c)
            {
                return dlnet::JoinList(c.*member);
            }};
}

/// One of a list of names.
template <typename Config>
ExperimentOption<Config>
ChoiceOption(const std::string& name,
             const std::string& help,
             std::string Config::*member,
             const std::vector<std::string>& choices)
{
    return {name,
            help,
            [name, member, choices](Config& c, const std::string& v)
            {
                c.*member = dlnet::ParseChoice(name, v, choices);
            },
            [member](const Config& c)
            {
                return c.*member;
            }};
}

/// true or false.
template <typename Config>
ExperimentOption<Config>
BoolOption(const std::string& name, const std::string& help, bool Config::*member)
{
    return {name,
            help,
            [name, member](Config& c, const std::string& v)
            {
                // a bare --flag means true
                c.*member = v.empty() || dlnet::ParseBool(name, v);
            },
            [member](const Config& c)
            {
                return std::string(c.*member ? "true" : "false");
            },
            "bool"};
}

/**
 * \return the options every experiment has, on fields of the same names:
 * tc, functional, seed, run
 */
template <typename Config>
std::vector<ExperimentOption<Config>>
CommonOptions()
{
    return {
        UnsignedOption<Config>("tc",
                               "traffic class of the experiment's messages (0 has the highest "
                               "priority)",
                               &Config::tc),
        BoolOption<Config>("functional",
                           "carry real bytes and check them at the destination",
                           &Config::functional),
        SeedOption<Config>(&Config::seed),
        UnsignedOption<Config>("run", "random run number", &Config::run),
    };
}

/**
 * \return an experiment's own options followed by the common and the topology ones
 */
template <typename Config>
std::vector<ExperimentOption<Config>>
WithCommonAndTopologyOptions(std::vector<ExperimentOption<Config>> own)
{
    for (auto&& more : {CommonOptions<Config>(), LiftTopologyOptions<Config>()})
    {
        own.insert(own.end(), more.begin(), more.end());
    }
    return own;
}

/**
 * Set one option by name; throws std::invalid_argument for an unknown name
 * (listing the known ones) or a bad value.
 * \param options the option table
 * \param config the config
 * \param name the option (underscores are read as dashes)
 * \param value its text
 */
template <typename Config>
void
SetOption(const std::vector<ExperimentOption<Config>>& options,
          Config& config,
          std::string name,
          const std::string& value)
{
    for (auto& ch : name)
    {
        ch = (ch == '_') ? '-' : ch;
    }
    for (const auto& o : options)
    {
        if (o.name == name)
        {
            o.set(config, value);
            return;
        }
    }
    std::string known;
    for (const auto& o : options)
    {
        known += (known.empty() ? "" : ", ") + o.name;
    }
    throw std::invalid_argument("unknown option '" + name + "'; known options: " + known);
}

} // namespace ns3

#endif /* DLNET_EXPERIMENT_OPTIONS_H */
