/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The Python module `dlnet`: the experiment API with plain Python values.
//
//   import dlnet
//   out = dlnet.run_traffic(topology="star", hosts=8, pattern="incast",
//                           message_bytes="1MiB")
//   out["result"]["makespan_s"], out["config"]["link-rate"], out["wall_seconds"]
//
// Configs are dicts and keyword arguments keyed by the option names of the
// examples' command lines (kebab-case, or with underscores); results are the
// JSON the result writers produce (derived from each row type's field table),
// as dicts and lists; no result field is named in this file. Bad input raises
// ValueError with the C++ message, which names the field; a value of the wrong
// Python type raises dlnet.OptionTypeError, a TypeError that is also a
// ValueError (the contract: every bad input is a ValueError).

#include "ns3/collective-experiment.h"
#include "ns3/collective-report.h"
#include "ns3/heterps-experiment.h"
#include "ns3/heterps-writer.h"
#include "ns3/log.h"
#include "ns3/plot-writer.h"
#include "ns3/result-writer.h"
#include "ns3/simulation-scope.h"
#include "ns3/sparse-experiment.h"
#include "ns3/sparse-writer.h"
#include "ns3/traffic-experiment.h"
#include "ns3/training-experiment.h"
#include "ns3/training-writer.h"
#include "ns3/wafer-experiment.h"
#include "ns3/wafer-writer.h"

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace ns3
{
NS_LOG_COMPONENT_DEFINE("DlnetPython");
} // namespace ns3

