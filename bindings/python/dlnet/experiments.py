# SPDX-License-Identifier: GPL-2.0-only
"""Typed experiment functions and result records around the compiled core.

Every experiment function of ``dlnet._core`` (``run_traffic``,
``run_collective``, ``run_wafer``, ``run_sparse``, ``run_training``,
``schedule``, ``run_heterogeneous``) is wrapped here by a function whose
``inspect.signature`` lists every option as a keyword-only parameter with its
Python type and default, and whose docstring gives each option's one-line
help. Nothing is written out by hand: the parameters come from the core's
option tables (``_core.<kind>_options()``: the tables the examples' command
lines use) and the record types from the result writers' field tables
(``_core.result_fields()``).

The wrappers pass on only the options the caller gave (an option that does
not apply is refused by the core only when given), under the names the
caller used: kebab-case names (``**{"message-bytes": "1MiB"}``) work as
before.
"""

import inspect
import os
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

# _core: the compiled module (no stub of its own: __init__.pyi describes the package)
from . import _core  # type: ignore[attr-defined]

# The Python type of an option's value, by the core's kind of the option. Any
# option is parsed from text, so numbers also take their text with units
# ("1MiB", "1e6"); text options are str (lists comma-separated).
KIND_TYPES: Dict[str, Any] = {
    "int": Union[int, str],
    "float": Union[float, str],
    "bool": bool,
    "text": str,
    "path": Union[str, bytes, os.PathLike[str], os.PathLike[bytes]],
}

#: An option's value as a config mapping or ns3_attributes may hold it.
OptionValue = Union[str, int, float, bool]
#: Where a run writes its files (None: nowhere).
PathArg = Union[str, bytes, os.PathLike[str], os.PathLike[bytes], None]

# experiment function -> (the core's option table, its record type)
EXPERIMENTS: Dict[str, Tuple[str, str]] = {
    "run_traffic": ("traffic_options", "TrafficRun"),
    "run_collective": ("collective_options", "CollectiveRun"),
    "run_wafer": ("wafer_options", "WaferRun"),
    "run_sparse": ("sparse_options", "SparseRun"),
    "run_training": ("training_options", "TrainingRun"),
    "schedule": ("schedule_options", "HeterpsRun"),
    "run_heterogeneous": ("run_heterogeneous_options", "HeterpsRun"),
}


def record_name(table: str) -> str:
    """The record type of a result field table: 'traffic_links' -> 'TrafficLinksRow'."""
    return "".join(part.capitalize() for part in table.split("_")) + "Row"


def field_doc(field: Mapping[str, str]) -> str:
    """A result field's one-line description (its column and unit)."""
    unit = field["unit"]
    return "column %s%s" % (field["name"], " (unit: %s)" % unit if unit else "")


# The records of the runs: each key of a run's dict, as the name of a field
# table (a list of its rows), of another record, or a Python type. The row
# fields themselves all come from _core.result_fields(); "summary:" lifts the
# fields of a one-row table into the record itself.
RUN_RECORDS: Dict[str, Dict[str, Any]] = {
    "TrafficResult": {
        "summary:": "traffic_summary",
        "messages": "traffic_messages",
        "links": "traffic_links",
    },
    "TrafficRun": {
        "config": Dict[str, Any],
        "result": "TrafficResult",
        "wall_seconds": float,
    },
    "CollectiveResult": {
        "summary:": "collective_summary",
        "rows": "collective",
    },
    "CollectiveRun": {
        "config": Dict[str, Any],
        "result": "CollectiveResult",
        # stats=True only
        "links": "collective_links",
        "ranks": "collective_ranks",
        "switches": "collective_switches",
        "wall_seconds": float,
    },
    "WaferRun": {
        "config": Dict[str, Any],
        "rows": "wafer",
        "links": "wafer_links",
        "switches": "wafer_switches",
        "ranks": "wafer_ranks",
        "wall_seconds": float,
    },
    "SparseRun": {"config": Dict[str, Any], "rows": "sparse", "wall_seconds": float},
    "TrainingRun": {
        "config": Dict[str, Any],
        "jobs": "training_jobs",
        "ranks": "training_ranks",
        "comms": "training_comms",
        "links": "traffic_links",
        "link_stats": "traffic_links",
        "switches": "training_switches",
        "switch_stats": "training_switches",
        "rank_stats": "training_rank_stats",
        "topology": str,
        "network": str,
        "cluster_ranks": int,
        "events": int,
        "wall_seconds": float,
    },
    "HeterpsSimulation": {
        "scheduler": str,
        "predicted_throughput": float,
        "simulated_throughput": float,
        "difference": float,
        "simulated_seconds": float,
        "events": int,
        "ranks": int,
        "network": str,
        "explanation": str,
        "stages": "heterps_simulation",
    },
    "HeterpsRun": {
        "config": Dict[str, Any],
        "model": str,
        "layers": int,
        "batch": int,
        "catalogue": str,
        "types": List[Any],
        "schedules": "heterps_schedules",
        "best_scheduler": str,
        "plan": "heterps_plan",
        "sweep": "heterps_sweep",
        "headline": "heterps_headline",
        "headline_summary": "heterps_headline_summary",
        "rl_curve": List[Any],
        "rl_converged_episode": int,
        "reachable": float,
        "simulation": "Optional[HeterpsSimulation]",
        "wall_seconds": float,
        "scheduler_wall_seconds": Dict[str, float],
    },
}

