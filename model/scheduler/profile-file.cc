/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-json.h"
#include "layer-profile.h"

#include "ns3/config-parse.h"
#include "ns3/file-io.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ProfileFile");

namespace
{

using nlohmann::json;

/// More layers than any model the scheduler is meant for (its DP is O(L² |T|²))
constexpr std::size_t MAX_LAYERS = 100000;
/// The longest layer time per batch: the compute model's limit of one pass (1e6 s)
constexpr double MAX_SECONDS = 1e6;
/// Bytes per batch and weights of one layer: 1 PiB
constexpr uint64_t MAX_BYTES = 1ull << 50;
constexpr uint64_t MAX_BATCH = 1ull << 30;
const std::string SECONDS_PREFIX = "seconds:";

const std::vector<std::string> g_required = {"layer", "kind", "batch", "output_bytes"};
const std::vector<std::string> g_optional
    = {"parameter_bytes", "sync_bytes", "forward_fraction", "parallel_fraction"};
const std::vector<std::string> g_layerKeys = {"name",
                                              "kind",
                                              "output_bytes",
                                              "parameter_bytes",
                                              "sync_bytes",
                                              "forward_fraction",
                                              "parallel_fraction",
                                              "seconds"};

/// \return the text without the spaces and tabs around it
std::string
Trim(const std::string& s)
{
    std::size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos)
    {
        return "";
    }
    std::size_t b = s.find_last_not_of(" \t");
    return s.substr(a, b - a + 1);
}

/// \return the comma-separated cells of a line, trimmed
std::vector<std::string>
Cells(const std::string& line)
{
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true)
    {
        std::size_t comma = line.find(',', start);
        cells.push_back(Trim(line.substr(start, comma - start)));
        if (comma == std::string::npos)
        {
            return cells;
        }
        start = comma + 1;
    }
}

/// Where a CSV cell is: "<source>:<line>" and its column's name
struct CsvCell
{
    const std::string& where;
    std::string column; // a copy: cells are made from literals
    const std::string& text;

    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::invalid_argument(where + ": " + column + ": '" + dlnet::PrintableText(text)
                                    + "' " + what);
    }

    /// \return a decimal number (no hex, inf or nan: only digits, sign, point, exponent)
    double Number(const std::string& allowed) const
    {
        bool plain = !text.empty()
                     && std::all_of(text.begin(),
                                    text.end(),
                                    [](char c)
                                    {
                                        return std::isdigit(static_cast<unsigned char>(c))
                                               || c == '.' || c == '-' || c == '+' || c == 'e'
                                               || c == 'E';
                                    });
        double v = 0;
        std::size_t used = 0;
        try
        {
            v = plain ? std::stod(text, &used) : NAN;
        }
        catch (const std::out_of_range&)
        {
            // 1e-320 is > 0, but beyond what a double holds in full
            Fail("is beyond the range of a double (2.2e-308 to 1.8e+308 in size); must be "
                 + allowed);
        }
        catch (const std::exception&)
        {
            v = NAN;
        }
        if (used != text.size() || !std::isfinite(v))
        {
            Fail("must be " + allowed);
        }
        return v;
    }

    double Positive(double max) const
    {
        std::string allowed = "a number > 0 and at most " + dlnet::ShortestText(max);
        double v = Number(allowed);
        if (!(v > 0) || v > max)
        {
            Fail("must be " + allowed);
        }
        return v;
    }

    double Real(double min, double max) const
    {
        std::string allowed
            = "a number from " + dlnet::ShortestText(min) + " to " + dlnet::ShortestText(max);
        double v = Number(allowed);
        if (v < min || v > max)
        {
            Fail("must be " + allowed);
        }
        return v;
    }

    uint64_t Unsigned(uint64_t min, uint64_t max) const
    {
        try
        {
            return dlnet::ParseUnsigned(column, text, min, max);
        }
        catch (const std::invalid_argument&)
        {
            Fail("must be a whole number from " + std::to_string(min) + " to "
                 + std::to_string(max));
        }
    }

    std::string Name() const
    {
        std::string wrong = dlnet::CheckInputName(text);
        if (!wrong.empty())
        {
            Fail(wrong);
        }
        return text;
    }
};

} // namespace

