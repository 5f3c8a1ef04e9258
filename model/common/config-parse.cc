/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "config-parse.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetConfigParse");

namespace dlnet
{

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& text, const std::string& allowed)
{
    throw std::invalid_argument(field + ": got '" + text + "'; expected " + allowed);
}

std::string
Trim(const std::string& s)
{
    auto b = s.find_first_not_of(" \t");
    auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

} // namespace

std::string
JoinChoices(const std::vector<std::string>& allowed)
{
    std::string out;
    for (std::size_t i = 0; i < allowed.size(); ++i)
    {
        if (i > 0)
        {
            out += (i + 1 == allowed.size()) ? " or " : ", ";
        }
        out += allowed[i];
    }
    return out;
}

uint64_t
ParseUnsigned(const std::string& field, const std::string& text, uint64_t min, uint64_t max)
{
    std::string allowed = "a whole number from " + std::to_string(min)
                          + (max == UINT64_MAX ? std::string(" up") : " to " + std::to_string(max));
    std::string t = Trim(text);
    if (t.empty()
        || !std::all_of(t.begin(),
                        t.end(),
                        [](char c)
                        {
                            return std::isdigit(c);
                        }))
    {
        Fail(field, text, allowed);
    }
    uint64_t value = 0;
    try
    {
        value = std::stoull(t);
    }
    catch (const std::exception&)
    {
        Fail(field, text, allowed);
    }
    if (value < min || value > max)
    {
        Fail(field, text, allowed);
    }
    return value;
}

double
ParseReal(const std::string& field, const std::string& text, double min, double max)
{
    std::ostringstream range;
    range << "a number from " << min << " to " << max;
    std::string allowed = range.str();
    std::string t = Trim(text);
    std::size_t used = 0;
    double value = 0;
    try
    {
        value = std::stod(t, &used);
    }
    catch (const std::exception&)
    {
        Fail(field, text, allowed);
    }
    if (used != t.size() || !std::isfinite(value) || value < min || value > max)
    {
        Fail(field, text, allowed);
    }
    return value;
}

uint64_t
ParseBytes(const std::string& field, const std::string& text, uint64_t min)
{
    static const std::vector<std::pair<std::string, uint64_t>> units = {
        {"GiB", 1ULL << 30},
        {"MiB", 1ULL << 20},
        {"KiB", 1ULL << 10},
        {"GB", 1000000000ULL},
        {"MB", 1000000ULL},
        {"KB", 1000ULL},
        {"B", 1ULL},
    };
    std::string allowed = "a byte count of at least " + std::to_string(min)
                          + ", optionally with a unit (B, KB, MB, GB, KiB, MiB, GiB)";
    std::string t = Trim(text);
    uint64_t scale = 1;
    for (const auto& [unit, factor] : units)
    {
        if (t.size() > unit.size() && t.compare(t.size() - unit.size(), unit.size(), unit) == 0)
        {
            t = Trim(t.substr(0, t.size() - unit.size()));
            scale = factor;
            break;
        }
    }
    uint64_t n = 0;
    try
    {
        n = ParseUnsigned(field, t);
    }
    catch (const std::invalid_argument&)
    {
        Fail(field, text, allowed);
    }
    if (n > UINT64_MAX / scale || n * scale < min)
    {
        Fail(field, text, allowed);
    }
    return n * scale;
}

DataRate
ParseRate(const std::string& field, const std::string& text)
{
    const std::string allowed = "a positive data rate such as 100Gbps, 25Gbps or 750GBps";
    std::string t = Trim(text);
    // ns-3's DataRateValue aborts on text left after the first word ("1 GBps").
    if (t.empty() || t[0] == '-' || t[0] == '+'
        || std::any_of(t.begin(),
                       t.end(),
                       [](unsigned char c)
                       {
                           return std::isspace(c);
                       }))
    {
        Fail(field, text, allowed);
    }
    DataRateValue value;
    if (!value.DeserializeFromString(t, MakeDataRateChecker()))
    {
        Fail(field, text, allowed);
    }
    if (value.Get().GetBitRate() == 0)
    {
        Fail(field, text, allowed);
    }
    return value.Get();
}

Time
ParseTime(const std::string& field, const std::string& text)
{
    const std::string allowed = "a non-negative time such as 0ns, 500ns, 1us or 2ms";
    std::string t = Trim(text);
    if (t.empty() || t[0] == '-' || t[0] == '+')
    {
        Fail(field, text, allowed);
    }
    // Time's own parser aborts on junk; check the shape first.
    std::size_t used = 0;
    double number = 0;
    try
    {
        number = std::stod(t, &used);
    }
    catch (const std::exception&)
    {
        Fail(field, text, allowed);
    }
    static const std::vector<std::string> units
        = {"s", "ms", "us", "ns", "ps", "fs", "min", "h", "d", ""};
    std::string unit = t.substr(used);
    if (!std::isfinite(number) || number < 0
        || std::find(units.begin(), units.end(), unit) == units.end())
    {
        Fail(field, text, allowed);
    }
    return Time(t);
}

bool
ParseBool(const std::string& field, const std::string& text)
{
    std::string t = Trim(text);
    std::transform(t.begin(),
                   t.end(),
                   t.begin(),
                   [](unsigned char c)
                   {
                       return std::tolower(c);
                   });
    if (t == "1" || t == "true" || t == "yes" || t == "on")
    {
        return true;
    }
    if (t == "0" || t == "false" || t == "no" || t == "off")
    {
        return false;
    }
    Fail(field, text, "true or false");
}

std::string
ParseChoice(const std::string& field,
            const std::string& text,
            const std::vector<std::string>& allowed)
{
    std::string t = Trim(text);
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end())
    {
        Fail(field, text, "one of " + JoinChoices(allowed));
    }
    return t;
}

} // namespace dlnet
} // namespace ns3