# The table of flat rows each run gives to_rows by default (its main table).
MAIN_TABLES: Dict[str, str] = {
    "TrafficRun": "",  # one row: the summary
    "CollectiveRun": "rows",
    "WaferRun": "rows",
    "SparseRun": "rows",
    "TrainingRun": "jobs",
    "HeterpsRun": "schedules",
}


def record_fields() -> Dict[str, List[Tuple[str, Any, str]]]:
    """Every record type: name -> [(key, type, one-line doc)], from the core's tables.

    Row records (one per field table, e.g. CollectiveRow) hold the table's
    fields; run records (TrafficRun, ...) hold the keys of a run's dict.
    Row values are Any: a field is a number, a str, a bool or None (a field
    that does not apply to the row).
    """
    tables = _core.result_fields()
    out: Dict[str, List[Tuple[str, Any, str]]] = {}
    for table in sorted(tables):
        out[record_name(table)] = [(f["name"], Any, field_doc(f)) for f in tables[table]]
    for name, keys in RUN_RECORDS.items():
        fields: List[Tuple[str, Any, str]] = []
        for key, kind in keys.items():
            if key == "summary:":
                fields += [(f["name"], Any, field_doc(f)) for f in tables[kind]]
            elif isinstance(kind, str) and kind in tables:
                fields.append((key, "List[%s]" % record_name(kind), "rows of %s" % kind))
            elif isinstance(kind, str):
                fields.append((key, kind, "a record: %s" % kind))
            else:
                fields.append((key, kind, key))
        out[name] = fields
    return out


def record_order(fields: Mapping[str, Any]) -> List[str]:
    """The record names, each after the records it names: rows (sorted), then runs."""
    return sorted(n for n in fields if n not in RUN_RECORDS) + list(RUN_RECORDS)


def _make_records() -> Dict[str, Any]:
    """The record types as runtime TypedDicts (total=False: a row may omit a key)."""
    made: Dict[str, Any] = {}
    fields = record_fields()
    # row records first: run records name them
    for name in record_order(fields):
        annotations: Dict[str, Any] = {}
        for key, kind, _ in fields[name]:
            if isinstance(kind, str):
                # "List[XRow]", a record's name or "Optional[...]" of one
                kind = eval(kind, {"List": List, "Optional": Optional}, made)
            annotations[key] = kind
        record = typing.TypedDict(name, annotations, total=False)  # type: ignore[misc]
        record.__doc__ = "%s: a dict with the keys\n\n%s\n" % (
            name,
            "\n".join("  %s: %s" % (key, doc) for key, _, doc in fields[name]),
        )
        record.__module__ = "dlnet"
        made[name] = record
    return made


RECORDS: Dict[str, Any] = _make_records()


def python_name(option: str) -> str:
    """An option's keyword-argument name: 'message-bytes' -> 'message_bytes'."""
    return option.replace("-", "_")


def options_of(function: str) -> List[Dict[str, Any]]:
    """The options of an experiment function: [{'name', 'help', 'default', 'kind'}]."""
    return list(getattr(_core, EXPERIMENTS[function][0])())


def _signature(function: str) -> inspect.Signature:
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter(
            "config",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=None,
            annotation=Optional[Mapping[str, OptionValue]],
        )
    ]
    for o in options_of(function):
        params.append(
            inspect.Parameter(
                python_name(o["name"]), kw, default=o["default"], annotation=KIND_TYPES[o["kind"]]
            )
        )
    params.append(inspect.Parameter("results_dir", kw, default=None, annotation=PathArg))
    params.append(
        inspect.Parameter(
            "ns3_attributes", kw, default=None, annotation=Optional[Mapping[str, OptionValue]]
        )
    )
    return inspect.Signature(params, return_annotation=RECORDS[EXPERIMENTS[function][1]])


def _doc(function: str, core: Callable[..., Any]) -> str:
    header = (core.__doc__ or "").split("\nOptions (default):")[0]
    # pybind11 puts the core's own signature first; the wrapper has its own
    lines = header.splitlines()
    if lines and lines[0].startswith(function + "("):
        lines = lines[1:]
    out = "\n".join(lines).strip("\n") + "\n\nParameters (type, default: help):\n"
    out += "  config (dict or None, None): options as a mapping; keyword arguments win\n"
    for o in options_of(function):
        kind = {"text": "str", "int": "int or str", "float": "float or str",
                "path": "path"}.get(o["kind"], o["kind"])
        out += "  %s (%s, %r): %s\n" % (python_name(o["name"]), kind, o["default"], o["help"])
    out += "  results_dir (path or None, None): folder for the CSV, JSON and plot files\n"
    out += "  ns3_attributes (dict or None, None): {'ns3::Type::Attribute': value} to set\n"
    return out