LayerProfile
ParseProfileCsv(const std::string& text,
                const std::string& source,
                const ResourceCatalogue& catalogue)
{
    const std::string file = dlnet::PrintablePath(source);
    const std::vector<std::string> types = catalogue.Names();
    LayerProfile p;
    p.name = source;
    p.typeNames = types;

    std::vector<std::string> header;
    std::map<std::string, std::size_t> column; // name -> index
    std::vector<int> typeColumn(types.size(), -1);
    bool batchSeen = false;
    std::size_t lineNo = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        if (Trim(line).empty() || Trim(line)[0] == '#')
        {
            continue;
        }
        const std::string where = file + ":" + std::to_string(lineNo);
        std::vector<std::string> cells = Cells(line);
        if (header.empty())
        {
            header = cells;
            for (std::size_t i = 0; i < header.size(); ++i)
            {
                const std::string& h = header[i];
                const std::string at = " in column " + std::to_string(i + 1);
                if (!column.emplace(h, i).second)
                {
                    throw std::invalid_argument(where + ": column '" + dlnet::PrintableText(h)
                                                + "' appears twice (" + at.substr(4) + ")");
                }
                if (h.rfind(SECONDS_PREFIX, 0) == 0)
                {
                    std::string type = h.substr(SECONDS_PREFIX.size());
                    auto it = std::find(types.begin(), types.end(), type);
                    if (it == types.end())
                    {
                        throw std::invalid_argument(
                            where + ": unknown type '" + dlnet::PrintableText(type) + "'" + at
                            + " (types: " + dlnet::JoinChoices(types) + ")");
                    }
                    typeColumn[it - types.begin()] = static_cast<int>(i);
                }
                else if (std::find(g_required.begin(), g_required.end(), h) == g_required.end()
                         && std::find(g_optional.begin(), g_optional.end(), h) == g_optional.end())
                {
                    std::vector<std::string> all = g_required;
                    all.insert(all.end(), g_optional.begin(), g_optional.end());
                    all.push_back("seconds:<type>");
                    throw std::invalid_argument(where + ": unknown column '"
                                                + dlnet::PrintableText(h) + "'" + at
                                                + " (columns: " + dlnet::JoinChoices(all) + ")");
                }
            }
            for (const std::string& r : g_required)
            {
                if (!column.count(r))
                {
                    throw std::invalid_argument(where + ": the header lacks the column '" + r
                                                + "' (required: " + dlnet::JoinChoices(g_required)
                                                + " and seconds:<type> for every type)");
                }
            }
            for (std::size_t t = 0; t < types.size(); ++t)
            {
                if (typeColumn[t] < 0)
                {
                    throw std::invalid_argument(
                        where + ": the header lacks the column 'seconds:" + types[t]
                        + "' (every catalogue type: " + dlnet::JoinChoices(types) + ")");
                }
            }
            continue;
        }
        if (cells.size() != header.size())
        {
            throw std::invalid_argument(where + ": " + std::to_string(cells.size())
                                        + " fields; the header has "
                                        + std::to_string(header.size()));
        }
        if (p.layers.size() == MAX_LAYERS)
        {
            throw std::invalid_argument(where + ": more than " + std::to_string(MAX_LAYERS)
                                        + " layers");
        }
        auto cell = [&](const std::string& name) -> CsvCell
        {
            return CsvCell{where, name, cells[column.at(name)]};
        };
        ProfiledLayer l;
        l.name = cell("layer").Name();
        l.kind = cell("kind").Name();
        uint64_t batch = cell("batch").Unsigned(1, MAX_BATCH);
        if (batchSeen && batch != p.batch)
        {
            cell("batch").Fail("differs from the batch of the rows before ("
                               + std::to_string(p.batch) + ")");
        }
        p.batch = batch;
        batchSeen = true;
        l.outputBytes = cell("output_bytes").Unsigned(0, MAX_BYTES);
        if (column.count("parameter_bytes"))
        {
            l.parameterBytes = cell("parameter_bytes").Unsigned(0, MAX_BYTES);
        }
        l.syncBytes = column.count("sync_bytes") ? cell("sync_bytes").Unsigned(0, MAX_BYTES)
                                                 : l.parameterBytes;
        if (column.count("forward_fraction"))
        {
            CsvCell c = cell("forward_fraction");
            l.forwardFraction = c.Real(0, 1);
            if (!(l.forwardFraction > 0 && l.forwardFraction < 1))
            {
                c.Fail("must be a number in (0, 1)");
            }
        }
        if (column.count("parallel_fraction"))
        {
            l.parallelFraction = cell("parallel_fraction").Real(0, 1);
        }
        for (std::size_t t = 0; t < types.size(); ++t)
        {
            const std::string& h = header[typeColumn[t]];
            l.seconds.push_back(CsvCell{where, h, cells[typeColumn[t]]}.Positive(MAX_SECONDS));
        }
        p.layers.push_back(l);
    }
    if (header.empty())
    {
        throw std::invalid_argument(file
                                    + ": empty (no header row: layer,kind,batch,"
                                      "output_bytes,seconds:<type>...)");
    }
    if (p.layers.empty())
    {
        throw std::invalid_argument(file + ": no layer rows after the header");
    }
    try
    {
        p.Validate();
        p.CheckAgainst(catalogue);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(file + ": " + e.what());
    }
    return p;
}

