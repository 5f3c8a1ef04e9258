# SPDX-License-Identifier: GPL-2.0-only
"""Parameter sweeps (``dlnet.sweep``): many experiments, one table, each point in its own process.

For example::

    import dlnet
    rows = dlnet.sweep("collective",
                       {"topology": ["star", "fat-tree"], "algorithm": ["ring", "direct"]},
                       results="results/my-sweep", workers=2)

Every point of the grid runs in a fresh process (ns-3 keeps global state):
a local ``ProcessPoolExecutor`` (start method ``spawn``, one task per
child) by default, or tasks on a Dask cluster when ``client=`` (a
``dask.distributed.Client``) or ``scheduler="tcp://host:8786"`` is given; a
Dask task starts the point in a child interpreter of the worker, so a point
runs the same way on both. Dask is imported only when asked for.

Results folder layout (``results=``):

- ``points/<key>.json``: one file per finished point (its experiment,
  options, seed, status, error and result rows), written atomically (a
  temporary file renamed) as soon as the point finishes. ``<key>`` is the
  SHA-256 (first 16 hex digits) of the point's full configuration: the
  experiment, every option and the seed. A point whose file exists is not
  run again, so a killed sweep resumes where it stopped and losing at most
  the points in flight. Each file records the dlnet build that computed it
  (``build``: a SHA-256 of the extension module and the ``libns3-dlnet*.so``
  libraries beside the one it loads); a point recorded by another build (or
  before builds were recorded) is run again, so that a rebuilt dlnet never
  serves a table of the old one's results. So is a point whose file is
  damaged: not a regular file of at most 64 MiB (``MAX_POINT_BYTES``) holding
  a point's record (a folder in its place is left alone: that point is then
  run at every sweep). The sweep says how many it runs again for each reason.
- ``sweep.csv`` (and ``sweep.parquet`` when pandas and pyarrow import): the
  table, rewritten at the end of every sweep from the point files of this
  grid, in grid order (not completion order), so that the same grid gives the
  same bytes whatever ran it.

Seeds: when the grid (or ``fixed``) gives ``seed`` it is used as given;
otherwise each point's seed is derived from the sweep's ``seed`` and the
SHA-256 of the point's other options: ``1 + int(sha256(f"{seed}:{options}")[:8], 16) %
(2**31 - 1)``. So a point keeps its seed when the grid around it changes,
and two sweeps with different ``seed`` draw different seeds.

A sweep runs at most ``MAX_POINTS`` (10^6) points; a larger grid is refused
before any runs. Option names are text, and 'min-bytes' and 'min_bytes' spell
one option: grid, zip and fixed must not give one twice.
"""

import concurrent.futures
import csv
import hashlib
import importlib
import importlib.util
import inspect
import io
import itertools
import json
import math
import multiprocessing
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from typing import (Any, Callable, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Set,
                    TextIO, Tuple, Union, overload)

from .plot import NAME_MAX, PATH_MAX

__all__ = ["sweep", "points", "EXPERIMENTS"]

# Experiment names -> (function in dlnet, how its output becomes rows).
EXPERIMENTS = {
    "traffic": "run_traffic",
    "collective": "run_collective",
    "wafer": "run_wafer",
    "sparse": "run_sparse",
    "training": "run_training",
    "schedule": "schedule",
    "heterogeneous": "run_heterogeneous",
}
_OPTIONS = {
    "run_traffic": "traffic_options",
    "run_collective": "collective_options",
    "run_wafer": "wafer_options",
    "run_sparse": "sparse_options",
    "run_training": "training_options",
    "schedule": "schedule_options",
    "run_heterogeneous": "run_heterogeneous_options",
}
# The most points a sweep runs: a larger grid is refused before its points are listed.
MAX_POINTS = 10**6
# The largest point file read back: a larger one is damaged (run again), not loaded.
MAX_POINT_BYTES = 64 << 20
# The longest name written in points/ (NAME_MAX and PATH_MAX: plot's, Linux's).
_LONGEST_POINT_NAME = len(os.path.join("points", ".tmp-XXXXXXXX.part")) + 1
# Columns the sweep adds in front of the parameters and results.
META = ["point", "seed"]
STATUS = ["status", "error_type", "error"]

