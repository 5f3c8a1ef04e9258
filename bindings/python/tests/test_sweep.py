# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.sweep: local pool, Dask LocalCluster, resume after a kill, failures, seeds.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_sweep.py
"""
import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import dlnet
import sweep_experiments

TESTS = os.path.dirname(os.path.abspath(__file__))
# Tiny collectives: 4 ranks, three sizes each (well under a second per point).
TINY = {"nodes": 4, "min_bytes": "1KiB", "max_bytes": "4KiB"}
GRID = {"topology": ["star", "torus"], "algorithm": ["ring", "direct"]}


@pytest.fixture(autouse=True)
def worker_path(monkeypatch):
    # Worker processes (the pool's and Dask's) import sweep_experiments from here.
    path = os.pathsep.join(p for p in [TESTS, os.environ.get("PYTHONPATH", "")] if p)
    monkeypatch.setenv("PYTHONPATH", path)


def started(counter):
    """The (options, seed) of every simulation counted_collective started."""
    if not os.path.exists(counter):
        return []
    with open(counter) as f:
        return [json.loads(line) for line in f]


def test_points_grid_zip_and_fixed():
    got = dlnet.sweeps.points({"a": [1, 2], "b": ["x", "y"]}, zip={"c": [1, 2], "d": [3, 4]},
                              fixed={"e": 0})
    assert len(got) == 8
    assert got[0] == {"e": 0, "a": 1, "b": "x", "c": 1, "d": 3}
    assert got[1] == {"e": 0, "a": 1, "b": "x", "c": 2, "d": 4}  # zipped rows vary fastest
    assert got[-1] == {"e": 0, "a": 2, "b": "y", "c": 2, "d": 4}
    with pytest.raises(ValueError, match="zip: the lists must have one length"):
        dlnet.sweeps.points({}, zip={"c": [1, 2], "d": [3]})
    with pytest.raises(ValueError, match="a: given twice"):
        dlnet.sweeps.points({"a": [1]}, fixed={"a": 2})
    with pytest.raises(ValueError, match=r"grid\['a'\]: expected a list"):
        dlnet.sweeps.points({"a": "ring"})


def test_bad_arguments_raise_value_error(tmp_path):
    with pytest.raises(ValueError, match="experiment: 'nope' is not one of"):
        dlnet.sweep("nope", GRID, results=str(tmp_path))
    with pytest.raises(ValueError, match="experiment: a function must be importable"):
        dlnet.sweep(lambda **o: [], GRID, results=str(tmp_path))
    with pytest.raises(ValueError, match="workers: expected an integer >= 1"):
        dlnet.sweep("collective", GRID, results=str(tmp_path), workers=0)
    # a Dask cluster has its own workers: the pool size was taken and ignored
    with pytest.raises(ValueError, match="workers: sizes the local process pool only"):
        dlnet.sweep("collective", GRID, results=str(tmp_path), workers=2,
                    scheduler="tcp://127.0.0.1:1")


def test_local_pool_two_workers_then_nothing_to_rerun(tmp_path, monkeypatch, capsys):
    counter = str(tmp_path / "counter")
    monkeypatch.setenv("DLNET_SWEEP_COUNTER", counter)
    results = str(tmp_path / "sweep")
    rows = dlnet.sweep(sweep_experiments.counted_collective, GRID, fixed=TINY, results=results,
                       workers=2)
    assert len(started(counter)) == 4  # one simulation per point
    assert len(rows) == 4 * 3  # three sizes per point
    assert {r["status"] for r in rows} == {"ok"}
    assert [(r["topology"], r["algorithm"]) for r in rows[::3]] == [
        ("star", "ring"), ("star", "direct"), ("torus", "ring"), ("torus", "direct")]
    assert [r["bytes"] for r in rows[:3]] == [1024, 2048, 4096]
    assert all(r["busbw_Bps"] > 0 and r["nodes"] == 4 for r in rows)
    assert "4/4 points (0 already done), 0 failed" in capsys.readouterr().err
    with open(os.path.join(results, "sweep.csv")) as f:
        table = list(csv.DictReader(f))
    assert len(table) == 12 and table[0]["topology"] == "star" and float(table[0]["time_s"]) > 0
    assert len(os.listdir(os.path.join(results, "points"))) == 4
    # Again: every point is in the folder, nothing runs, the same table comes back.
    again = dlnet.sweep(sweep_experiments.counted_collective, GRID, fixed=TINY, results=results,
                        workers=2)
    assert len(started(counter)) == 4
    assert again == rows
    assert "4/4 points (4 already done)" in capsys.readouterr().err
    # A point another build computed (or one recorded before builds were) runs again.
    files = sorted(os.listdir(os.path.join(results, "points")))
    for name, build in ((files[0], "another build"), (files[1], None)):
        path = os.path.join(results, "points", name)
        with open(path) as f:
            record = json.load(f)
        assert record["build"] == dlnet.sweeps._build()
        if build is None:
            del record["build"]
        else:
            record["build"] = build
        with open(path, "w") as f:
            json.dump(record, f)
    rebuilt = dlnet.sweep(sweep_experiments.counted_collective, GRID, fixed=TINY, results=results,
                          workers=2)
    assert len(started(counter)) == 6
    assert rebuilt == rows
    err = capsys.readouterr().err
    assert "sweep: 2 point(s) in " in err and "computed by another dlnet build" in err
    assert "4/4 points (2 already done)" in err
    # One more value: only the two new points run.
    wider = dict(GRID, topology=["star", "torus", "fat-tree"])
    dlnet.sweep(sweep_experiments.counted_collective, wider, fixed=TINY, results=results,
                workers=2, progress=False)
    assert len(started(counter)) == 8


def test_dask_local_cluster_gives_the_rows_of_the_local_pool(tmp_path):
    distributed = pytest.importorskip("distributed")
    pool = dlnet.sweep("collective", GRID, fixed=TINY, results=str(tmp_path / "pool"), workers=2,
                       progress=False)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            on_dask = dlnet.sweep("collective", GRID, fixed=TINY, results=str(tmp_path / "dask"),
                                  client=client, progress=False)
        # by the scheduler's address: the sweep makes (and closes) its own client
        by_address = dlnet.sweep("collective", GRID, fixed=TINY,
                                 results=str(tmp_path / "address"),
                                 scheduler=cluster.scheduler_address, progress=False)
    assert on_dask == pool
    assert by_address == pool
    with open(tmp_path / "pool" / "sweep.csv", "rb") as a, open(tmp_path / "dask" / "sweep.csv",
                                                              "rb") as b:
        assert a.read() == b.read()


def test_frame_is_the_table_as_a_dataframe(tmp_path):
    pytest.importorskip("pandas")
    frame = dlnet.sweep("collective", {"algorithm": ["ring", "direct"]}, fixed=TINY,
                        results=str(tmp_path), workers=2, progress=False, frame=True)
    rows = dlnet.sweep("collective", {"algorithm": ["ring", "direct"]}, fixed=TINY,
                       results=str(tmp_path), workers=2, progress=False)
    assert list(frame.columns) == list(rows[0])
    assert frame["busbw_Bps"].tolist() == [r["busbw_Bps"] for r in rows]


def test_parquet_path_writes_the_table_of_the_csv(tmp_path, monkeypatch):
    # Debian 12 packages no pyarrow: a stand-in module lets the path run, and a stand-in
    # writer records the frame pandas would hand to it (the format itself is pyarrow's).
    pandas = pytest.importorskip("pandas")
    monkeypatch.setitem(sys.modules, "pyarrow", type(sys)("pyarrow"))
    frames = []

    def to_parquet(frame, path, index=True):
        assert index is False
        frames.append(frame.copy())
        with open(path, "w") as f:
            f.write(frame.to_csv(index=False))

    monkeypatch.setattr(pandas.DataFrame, "to_parquet", to_parquet)
    dlnet.sweep("collective", {"algorithm": ["ring", "direct"]}, fixed=TINY,
                results=str(tmp_path), workers=1, progress=False)
    assert sorted(os.listdir(tmp_path)) == ["points", "sweep.csv", "sweep.parquet"]  # no .tmp
    with open(tmp_path / "sweep.csv") as f:
        table = list(csv.DictReader(f))
    assert len(frames) == 1
    assert list(frames[0].columns) == list(table[0])
    assert frames[0]["algorithm"].tolist() == [r["algorithm"] for r in table]
    assert frames[0]["busbw_Bps"].tolist() == [float(r["busbw_Bps"]) for r in table]
    with open(tmp_path / "sweep.parquet") as f:
        assert f.read() == frames[0].to_csv(index=False)


def test_failing_point_is_recorded_and_the_others_finish(tmp_path):
    rows = dlnet.sweep("collective", {"algorithm": ["ring", "no-such-algorithm", "direct"]},
                       fixed=TINY, results=str(tmp_path), workers=2, progress=False)
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(failed) == 1
    assert failed[0]["algorithm"] == "no-such-algorithm"
    assert failed[0]["error_type"] == "ValueError"
    assert "algorithm: got 'no-such-algorithm'" in failed[0]["error"]
    assert "time_s" not in failed[0]
    ok = [r for r in rows if r["status"] == "ok"]
    assert [r["algorithm"] for r in ok] == ["ring"] * 3 + ["direct"] * 3
    # A worker process that dies fails its point only; the points the broken pool lost rerun.
    crash = dlnet.sweep(sweep_experiments.counted_collective, {"crash": [False, True, False]},
                        fixed=TINY, results=str(tmp_path / "crash"), workers=2, progress=False)
    assert [(r["crash"], r["status"]) for r in crash] == [(False, "ok")] * 3 + [
        (True, "failed")] + [(False, "ok")] * 3
    assert crash[3]["error_type"] == "WorkerError" and "died" in crash[3]["error"]
    # The failure is a finished point too: it is not retried on resume.
    with open(tmp_path / "points" / (failed[0]["point"] + ".json")) as f:
        assert json.load(f)["status"] == "failed"


@pytest.mark.parametrize("crash, how", [(True, "exit status 3"), ("abort", "signal SIGABRT")])
def test_a_dask_point_that_dies_says_so_as_the_local_pool_does(crash, how):
    # (a Dask task runs its point in a child process; it said "exit status -6: " and no more)
    job = {"experiment": "sweep_experiments:counted_collective", "options": {"crash": crash},
           "seed": 1, "pass_seed": False, "main_path": None, "key": "k", "build": "b"}
    record = dlnet.sweeps._run_point_in_child(job)
    assert record["status"] == "failed" and record["error_type"] == "WorkerError"
    assert record["error"].startswith(
        f"the worker process died (a crash, not an exception: {how})"), record["error"]


def test_seeds_are_derived_deterministically_and_passed(tmp_path, monkeypatch):
    counter = str(tmp_path / "counter")
    monkeypatch.setenv("DLNET_SWEEP_COUNTER", counter)
    grid = {"algorithm": ["ring", "direct"]}

    def seeds(sweep_seed, folder, **extra):
        rows = dlnet.sweep(sweep_experiments.counted_collective, grid, fixed=TINY,
                           results=str(tmp_path / folder), seed=sweep_seed, workers=1,
                           progress=False, **extra)
        return [r["seed"] for r in rows[::3]]

    first = seeds(1, "a")
    assert first == seeds(1, "b")  # same sweep seed, other folder: same point seeds
    assert len(set(first)) == 2 and all(1 <= s < 2**31 for s in first)
    assert set(first).isdisjoint(seeds(2, "c"))
    # The experiment received the seed the table shows.
    assert sorted(s["seed"] for s in started(counter)[:2]) == sorted(first)
    # A seed in the grid is used as given.
    given = dlnet.sweep(sweep_experiments.counted_collective, dict(grid, seed=[7]), fixed=TINY,
                        results=str(tmp_path / "d"), workers=1, progress=False)
    assert {r["seed"] for r in given} == {7}


KILLED_SWEEP = """
import sys
import dlnet
import sweep_experiments
dlnet.sweep(sweep_experiments.counted_collective, {grid!r}, fixed={fixed!r},
            results={results!r}, workers=2, progress=False)
