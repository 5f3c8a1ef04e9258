/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_RESULT_FIELDS_H
#define DLNET_RESULT_FIELDS_H

#include "experiment-options.h"
#include "simulation-scope.h"

#include "ns3/topology.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup dlnet
 * \brief One field of a result row: the single description from which its
 * CSV column, its JSON key and its Python dict key are all derived.
 *
 * The getter returns a typed value as JSON: a string, an integer, a double,
 * a bool, null (a field that does not apply to the row: an empty CSV cell)
 * or, for JSON-only summaries, an object or array.
 */
template <typename Row>
struct ResultField
{
    std::string name; //!< CSV column, JSON key and Python key
    std::string unit; //!< s, B, B/s, bit/s, GB/s, fraction...; empty for names and counts
    std::function<nlohmann::json(const Row&)> get; //!< the row's value
};

/// The fields of a row type, in CSV column order.
template <typename Row>
using FieldTable = std::vector<ResultField<Row>>;

/**
 * \return a value as CSV text: strings as they are, integers in decimal,
 * doubles as ExactText (shortest round-trip), bools as 1 or 0, null empty
 */
std::string CsvText(const nlohmann::json& value);

/// \return the CSV header line of a table (no newline)
template <typename Row>
std::string
CsvHeader(const FieldTable<Row>& fields)
{
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i)
    {
        line += (i ? "," : "") + fields[i].name;
    }
    return line;
}

/// \return one CSV line of a row (no newline)
template <typename Row>
std::string
CsvLine(const FieldTable<Row>& fields, const Row& row)
{
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i)
    {
        line += (i ? "," : "") + CsvText(fields[i].get(row));
    }
    return line;
}

/// \return a row as a JSON object, one key per field
template <typename Row>
nlohmann::json
RowJson(const FieldTable<Row>& fields, const Row& row)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& f : fields)
    {
        j[f.name] = f.get(row);
    }
    return j;
}

/// \return rows as a JSON array of objects
template <typename Row>
nlohmann::json
RowsJson(const FieldTable<Row>& fields, const std::vector<Row>& rows)
{
    nlohmann::json j = nlohmann::json::array();
    for (const auto& row : rows)
    {
        j.push_back(RowJson(fields, row));
    }
    return j;
}

/// \return the fields as JSON: [{"name", "unit"}] (documentation, Python)
template <typename Row>
nlohmann::json
FieldsJson(const FieldTable<Row>& fields)
{
    nlohmann::json j = nlohmann::json::array();
    for (const auto& f : fields)
    {
        j.push_back({{"name", f.name}, {"unit", f.unit}});
    }
    return j;
}

/**
 * Append the fields of an inner row type to a table of an outer row that
 * holds one (a link in a row of a sweep): the same names and units, each
 * getter applied to the inner row that pick returns.
 */
template <typename Outer, typename Inner, typename Pick>
void
AppendFields(FieldTable<Outer>& fields, const FieldTable<Inner>& inner, Pick pick)
{
    for (const auto& f : inner)
    {
        fields.push_back({f.name,
                          f.unit,
                          [get = f.get, pick](const Outer& r)
                          {
                              return get(pick(r));
                          }});
    }
}

/**
 * Append some fields of an inner row type, by name and in the order named
 * (a table that puts its own columns between those of a shared table); the
 * names, units and getters stay the inner table's. std::logic_error for a
 * name the inner table does not have (a broken table, not user input).
 */
template <typename Outer, typename Inner, typename Pick>
void
AppendFields(FieldTable<Outer>& fields,
             const FieldTable<Inner>& inner,
             Pick pick,
             const std::vector<std::string>& names)
{
    for (const auto& name : names)
    {
        auto f = std::find_if(inner.begin(),
                              inner.end(),
                              [&name](const ResultField<Inner>& field)
                              {
                                  return field.name == name;
                              });
        if (f == inner.end())
        {
            throw std::logic_error("AppendFields: no field " + name + " in the inner table");
        }
        AppendFields(fields, FieldTable<Inner>{*f}, pick);
    }
}

/**
 * \return an option's value text as a JSON value of its kind: int, float or
 *         bool where the option is one, else the text
 */
nlohmann::json OptionValueJson(const std::string& kind, const std::string& text);

/// Configs that hold a topology list only the topology options of its kind.
template <typename Config, typename = void>
struct ShapedByTopology : std::false_type
{
};

/// \copydoc ShapedByTopology
template <typename Config>
struct ShapedByTopology<Config, std::void_t<decltype(std::declval<Config&>().topology.kind)>>
    : std::true_type
{
};

/// Configs that say which of their options apply (Applies(name)).
template <typename Config, typename = void>
struct SaysWhatApplies : std::false_type
{
};

/// \copydoc SaysWhatApplies
template <typename Config>
struct SaysWhatApplies<Config,
                       std::void_t<decltype(std::declval<const Config&>().Applies(std::string()))>>
    : std::true_type
{
};

/// \return false for an option that does not apply to the config's topology kind or algorithm
template <typename Config>
bool
OptionApplies(const Config& config, const std::string& name)
{
    if constexpr (SaysWhatApplies<Config>::value)
    {
        return config.Applies(name);
    }
    else if constexpr (ShapedByTopology<Config>::value)
    {
        return TopologyOptionApplies(config.topology, name);
    }
    return true;
}

/**
 * \return a config as JSON: option name -> typed value, from its option
 *         table; only the options that apply (so that it runs again as is)
 */
template <typename Config>
nlohmann::json
ConfigJson(const std::vector<ExperimentOption<Config>>& options, const Config& config)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& o : options)
    {
        if (OptionApplies(config, o.name))
        {
            j[o.name] = OptionValueJson(o.kind, o.get(config));
        }
    }
    if constexpr (HasNs3Attributes<Config>::value)
    {
        // the environment's and the run's, as the run set them: a result that left them
        // out did not say how to run it again (Python takes the key back)
        nlohmann::json attributes = nlohmann::json::object();
        for (const auto& [name, value] : WithEnvironmentNs3Attributes(config.ns3Attributes))
        {
            attributes[name] = value;
        }
        if (!attributes.empty())
        {
            j["ns3-attributes"] = attributes;
        }
    }
    return j;
}

/// Write a file's text, creating nothing; throws std::runtime_error when it cannot.
void WriteTextFile(const std::string& path, const std::string& text);

/// Write rows as CSV (header and one line per row); throws std::runtime_error.
template <typename Row>
void
WriteCsv(const std::string& path, const FieldTable<Row>& fields, const std::vector<Row>& rows)
{
    std::string text = CsvHeader(fields) + "\n";
    for (const auto& row : rows)
    {
        text += CsvLine(fields, row) + "\n";
    }
    WriteTextFile(path, text);
}

/// Write JSON, indented by 2, with a final newline; throws std::runtime_error.
void WriteJson(const std::string& path, const nlohmann::json& j);

} // namespace ns3

#endif /* DLNET_RESULT_FIELDS_H */
