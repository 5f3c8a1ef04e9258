/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_COMMAND_LINE_OPTIONS_H
#define DLNET_COMMAND_LINE_OPTIONS_H

#include "experiment-options.h"
#include "simulation-scope.h"

#include "ns3/command-line.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief An experiment's options on an ns-3 CommandLine, with dlnet's error
 * rules: an unknown flag or a bad value becomes std::invalid_argument (not
 * ns-3's usage-and-exit), so that programs exit with status 2.
 */
class ExperimentCommandLine
{
public:
    /// \param file pass __FILE__, as to CommandLine
    explicit ExperimentCommandLine(const std::string& file);

    /// Forgets the program's options Parse named (SetProgramOptions).
    ~ExperimentCommandLine();

    ExperimentCommandLine(const ExperimentCommandLine&) = delete;
    ExperimentCommandLine& operator=(const ExperimentCommandLine&) = delete;

    /**
     * Register every option of a table but those in except; values are
     * parsed into config when Parse runs. A config with an ns3Attributes
     * member also takes the --ns3::Type::Attribute=value flags there.
     */
    template <typename Config>
    void AddOptions(const std::vector<ExperimentOption<Config>>& options,
                    Config& config,
                    const std::vector<std::string>& except = {})
    {
        for (const auto& o : options)
        {
            if (std::find(except.begin(), except.end(), o.name) != except.end())
            {
                continue; // the program registers this flag itself
            }
            if (o.kind == "bool")
            {
                m_boolNames.push_back(o.name);
            }
            auto set = o.set;
            Config* target = &config;
            AddFlag(o.name,
                    o.help,
                    o.get(config),
                    [set, target](const std::string& v)
                    {
                        set(*target, v);
                    });
        }
        if constexpr (HasNs3Attributes<Config>::value)
        {
            AddNs3Attributes(config.ns3Attributes);
        }
    }

    /**
     * Take the --ns3::Type::Attribute=value flags into target, for a program that
     * builds its configs itself (and copies them into each config's ns3Attributes).
     * One target per command line: a second, other one is a std::logic_error.
     */
    void AddNs3Attributes(Ns3Attributes& target);

    /// Register a plain string flag of the program itself.
    void AddValue(const std::string& name, const std::string& help, std::string& value);

    /**
     * Parse argv; throws std::invalid_argument for an unknown flag or a bad
     * value (the first one met). --ns3::Type::Attribute=value flags are
     * checked (CheckNs3Attribute) and kept, in order, for the runs to set
     * after their reset; they need a target (a config with ns3Attributes given
     * to AddOptions, or AddNs3Attributes). Each is given once.
     */
    void Parse(int argc, char** argv);

    /// \return the --ns3::Type::Attribute=value flags Parse met
    const Ns3Attributes& GetNs3Attributes() const;

private:
    void AddFlag(const std::string& name,
                 const std::string& help,
                 const std::string& defaultValue,
                 std::function<void(const std::string&)> set);

    CommandLine m_cmd;
    std::vector<std::string> m_names;
    std::vector<std::string> m_boolNames; //!< options that a bare --name sets true
    std::shared_ptr<std::string> m_error;
    Ns3Attributes m_parsedAttributes;     //!< the --ns3:: flags met
    Ns3Attributes* m_attributes{nullptr}; //!< where the --ns3:: flags go
    bool m_parsed{false};                 //!< Parse named the program's options
};

/**
 * Run a program body; print an exception's message and return 2, so that
 * bad input never ends in an abort.
 * \param body the program
 * \return its status, or 2 after an invalid_argument, or 1 after any other error (out of
 *         memory said so in words)
 */
int GuardedMain(const std::function<int()>& body);

} // namespace ns3

#endif /* DLNET_COMMAND_LINE_OPTIONS_H */
