# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.schedule and dlnet.run_heterogeneous: HeterPS-style scheduling from Python.

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_heterps.py
"""
import csv
import json
import os

import pytest

import dlnet

HERE = os.path.dirname(os.path.abspath(__file__))
# normalised: error messages shorten long paths, and the test matches their file names
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "test", "data", "heterps"))
CATALOGUE = os.path.join(DATA, "good-catalogue.json")

# Small enough for a unit test: few RL episodes, a short genetic run, a sweep of three limits.
QUICK = dict(model="wide-deep", episodes=20, samples_per_episode=8, population=8, generations=5,
             sweep=3)


def test_options_and_fields():
    names = {o["name"] for o in dlnet.heterps_options()}
    for n in ("model", "profile", "catalogue", "batch", "limit", "samples", "sync", "ps-type",
              "schedulers", "seed", "episodes", "sweep", "simulate", "batches", "warmup"):
        assert n in names, n
    defaults = {o["name"]: o["default"] for o in dlnet.heterps_options()}
    assert defaults["schedulers"] == "all" and defaults["simulate"] is False
    assert defaults["limit"] > 0 and defaults["samples"] == pytest.approx(4.37e9)
    fields = dlnet.result_fields()
    assert [f["name"] for f in fields["heterps_plan"]] == ["layer", "name", "kind", "type", "stage",
                                                          "instances"]
    assert "throughput_ratio" in [f["name"] for f in fields["heterps_headline"]]
    assert "limit" in dlnet.schedule.__doc__ and "simulate" in dlnet.run_heterogeneous.__doc__


@pytest.fixture(scope="module")
def quick():
    return dlnet.schedule(**QUICK)


def test_schedule_rows_and_plan(quick):
    rows = {r["scheduler"]: r for r in quick["schedules"]}
    assert "exact" in rows and "rl" in rows and "exhaustive" not in rows
    exact = rows["exact"]
    assert exact["feasible"] and exact["throughput"] >= quick["config"]["limit"]
    # cost = samples / throughput / 3600 x hourly price, as the cost model defines it
    assert exact["cost"] == pytest.approx(
        quick["config"]["samples"] / exact["throughput"] / 3600 * exact["hourly_price"], rel=1e-9)
    for r in rows.values():
        if r["feasible"]:
            assert r["cost"] >= exact["cost"] * (1 - 1e-9), r["scheduler"]  # exact is optimal
        else:
            assert r["cost"] is None and r["reason"]
    plan = quick["plan"]
    assert [p["layer"] for p in plan] == list(range(len(plan)))
    assert {p["type"] for p in plan} <= set(quick["types"])
    assert len(quick["rl_curve"]) == 20


def test_sweep_and_headline(quick):
    limits = sorted({r["limit"] for r in quick["sweep"]})
    assert len(limits) == 3 and limits[-1] <= quick["reachable"]
    exact = {r["limit"]: r for r in quick["sweep"] if r["scheduler"] == "exact"}
    costs = [exact[l]["cost"] for l in limits if exact[l]["feasible"]]
    assert costs == sorted(costs)  # the optimum's cost never falls as the limit rises
    for h in quick["headline"]:
        assert h["cost_ratio"] == pytest.approx(h["baseline_cost"] / h["best_cost"], rel=1e-12)
        assert h["lower_cost_percent"] == pytest.approx((h["cost_ratio"] - 1) * 100, rel=1e-9)
        assert h["cost_ratio"] >= 1 - 1e-9 and h["throughput_ratio"] >= 1 - 1e-9
        assert h["equal_cost_limit"] >= h["baseline_throughput"] * (1 - 1e-9)
        assert h["driver"].startswith("stage ")
    for s in quick["headline_summary"]:
        mine = [h for h in quick["headline"] if h["baseline"] == s["baseline"]]
        assert s["max_cost_ratio"] == max(h["cost_ratio"] for h in mine)
        assert s["max_throughput_ratio"] == max(h["throughput_ratio"] for h in mine)


def test_deterministic_for_a_seed(quick):
    again = dlnet.schedule(**QUICK)
    for key in ("schedules", "plan", "sweep", "headline", "rl_curve"):
        assert again[key] == quick[key], key


def test_results_dir(tmp_path):
    # (without rl and genetic, their settings in QUICK are refused: they would be ignored)
    out = dlnet.schedule(model="wide-deep", schedulers="exact,greedy,all-cpu", sweep=2,
                         results_dir=tmp_path)
    for f in ("schedules.csv", "sweep.csv", "headline.csv", "rl-curve.csv", "plan.csv",
              "result.json"):
        assert (tmp_path / f).exists(), f
    assert not (tmp_path / "simulation.csv").exists()
    rows = list(csv.DictReader(open(tmp_path / "schedules.csv")))
    assert [r["scheduler"] for r in rows] == ["exact", "greedy", "all-cpu"]
    assert "wall_seconds" not in rows[0]
    j = json.loads((tmp_path / "result.json").read_text())
    assert j["simulation"] is None
    # the wall times are in the dict, not in the file (two runs write it alike)
    assert "wall_seconds" not in j and "scheduler_wall_seconds" not in j
    assert out["wall_seconds"] > 0 and set(out["scheduler_wall_seconds"]) == {
        "exact", "greedy", "all-cpu"}
    assert out["best_scheduler"] == "exact"


def test_profile_file():
    out = dlnet.schedule(catalogue=CATALOGUE, profile=os.path.join(DATA, "good-profile.csv"),
                         limit=1000, schedulers="exact,exhaustive,all-cpu,all-gpu", sweep=0)
    rows = {r["scheduler"]: r for r in out["schedules"]}
    assert out["layers"] == 3 and out["types"] == ["cpu", "gpu"]
    assert rows["exact"]["cost"] == pytest.approx(rows["exhaustive"]["cost"], rel=1e-12)
    assert out["sweep"] == [] and out["headline"] == []


@pytest.mark.parametrize("options, field", [
    (dict(limit=0), "limit: got '0'"),
    (dict(limit=-3.5), "limit: got '-3.5'"),
    (dict(model="resnet9000"), "model"),
    (dict(schedulers="exact,oracle"), "schedulers: got 'oracle'"),
    (dict(schedulers="all,exact"), "schedulers: 'all' stands alone"),
    (dict(schedulers="exact,greedy", episodes=5), "episodes: got 5; it applies only with the rl"),
    (dict(exhaustive_limit=100), "exhaustive-limit: got 100; it applies only with the exhaustive"),
    (dict(catalogue="no-such-catalogue"), "catalogue"),
    (dict(sync="gossip"), "sync"),
    (dict(sync="allreduce", ps_type="cpu"), "ps-type: applies only with sync=ps"),
    (dict(sweep="100,-1"), "sweep: limit '-1'"),
    (dict(spines=4), "spines: applies only with simulate"),
    (dict(catalogue=os.path.join(DATA, "zero-price.json")), r"types\[1\]\.price_per_hour"),
    (dict(catalogue=os.path.join(DATA, "negative-count.json")), r"types\[0\]\.available"),
    (dict(catalogue=CATALOGUE, profile=os.path.join(DATA, "bad-time.csv")), "bad-time.csv:3: "),
    (dict(catalogue=CATALOGUE, profile=os.path.join(DATA, "unknown-type.csv")), "tpu"),
    (dict(simulate=True), "simulate: schedule only schedules"),
])
def test_bad_options_raise_value_error(options, field):
    with pytest.raises(ValueError, match=field):
        dlnet.schedule(**options)


def test_each_function_lists_the_options_it_takes():
    # schedule listed network, batches, warmup, run and the fabric's options, which it refuses
    # ("applies only with simulate"), so a sweep over one failed at every point
    import inspect
    schedule = set(inspect.signature(dlnet.schedule).parameters)
    heterogeneous = set(inspect.signature(dlnet.run_heterogeneous).parameters)
    for name in ("simulate", "network", "batches", "warmup", "run", "spines", "mtu"):
        assert name not in schedule, name
    assert "simulate" not in heterogeneous
    for name in ("network", "batches", "warmup", "run", "spines", "mtu", "limit", "schedulers"):
        assert name in heterogeneous, name
    assert {o["name"] for o in dlnet.heterps_options()} == (
        {o["name"] for o in dlnet.run_heterogeneous_options()} | {"simulate"})
    with pytest.raises(ValueError, match="^grid: 'network' is not an option of schedule"):
        dlnet.sweep("schedule", {"network": ["flow"]}, results="never-written", progress=False)


def test_run_heterogeneous_refuses_simulate_false():
    # it was taken and ignored: the plan was simulated and the config said simulate true
    with pytest.raises(ValueError, match="simulate: run_heterogeneous always simulates"):
        dlnet.run_heterogeneous(schedulers="greedy", sweep=0, simulate=False)
    # schedule's own result config says simulate false: it runs the same schedule, simulated
    config = dlnet.schedule(schedulers="greedy", sweep=0)["config"]
    assert config["simulate"] is False
    out = dlnet.run_heterogeneous(config, batches=4, warmup=1)
    assert out["config"]["simulate"] is True and out["simulation"] is not None


def test_run_heterogeneous_simulates():
    out = dlnet.run_heterogeneous(model="wide-deep", schedulers="exact,all-cpu", sweep=0,
                                  batches=4, warmup=1)
    sim = out["simulation"]
    assert sim["scheduler"] == "exact"
    assert sim["predicted_throughput"] == pytest.approx(
        {r["scheduler"]: r for r in out["schedules"]}["exact"]["throughput"], rel=1e-12)
    assert sim["simulated_throughput"] > 0
    assert sim["difference"] == pytest.approx(
        sim["simulated_throughput"] / sim["predicted_throughput"] - 1, rel=1e-9, abs=1e-12)
    assert len(sim["stages"]) == len({p["stage"] for p in out["plan"]}) and sim["explanation"]
