/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_EXPERIMENT_OPTIONS_H
#define DLNET_EXPERIMENT_OPTIONS_H

#include "ns3/config-parse.h"
#include "ns3/topology-helper.h"

#include <functional>
#include <string>
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
};

/// \return the options of a TopologyConfig
const std::vector<ExperimentOption<TopologyConfig>>& TopologyOptions();

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
                       }});
    }
    return out;
}

/**
 * \return the options every experiment has, on fields of the same names:
 * tc, functional, seed, run
 */
template <typename Config>
std::vector<ExperimentOption<Config>>
CommonOptions()
{
    auto u32 = [](const std::string& f, const std::string& v)
    {
        return static_cast<uint32_t>(dlnet::ParseUnsigned(f, v, 0, UINT32_MAX));
    };
    return {
        {"tc",
         "traffic class of the experiment's messages (0 has the highest priority)",
         [u32](Config& c, const std::string& v)
         {
             c.tc = u32("tc", v);
         },
         [](const Config& c)
         {
             return std::to_string(c.tc);
         }},
        {"functional",
         "carry real bytes and check them at the destination",
         [](Config& c, const std::string& v)
         {
             c.functional = dlnet::ParseBool("functional", v);
         },
         [](const Config& c)
         {
             return std::string(c.functional ? "true" : "false");
         }},
        {"seed",
         "random seed (at least 1)",
         [u32](Config& c, const std::string& v)
         {
             c.seed = u32("seed", v);
         },
         [](const Config& c)
         {
             return std::to_string(c.seed);
         }},
        {"run",
         "random run number",
         [](Config& c, const std::string& v)
         {
             c.run = dlnet::ParseUnsigned("run", v);
         },
         [](const Config& c)
         {
             return std::to_string(c.run);
         }},
    };
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
