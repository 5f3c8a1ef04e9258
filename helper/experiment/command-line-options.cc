/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "command-line-options.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <iostream>
#include <new>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetCommandLine");

namespace
{

/// \return whether some registered type is in group
bool
IsTypeGroup(const std::string& group)
{
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        if (TypeId::GetRegistered(i).GetGroupName() == group)
        {
            return true;
        }
    }
    return false;
}

} // namespace

ExperimentCommandLine::ExperimentCommandLine(const std::string& file)
    : m_cmd(file)
    , m_error(std::make_shared<std::string>())
{
}

void
ExperimentCommandLine::AddFlag(const std::string& name,
                               const std::string& help,
                               const std::string& defaultValue,
                               std::function<void(const std::string&)> set)
{
    m_names.push_back(name);
    auto error = m_error;
    m_cmd.AddValue(name,
                   help,
                   Callback<bool, std::string>(
                       [set, error](std::string value)
                       {
                           try
                           {
                               set(value);
                           }
                           catch (const std::invalid_argument& e)
                           {
                               if (error->empty())
                               {
                                   *error = e.what();
                               }
                           }
                           return true;
                       }),
                   defaultValue);
}

void
ExperimentCommandLine::AddValue(const std::string& name,
                                const std::string& help,
                                std::string& value)
{
    std::string* target = &value;
    AddFlag(name,
            help,
            value,
            [target](const std::string& v)
            {
                *target = v;
            });
}

void
ExperimentCommandLine::Parse(int argc, char** argv)
{
    // ns-3's own help flags (--PrintHelp, --PrintAttributes=...) pass through.
    static const std::vector<std::string> ns3Flags = {"help",
                                                      "PrintHelp",
                                                      "PrintGlobals",
                                                      "PrintGroups",
                                                      "PrintGroup",
                                                      "PrintTypeIds",
                                                      "PrintAttributes",
                                                      "version",
                                                      "PrintVersion"};
    std::vector<std::string> seen;
    // ns-3 attributes are set by each run after its Config::Reset, not here:
    // they stay out of the CommandLine (which would set them now).
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0)
        {
            arg = "-" + arg;
        }
        if (arg.rfind("--", 0) != 0)
        {
            throw std::invalid_argument("command line: unexpected argument '" + arg
                                        + "'; options are written --name=value");
        }
        std::string name = arg.substr(2, arg.find('=') - 2);
        bool known = std::find(m_names.begin(), m_names.end(), name) != m_names.end()
                     || std::find(ns3Flags.begin(), ns3Flags.end(), name) != ns3Flags.end();
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
        {
            // ns-3 would keep the last one silently
            throw std::invalid_argument(name + ": --" + name
                                        + " is given more than once; give each option once");
        }
        seen.push_back(name);
        if (arg.size() == name.size() + 3 && arg.back() == '='
            && std::find(m_boolNames.begin(), m_boolNames.end(), name) != m_boolNames.end())
        {
            // read as true before, as a bare --name is
            throw std::invalid_argument(name + ": got ''; expected true or false (or --" + name
                                        + " alone for true)");
        }
        if (name.find("::") != std::string::npos)
        {
            if (arg.find('=') == std::string::npos)
            {
                throw std::invalid_argument("command line: --" + name
                                            + ": expected --ns3::Type::Attribute=value");
            }
            std::string value = arg.substr(arg.find('=') + 1);
            CheckNs3Attribute(name, value, &m_names);
            if (!m_attributes)
            {
                throw std::invalid_argument("command line: --" + name
                                            + ": this program takes no ns-3 attributes");
            }
            m_parsedAttributes.emplace_back(name, value);
            continue;
        }
        if (name == "PrintAttributes" || name == "PrintGroup")
        {
            // ns-3 aborts on an unknown type or group name
            std::string value
                = arg.find('=') == std::string::npos ? "" : arg.substr(arg.find('=') + 1);
            TypeId tid;
            bool found = name == "PrintAttributes" ? TypeId::LookupByNameFailSafe(value, &tid)
                                                   : IsTypeGroup(value);
            if (!found)
            {
                throw std::invalid_argument(
                    name + ": got '" + dlnet::PrintableText(value) + "'; expected "
                    + (name == "PrintAttributes" ? "a type name such as ns3::FabricNetDevice "
                                                   "(--PrintTypeIds lists them)"
                                                 : "a group name (--PrintGroups lists them)"));
            }
        }
        if (!known)
        {
            std::string all;
            for (const auto& n : m_names)
            {
                all += (all.empty() ? "--" : ", --") + n;
            }
            throw std::invalid_argument("command line: unknown option --" + name
                                        + "; known options: " + all);
        }
        rest.push_back(argv[i]);
    }
    m_cmd.Parse(static_cast<int>(rest.size()), rest.data());
    SetProgramOptions(m_names); // the refusals of attributes name only these
    m_parsed = true;
    if (m_attributes)
    {
        m_attributes->insert(
            m_attributes->end(), m_parsedAttributes.begin(), m_parsedAttributes.end());
    }
    if (!m_error->empty())
    {
        throw std::invalid_argument(*m_error);
    }
}

ExperimentCommandLine::~ExperimentCommandLine()
{
    if (m_parsed)
    {
        ClearProgramOptions();
    }
}

void
ExperimentCommandLine::AddNs3Attributes(Ns3Attributes& target)
{
    if (m_attributes && m_attributes != &target)
    {
        throw std::logic_error("ExperimentCommandLine: the --ns3:: flags have a target already");
    }
    m_attributes = &target;
}

const Ns3Attributes&
ExperimentCommandLine::GetNs3Attributes() const
{
    return m_parsedAttributes;
}

int
GuardedMain(const std::function<int()>& body)
{
    try
    {
        EnvironmentNs3Attributes(); // refused before anything runs
        return body();
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    catch (const std::bad_alloc&)
    {
        // (it printed "error: std::bad_alloc": the run, not the input, outgrew the memory)
        std::cerr << "error: out of memory: the run needed more memory than this process may "
                     "take (see ulimit -v); run a smaller case or on a larger machine"
                  << std::endl;
        return 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
}

} // namespace ns3
