# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.run_sparse: the sparse AllReduce sweep (sparse-allreduce) from Python.

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_sparse.py
"""
import csv
import json

import pytest

import dlnet

# One small group: 2 workers at 100 Gbit/s, a 1 MiB tensor, two densities.
SMALL = dict(tensor_bytes="1MiB", densities="1,0.1", workers=2, rates="100Gbps")


def fields():
    return [f["name"] for f in dlnet.result_fields()["sparse"]]


def test_module_surface():
    options = dlnet.sparse_options()
    assert all(set(o) == {"name", "help", "default", "kind"} for o in options)
    defaults = {o["name"]: o["default"] for o in options}
    assert defaults["tensor-bytes"] == "100MiB"
    assert defaults["densities"] == "1.0,0.8,0.4,0.2,0.1,0.08,0.04,0.02,0.01"
    assert defaults["workers"] == "2,4,8" and defaults["rates"] == "10Gbps,100Gbps"
    assert defaults["mtu"] == "9000"  # jumbo frames, unlike the collective experiment
    assert defaults["quick"] is False and defaults["functional"] is False  # bools, as elsewhere
    # topology and collective choices are the sweep's own
    for name in ("topology", "op", "algorithm", "min-bytes", "link-rate"):
        assert name not in defaults
    assert "tensor_bytes" in dlnet.run_sparse.__doc__
    assert fields()[:3] == ["rate", "rate_bps", "workers"]


def test_flow_level():
    # every algorithm of the sweep runs at flow level too (switchml and omnireduce as
    # their flow-level twins): the same rows and packets, times within 5 %
    packet = dlnet.run_sparse(**SMALL)
    flow = dlnet.run_sparse(network="flow", **SMALL)
    assert packet["config"]["network"] == "packet" and flow["config"]["network"] == "flow"
    assert len(flow["rows"]) == len(packet["rows"]) == 4
    for p, f in zip(packet["rows"], flow["rows"]):
        assert (f["algorithm"], f["density"]) == (p["algorithm"], p["density"])
        assert f["packets"] == p["packets"]
        assert f["time_s"] == pytest.approx(p["time_s"], rel=0.05)


def test_typed_rows_and_the_sweep_order():
    out = dlnet.run_sparse(**SMALL)
    assert set(out) == {"config", "rows", "wall_seconds"}
    assert out["wall_seconds"] > 0
    json.dumps(out)  # plain Python values only
    rows = out["rows"]
    assert [(r["algorithm"], r["density"]) for r in rows] == [
        ("ring", None), ("switchml", None), ("omnireduce", 1.0), ("omnireduce", 0.1)]
    for r in rows:
        assert set(r) == set(fields())
        assert isinstance(r["workers"], int) and r["workers"] == 2
        assert isinstance(r["rate_bps"], int) and r["rate_bps"] == 100 * 10**9
        assert r["bytes"] == 1 << 20 and r["aggregators"] == 2
        assert r["checked"] is False  # a timing run
        assert r["time_s"] > 0 and r["bound_s"] > 0
    ring = rows[0]
    assert ring["speedup_over_ring"] == 1.0 and ring["union_density"] is None
    for r in rows[1:]:
        assert r["speedup_over_ring"] == pytest.approx(ring["time_s"] / r["time_s"], rel=1e-12)
    dense, sparse = rows[2], rows[3]
    assert dense["union_density"] == 1.0
    assert 0.1 <= sparse["union_density"] <= 0.2  # two independent 10% patterns
    # omnireduce sends only the non-zero blocks (of the union, when aggregators answer)
    assert sparse["bytes_up_per_worker"] < 0.5 * dense["bytes_up_per_worker"]
    assert sparse["time_s"] < dense["time_s"]


def test_functional_checks_every_algorithm():
    rows = dlnet.run_sparse(SMALL, densities="0.5", functional=True)["rows"]
    assert [r["algorithm"] for r in rows] == ["ring", "switchml", "omnireduce"]
    for r in rows:
        assert r["checked"] is True and r["correct"] is True and r["max_error"] == 0, r


def test_quick_fills_the_lists_not_given():
    out = dlnet.run_sparse(quick=True, tensor_bytes="64KiB", workers="2", densities="0.5")
    config = out["config"]
    assert config["quick"] is True
    assert (config["tensor-bytes"], config["workers"], config["densities"]) == ("64KiB", "2", "0.5")
    assert config["rates"] == "100Gbps"  # quick's rate
    assert [r["rate"] for r in out["rows"]] == ["100Gbps"] * 3
    # the returned config reproduces the run
    again = dlnet.run_sparse(config)
    assert again["rows"] == out["rows"]


def test_results_dir_writes_csv_json_and_plot(tmp_path):
    out = dlnet.run_sparse(**SMALL, results_dir=tmp_path)
    with open(tmp_path / "sparse-allreduce.csv") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == fields()
    assert len(table) == len(out["rows"]) == 4
    for written, row in zip(table, out["rows"]):
        assert written["algorithm"] == row["algorithm"]
        assert float(written["time_s"]) == row["time_s"]
        if row["density"] is None:
            assert written["density"] == "" and written["union_density"] == ""
        else:
            assert float(written["density"]) == row["density"]
    with open(tmp_path / "result.json") as f:
        assert json.load(f) == {"config": out["config"], "rows": out["rows"]}
    assert (tmp_path / "time-vs-density-100Gbps.plt").exists()


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(tensor_bytes=1002), "tensor-bytes: 1002 is not a whole number"),
        (dict(tensor_bytes=0), "tensor-bytes:"),
        (dict(densities="1,,0.1"), "densities: got '1,,0.1'; an item is empty"),
        (dict(densities="1.5"), "densities:"),
        (dict(workers="1"), "workers:"),
        (dict(workers="2,x"), "workers:"),
        (dict(rates="fast"), "rates:"),
        (dict(placement="diagonal"), "placement:"),
        (dict(loss=1), "loss: got '1'; expected a number from 0 to below 1"),
        (dict(quick="maybe"), "quick:"),
        (dict(SMALL, network="flow", loss=0.01), "loss: got 0.01; network=flow models lossless"),
        (dict(SMALL, pool_slots=0), "pool-slots: got 0"),
        (dict(link_rate="10Gbps"), "unknown option 'link-rate'"),
    ],
)
def test_bad_input_raises_value_error_naming_the_field(options, field):
    with pytest.raises(ValueError) as info:
        dlnet.run_sparse(**options)
    assert field in str(info.value)


def test_same_config_twice_is_identical():
    first, second = dlnet.run_sparse(**SMALL, seed=3), dlnet.run_sparse(**SMALL, seed=3)
    assert (first["config"], first["rows"]) == (second["config"], second["rows"])
