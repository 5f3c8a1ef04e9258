/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "config-parse.h"

#include "ns3/log.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetConfigParse");

namespace dlnet
{

namespace
{

/// Longest text a number option takes: a number beyond it is a typo or an
/// attack, and a bound keeps every parse linear and quick.
constexpr std::size_t MAX_NUMBER_TEXT = 64;

[[noreturn]] void
Fail(const std::string& field, const std::string& text, const std::string& allowed)
{
    throw std::invalid_argument(field + ": got '" + PrintableText(text) + "'; expected " + allowed);
}

std::string
Trim(const std::string& s)
{
    auto b = s.find_first_not_of(" \t");
    auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/**
 * Split "12.5e3unit" into a non-negative decimal number and its unit.
 * The number is digits with an optional fraction and exponent (no sign, no
 * hexadecimal, no inf or nan); the unit is the rest of the text.
 * \return false when the text does not start with such a number
 */
bool
SplitNumber(const std::string& t, double& number, std::string& unit)
{
    std::size_t i = 0;
    std::size_t digits = 0;
    auto isDigit = [&t](std::size_t k)
    {
        return k < t.size() && t[k] >= '0' && t[k] <= '9';
    };
    while (isDigit(i))
    {
        ++i;
        ++digits;
    }
    if (i < t.size() && t[i] == '.')
    {
        ++i;
        while (isDigit(i))
        {
            ++i;
            ++digits;
        }
    }
    if (digits == 0)
    {
        return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E'))
    {
        std::size_t k = i + 1;
        if (k < t.size() && (t[k] == '+' || t[k] == '-'))
        {
            ++k;
        }
        if (isDigit(k))
        {
            while (isDigit(k))
            {
                ++k;
            }
            i = k;
        }
    }
    std::istringstream in(t.substr(0, i));
    in.imbue(std::locale::classic());
    in >> number;
    if (in.fail() || !std::isfinite(number))
    {
        // 1e400: beyond a double, so beyond every range
        number = std::numeric_limits<double>::infinity();
    }
    unit = t.substr(i);
    return true;
}

using UnitTable = std::vector<std::pair<std::string, double>>;

/**
 * \return the number of "12.5unit" times its unit's factor; a bare number is
 * refused with "write a unit, e.g. 12.5<exampleUnit>", or 12.5 with the first unit of the
 * table that puts it from minValue to maxValue when exampleUnit does not (the example
 * must be one that is taken)
 */
double
ScaledNumber(const std::string& field,
             const std::string& text,
             const UnitTable& units,
             const std::string& exampleUnit,
             const std::string& allowed,
             double minValue,
             double maxValue)
{
    std::string t = Trim(text);
    double number = 0;
    std::string unit;
    if (t.size() > MAX_NUMBER_TEXT || !SplitNumber(t, number, unit))
    {
        Fail(field, text, allowed);
    }
    if (unit.empty() && number <= 0)
    {
        Fail(field, text, allowed); // (its unit would not make it a value: "e.g. 0Gbps")
    }
    if (unit.empty())
    {
        auto taken = [&](double factor)
        {
            return number * factor >= minValue && number * factor <= maxValue;
        };
        std::string example;
        for (const auto& [name, factor] : units)
        {
            if (name == exampleUnit ? taken(factor) : (example.empty() && taken(factor)))
            {
                example = name;
            }
        }
        if (example.empty())
        {
            Fail(field, text, allowed); // no unit makes it one that is taken
        }
        throw std::invalid_argument(field + ": got '" + t + "'; write a unit, e.g. " + t + example);
    }
    for (const auto& [name, factor] : units)
    {
        if (name == unit)
        {
            return number * factor;
        }
    }
    Fail(field, text, allowed);
}

} // namespace

namespace
{
std::string
Printable(const std::string& text, std::size_t keep)
{
    std::string out;
    for (std::size_t i = 0; i < text.size() && i < keep; ++i)
    {
        auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f)
        {
            out += static_cast<char>(c);
        }
        else
        {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xf];
        }
    }
    if (text.size() > keep)
    {
        out += "... (" + std::to_string(text.size()) + " characters)";
    }
    return out;
}
} // namespace

std::string
PrintableText(const std::string& text)
{
    return Printable(text, 80);
}

std::string
PrintablePath(const std::string& path)
{
    return Printable(path, 4096);
}

void
MakeParentFolders(const std::string& field, const std::string& path)
{
    std::filesystem::path file(path);
    if (!file.has_parent_path())
    {
        return;
    }
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
    {
        throw std::invalid_argument(field + ": cannot create the folder of " + PrintablePath(path)
                                    + ": " + ec.message());
    }
}

FolderCheck
CheckFolder(const std::string& folder)
{
    namespace fs = std::filesystem;
    const fs::path wanted = folder.empty() ? fs::path(".") : fs::path(folder);
    // the nearest folder that exists: the missing ones would be made inside it
    fs::path existing = wanted;
    std::error_code ec;
    FolderCheck check;
    while (!fs::exists(existing, ec))
    {
        if (ec)
        {
            // not "no such file" but a name too long, a loop of links, ...: the writer's
            // create_directories would fail the same way, after the run
            check.error = ec.value();
            return check;
        }
        if (!existing.has_parent_path() || existing.parent_path() == existing)
        {
            existing = "."; // a relative path's first folder is made in the working folder
            break;
        }
        existing = existing.parent_path();
    }
    check.exists = existing == wanted;
    if (!fs::is_directory(existing, ec))
    {
        check.error = check.exists ? EEXIST : ENOTDIR;
    }
    else if (access(existing.c_str(), W_OK | X_OK) != 0)
    {
        check.error = EACCES;
    }
    else
    {
        // access() answers yes for root in /proc and /sys, where nothing can be made: a
        // folder made and removed at once says whether the writer's will be
        std::string probe = (existing / ".dlnet-probe-XXXXXX").string();
        if (!mkdtemp(probe.data()))
        {
            check.error = errno;
        }
        else
        {
            rmdir(probe.c_str());
        }
    }
    return check;
}

void
CheckParentFolders(const std::string& field, const std::string& path)
{
    const std::filesystem::path file(path);
    const std::string folder = file.has_parent_path() ? file.parent_path().string() : ".";
    const FolderCheck check = CheckFolder(folder);
    if (check.error == 0)
    {
        return;
    }
    if (check.exists)
    {
        throw std::invalid_argument(field + ": got '" + PrintablePath(path)
                                    + "'; cannot write in its folder '" + PrintablePath(folder)
                                    + "'");
    }
    throw std::invalid_argument(field + ": cannot create the folder of " + PrintablePath(path)
                                + ": " + std::generic_category().message(check.error));
}

std::string
ShortestText(double value)
{
    std::ostringstream os;
    for (int digits = 6; digits <= 17; ++digits)
    {
        os.str("");
        os << std::setprecision(digits) << value;
        if (std::strtod(os.str().c_str(), nullptr) == value)
        {
            break;
        }
    }
    return os.str();
}

std::string
JoinChoices(const std::vector<std::string>& allowed, const std::string& last)
{
    std::string out;
    for (std::size_t i = 0; i < allowed.size(); ++i)
    {
        if (i > 0)
        {
            out += (i + 1 == allowed.size()) ? last : ", ";
        }
        out += allowed[i];
    }
    return out;
}

uint64_t
ParseUnsigned(const std::string& field, const std::string& text, uint64_t min, uint64_t max)
{
    // (the largest said in full: "from 0 up" let 2^64 seem to be taken)
    std::string allowed = "a whole number from " + std::to_string(min) + " to "
                          + std::to_string(max) + (max == UINT64_MAX ? " (2^64 - 1)" : "");
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
ParseReal(const std::string& field, const std::string& text, double min, double max, bool belowMax)
{
    std::ostringstream range;
    range << "a number from " << min << " to " << (belowMax ? "below " : "") << max;
    std::string allowed = range.str();
    std::string t = Trim(text);
    // decimal only: std::stod also reads hexadecimal ("0x10" is 16), which no option means
    if (t.find_first_not_of("0123456789+-.eE") != std::string::npos)
    {
        Fail(field, text, allowed);
    }
    // strtod, not std::stod: stod refuses a subnormal such as 4.9e-324 (ERANGE), a value in
    // range; an overflow comes back infinite and is refused below
    char* end = nullptr;
    errno = 0;
    const double value = t.empty() ? 0 : std::strtod(t.c_str(), &end);
    const bool underflow = errno == ERANGE && value == 0;
    const std::size_t used = t.empty() ? 0 : std::size_t(end - t.c_str());
    if (t.empty() || used != t.size() || !std::isfinite(value) || value < min || value > max
        || (belowMax && value == max))
    {
        Fail(field, text, allowed);
    }
    if (underflow && t.find_first_of("123456789") < t.find_first_of("eE"))
    {
        // (where 0 means off, a nonzero value read as 0 would switch a mode silently)
        Fail(field, text, allowed + ": 0 or at least 4.9e-324 (the smallest a double holds)");
    }
    return value == 0 ? 0.0 : value; // (-0 prints as -0)
}

uint64_t
ParseBytes(const std::string& field, const std::string& text, uint64_t min, uint64_t max)
{
    static const std::vector<std::pair<std::string, uint64_t>> units = {
        {"TiB", 1ULL << 40},
        {"GiB", 1ULL << 30},
        {"MiB", 1ULL << 20},
        {"KiB", 1ULL << 10},
        {"GB", 1000000000ULL},
        {"MB", 1000000ULL},
        {"KB", 1000ULL},
        {"B", 1ULL},
    };
    std::string allowed = (max == UINT64_MAX ? "a byte count of at least " + std::to_string(min)
                                             : "a byte count from " + std::to_string(min) + " to "
                                                   + std::to_string(max))
                          + ", optionally with a unit (B, KB, MB, GB, KiB, MiB, GiB, TiB)";
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
    if (n > UINT64_MAX / scale || n * scale < min || n * scale > max)
    {
        Fail(field, text, allowed);
    }
    return n * scale;
}

std::string
TimeText(double seconds)
{
    std::ostringstream os;
    if (seconds >= 86400 && std::fmod(seconds, 86400) == 0)
    {
        os << seconds / 86400 << "d";
        return os.str();
    }
    for (const auto& [factor, unit] :
         {std::pair<double, const char*>{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}})
    {
        if (seconds >= factor)
        {
            os << seconds / factor << unit;
            return os.str();
        }
    }
    os << (seconds == 0 ? 0 : seconds / 1e-12) << (seconds == 0 ? "s" : "ps");
    return os.str();
}

namespace
{
/// \return a whole number of bit/s as text in the largest unit that keeps it whole
std::string
RateText(uint64_t bps)
{
    for (const auto& [factor, unit] : {std::pair<uint64_t, const char*>{1000000000ULL, "Gbps"},
                                       {1000000ULL, "Mbps"},
                                       {1000ULL, "kbps"}})
    {
        if (bps >= factor && bps % factor == 0)
        {
            return std::to_string(bps / factor) + unit;
        }
    }
    return std::to_string(bps) + "bps";
}
} // namespace

DataRate
ParseRate(const std::string& field, const std::string& text)
{
    return ParseRate(field, text, 1, MAX_RATE_BPS);
}

DataRate
ParseRate(const std::string& field, const std::string& text, uint64_t minBps, uint64_t maxBps)
{
    // ns-3's units (those of DataRate's parser) and terabits (the range reaches
    // 40 Tbit/s); parsed here so that no text reaches ns-3's parser, which
    // aborts or wraps on some input.
    static const UnitTable units = {
        {"bps", 1},
        {"b/s", 1},
        {"Bps", 8},
        {"B/s", 8},
        {"kbps", 1e3},
        {"kb/s", 1e3},
        {"Kbps", 1e3},
        {"Kb/s", 1e3},
        {"kBps", 8e3},
        {"kB/s", 8e3},
        {"KBps", 8e3},
        {"KB/s", 8e3},
        {"Kib/s", 1024.0},
        {"KiB/s", 8192.0},
        {"Mbps", 1e6},
        {"Mb/s", 1e6},
        {"MBps", 8e6},
        {"MB/s", 8e6},
        {"Mib/s", 1048576.0},
        {"MiB/s", 8388608.0},
        {"Gbps", 1e9},
        {"Gb/s", 1e9},
        {"GBps", 8e9},
        {"GB/s", 8e9},
        {"Gib/s", 1073741824.0},
        {"GiB/s", 8589934592.0},
        {"Tbps", 1e12},
        {"Tb/s", 1e12},
        {"TBps", 8e12},
        {"TB/s", 8e12},
    };
    if (minBps < 1 || minBps > maxBps || maxBps > MAX_RATE_BPS)
    {
        throw std::logic_error(field + ": a rate's range must lie within 1bps to "
                               + RateText(MAX_RATE_BPS));
    }
    const std::string allowed = "a positive data rate from " + RateText(minBps) + " to "
                                + RateText(maxBps) + (maxBps == MAX_RATE_BPS ? " (40 Tbit/s)" : "")
                                + ", e.g. 100Gbps or 750GBps";
    double bits = ScaledNumber(field, text, units, "Gbps", allowed, double(minBps), double(maxBps));
    if (!(bits >= double(minBps)) || bits > double(maxBps))
    {
        Fail(field, text, allowed);
    }
    return DataRate(static_cast<uint64_t>(std::llround(bits)));
}

namespace
{
/// \return ParseTime's allowed range: "a time from 1ns to 10s, e.g. ..."
std::string
TimeRangeText(double minSeconds, double maxSeconds)
{
    return "a time from " + (minSeconds > 0 ? TimeText(minSeconds) : std::string("0ns")) + " to "
           + TimeText(maxSeconds) + ", e.g. 500ns, 1us or 2ms";
}

/// \return whether seconds lies below minSeconds by more than the rounding of a unit's scale
bool
BelowMinimum(double seconds, double minSeconds)
{
    return seconds < minSeconds * (1 - 1e-9);
}
} // namespace

void
CheckTime(const std::string& field, Time time, double minSeconds, double maxSeconds)
{
    double seconds = time.GetSeconds();
    if (seconds > maxSeconds || BelowMinimum(seconds, minSeconds))
    {
        throw std::invalid_argument(field + ": got " + TimeText(seconds) + "; expected "
                                    + TimeRangeText(minSeconds, maxSeconds));
    }
}

Time
ParseTime(const std::string& field, const std::string& text, double maxSeconds, double minSeconds)
{
    // Time's own units; Time's parser aborts on junk and on times beyond its
    // range, so the text is checked and bounded here first.
    static const UnitTable units = {
        {"s", 1},
        {"ms", 1e-3},
        {"us", 1e-6},
        {"ns", 1e-9},
        {"ps", 1e-12},
        {"fs", 1e-15},
        {"min", 60},
        {"h", 3600},
        {"d", 86400},
    };
    const std::string allowed = TimeRangeText(minSeconds, maxSeconds);
    // (the example's least is the clock's step: a bare 0.0000001 was told "0.0000001ns")
    double seconds
        = ScaledNumber(field, text, units, "ns", allowed, std::max(minSeconds, 1e-12), maxSeconds);
    if (!(seconds <= maxSeconds) || BelowMinimum(seconds, minSeconds))
    {
        Fail(field, text, allowed);
    }
    if (seconds > 0 && seconds < 1e-12)
    {
        // it would become 0 silently: the clock counts picoseconds
        Fail(field, text, "0 or at least 1ps, the simulator's step");
    }
    return Time(Trim(text));
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
    Fail(field, text, "true or false (or 1/0, yes/no, on/off)");
}

std::string
ParseChoice(const std::string& field,
            const std::string& text,
            const std::vector<std::string>& allowed)
{
    // exact: no spaces trimmed, as a caller that checks and then uses its own copy of the text
    // (megatron-scaling --network='flow ') would take an accepted ' flow' for packet
    if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
    {
        Fail(field, text, "one of " + JoinChoices(allowed));
    }
    return text;
}

std::string
JoinList(const std::vector<std::string>& items, const std::string& separator)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        out += (i == 0 ? "" : separator) + items[i];
    }
    return out;
}

