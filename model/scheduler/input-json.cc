/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-json.h"

#include "ns3/config-parse.h"
#include "ns3/json-document.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InputJson");

namespace dlnet
{

void
InputFail(const std::string& source, const std::string& path, const std::string& what)
{
    throw std::invalid_argument(PrintablePath(source) + ": " + (path.empty() ? "" : path + ": ")
                                + what);
}

void
CheckJsonKeys(const nlohmann::json& value,
              const std::string& source,
              const std::string& path,
              const std::vector<std::string>& allowed)
{
    if (!value.is_object())
    {
        InputFail(source, path, "is not an object (keys: " + JoinChoices(allowed) + ")");
    }
    for (auto it = value.begin(); it != value.end(); ++it)
    {
        if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
        {
            InputFail(source,
                      path,
                      "unknown key '" + PrintableText(it.key())
                          + "' (allowed: " + JoinChoices(allowed) + ")");
        }
    }
}

const nlohmann::json&
JsonRequire(const nlohmann::json& object,
            const std::string& source,
            const std::string& path,
            const std::string& key)
{
    auto it = object.find(key);
    if (it == object.end())
    {
        InputFail(source, (path.empty() ? "" : path + ".") + key, "missing (required)");
    }
    return *it;
}

namespace
{

/// \return the value as text for an error message
std::string
Shown(const nlohmann::json& value)
{
    return PrintableText(JsonText(value));
}

} // namespace

double
JsonReal(const nlohmann::json& value,
         const std::string& source,
         const std::string& path,
         double min,
         double max)
{
    double v = value.is_number() ? value.get<double>() : NAN;
    if (!std::isfinite(v) || v < min || v > max)
    {
        InputFail(source,
                  path,
                  Shown(value) + " must be a number from " + ShortestText(min) + " to "
                      + ShortestText(max));
    }
    return v;
}

double
JsonPositive(const nlohmann::json& value,
             const std::string& source,
             const std::string& path,
             double max)
{
    double v = value.is_number() ? value.get<double>() : NAN;
    if (!std::isfinite(v) || !(v > 0) || v > max)
    {
        InputFail(
            source, path, Shown(value) + " must be a number > 0 and at most " + ShortestText(max));
    }
    return v;
}

uint64_t
JsonUnsigned(const nlohmann::json& value,
             const std::string& source,
             const std::string& path,
             uint64_t min,
             uint64_t max)
{
    if (!value.is_number_unsigned() || value.get<uint64_t>() < min || value.get<uint64_t>() > max)
    {
        InputFail(source,
                  path,
                  Shown(value) + " must be a whole number from " + std::to_string(min) + " to "
                      + std::to_string(max));
    }
    return value.get<uint64_t>();
}

std::string
CheckInputName(const std::string& text)
{
    if (text.empty() || text.size() > MAX_INPUT_NAME)
    {
        return "must hold 1 to " + std::to_string(MAX_INPUT_NAME) + " characters";
    }
    for (char c : text)
    {
        // a quote, backquote or backslash in a plot's title would end its string or run a
        // command (gnuplot runs `...` inside double quotes)
        if (c < 0x20 || c > 0x7e || c == ',' || c == '"' || c == '`' || c == '\\')
        {
            return "must be printable ASCII without a comma, double quote, backquote or "
                   "backslash";
        }
    }
    if (text.front() == '#' || text.front() == ' ' || text.back() == ' ')
    {
        return "must not start with '#' nor start or end with a space";
    }
    return "";
}

std::string
JsonName(const nlohmann::json& value, const std::string& source, const std::string& path)
{
    if (!value.is_string())
    {
        InputFail(source, path, Shown(value) + " is not a string");
    }
    std::string text = value.get<std::string>();
    std::string wrong = CheckInputName(text);
    if (!wrong.empty())
    {
        InputFail(source, path, "'" + PrintableText(text) + "' " + wrong);
    }
    return text;
}

} // namespace dlnet
} // namespace ns3