namespace
{

/// ns-3 is not thread-safe: one simulation at a time, even with the GIL released.
std::mutex g_simulatorMutex;

/// dlnet.OptionTypeError (bases TypeError and ValueError), made by the module's init.
PyObject* g_optionTypeError = nullptr;

/**
 * A Python value of the wrong type for an option, a path or a mapping: raised in
 * Python as dlnet.OptionTypeError (an instance of TypeError and of ValueError).
 * The message names the field.
 */
class OptionTypeError : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/// \return the name of a Python value's type, for messages
std::string
TypeName(const py::handle& value)
{
    return py::str(py::type::handle_of(value).attr("__name__"));
}

/**
 * A str's UTF-8 text. A str that has none (a lone surrogate such as '\\udc80')
 * raises ValueError naming the field, not pybind11's RuntimeError "Unable to cast".
 * \param field the option or mapping, for the message
 * \param value a str
 */
std::string
StrText(const std::string& field, const py::handle& value)
{
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (text == nullptr)
    {
        PyErr_Clear();
        throw std::invalid_argument(field + ": got " + std::string(py::repr(value))
                                    + ", which has no UTF-8 text (a lone surrogate); expected "
                                      "text");
    }
    std::string out(text, size);
    if (out.find('\0') != std::string::npos)
    {
        // C++ would take the text up to it (a file name cut short, read without a word)
        throw std::invalid_argument(field + ": got " + std::string(py::repr(value))
                                    + ", which holds a NUL character; expected text without one");
    }
    return out;
}

/**
 * The text the option parsers expect for a Python value.
 * \param key the option, for error messages
 * \param value a str, int, float or bool
 * \return bool -> "true"/"false"; int -> decimal; float -> its shortest
 *         round-trip text (repr), or the integer text when it is a whole
 *         number (1e6 -> "1000000", so that byte counts may be floats); str as is
 */
std::string
OptionText(const std::string& key, const py::handle& value)
{
    if (py::isinstance<py::bool_>(value))
    {
        return value.cast<bool>() ? "true" : "false";
    }
    if (py::isinstance<py::str>(value))
    {
        return StrText(key, value);
    }
    if (py::isinstance<py::int_>(value) || py::hasattr(value, "__index__"))
    {
        // int(operator.index(v)): Python ints of any size, numpy integers.
        PyObject* index = PyNumber_Index(value.ptr());
        if (!index)
        {
            throw py::error_already_set();
        }
        return py::str(py::reinterpret_steal<py::object>(index));
    }
    if (py::isinstance<py::float_>(value) || py::hasattr(value, "__float__"))
    {
        double v = py::float_(py::reinterpret_borrow<py::object>(value));
        if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        {
            return py::str(py::int_(static_cast<long long>(v)));
        }
        return py::repr(py::float_(v));
    }
    throw OptionTypeError(key + ": expected str, int, float or bool, got " + TypeName(value));
}

/**
 * \param key the option, for error messages
 * \param value a str, bytes or os.PathLike (a file the run writes)
 * \return the path's bytes as the file system takes them
 */
std::string
PathText(const std::string& key, const py::handle& value)
{
    if (!py::isinstance<py::str>(value) && !py::isinstance<py::bytes>(value)
        && !py::hasattr(value, "__fspath__"))
    {
        throw OptionTypeError(key + ": expected a str, bytes or os.PathLike file, got "
                              + TypeName(value));
    }
    py::module_ os = py::module_::import("os");
    std::string path = os.attr("fsencode")(os.attr("fspath")(value)).cast<std::string>();
    if (path.find('\0') != std::string::npos)
    {
        throw std::invalid_argument(key + ": the path holds a NUL character");
    }
    return path;
}

/// ns3_attributes={'ns3::Type::Attribute': value}: checked, in the dict's order, a
/// refusal naming an option only if the run has it (programOptions).
ns3::Ns3Attributes
Ns3AttributesOf(const py::object& attributes, const std::vector<std::string>& programOptions)
{
    ns3::Ns3Attributes out;
    if (attributes.is_none())
    {
        return out;
    }
    // any Mapping, as its annotation and config= say (a MappingProxyType was refused)
    const py::object mapping = py::module_::import("collections.abc").attr("Mapping");
    if (!py::isinstance(attributes, mapping))
    {
        throw OptionTypeError(
            "ns3_attributes: expected a dict {'ns3::Type::Attribute': value}, got "
            + TypeName(attributes));
    }
    for (auto item : py::dict(attributes))
    {
        if (!py::isinstance<py::str>(item.first))
        {
            throw OptionTypeError("ns3_attributes: names must be str, got "
                                  + std::string(py::repr(item.first)));
        }
        std::string name = StrText("ns3_attributes", item.first);
        std::string value = OptionText(name, item.second);
        ns3::CheckNs3Attribute(name, value, &programOptions);
        out.emplace_back(name, value);
    }
    return out;
}

/// Append ns3_attributes to those a config dict gave (its "ns3-attributes"), for a run
/// whose options are table's.
template <typename Config>
void
AddNs3AttributesOf(const std::vector<ns3::ExperimentOption<Config>>& table,
                   ns3::Ns3Attributes& target,
                   const py::object& attributes)
{
    std::vector<std::string> names;
    for (const auto& o : table)
    {
        names.push_back(o.name);
    }
    ns3::Ns3Attributes more = Ns3AttributesOf(attributes, names);
    target.insert(target.end(), more.begin(), more.end());
}

/// Apply every key of a mapping to the config (throws std::invalid_argument).
template <typename Config>
void
ApplyOptions(const std::vector<ns3::ExperimentOption<Config>>& table,
             Config& config,
             const py::handle& options)
{
    std::map<std::string, std::string> keyOf; // by option: the spelling that gave it
    for (auto item : py::reinterpret_borrow<py::dict>(options))
    {
        if (!py::isinstance<py::str>(item.first))
        {
            throw OptionTypeError("config: option names must be str, got "
                                  + std::string(py::repr(item.first)));
        }
        std::string key = StrText("config", item.first);
        std::string name = key;
        std::replace(name.begin(), name.end(), '_', '-');
        // min_bytes and min-bytes are one option: the later of the two was taken unsaid
        if (auto [it, added] = keyOf.emplace(name, key); !added)
        {
            throw std::invalid_argument(key + ": given twice, as '" + it->second + "' and '" + key
                                        + "'; give it once");
        }
        if constexpr (ns3::HasNs3Attributes<Config>::value)
        {
            if (name == "ns3-attributes") // as a result's config records them
            {
                AddNs3AttributesOf(
                    table, config.ns3Attributes, py::reinterpret_borrow<py::object>(item.second));
                continue;
            }
        }
        auto option = std::find_if(table.begin(),
                                   table.end(),
                                   [&name](const ns3::ExperimentOption<Config>& o)
                                   {
                                       return o.name == name;
                                   });
        bool path = option != table.end() && option->kind == "path";
        const std::string text = path ? PathText(key, item.second) : OptionText(key, item.second);
        if (option != table.end() && option->kind == "bool" && text.empty())
        {
            // (the command line's bare --flag, which means true; in Python '' reads as false)
            ns3::dlnet::ParseBool(name, text); // refuses it, naming the allowed values
        }
        ns3::SetOption(table, config, key, text);
    }
}

/// A C++ string as str: bytes that are not UTF-8 (a file name, a layer name read from a file)
/// become lone surrogates, as os.fsdecode makes them, so that os.fsencode gives the bytes back.
py::str
Text(const std::string& text)
{
    PyObject* str = PyUnicode_DecodeUTF8(text.data(), text.size(), "surrogateescape");
    if (str == nullptr)
    {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::str>(str);
}

/// nlohmann::json -> dict, list, int, float, str, bool or None.
py::object
ToPython(const nlohmann::json& j)
{
    switch (j.type())
    {
        case nlohmann::json::value_t::null:
        case nlohmann::json::value_t::discarded:
            return py::none();
        case nlohmann::json::value_t::boolean:
            return py::bool_(j.get<bool>());
        case nlohmann::json::value_t::number_integer:
            return py::int_(j.get<int64_t>());
        case nlohmann::json::value_t::number_unsigned:
            return py::int_(j.get<uint64_t>());
        case nlohmann::json::value_t::number_float:
            return py::float_(j.get<double>());
        case nlohmann::json::value_t::string:
            return Text(j.get_ref<const std::string&>());
        case nlohmann::json::value_t::array:
        {
            py::list out;
            for (const auto& v : j)
            {
                out.append(ToPython(v));
            }
            return std::move(out);
        }
        case nlohmann::json::value_t::object:
        {
            py::dict out;
            for (const auto& [k, v] : j.items())
            {
                out[Text(k)] = ToPython(v);
            }
            return std::move(out);
        }
        case nlohmann::json::value_t::binary:
        {
            const auto& b = j.get_binary();
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
        }
    }
    return py::none();
}

/**
 * The results folder of a run: None (no files), or a str, bytes or
 * os.PathLike path, checked (created, writable) before the simulation.
 */
std::string
ResultsDir(const py::object& resultsDir)
{
    if (resultsDir.is_none())
    {
        return std::string();
    }
    if (!py::isinstance<py::str>(resultsDir) && !py::isinstance<py::bytes>(resultsDir)
        && !py::hasattr(resultsDir, "__fspath__"))
    {
        throw OptionTypeError("results_dir: expected a str, bytes or os.PathLike folder, got "
                              + TypeName(resultsDir));
    }
    py::module_ os = py::module_::import("os");
    // the path's bytes as the file system takes them (bytes as given, str encoded)
    std::string dir = os.attr("fsencode")(os.attr("fspath")(resultsDir)).cast<std::string>();
    if (dir.find('\0') != std::string::npos)
    {
        throw std::invalid_argument("results_dir: the path holds a NUL character");
    }
    ns3::CheckResultsDir("results_dir", dir);
    return dir;
}

/**
 * Run a simulation body without the GIL, one at a time. Ctrl-C (any Python
 * signal handler that raises) stops it within about 50 ms of wall time: the
 * interrupt hook sees the raised exception, the simulation ends and cleans up,
 * and the exception (KeyboardInterrupt) is raised here.
 */
void
RunWithoutGil(const std::function<void()>& body)
{
    bool interrupted = false;
    {
        py::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(g_simulatorMutex);
        try
        {
            body();
        }
        catch (const ns3::SimulationInterrupted&)
        {
            interrupted = true;
        }
    }
    if (interrupted)
    {
        if (!PyErr_Occurred())
        {
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        }
        throw py::error_already_set();
    }
}

/// The text of an option's value as the Python value of its kind.
py::object
TypedValue(const std::string& kind, const std::string& text)
{
    return ToPython(ns3::OptionValueJson(kind, text));
}

/// A config as a dict: option name -> typed value (what result.json holds).
template <typename Config>
py::dict
ConfigPy(const std::vector<ns3::ExperimentOption<Config>>& table, const Config& config)
{
    return py::dict(ToPython(ns3::ConfigJson(table, config)));
}

py::dict
RunTrafficPy(const std::optional<py::dict>& config,
             const py::object& resultsDir,
             const py::object& ns3Attributes,
             const py::kwargs& kwargs)
{
    ns3::TrafficConfig c;
    if (config)
    {
        ApplyOptions(ns3::TrafficOptions(), c, *config);
    }
    ApplyOptions(ns3::TrafficOptions(), c, kwargs); // keyword arguments override the dict
    AddNs3AttributesOf(
        ns3::TrafficOptions(), c.ns3Attributes, ns3Attributes); // after the config's: they win
    c.Validate();
    std::string dir = ResultsDir(resultsDir);

    ns3::TrafficResult result;
    RunWithoutGil(
        [&]()
        {
            result = ns3::RunTraffic(c);
            if (!dir.empty())
            {
                ns3::WriteTrafficResults(c, result, dir);
                ns3::PlotTraffic(result, dir);
            }
        });

    py::dict out;
    out["config"] = ConfigPy(ns3::TrafficOptions(), c);
    out["result"] = ToPython(ns3::ToJson(result));
    out["wall_seconds"] = result.wallSeconds;
    return out;
}

py::dict
RunCollectivePy(const std::optional<py::dict>& config,
                const py::object& resultsDir,
                const py::object& ns3Attributes,
                const py::kwargs& kwargs)
{
    ns3::CollectiveConfig c;
    if (config)
    {
        ApplyOptions(ns3::CollectiveOptions(), c, *config);
    }
    ApplyOptions(ns3::CollectiveOptions(), c, kwargs);
    AddNs3AttributesOf(
        ns3::CollectiveOptions(), c.ns3Attributes, ns3Attributes); // after the config's: they win
    c.Validate();
    std::string dir = ResultsDir(resultsDir);

    ns3::CollectiveResult result;
    RunWithoutGil(
        [&]()
        {
            result = ns3::RunCollective(c);
            if (!dir.empty())
            {
                ns3::WriteCollectiveResults(c, {result}, dir);
                ns3::PlotCollective({result}, dir);
            }
        });
    double wall = 0;
    for (const auto& row : result.rows)
    {
        wall += row.wallSeconds;
    }
    py::dict out;
    out["config"] = ConfigPy(ns3::CollectiveOptions(), c);
    nlohmann::json j = ns3::ToJson(result);
    if (c.stats)
    {
        // stats=True: the tables at the top level too (lists of row dicts)
        out["links"] = ToPython(j.value("link_stats", nlohmann::json::array()));
        out["ranks"] = ToPython(j.value("rank_stats", nlohmann::json::array()));
        out["switches"] = ToPython(j.value("switch_stats", nlohmann::json::array()));
    }
    out["result"] = ToPython(j);
    out["wall_seconds"] = wall;
    return out;
}

py::dict
RunWaferPy(const std::optional<py::dict>& config,
           const py::object& resultsDir,
           const py::object& ns3Attributes,
           const py::kwargs& kwargs)
{
    ns3::WaferExperimentConfig c;
    if (config)
    {
        ApplyOptions(ns3::WaferOptions(), c, *config);
    }
    ApplyOptions(ns3::WaferOptions(), c, kwargs);
    AddNs3AttributesOf(
        ns3::WaferOptions(), c.ns3Attributes, ns3Attributes); // after the config's: they win
    c.Validate();
    std::string dir = ResultsDir(resultsDir);

    ns3::WaferResult result;
    RunWithoutGil(
        [&]()
        {
            result = ns3::RunWafer(c);
            if (!dir.empty())
            {
                ns3::WriteWaferResults(c, result, dir);
            }
        });
    // stats=True: "links", "switches" and "ranks" (lists of row dicts) come with the rows
    py::dict out = ToPython(ns3::ToJson(c, result)).cast<py::dict>();
    out["config"] = ConfigPy(ns3::WaferOptions(), c);
    out["wall_seconds"] = result.wallSeconds;
    return out;
}

py::dict
RunSparsePy(const std::optional<py::dict>& config,
            const py::object& resultsDir,
            const py::object& ns3Attributes,
            const py::kwargs& kwargs)
{
    ns3::SparseConfig c;
    if (config)
    {
        ApplyOptions(ns3::SparseOptions(), c, *config);
    }
    ApplyOptions(ns3::SparseOptions(), c, kwargs);
    AddNs3AttributesOf(
        ns3::SparseOptions(), c.ns3Attributes, ns3Attributes); // after the config's: they win
    c.Validate();
    std::string dir = ResultsDir(resultsDir);

    ns3::SparseResult result;
    RunWithoutGil(
        [&]()
        {
            result = ns3::RunSparse(c);
            if (!dir.empty())
            {
                ns3::WriteSparseResults(c, result, dir);
            }
        });
    py::dict out = ToPython(ns3::ToJson(c, result)).cast<py::dict>();
    out["config"] = ConfigPy(ns3::SparseOptions(), c);
    out["wall_seconds"] = result.wallSeconds;
    return out;
}

/// run_training: {'config', 'jobs', 'ranks', 'comms', 'topology', 'events', 'wall_seconds'};
/// stats: also 'links' ('link_stats'), 'switches' ('switch_stats') and 'rank_stats'.
py::dict
RunTrainingPy(const std::optional<py::dict>& config,
              const py::object& resultsDir,
              const py::object& ns3Attributes,
              const py::kwargs& kwargs)
{
    ns3::TrainingConfig c;
    if (config)
    {
        ApplyOptions(ns3::TrainingOptions(), c, *config);
    }
    ApplyOptions(ns3::TrainingOptions(), c, kwargs);
    AddNs3AttributesOf(
        ns3::TrainingOptions(), c.ns3Attributes, ns3Attributes); // after the config's: they win
    c.Validate();
    std::string dir = ResultsDir(resultsDir);

    ns3::TrainingResult result;
    RunWithoutGil(
        [&]()
        {
            result = ns3::RunTraining(c);
            if (!dir.empty())
            {
                ns3::WriteTrainingResults(c, result, dir);
                ns3::PlotTrainingBreakdown({c.topology.kind}, {result}, dir);
            }
        });
    nlohmann::json j = ns3::ToJson(c, result);
    j["comms"] = ns3::RowsJson(ns3::TrainingCommFields(), result.comms);
    py::dict out = ToPython(j).cast<py::dict>();
    if (c.stats)
    {
        // as run_collective's: one row dict per directed link, per switch
        // ("ranks" is the per-rank breakdown: the per-rank statistics stay "rank_stats")
        out["links"] = out["link_stats"];
        out["switches"] = out["switch_stats"];
    }
    out["config"] = ConfigPy(ns3::TrainingOptions(), c);
    out["wall_seconds"] = result.wallSeconds;
    return out;
}

/**
 * schedule / run_heterogeneous: result.json's dict ({'config', 'schedules', 'plan', 'sweep',
 * 'headline', 'headline_summary', 'rl_curve', 'simulation', 'wall_seconds', ...}).
 * \param simulate run_heterogeneous: the best plan also runs on a simulated cluster
 */
py::dict
RunHeterpsPy(bool simulate,
             const std::optional<py::dict>& config,
             const py::object& resultsDir,
             const py::object& ns3Attributes,
             const py::kwargs& kwargs)
{
    ns3::HeterpsConfig c;
    if (config)
    {
        ApplyOptions(ns3::HeterpsOptions(), c, *config);
    }
    ApplyOptions(ns3::HeterpsOptions(), c, kwargs);
    if (!simulate && c.simulate)
    {
        throw std::invalid_argument(
            "simulate: schedule only schedules; run_heterogeneous also simulates the plan");
    }
    if (simulate && !c.simulate && kwargs.contains("simulate"))
    {
        // (it was taken and ignored: the run simulated and its config said simulate true; a
        // config dict may say false: schedule's own result does)
        throw std::invalid_argument(
            "simulate: run_heterogeneous always simulates the plan; schedule only schedules");
    }
    if (simulate)
    {
        ns3::SetOption(ns3::HeterpsOptions(), c, "simulate", "true");
    }
    AddNs3AttributesOf(
        ns3::HeterpsOptions(), c.ns3Attributes, ns3Attributes); // after the config's: they win
    c.Validate();
    std::string dir = ResultsDir(resultsDir);

    ns3::HeterpsResult result;
    RunWithoutGil(
        [&]()
        {
            result = ns3::RunHeterps(c);
            if (!dir.empty())
            {
                ns3::WriteHeterpsResults(c, result, dir);
            }
        });
    py::dict out = ToPython(ns3::ToJson(c, result)).cast<py::dict>();
    out["config"] = ConfigPy(ns3::HeterpsOptions(), c);
    // (not in result.json, which two runs of one config and seed write alike)
    out["wall_seconds"] = result.wallSeconds;
    py::dict walls;
    for (const auto& row : result.schedules)
    {
        walls[py::str(row.scheduler)] = row.wallSeconds;
    }
    out["scheduler_wall_seconds"] = walls;
    return out;
}

py::dict
SchedulePy(const std::optional<py::dict>& config,
           const py::object& resultsDir,
           const py::object& ns3Attributes,
           const py::kwargs& kwargs)
{
    return RunHeterpsPy(false, config, resultsDir, ns3Attributes, kwargs);
}

py::dict
RunHeterogeneousPy(const std::optional<py::dict>& config,
                   const py::object& resultsDir,
                   const py::object& ns3Attributes,
                   const py::kwargs& kwargs)
{
    return RunHeterpsPy(true, config, resultsDir, ns3Attributes, kwargs);
}

/// Every row type's fields: {table: [{'name', 'unit'}]}, in CSV column order.
py::dict
ResultFieldsPy()
{
    nlohmann::json j;
    j["traffic_messages"] = ns3::FieldsJson(ns3::MessageFields());
    j["traffic_links"] = ns3::FieldsJson(ns3::LinkFields());
    j["traffic_summary"] = ns3::FieldsJson(ns3::TrafficSummaryFields());
    j["collective"] = ns3::FieldsJson(ns3::CollectiveRowFields());
    j["collective_summary"] = ns3::FieldsJson(ns3::CollectiveSummaryFields());
    j["collective_links"] = ns3::FieldsJson(ns3::CollectiveLinkFields());
    j["collective_ranks"] = ns3::FieldsJson(ns3::CollectiveRankFields());
    j["collective_switches"] = ns3::FieldsJson(ns3::CollectiveSwitchFields());
    j["sparse"] = ns3::FieldsJson(ns3::SparseFields());
    j["wafer"] = ns3::FieldsJson(ns3::WaferFields());
    j["wafer_links"] = ns3::FieldsJson(ns3::WaferLinkFields());
    j["wafer_switches"] = ns3::FieldsJson(ns3::WaferSwitchFields());
    j["wafer_ranks"] = ns3::FieldsJson(ns3::WaferRankFields());
    j["training_jobs"] = ns3::FieldsJson(ns3::TrainingJobFields());
    j["training_ranks"] = ns3::FieldsJson(ns3::TrainingRankFields());
    j["training_comms"] = ns3::FieldsJson(ns3::TrainingCommFields());
    j["training_rank_stats"] = ns3::FieldsJson(ns3::TrainingRankStatsFields());
    j["training_switches"] = ns3::FieldsJson(ns3::SwitchFields());
    j["heterps_schedules"] = ns3::FieldsJson(ns3::HeterpsScheduleFields());
    j["heterps_sweep"] = ns3::FieldsJson(ns3::HeterpsSweepFields());
    j["heterps_headline"] = ns3::FieldsJson(ns3::HeterpsHeadlineFields());
    j["heterps_headline_summary"] = ns3::FieldsJson(ns3::HeterpsHeadlineSummaryFields());
    j["heterps_plan"] = ns3::FieldsJson(ns3::HeterpsPlanFields());
    j["heterps_simulation"] = ns3::FieldsJson(ns3::HeterpsSimulationFields());
    j["heterps_rl_curve"] = ns3::FieldsJson(ns3::HeterpsCurveFields());
    return ToPython(j).cast<py::dict>();
}

template <typename Config>
py::list
OptionsPy(const std::vector<ns3::ExperimentOption<Config>>& table,
          const std::function<bool(const std::string&)>& keep = nullptr)
{
    const Config defaults;
    py::list out;
    for (const auto& o : table)
    {
        if (keep && !keep(o.name))
        {
            continue;
        }
        py::dict d;
        d["name"] = o.name;
        d["help"] = o.help;
        d["default"] = TypedValue(o.kind, o.get(defaults));
        d["kind"] = o.kind; // "int", "float", "bool" or "text": the Python type of the value
        out.append(d);
    }
    return out;
}

/// A run function's docstring: the header, then every option, its default and its help.
template <typename Config>
std::string
RunDoc(const std::string& header, const std::vector<ns3::ExperimentOption<Config>>& table)
{
    std::string doc = header + "\nOptions (default):\n";
    const Config defaults;
    for (const auto& o : table)
    {
        std::string name = o.name;
        for (auto& ch : name)
        {
            ch = (ch == '-') ? '_' : ch;
        }
        std::string value = o.get(defaults);
        doc += "  " + name + " (" + (value.empty() ? "''" : value) + "): " + o.help + "\n";
    }
    return doc;
}

} // namespace

PYBIND11_MODULE(_core, m)
{
    m.doc() = "dlnet: packet-level simulation of distributed deep-learning networks (ns-3).\n"
              "Each call runs one experiment in a fresh simulator and returns plain Python "
              "values.";
    m.attr("__version__") = DLNET_VERSION;

    // Ctrl-C during a run: the simulator's thread (the caller's) checks for
    // Python signals between events and stops the run when a handler raised.
    ns3::SimulationScope::SetInterruptHook(
        []()
        {
            py::gil_scoped_acquire gil;
            return PyErr_CheckSignals() != 0;
        });
    // ... and so do the computations before a run (a training graph built while the options
    // are checked, with the GIL held): the handler's exception (KeyboardInterrupt) is raised,
    // not pybind11's RuntimeError for an unknown C++ exception
    py::register_exception_translator(
        [](std::exception_ptr p)
        {
            try
            {
                if (p)
                {
                    std::rethrow_exception(p);
                }
            }
            catch (const ns3::SimulationInterrupted&)
            {
                if (!PyErr_Occurred())
                {
                    PyErr_SetNone(PyExc_KeyboardInterrupt);
                }
            }
        });

    // A value of the wrong Python type: Python's idiom is TypeError, dlnet's contract is
    // ValueError for every bad input; the class is both, so either except clause catches it.
    py::object bases = py::make_tuple(py::handle(PyExc_TypeError), py::handle(PyExc_ValueError));
    g_optionTypeError = PyErr_NewExceptionWithDoc(
        "dlnet.OptionTypeError",
        "A value of the wrong Python type for an option: a TypeError and a ValueError.\n"
        "\n"
        "Raised for an option's value (e.g. a list or None), a path, config or ns3_attributes\n"
        "of the wrong type; the message names the field.",
        bases.ptr(),
        nullptr);
    if (!g_optionTypeError)
    {
        throw py::error_already_set();
    }
    m.attr("OptionTypeError") = py::handle(g_optionTypeError); // the module keeps a reference

    // Bad user input is std::invalid_argument (ValueError by pybind11's default);
    // out_of_range would become IndexError, but it is bad input too.
    py::register_local_exception_translator(
        [](std::exception_ptr p)
        {
            try
            {
                if (p)
                {
                    std::rethrow_exception(p);
                }
            }
            catch (const OptionTypeError& e)
            {
                PyErr_SetString(g_optionTypeError, e.what());
            }
            catch (const std::out_of_range& e)
            {
                PyErr_SetString(PyExc_ValueError, e.what());
            }
        });

    static const std::string runTrafficDoc
        = RunDoc("Run one traffic experiment and return {'config', 'result', 'wall_seconds'}.\n"
                 "\n"
                 "Options come from the dict `config` and from keyword arguments (which win),\n"
                 "named as on the examples' command lines, with '-' or '_'. Values may be str,\n"
                 "int, float or bool. 'config' maps every option name to its typed value;\n"
                 "'result' is the summary with 'messages' and 'links' lists, as in result.json.\n"
                 "`results_dir` (optional) also writes messages.csv, links.csv, result.json and\n"
                 "the PNG plots there. Bad options raise ValueError naming the field.\n",
                 ns3::TrafficOptions());
    static const std::string runCollectiveDoc
        = RunDoc("Run a collective over a sweep of sizes, as nccl-tests does, and return\n"
                 "{'config', 'result', 'wall_seconds'}. 'result' holds the alpha-beta 'model' and\n"
                 "one entry per size in 'rows' (time_s, algbw_Bps, busbw_Bps, bound_s (the\n"
                 "contention-free alpha-beta bound), estimate_s (the shared-link estimate,\n"
                 "None where the backend has no message pattern), and\n"
                 "in functional mode 'correct'). Options as for run_traffic; `results_dir` also\n"
                 "writes collective.csv, result.json, busbw.png and time.png.\n",
                 ns3::CollectiveOptions());
    m.def("run_traffic",
          &RunTrafficPy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          runTrafficDoc.c_str());
    m.def("run_collective",
          &RunCollectivePy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          runCollectiveDoc.c_str());
    static const std::string runWaferDoc = RunDoc(
        "Run the FRED-versus-mesh wafer microbenchmarks (the fred-vs-mesh example) and\n"
        "return {'config', 'rows', 'wall_seconds'}: one row per measured group kind and\n"
        "variant, keyed like the columns of fred-vs-mesh.csv (variant, scenario, group,\n"
        "algorithm, groups, members, time_s, time_us, injected_per_npu_bytes,\n"
        "effective_GBps, paper_GBps (None where the paper gives none), npu_link_bytes,\n"
        "upper_link_bytes, io_link_bytes, io_fraction, checked). Options as for\n"
        "run_collective; list options (variants, scenarios) are comma-separated str,\n"
        "e.g. variants='mesh,fred-d'. `results_dir` also writes fred-vs-mesh.csv,\n"
        "result.json and fred-vs-mesh.png. Bad options raise ValueError naming the field.\n",
        ns3::WaferOptions());
    m.def("run_wafer",
          &RunWaferPy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          runWaferDoc.c_str());
    static const std::string runSparseDoc
        = RunDoc("Run the sparse AllReduce sweep (the sparse-allreduce example: omnireduce at\n"
                 "every density against ring and switchml, per link rate and worker count) and\n"
                 "return {'config', 'rows', 'wall_seconds'}: one row per simulation, keyed like\n"
                 "the columns of sparse-allreduce.csv (rate, workers, algorithm, density (None\n"
                 "but for omnireduce), time_s, bound_s, speedup_over_ring, checked, ...).\n"
                 "List options (tensor_bytes aside) are comma-separated str, e.g.\n"
                 "densities='1,0.1'; quick=True picks the demo sweep's defaults. `results_dir`\n"
                 "also writes sparse-allreduce.csv, result.json and the PNGs. Bad options raise\n"
                 "ValueError naming the field.\n",
                 ns3::SparseOptions());
    m.def("run_sparse",
          &RunSparsePy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          runSparseDoc.c_str());
    m.def(
        "sparse_options",
        []()
        {
            return OptionsPy(ns3::SparseOptions());
        },
        "The options of run_sparse: a list of {'name', 'help', 'default', 'kind'}.");
    static const std::string runTrainingDoc = RunDoc(
        "Run training iterations (the training example: a zoo model, a transformer by its\n"
        "shape, or an ASTRA-sim/SimAI/Chakra workload file, with a DP x TP x PP plan on a\n"
        "topology) and return {'config', 'jobs', 'ranks', 'comms', 'topology', 'events',\n"
        "'wall_seconds'}: 'jobs' one row per job and mode (together; alone when jobs > 1)\n"
        "keyed like training.csv (iteration_s, samples_per_s, mfu, hfu, compute_s,\n"
        "exposed_tp_s, ..., bubble_s, idle_s), 'ranks' the per-rank breakdown (ranks.csv),\n"
        "'comms' one row per collective, send or stream (comms.csv). `results_dir` also\n"
        "writes those files, result.json, trace.json (Perfetto) and breakdown.png.\n"
        "stats=True adds 'links', 'switches' and 'rank_stats' (per link, switch and rank\n"
        "of the run with every job: links.csv, switches.csv, rank-stats.csv;\n"
        "doc/statistics.md). Bad options raise ValueError naming the field.\n",
        ns3::TrainingOptions());
    m.def("run_training",
          &RunTrainingPy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          runTrainingDoc.c_str());
    m.def(
        "training_options",
        []()
        {
            return OptionsPy(ns3::TrainingOptions());
        },
        "The options of run_training: a list of {'name', 'help', 'default', 'kind'}.");
    static const std::string scheduleDoc = RunDoc(
        "Schedule a model's layers onto a heterogeneous catalogue, HeterPS-style (the heterps\n"
        "example without --simulate), and return result.json's dict: 'config', 'schedules' (one\n"
        "row per scheduler at the limit: feasible, throughput, hourly_price, cost, stages, ...,\n"
        "as schedules.csv), 'best_scheduler', 'plan' (plan.csv), 'sweep' (sweep.csv),\n"
        "'headline' (headline.csv: cost_ratio, lower_cost_percent, throughput_ratio, driver per\n"
        "limit and baseline), 'headline_summary' (the largest ratios per baseline), 'rl_curve'\n"
        "(mean reward per episode), 'reachable', 'wall_seconds', 'scheduler_wall_seconds'.\n"
        "`results_dir` also writes the CSV files, result.json and the PNG plots. Bad options\n"
        "raise ValueError naming the field.\n",
        ns3::HeterpsOptions());
    m.def("schedule",
          &SchedulePy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          scheduleDoc.c_str());
    static const std::string runHeterogeneousDoc = RunDoc(
        "Schedule as dlnet.schedule does, then run the best plan (exact's when it ran) on a\n"
        "simulated heterogeneous cluster (simulate=True): the same dict, with 'simulation':\n"
        "{'scheduler', 'predicted_throughput', 'simulated_throughput', 'difference', 'stages'\n"
        "(simulation.csv), 'explanation', ...}.\n",
        ns3::HeterpsOptions());
    m.def("run_heterogeneous",
          &RunHeterogeneousPy,
          py::arg("config") = py::none(),
          py::kw_only(),
          py::arg("results_dir") = py::none(),
          py::arg("ns3_attributes") = py::none(),
          runHeterogeneousDoc.c_str());
    m.def(
        "heterps_options",
        []()
        {
            return OptionsPy(ns3::HeterpsOptions());
        },
        "The options of schedule and run_heterogeneous: a list of {'name', 'help', 'default', "
        "'kind'}.");
    m.def(
        "schedule_options",
        []()
        {
            return OptionsPy(ns3::HeterpsOptions(),
                             [](const std::string& name)
                             {
                                 return name != "simulate" && !ns3::HeterpsSimulationOption(name);
                             });
        },
        "The options schedule takes (heterps_options less simulate and the simulation's: "
        "batches, warmup, run, the fabric's): a list of {'name', 'help', 'default', 'kind'}.");
    m.def(
        "run_heterogeneous_options",
        []()
        {
            return OptionsPy(ns3::HeterpsOptions(),
                             [](const std::string& name)
                             {
                                 return name != "simulate";
                             });
        },
        "The options run_heterogeneous takes (heterps_options less simulate, which it sets): "
        "a list of {'name', 'help', 'default', 'kind'}.");
    m.def("result_fields",
          &ResultFieldsPy,
          "The fields of every result row type: {table: [{'name', 'unit'}]}, in the column\n"
          "order of the CSV files (the keys of the rows the run_* functions return).");
    m.def(
        "wafer_options",
        []()
        {
            return OptionsPy(ns3::WaferOptions());
        },
        "The options of run_wafer: a list of {'name', 'help', 'default', 'kind'}.");
    m.def(
        "collective_options",
        []()
        {
            return OptionsPy(ns3::CollectiveOptions());
        },
        "The options of run_collective: a list of {'name', 'help', 'default', 'kind'}.");
    m.def(
        "traffic_options",
        []()
        {
            return OptionsPy(ns3::TrafficOptions());
        },
        "The options of run_traffic: a list of {'name', 'help', 'default', 'kind'} "
        "(name in kebab-case; '_' works too).");
}
