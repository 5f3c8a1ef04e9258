# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.sweep on malformed arguments and damaged results folders (from a fuzz run):
bad arguments raise ValueError naming the field before any point runs; a damaged point file is
run again, and the sweep says so.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_sweep_input.py
"""
import contextlib
import itertools
import json
import os
import resource
import shutil

import pytest
from deadline import deadline

import dlnet
import sweep_experiments

TESTS = os.path.dirname(os.path.abspath(__file__))
TINY = {"nodes": 4, "min_bytes": "1KiB", "max_bytes": "4KiB"}
GRID = {"algorithm": ["ring"]}


@pytest.fixture(autouse=True)
def worker_path(monkeypatch):
    # Worker processes import sweep_experiments from here.
    path = os.pathsep.join(p for p in [TESTS, os.environ.get("PYTHONPATH", "")] if p)
    monkeypatch.setenv("PYTHONPATH", path)


@contextlib.contextmanager
def memory_cap(extra=512 << 20):
    """An unbounded allocation (a grid of 10^9 points, /dev/zero read as JSON) fails at
    `extra` bytes more than this process maps now, not at the machine's memory."""
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def started(counter):
    if not os.path.exists(counter):
        return 0
    with open(counter) as f:
        return len(f.readlines())


@pytest.mark.parametrize("experiment, message", [
    ("nomodule:fn", r"cannot import 'nomodule:fn' \(ModuleNotFoundError"),
    ("__main__:nothing", r"cannot import '__main__:nothing' \(AttributeError"),
    ("sweep_experiments:nothing", r"cannot import 'sweep_experiments:nothing' \(AttributeError"),
    (":fn", r"cannot import ':fn'"),
    ("dlnet:__version__", "'dlnet:__version__' is str, not a function"),
])
def test_an_experiment_that_does_not_import_is_refused(tmp_path, experiment, message):
    results = tmp_path / "r"
    with pytest.raises(ValueError, match=f"^experiment: {message}"):
        dlnet.sweep(experiment, GRID, fixed=TINY, results=str(results), workers=1, progress=False)
    assert not results.exists()


@pytest.mark.parametrize("tables, message", [
    (dict(grid={1: [4]}), "^grid: option names are text, got 1"),
    (dict(grid={"algorithm": ["ring"]}, fixed={2: 3}), "^fixed: option names are text, got 2"),
    (dict(grid="ring"), "^grid: expected a dict option -> value, got str"),
    (dict(grid=GRID, zip=5), "^zip: expected a dict option -> value, got int"),
    (dict(grid={"min_bytes": ["1KiB", "2KiB"]}, fixed={"min-bytes": "4KiB"}),
     "^min-bytes: given twice, also as 'min_bytes' .*- and _ spell one option"),
    (dict(grid={"min-bytes": ["1KiB"]}, zip={"min_bytes": ["2KiB"]}),
     "^min_bytes: given twice, also as 'min-bytes'"),
    (dict(grid={"message_bytes": ["1KiB"], "message-bytes": ["2KiB"]}),
     "^message-bytes: given twice, also as 'message_bytes'"),
])
def test_bad_option_tables_are_refused_before_any_point_runs(tmp_path, monkeypatch, tables,
                                                             message):
    counter = str(tmp_path / "counter")
    monkeypatch.setenv("DLNET_SWEEP_COUNTER", counter)
    tables = dict(tables)
    with pytest.raises(ValueError, match=message):
        dlnet.sweep(sweep_experiments.counted_collective, tables.pop("grid"), **tables,
                    results=str(tmp_path / "r"), workers=1, progress=False)
    assert started(counter) == 0


@pytest.mark.parametrize("tables, message", [
    (dict(grid={"bogus": [1, 2]}),
     r"^grid: 'bogus' is not an option of run_collective \(dlnet.collective_options\(\) lists"),
    (dict(grid={"algorithm": ["ring"]}, fixed={"hosts": 4, "host-count": 4}),
     r"^fixed: 'host-count' is not an option of run_collective"),
    (dict(grid={"algorithm": ["ring"]}, zip={"min_bytes": ["1KiB"], "nope": [1]}),
     r"^zip: 'nope' is not an option"),
])
def test_an_option_the_experiment_does_not_take_is_refused_before_any_point_runs(
        tmp_path, tables, message):
    # every point ran and failed on it
    tables = dict(tables)
    with pytest.raises(ValueError, match=message):
        dlnet.sweep("collective", tables.pop("grid"), **tables, results=str(tmp_path / "r"),
                    workers=1, progress=False)
    assert not (tmp_path / "r").exists()