std::vector<std::string>
ParseList(const std::string& field,
          const std::string& text,
          const std::vector<std::string>& allowed,
          bool ignoreCase)
{
    auto same = [ignoreCase](const std::string& a, const std::string& b)
    {
        return a.size() == b.size()
               && std::equal(a.begin(),
                             a.end(),
                             b.begin(),
                             [ignoreCase](unsigned char x, unsigned char y)
                             {
                                 return ignoreCase ? std::tolower(x) == std::tolower(y) : x == y;
                             });
    };
    const std::string expected = "expected a comma-separated list"
                                 + (allowed.empty() ? std::string() : " of " + JoinChoices(allowed))
                                 + ", each item once";
    std::vector<std::string> items;
    std::size_t begin = 0;
    while (true)
    {
        std::size_t comma = text.find(',', begin);
        std::string item = Trim(
            text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
        if (item.empty())
        {
            throw std::invalid_argument(
                field + ": got '" + PrintableText(text) + "'; "
                + (text.find(',') == std::string::npos ? std::string() : "an item is empty; ")
                + expected);
        }
        if (!allowed.empty())
        {
            auto match = std::find_if(allowed.begin(),
                                      allowed.end(),
                                      [&](const std::string& a)
                                      {
                                          return same(a, item);
                                      });
            if (match == allowed.end())
            {
                throw std::invalid_argument(
                    field + ": got '" + PrintableText(item) + "'; allowed: " + JoinChoices(allowed)
                    + (ignoreCase ? " (any case, comma-separated)" : " (comma-separated)"));
            }
            item = *match; // as allowed spells it
        }
        if (std::find(items.begin(), items.end(), item) != items.end())
        {
            throw std::invalid_argument(field + ": '" + PrintableText(item)
                                        + "' is listed twice; give each item once");
        }
        items.push_back(item);
        if (comma == std::string::npos)
        {
            return items;
        }
        begin = comma + 1;
    }
}

} // namespace dlnet
} // namespace ns3