# A table row, a point's options, a point's record and a job: JSON objects (str keys, values of
# any JSON type: the experiment decides).
Row = Dict[str, Any]
Record = Dict[str, Any]
Job = Dict[str, Any]
# dlnet.sweep's grid and zip arguments: option name -> a list of values.
Table = Mapping[str, Iterable[Any]]
PathArg = Union[str, "os.PathLike[str]"]


def _scalars(record: Mapping[str, Any]) -> Row:
    return {k: v for k, v in record.items() if not isinstance(v, (list, dict))}


def _rows_of(function_name: str, out: Any) -> Any:
    """The result rows of one dlnet experiment's output."""
    if function_name == "run_collective":
        return out["result"]["rows"]
    if function_name == "run_traffic":
        return [_scalars(out["result"])]
    if function_name in ("run_wafer", "run_sparse"):
        return out["rows"]
    if function_name == "run_training":
        return out["jobs"]
    if function_name in ("schedule", "run_heterogeneous"):
        return out["schedules"]
    return [out]


def _reference(experiment: Union[str, Callable[..., Any]]) -> str:
    """'module:qualname' of the experiment (a dlnet name or an importable function)."""
    if isinstance(experiment, str):
        if ":" in experiment:
            return experiment
        name = EXPERIMENTS.get(experiment, experiment)
        if name not in _OPTIONS:
            raise ValueError(
                f"experiment: '{experiment}' is not one of {', '.join(sorted(EXPERIMENTS))} "
                "(or a function, or 'module:function')"
            )
        return "dlnet:" + name
    if callable(experiment):
        module = getattr(experiment, "__module__", None)
        qualname = getattr(experiment, "__qualname__", None)
        if module == "dlnet._core":
            module = "dlnet"
        if not module or not qualname or "<" in qualname:
            raise ValueError(
                "experiment: a function must be importable by the workers (defined at the top "
                "level of a module), not a lambda or a nested function"
            )
        return f"{module}:{qualname}"
    raise ValueError(f"experiment: expected a name or a function, got {type(experiment).__name__}")