"""


def test_resume_after_sigkill_reruns_no_finished_point(tmp_path, monkeypatch):
    grid = {"algorithm": ["ring", "direct", "halving-doubling", "double-binary-tree"],
            "topology": ["star", "torus"]}  # 8 points of about a second each
    fixed = dict(TINY, delay=0.8)
    results = str(tmp_path / "sweep")
    points = os.path.join(results, "points")
    script = KILLED_SWEEP.format(grid=grid, fixed=fixed, results=results)
    env = dict(os.environ, DLNET_SWEEP_COUNTER=str(tmp_path / "first"))
    sweep = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and sweep.poll() is None:
            if os.path.isdir(points) and len([p for p in os.listdir(points)
                                              if p.endswith(".json")]) >= 2:
                break
            time.sleep(0.05)
        assert sweep.poll() is None, "the sweep ended before it could be killed"
        os.killpg(sweep.pid, signal.SIGKILL)  # the sweep and its worker processes
    finally:
        sweep.wait()
    finished = {p[:-5] for p in os.listdir(points) if p.endswith(".json")}
    assert 2 <= len(finished) < 8
    monkeypatch.setenv("DLNET_SWEEP_COUNTER", str(tmp_path / "second"))
    rows = dlnet.sweep(sweep_experiments.counted_collective, grid, fixed=fixed, results=results,
                       workers=2, progress=False)
    assert {r["status"] for r in rows} == {"ok"} and len(rows) == 8 * 3
    second = started(str(tmp_path / "second"))
    assert len(second) == 8 - len(finished)  # the simulations actually run on resume
    keys = {r["point"]: (r["algorithm"], r["topology"]) for r in rows}
    rerun = {(s["algorithm"], s["topology"]) for s in second}
    assert rerun.isdisjoint({keys[k] for k in finished})