def test_a_function_of_named_parameters_takes_only_those(tmp_path):
    with pytest.raises(ValueError, match=r"^grid: 'c' is not an option of two_parameters "
                                         r"\(its parameters: a, b\)"):
        dlnet.sweep(sweep_experiments.two_parameters, {"a": [1], "c": [2]},
                    results=str(tmp_path / "r"), workers=1, progress=False)
    # a seed it does not take would be dropped, the rows tagged with seeds that did nothing
    with pytest.raises(ValueError, match=r"^grid: 'seed' is not an option of two_parameters"):
        dlnet.sweep(sweep_experiments.two_parameters, {"a": [1], "seed": [5, 6]},
                    results=str(tmp_path / "r"), workers=1, progress=False)
    # a grid given as pairs is taken as a dict, as elsewhere
    with pytest.raises(ValueError, match=r"^grid: 'c' is not an option"):
        dlnet.sweep(sweep_experiments.two_parameters, [("a", [1]), ("c", [2])],
                    results=str(tmp_path / "r"), workers=1, progress=False)
    # one taking **options takes any name (counted_collective, in the tests above)


def test_a_grid_of_more_than_max_points_is_refused_up_front(tmp_path):
    assert dlnet.sweeps.MAX_POINTS == 10**6
    huge = {"a": range(1000), "b": range(1000), "c": range(1000)}
    with memory_cap():
        with pytest.raises(ValueError, match=r"^grid: 1000000000 points \(1000 x 1000 x 1000\) "
                                             "is more than 1000000, the most a sweep runs"):
            dlnet.sweeps.points(huge)
        with pytest.raises(ValueError, match=r"^grid: 1000000000 points"):
            dlnet.sweep("collective", huge, results=str(tmp_path / "r"), progress=False)
        with pytest.raises(ValueError, match=r"^grid: 2000000 points \(2 x 1000000 zipped\)"):
            dlnet.sweeps.points({"a": [1, 2]}, zip={"b": range(10**6), "c": range(10**6)})
        # an endless iterator: refused once it passes the limit
        with pytest.raises(ValueError, match=r"^grid: at least 1000001 points"):
            dlnet.sweeps.points({"a": itertools.count()})
    assert not (tmp_path / "r").exists()


def test_bad_results_folders_are_refused_before_any_point_runs(tmp_path, monkeypatch):
    counter = str(tmp_path / "counter")
    monkeypatch.setenv("DLNET_SWEEP_COUNTER", counter)
    (tmp_path / "file").write_text("")
    (tmp_path / "points-file").mkdir()
    (tmp_path / "points-file" / "points").write_text("")
    (tmp_path / "csv-folder" / "sweep.csv").mkdir(parents=True)
    for results, message in [
            (str(tmp_path / "file"), "'.*/file' is not a folder"),
            (str(tmp_path / "file" / "below"), "cannot make the folder '.*/file/below/points'"),
            (str(tmp_path / ("x" * 300)), ".* is too long"),
            (str(tmp_path) + ("/" + "y" * 200) * 21, ".* is too long"),
            (str(tmp_path / "a\x00b"), ".* holds a NUL character"),
            (5, "expected a folder path"),
            (str(tmp_path / "points-file"), "'.*/points-file/points' is not a folder"),
            (str(tmp_path / "csv-folder"), "'.*/csv-folder/sweep.csv' is a folder")]:
        with pytest.raises(ValueError, match=f"^results: {message}"):
            dlnet.sweep(sweep_experiments.counted_collective, GRID, fixed=TINY, results=results,
                        workers=1, progress=False)
    assert started(counter) == 0  # sweep.csv a folder: refused before the points, not after
    assert sorted(os.listdir(tmp_path)) == ["csv-folder", "file", "points-file"]