def _resolve(reference: str, main_path: Optional[str] = None) -> Any:
    module, _, qualname = reference.partition(":")
    if module == "__main__" and main_path:
        # A function of the caller's script: load the script under another name (its
        # `if __name__ == "__main__"` block does not run) in the worker.
        name = "__dlnet_sweep_main__"
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, main_path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load the script {main_path} as a module")
            sys.modules[name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(sys.modules[name])
        target: Any = sys.modules[name]
    else:
        target = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def _keywords(reference: str) -> Optional[Tuple[Set[str], bool]]:
    """The keyword parameters of the experiment and whether it takes any other (**kwargs);
    None where its signature cannot be read. dlnet's functions have their options'."""
    try:
        # in this (the calling) process, __main__ is the caller's script itself
        parameters = inspect.signature(_resolve(reference)).parameters.values()
    except (TypeError, ValueError):
        return None
    names = {p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return names, any(p.kind == p.VAR_KEYWORD for p in parameters)


def _accepts_seed(reference: str) -> bool:
    keywords = _keywords(reference)
    return keywords is not None and ("seed" in keywords[0] or keywords[1])


def _check_importable(reference: str) -> None:
    """Refuse, naming experiment, a 'module:function' this process cannot import."""
    try:
        # in this (the calling) process, __main__ is the caller's script itself
        function = _resolve(reference)
    except Exception as e:  # importing the module runs its code: any error may come
        raise ValueError(f"experiment: cannot import {reference!r} ({type(e).__name__}: {e})"
                         ) from None
    if not callable(function):
        raise ValueError(f"experiment: {reference!r} is {type(function).__name__}, not a function")


def _check_option_names(reference: str, tables: Mapping[str, Optional[Mapping[str, Any]]]) -> None:
    """Refuse, naming the argument, an option the experiment does not take: every point would
    run and fail on it. A function taking **kwargs (not one of dlnet's) takes any name."""
    module, _, name = reference.partition(":")
    ours = module == "dlnet" and name in _OPTIONS
    keywords = _keywords(reference)
    if keywords is None or (not ours and keywords[1]):
        return
    taken = keywords[0]
    for where, table in tables.items():
        for option in table or {}:
            # (dlnet's options take either spelling: message-bytes, message_bytes)
            spelled = option.replace("-", "_") if ours and isinstance(option, str) else option
            if spelled in taken:
                continue  # (seed too, where the function takes it: else it would be dropped)
            help_text = (f"dlnet.{_OPTIONS[name]}() lists its options" if ours
                         else "its parameters: " + ", ".join(sorted(taken)))
            raise ValueError(f"{where}: {option!r} is not an option of {name} ({help_text})")


def _results_folder(results: PathArg) -> str:
    """The results folder as a path, refused (naming results) where a sweep could not keep
    its points and table: checked before any point runs."""
    try:
        folder = os.fspath(results)
    except TypeError:
        folder = None
    if not isinstance(folder, str):
        raise ValueError(f"results: expected a folder path (str or os.PathLike), got "
                         f"{type(results).__name__}")
    if "\0" in folder:
        raise ValueError(f"results: {folder!r} holds a NUL character")
    try:
        encoded = os.fsencode(folder)
    except UnicodeEncodeError:
        raise ValueError(f"results: {folder!r} is not a valid file name") from None
    if len(encoded) + _LONGEST_POINT_NAME > PATH_MAX or any(
            len(part) > NAME_MAX for part in encoded.split(os.fsencode(os.sep))):
        raise ValueError(f"results: {folder[:60]!r}... is too long (at most {NAME_MAX} bytes a "
                         f"component, {PATH_MAX - _LONGEST_POINT_NAME} in all)")
    points_folder = os.path.join(folder, "points")
    for path in (folder, points_folder):
        if os.path.exists(path) and not os.path.isdir(path):
            raise ValueError(f"results: {path!r} is not a folder")
    for name in ("sweep.csv", "sweep.parquet"):
        if os.path.isdir(os.path.join(folder, name)):
            raise ValueError(f"results: {os.path.join(folder, name)!r} is a folder, where the "
                             "sweep writes its table")
    try:
        os.makedirs(points_folder, exist_ok=True)
    except OSError as e:
        raise ValueError(f"results: cannot make the folder {points_folder!r}: "
                         f"{e.strerror or e}") from None
    if not all(os.access(path, os.W_OK | os.X_OK) for path in (folder, points_folder)):
        raise ValueError(f"results: cannot write in {points_folder!r}")
    return folder


def _read_point(path: str, key: str) -> Optional[Record]:
    """The record of a point file, or None when the file is damaged: not a regular file of
    at most MAX_POINT_BYTES, not UTF-8 JSON, or not a record of the point."""
    try:
        # non-blocking: a FIFO in the file's place must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_POINT_BYTES:
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(MAX_POINT_BYTES + 1)
        except OSError:
            return None
    if len(data) > MAX_POINT_BYTES:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not (isinstance(record, dict) and record.get("point") == key and "seed" in record
            and isinstance(record.get("options"), dict)
            and record.get("status") in ("ok", "failed")
            and isinstance(record.get("error_type"), str) and isinstance(record.get("error"), str)
            and isinstance(record.get("rows"), list)
            and all(isinstance(row, dict) for row in record["rows"])):
        return None
    return record


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def points(grid: Optional[Table], zip: Optional[Table] = None,  # noqa: A002 (the documented keyword)
           fixed: Optional[Mapping[str, Any]] = None) -> List[Row]:
    """The option dicts of a sweep, in order: the cartesian product of ``grid``
    (dict name -> list, the last name varying fastest) times the rows of
    ``zip`` (dict name -> list, all lists of one length, varying together),
    each merged with ``fixed`` (dict of options every point shares).
    At most MAX_POINTS points; option names are text ('a-b' and 'a_b' are one)."""
    given: Dict[str, Dict[str, Any]] = {"grid": _options(grid, "grid"), "zip": _options(zip, "zip")}
    fixed = _options(fixed, "fixed")
    lists: Dict[str, Dict[str, List[Any]]] = {"grid": {}, "zip": {}}
    for where, table in given.items():
        for name, values in table.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise ValueError(f"{where}['{name}']: expected a list of values, got {values!r}")
            # one more than a sweep takes, to refuse a longer list (or an endless iterator)
            lists[where][name] = list(itertools.islice(values, MAX_POINTS + 1))
            if not lists[where][name]:
                raise ValueError(f"{where}['{name}']: the list is empty")
    grid_lists, zipped = lists["grid"], lists["zip"]
    lengths = {len(v) for v in zipped.values()}
    if len(lengths) > 1:
        raise ValueError(
            "zip: the lists must have one length, got "
            + ", ".join(f"{k}={len(v)}" for k, v in zipped.items())
        )
    spellings: Dict[str, str] = {}  # as a keyword ('min_bytes') -> as given first
    for name in itertools.chain(grid_lists, zipped, fixed):  # a dict holds a name once
        spelling = name.replace("-", "_")
        if spelling in spellings:  # another table's, or the other spelling
            first = spellings[spelling]
            also = f", also as '{first}'" if first != name else ""
            raise ValueError(f"{name}: given twice{also} (grid, zip and fixed must not share a "
                             "name; - and _ spell one option)")
        spellings[spelling] = name
    count = math.prod(len(v) for v in grid_lists.values()) * max(lengths, default=1)
    if count > MAX_POINTS:
        cut = any(len(v) > MAX_POINTS for v in [*grid_lists.values(), *zipped.values()])
        sizes = [str(len(v)) for v in grid_lists.values()] + (
            [f"{max(lengths)} zipped"] if zipped else [])
        raise ValueError(f"grid: {'at least ' if cut else ''}{count} points ({' x '.join(sizes)}) "
                         f"is more than {MAX_POINTS}, the most a sweep runs")
    zipped_rows: List[Row] = [dict(_zip(zipped, values)) for values in _zip(*zipped.values())] if zipped else [{}]
    result: List[Row] = []
    for values in itertools.product(*grid_lists.values()):
        for zrow in zipped_rows:
            options = dict(fixed)
            options.update(_zip(grid_lists, values))
            options.update(zrow)
            result.append(options)
    return result


_zip = zip  # the builtin, shadowed by the keyword argument of points() and sweep()


def _options(table: Optional[Mapping[str, Any]], where: str) -> Dict[str, Any]:
    """grid, zip or fixed as a dict with text keys (None: empty)."""
    try:
        options = dict(table or {})
    except (TypeError, ValueError):
        raise ValueError(f"{where}: expected a dict option -> value, got "
                         f"{type(table).__name__}") from None
    for name in options:
        if not isinstance(name, str):
            raise ValueError(f"{where}: option names are text, got {name!r}")
    return options


def _seed_of(options: Mapping[str, Any], sweep_seed: int) -> int:
    digest = hashlib.sha256(f"{sweep_seed}:{_canonical(options)}".encode()).hexdigest()
    return 1 + int(digest[:8], 16) % (2**31 - 1)


# digests by the files hashed, with their sizes and times: a rebuild changes them
_DIGESTS: Dict[Any, str] = {}


def _build() -> str:
    """The dlnet build on disk where this process loads it from: a digest of its compiled files.

    Read again at each call (kept while the files' sizes and times stay): a session that
    rebuilt dlnet sees the new build, which its spawned workers load.
    """
    core = importlib.import_module("dlnet._core")  # compiled: no stub for mypy to read
    files = [os.path.realpath(str(core.__file__))]
    # the library the module loaded (shown "(deleted)" once rebuilt), and the modules beside
    # it loaded on first use (the RL scheduler's), whether loaded yet or not
    folder = ""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                path = fields[5].strip().removesuffix(" (deleted)") if len(fields) == 6 else ""
                if os.path.basename(path).startswith("libns3-dlnet"):
                    folder = os.path.dirname(path)
                    break
    except OSError:
        pass  # not Linux: the extension module alone
    if folder and os.path.isdir(folder):
        files += sorted(os.path.join(folder, name) for name in os.listdir(folder)
                        if name.startswith("libns3-dlnet") and ".so" in name)
    stamp = tuple((path, os.stat(path).st_size, os.stat(path).st_mtime_ns) for path in files)
    if stamp not in _DIGESTS:
        digest = hashlib.sha256()
        for path in files:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        _DIGESTS[stamp] = digest.hexdigest()[:16]
    return _DIGESTS[stamp]


def _key(reference: str, options: Mapping[str, Any], seed: Any) -> str:
    config = {"experiment": reference, "options": options, "seed": seed}
    return hashlib.sha256(_canonical(config).encode()).hexdigest()[:16]


def _run_point(job: Job) -> Record:
    """Run one point and return its record (runs in the worker's process)."""
    reference, options, seed, pass_seed = job["experiment"], job["options"], job["seed"], job[
        "pass_seed"]
    record: Record = {"point": job["key"], "experiment": reference, "options": options, "seed": seed,
              "status": "ok", "error_type": "", "error": "", "rows": [], "wall_seconds": 0.0,
              "build": _build()}  # the worker's own: a Dask worker may run another build
    start = time.monotonic()
    try:
        function = _resolve(reference, job.get("main_path"))
        arguments = dict(options)
        if pass_seed:
            arguments["seed"] = seed
        out = function(**arguments)
        module, _, name = reference.partition(":")
        rows = _rows_of(name, out) if module == "dlnet" else out
        if isinstance(rows, dict):
            rows = [rows]
        record["rows"] = [dict(r) for r in rows]
    except Exception as e:  # recorded per point; the sweep goes on
        record.update(status="failed", error_type=type(e).__name__, error=str(e), rows=[])
    record["wall_seconds"] = time.monotonic() - start
    plain: Record = json.loads(_canonical(record))  # plain JSON types, as the file will hold
    return plain


def _run_point_in_child(job: Job) -> Record:
    """A Dask task: run the point in a fresh interpreter (ns-3's global state)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    command = [sys.executable, "-c", "from dlnet.sweeps import _main; _main()"]
    done = subprocess.run(command, input=json.dumps(job),
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        # (as the local pool says it; a signal's name where it died of one: -6 was all it said)
        how = (f"signal {signal.Signals(-done.returncode).name}" if done.returncode < 0
               and -done.returncode in signal.Signals._value2member_map_
               else f"exit status {done.returncode}")
        stderr = done.stderr.strip()[-2000:]
        return _crashed(job, f"the worker process died (a crash, not an exception: {how})"
                        + (f": {stderr}" if stderr else ""))
    record: Record = json.loads(done.stdout.strip().splitlines()[-1])
    return record


def _write_atomically(path: str, text: str) -> None:
    folder = os.path.dirname(path)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return _canonical(value)
    return value


def _table(records: Iterable[Record], parameter_names: Sequence[str]) -> List[Row]:
    """One row per result row of every record (one row for a failed point)."""
    rows: List[Row] = []
    for record in records:
        base = {"point": record["point"], "seed": record["seed"]}
        base.update({name: _cell(record["options"].get(name, "")) for name in parameter_names})
        base.update({"status": record["status"], "error_type": record["error_type"],
                     "error": record["error"]})
        for result in record["rows"] or [{}]:
            row = dict(base)
            for name, value in result.items():
                if name in base and str(base[name]) == str(_cell(value)):
                    continue  # the option, echoed by the result (e.g. 'algorithm')
                row[f"{name}_result" if name in base else name] = _cell(value)
            rows.append(row)
    return rows


def _columns(rows: Iterable[Mapping[str, Any]]) -> List[str]:
    columns: Dict[str, None] = {}
    for row in rows:
        for name in row:
            columns.setdefault(name, None)
    return list(columns)


def _write_table(folder: PathArg, rows: List[Row]) -> List[str]:
    columns = _columns(rows)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    _write_atomically(os.path.join(folder, "sweep.csv"), text.getvalue())
    written = ["sweep.csv"]
    try:
        # no type information in Debian's pandas and pyarrow: untyped on purpose
        import pandas  # type: ignore[import]  # noqa: F401
        import pyarrow  # type: ignore[import]  # noqa: F401
    except ImportError:
        return written
    frame = pandas.DataFrame(rows, columns=columns)
    temporary = os.path.join(folder, ".tmp-sweep.parquet")
    frame.to_parquet(temporary, index=False)
    os.replace(temporary, os.path.join(folder, "sweep.parquet"))
    return written + ["sweep.parquet"]


def _clock(seconds: float) -> str:
    whole = int(round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class _Progress:
    def __init__(self, total: int, skipped: int, enabled: bool, stream: TextIO) -> None:
        self.total, self.done, self.failed, self.ran = total, skipped, 0, 0
        self.skipped = skipped
        self.enabled, self.stream = enabled, stream
        self.start = time.monotonic()
        self.tty: bool = enabled and hasattr(stream, "isatty") and stream.isatty()
        self.show()

    def add(self, record: Record) -> None:
        self.done += 1
        self.ran += 1
        self.failed += record["status"] != "ok"
        self.show()

    def show(self, final: bool = False) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        left = self.total - self.done
        eta = _clock(elapsed / self.ran * left) if self.ran else "?"
        bar_width = 24
        filled = bar_width * self.done // self.total if self.total else bar_width
        line = (f"sweep [{'#' * filled}{'.' * (bar_width - filled)}] {self.done}/{self.total} points"
                f" ({self.skipped} already done), {self.failed} failed, {_clock(elapsed)} elapsed,"
                f" {eta} left")
        if self.tty and not final:
            self.stream.write("\r" + line)
        else:
            self.stream.write(("\r" if self.tty else "") + line + "\n")
        self.stream.flush()


@overload
def sweep(experiment: Union[str, Callable[..., Any]], grid: Optional[Table] = None, *,
          zip: Optional[Table] = None, fixed: Optional[Mapping[str, Any]] = None,
          results: PathArg = "results/sweep", workers: Optional[int] = None,
          client: Any = None, scheduler: Optional[str] = None, seed: int = 1,
          progress: bool = True, frame: Literal[False] = False) -> List[Row]: ...


@overload
def sweep(experiment: Union[str, Callable[..., Any]], grid: Optional[Table] = None, *,
          zip: Optional[Table] = None, fixed: Optional[Mapping[str, Any]] = None,
          results: PathArg = "results/sweep", workers: Optional[int] = None,
          client: Any = None, scheduler: Optional[str] = None, seed: int = 1,
          progress: bool = True, frame: bool) -> Any: ...  # True: a pandas DataFrame


def sweep(experiment: Union[str, Callable[..., Any]], grid: Optional[Table] = None, *,
          zip: Optional[Table] = None, fixed: Optional[Mapping[str, Any]] = None,
          results: PathArg = "results/sweep", workers: Optional[int] = None,
          client: Any = None, scheduler: Optional[str] = None, seed: int = 1,
          progress: bool = True, frame: bool = False) -> Any:
    """Run ``experiment`` at every point of a parameter grid and return one table.

    Args:
        experiment: a dlnet experiment name ('collective', 'traffic', 'wafer', 'sparse',
            'training', 'schedule', 'heterogeneous'), a dlnet function (dlnet.run_collective),
            any top-level function taking keyword arguments and returning a dict or a list of
            dicts (rows), or its 'module:function' name. Workers import it by name; a function
            of the running script (__main__) is loaded from the script's file (local pool, or
            Dask workers that see the same file), so guard the script's own work with
            ``if __name__ == "__main__":`` (the spawned workers import it).
        grid: dict option -> list of values; every combination is a point.
        zip: dict option -> list, all of one length: the i-th values go together. A value None
            means "not passed" (an option that applies to some topologies only).
        fixed: dict of options every point shares (columns of the table too).
        results: folder of points/<key>.json, sweep.csv (and sweep.parquet); resumable. A
            damaged point file is run again (see the module's doc).
        workers: processes of the local pool (default os.cpu_count()); refused with
            client or scheduler.
        client / scheduler: a dask.distributed.Client, or a scheduler address to connect to;
            either runs the points on that Dask cluster instead of the local pool.
        seed: the sweep's seed, from which each point's seed derives (unless the grid or
            ``fixed`` gives 'seed'); see the module's doc.
        progress: a progress line on stderr (points done/total, failed, time left).
        frame: return a pandas DataFrame instead of a list of dicts.

    Returns:
        One row per result row (a collective point gives one per size) with the
        columns point (the key), seed, every option, status ('ok' or 'failed'),
        error_type, error, then the experiment's result fields (a field named like an
        option is left out when it echoes the option's value, else gets the suffix '_result'). A failed point is one row with its error.

    Bad arguments raise ValueError naming the field, before any point runs.
    """
    reference = _reference(experiment)
    # (bool is an int to Python: workers=True was one worker, seed=True another seed than 1)
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                or workers < 1):
        raise ValueError(f"workers: expected an integer >= 1, got {workers!r}")
    if client is not None and scheduler is not None:
        raise ValueError("client, scheduler: give one of them, not both")
    if client is not None and not callable(getattr(client, "submit", None)):
        raise ValueError(f"client: expected a dask.distributed.Client, got {type(client).__name__}")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        got = repr(scheduler) if isinstance(scheduler, str) else type(scheduler).__name__
        raise ValueError(f"scheduler: expected an address such as 'tcp://host:8786', got {got}")
    if workers is not None and (client is not None or scheduler is not None):
        # the Dask cluster has its own workers: the pool's size was taken and ignored
        raise ValueError("workers: sizes the local process pool only; with client or "
                         "scheduler the Dask cluster's workers run the points (leave it out)")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")
    if not results:
        raise ValueError("results: a folder is required (points are kept there to resume)")
    if frame:
        try:
            import pandas  # noqa: F401
        except ImportError as e:
            raise ValueError("frame: True needs pandas (Debian python3-pandas); "
                             "frame=False returns a list of dicts") from e
    all_options = points(grid, zip, fixed)
    if not all_options:
        raise ValueError("grid: no points")
    parameter_names = _columns(all_options)
    main_path: Optional[str] = None
    if reference.startswith("__main__:"):
        main_path = os.path.abspath(getattr(sys.modules["__main__"], "__file__", "") or "")
        if not os.path.isfile(main_path):
            raise ValueError("experiment: a function of __main__ needs a script file (not an "
                             "interactive session): define it in a module")
    _check_importable(reference)
    _check_option_names(reference, {where: _options(table, where) for where, table in
                                    (("grid", grid), ("zip", zip), ("fixed", fixed))})
    pass_seed = _accepts_seed(reference)
    results = _results_folder(results)

    jobs: List[Job] = []
    for given_options in all_options:
        options = {k: v for k, v in given_options.items() if v is not None}  # None: not passed
        point_seed: Any
        if "seed" in options:
            point_seed = options["seed"]
            options = {k: v for k, v in options.items() if k != "seed"}
        else:
            point_seed = _seed_of(options, seed)
        jobs.append({"experiment": reference, "options": options, "seed": point_seed,
                     "pass_seed": pass_seed, "main_path": main_path,
                     "key": _key(reference, options, point_seed), "build": _build()})
    parameter_names = [n for n in parameter_names if n != "seed"]

    point_folder = os.path.join(results, "points")
    records: Dict[str, Optional[Record]] = {}
    pending: List[Job] = []
    stale = damaged = 0
    for job in jobs:
        path = os.path.join(point_folder, job["key"] + ".json")
        if job["key"] in records:
            continue  # the same point twice in the grid
        if os.path.lexists(path):
            record = _read_point(path, job["key"])
            if record is None:
                damaged += 1
            elif record.get("build") == job["build"]:
                records[job["key"]] = record
                continue
            else:
                stale += 1
        records[job["key"]] = None
        pending.append(job)
    if stale and progress:
        print(f"sweep: {stale} point(s) in {point_folder} were computed by another dlnet build; "
              "running them again", file=sys.stderr)
    if damaged and progress:
        print(f"sweep: {damaged} point file(s) in {point_folder} are damaged (not a regular file "
              f"of at most {MAX_POINT_BYTES >> 20} MiB holding the point's record); running them "
              "again", file=sys.stderr)
    bar = _Progress(len(records), len(records) - len(pending), progress, sys.stderr)

    def finished(record: Record) -> None:
        path = os.path.join(point_folder, record["point"] + ".json")
        # a folder in the file's place (a damaged point): left alone, the table has the point
        if not os.path.isdir(path):
            _write_atomically(path, _canonical(record) + "\n")
        records[record["point"]] = record
        bar.add(record)

    if pending:
        if client is not None or scheduler is not None:
            _run_on_dask(pending, client, scheduler, finished)
        else:
            _run_on_pool(pending, workers or os.cpu_count() or 1, finished)
    if progress and bar.tty:
        bar.show(final=True)

    done: List[Record] = []
    for job in jobs:
        record = records[job["key"]]
        if record is None:  # every pending point reports a record (or the run raised)
            raise RuntimeError(f"point {job['key']}: the sweep got no record for it")
        done.append(record)
    table = _table(done, parameter_names)
    _write_table(results, table)
    if frame:
        import pandas

        return pandas.DataFrame(table, columns=_columns(table))
    return table


def _crashed(job: Job, detail: str) -> Record:
    return dict(point=job["key"], experiment=job["experiment"], options=job["options"],
                seed=job["seed"], status="failed", error_type="WorkerError",
                error=detail, rows=[], wall_seconds=0.0, build=job["build"])


def _run_on_pool(jobs: List[Job], workers: int, finished: Callable[[Record], None]) -> None:
    # spawn, not forkserver: a forkserver keeps the environment and sys.path of the first
    # sweep of the process, spawn starts every point from the caller's current ones.
    context = multiprocessing.get_context("spawn")
    broken: List[Job] = []  # a worker died (a crash, not an exception): the pool cannot tell whose
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                                max_tasks_per_child=1) as pool:
        futures: Dict["concurrent.futures.Future[Record]", Job] = {pool.submit(_run_point, job): job for job in jobs}
        try:
            for future in concurrent.futures.as_completed(futures):
                try:
                    record = future.result()
                except concurrent.futures.process.BrokenProcessPool:
                    broken.append(futures[future])
                    continue
                finished(record)
        except BaseException:  # Ctrl-C: do not start the points still queued
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    # Each point the broken pool lost runs alone: the one that dies again is recorded.
    for job in sorted(broken, key=jobs.index):
        with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as alone:
            try:
                finished(alone.submit(_run_point, job).result())
            except concurrent.futures.process.BrokenProcessPool:
                finished(_crashed(job, "the worker process died (a crash, not an exception)"))


def _run_on_dask(jobs: List[Job], client: Any, scheduler: Optional[str],
                 finished: Callable[[Record], None]) -> None:
    try:
        import distributed
    except ImportError as e:
        raise ValueError("client/scheduler: Dask is not installed (Debian: python3-distributed)"
                         ) from e
    own = client is None
    if own:
        try:
            # distributed's Client and as_completed carry no annotations
            client = distributed.Client(scheduler)  # type: ignore[no-untyped-call]
        except (OSError, ValueError, TypeError) as e:
            # (an address it cannot parse raised distributed's own ValueError, not naming
            # scheduler; one it cannot reach an OSError after its connect timeout)
            raise ValueError(f"scheduler: cannot connect to {scheduler!r} ({type(e).__name__}: "
                             f"{e}); expected a running Dask scheduler's address such as "
                             "'tcp://host:8786'") from e
    try:
        futures = [client.submit(_run_point_in_child, job, key=f"dlnet-point-{job['key']}",
                                 pure=False) for job in jobs]
        for future in distributed.as_completed(futures):  # type: ignore[no-untyped-call]
            finished(future.result())
    finally:
        if own:
            client.close()


def _main() -> None:
    """A Dask task's child: one job on stdin, its record on stdout."""
    print(_canonical(_run_point(json.loads(sys.stdin.read()))))