def _wrap(function: str) -> Callable[..., Any]:
    core = getattr(_core, function)

    def run(
        config: Optional[Mapping[str, OptionValue]] = None,
        *,
        results_dir: PathArg = None,
        ns3_attributes: Optional[Mapping[str, OptionValue]] = None,
        **options: OptionValue,
    ) -> Any:
        if config is not None and not isinstance(config, Mapping):
            # a wrong type is a TypeError and, by dlnet's contract, a ValueError
            raise _core.OptionTypeError(
                "config: expected a dict of options (or None), got %s" % type(config).__name__
            )
        given = dict(config) if config is not None else None
        return core(given, results_dir=results_dir, ns3_attributes=ns3_attributes, **options)

    run.__name__ = run.__qualname__ = function
    run.__module__ = "dlnet"
    run.__doc__ = _doc(function, core)
    run.__signature__ = _signature(function)  # type: ignore[attr-defined]
    return run


run_traffic = _wrap("run_traffic")
run_collective = _wrap("run_collective")
run_wafer = _wrap("run_wafer")
run_sparse = _wrap("run_sparse")
run_training = _wrap("run_training")
schedule = _wrap("schedule")
run_heterogeneous = _wrap("run_heterogeneous")


def _not_a_run(result: Mapping[str, Any], why: str) -> ValueError:
    return ValueError("result: not the dict of a dlnet run (keys %s): %s"
                      % (sorted(result, key=str), why))


def _record_of(result: Mapping[str, Any]) -> str:
    """Which run record a run's dict is (by its keys); refused unless it holds what to_rows
    reads: a dict 'config', the main table as a list of dicts (and for traffic and
    collective runs a dict 'result' and 'wall_seconds')."""
    if not isinstance(result, Mapping):
        raise ValueError("result: expected the dict of a dlnet run, got %s"
                         % type(result).__name__)
    record = ""
    if "result" in result:
        if not isinstance(result["result"], Mapping):
            raise _not_a_run(result, "'result' is not a dict")
        if "wall_seconds" not in result:
            raise _not_a_run(result, "no 'wall_seconds'")
        record = "CollectiveRun" if "rows" in result["result"] else "TrafficRun"
    for name in ("TrainingRun", "HeterpsRun"):
        if not record and MAIN_TABLES[name] in result:
            record = name
    if not record and "rows" in result:
        record = "WaferRun"
    if not record:
        raise ValueError("result: not the dict of a dlnet run (keys %s)" % sorted(result, key=str))
    if not isinstance(result.get("config"), Mapping):
        raise _not_a_run(result, "'config' is not a dict of options")
    table = MAIN_TABLES[record]
    body = result["result"] if record in ("TrafficRun", "CollectiveRun") else result
    if table and not (isinstance(body[table], list)
                      and all(isinstance(row, Mapping) for row in body[table])):
        raise _not_a_run(result, "%r is not a list of rows (dicts)" % table)
    if record == "WaferRun" and "speedup_over_ring" in (result["rows"] or [{}])[0]:
        return "SparseRun"
    return record


def to_rows(result: Mapping[str, Any], table: Optional[str] = None) -> List[Dict[str, Any]]:
    """Flat rows of a run's result, for csv.DictWriter or pandas.DataFrame.

    One row per row of the run's main table (collective: 'rows'; wafer and
    sparse: 'rows'; training: 'jobs'; schedule: 'schedules'; traffic: one row,
    the summary), or of `table` when given (e.g. 'links', 'ranks', 'comms',
    'plan'). Every row holds every config option (column named as the
    option, e.g. 'link-rate'; 'config.NAME' where a result field has the same
    name), the run's scalar fields (e.g. 'wall_seconds') and the row's fields.
    Raises ValueError when `table` is not a table of the result.
    """
    record = _record_of(result)
    scalars: Dict[str, Any] = {}
    body: Mapping[str, Any] = result
    if record in ("TrafficRun", "CollectiveRun"):
        body = result["result"]
        scalars["wall_seconds"] = result["wall_seconds"]
    for key, value in body.items():
        if key != "config" and not isinstance(value, (list, dict)):
            scalars[key] = value
    name = MAIN_TABLES[record] if table is None else table
    if name == "":
        rows: List[Mapping[str, Any]] = [{}]
    else:
        tables = [k for k, v in body.items() if isinstance(v, list)]
        if name not in tables:
            raise ValueError("table: %r is not a table of this result; allowed: %s" % (name, ", ".join(tables)))
        rows = body[name]
    out = []
    for row in rows:
        flat: Dict[str, Any] = {}
        fields = dict(scalars)
        if isinstance(row, Mapping):
            fields.update(row)
        else:
            fields[name] = row
        for key, value in result["config"].items():
            flat["config." + key if key in fields else key] = value
        flat.update(fields)
        out.append(flat)
    return out


__all__ = list(EXPERIMENTS) + sorted(RECORDS) + ["to_rows", "OptionValue", "PathArg"]
globals().update(RECORDS)
