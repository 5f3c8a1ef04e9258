/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_EXPERIMENT_OPTIONS_H
#define DLNET_EXPERIMENT_OPTIONS_H

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