LayerProfile
ParseProfileJson(const std::string& text,
                 const std::string& source,
                 const ResourceCatalogue& catalogue)
{
    const std::vector<std::string> types = catalogue.Names();
    json doc = dlnet::ParseJsonDocument(text, source);
    dlnet::CheckJsonKeys(doc, source, "", {"name", "batch", "layers"});
    LayerProfile p;
    p.name = doc.contains("name") ? dlnet::JsonName(doc["name"], source, "name") : source;
    p.typeNames = types;
    p.batch = dlnet::JsonUnsigned(
        dlnet::JsonRequire(doc, source, "", "batch"), source, "batch", 1, MAX_BATCH);
    const json& layers = dlnet::JsonRequire(doc, source, "", "layers");
    if (!layers.is_array() || layers.empty() || layers.size() > MAX_LAYERS)
    {
        dlnet::InputFail(
            source, "layers", "must be a list of 1 to " + std::to_string(MAX_LAYERS) + " layers");
    }
    for (std::size_t i = 0; i < layers.size(); ++i)
    {
        const std::string path = "layers[" + std::to_string(i) + "]";
        const json& o = layers[i];
        dlnet::CheckJsonKeys(o, source, path, g_layerKeys);
        auto require = [&](const std::string& key) -> const json&
        {
            return dlnet::JsonRequire(o, source, path, key);
        };
        auto bytes = [&](const std::string& key)
        {
            return dlnet::JsonUnsigned(o[key], source, path + "." + key, 0, MAX_BYTES);
        };
        ProfiledLayer l;
        l.name = dlnet::JsonName(require("name"), source, path + ".name");
        l.kind = dlnet::JsonName(require("kind"), source, path + ".kind");
        dlnet::JsonRequire(o, source, path, "output_bytes");
        l.outputBytes = bytes("output_bytes");
        l.parameterBytes = o.contains("parameter_bytes") ? bytes("parameter_bytes") : 0;
        l.syncBytes = o.contains("sync_bytes") ? bytes("sync_bytes") : l.parameterBytes;
        if (o.contains("forward_fraction"))
        {
            l.forwardFraction
                = dlnet::JsonReal(o["forward_fraction"], source, path + ".forward_fraction", 0, 1);
            if (!(l.forwardFraction > 0 && l.forwardFraction < 1))
            {
                dlnet::InputFail(source, path + ".forward_fraction", "must be in (0, 1)");
            }
        }
        if (o.contains("parallel_fraction"))
        {
            l.parallelFraction = dlnet::JsonReal(
                o["parallel_fraction"], source, path + ".parallel_fraction", 0, 1);
        }
        const json& seconds = require("seconds");
        dlnet::CheckJsonKeys(seconds, source, path + ".seconds", types);
        for (const std::string& t : types)
        {
            l.seconds.push_back(
                dlnet::JsonPositive(dlnet::JsonRequire(seconds, source, path + ".seconds", t),
                                    source,
                                    path + ".seconds." + t,
                                    MAX_SECONDS));
        }
        p.layers.push_back(l);
    }
    try
    {
        p.Validate();
        p.CheckAgainst(catalogue);
    }
    catch (const std::invalid_argument& e)
    {
        dlnet::InputFail(source, "", e.what());
    }
    return p;
}

LayerProfile
ReadProfileFile(const std::string& path, const ResourceCatalogue& catalogue)
{
    std::string text = dlnet::ReadInputFile("profile", path);
    std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{')
    {
        return ParseProfileJson(text, path, catalogue);
    }
    return ParseProfileCsv(text, path, catalogue);
}

std::string
ProfileToCsv(const LayerProfile& profile)
{
    profile.Validate();
    auto name = [](const std::string& field, const std::string& text)
    {
        std::string wrong = dlnet::CheckInputName(text);
        if (!wrong.empty())
        {
            throw std::invalid_argument(field + ": '" + dlnet::PrintableText(text) + "' " + wrong
                                        + " (a CSV cell)");
        }
        return text;
    };
    std::ostringstream os;
    os << "# profile " << dlnet::PrintableText(profile.name) << "\n";
    os << "layer,kind,batch,output_bytes,parameter_bytes,sync_bytes,forward_fraction,"
          "parallel_fraction";
    for (const std::string& t : profile.typeNames)
    {
        os << "," << SECONDS_PREFIX << name("typeNames", t);
    }
    os << "\n";
    for (const ProfiledLayer& l : profile.layers)
    {
        os << name("layers.name", l.name) << "," << name("layers.kind", l.kind) << ","
           << profile.batch << "," << l.outputBytes << "," << l.parameterBytes << "," << l.syncBytes
           << "," << dlnet::ShortestText(l.forwardFraction) << ","
           << dlnet::ShortestText(l.parallelFraction);
        for (double s : l.seconds)
        {
            os << "," << dlnet::ShortestText(s);
        }
        os << "\n";
    }
    return os.str();
}

} // namespace ns3