@pytest.mark.parametrize("argument, message", [
    (dict(seed=True), r"^seed: expected an integer >= 0, got True"),
    (dict(workers=True), r"^workers: expected an integer >= 1, got True"),
])
def test_a_bool_is_not_taken_for_a_count(tmp_path, argument, message):
    with pytest.raises(ValueError, match=message):
        dlnet.sweep("collective", GRID, fixed=TINY, results=str(tmp_path / "r"), progress=False,
                    **argument)
    assert not (tmp_path / "r").exists()


def test_client_and_scheduler_of_the_wrong_kind_are_refused(tmp_path):
    with pytest.raises(ValueError, match="^client: expected a dask.distributed.Client, got object"):
        dlnet.sweep("collective", GRID, fixed=TINY, results=str(tmp_path), client=object(),
                    progress=False)
    with pytest.raises(ValueError, match="^scheduler: expected an address"):
        dlnet.sweep("collective", GRID, fixed=TINY, results=str(tmp_path), scheduler=5,
                    progress=False)
    # distributed said "missing port number in address ''", not naming scheduler
    with pytest.raises(ValueError, match="^scheduler: expected an address .*, got ''"):
        dlnet.sweep("collective", GRID, fixed=TINY, results=str(tmp_path), scheduler="",
                    progress=False)


@pytest.fixture(scope="module")
def finished_sweep(tmp_path_factory):
    """A results folder holding one finished point, its rows and its point file's text."""
    folder = tmp_path_factory.mktemp("finished") / "sweep"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", os.pathsep.join(
            p for p in [TESTS, os.environ.get("PYTHONPATH", "")] if p))
        rows = dlnet.sweep(sweep_experiments.counted_collective, GRID, fixed=TINY,
                           results=str(folder), workers=1, progress=False)
    (name,) = os.listdir(folder / "points")
    return folder, rows, name, (folder / "points" / name).read_text()


def damage(path, kind, text):
    record = json.loads(text)
    if kind == "list":
        path.write_text("[1,2]")
    elif kind == "rows-string":
        path.write_text(json.dumps(dict(record, rows="abc")))
    elif kind == "rows-ints":
        path.write_text(json.dumps(dict(record, rows=[1, 2])))
    elif kind == "no-status":
        del record["status"]
        path.write_text(json.dumps(record))
    elif kind == "another-point":
        path.write_text(json.dumps(dict(record, point="0123456789abcdef")))
    elif kind == "nested":
        path.write_text("[" * 100000 + "]" * 100000)
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere")
    elif kind == "truncated":
        path.write_text(text[:len(text) // 2])
    elif kind == "empty":
        path.write_text("")
    elif kind == "not-utf8":
        path.write_bytes(b"\xff\xfe" + text.encode())
    elif kind == "too-large":  # valid JSON, padded past MAX_POINT_BYTES
        with open(path, "w") as f:
            f.write(text[:-2] + " " * (dlnet.sweeps.MAX_POINT_BYTES) + text[-2:])


@pytest.mark.parametrize("kind", ["list", "rows-string", "rows-ints", "no-status", "another-point",
                                  "nested", "folder", "fifo", "dev-zero", "dangling", "truncated",
                                  "empty", "not-utf8", "too-large"])
def test_a_damaged_point_file_is_run_again_and_said_so(tmp_path, monkeypatch, capsys,
                                                       finished_sweep, kind):
    template, rows, name, text = finished_sweep
    results = tmp_path / "sweep"
    shutil.copytree(template, results)
    path = results / "points" / name
    path.unlink()
    damage(path, kind, text)
    counter = str(tmp_path / "counter")
    monkeypatch.setenv("DLNET_SWEEP_COUNTER", counter)
    with deadline(60), memory_cap():
        again = dlnet.sweep(sweep_experiments.counted_collective, GRID, fixed=TINY,
                            results=str(results), workers=1)
    assert started(counter) == 1  # the point ran again
    assert again == rows
    err = capsys.readouterr().err
    assert (f"sweep: 1 point file(s) in {results / 'points'} are damaged (not a regular file of "
            "at most 64 MiB holding the point's record); running them again") in err
    assert "1/1 points (0 already done)" in err
    if kind == "folder":  # left alone: the table has the point, no file keeps it
        assert path.is_dir()
    else:
        assert json.loads(path.read_text()) == json.loads(text) | {
            "wall_seconds": json.loads(path.read_text())["wall_seconds"]}
