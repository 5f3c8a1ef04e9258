# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.run_wafer: the FRED-versus-mesh wafer experiment from Python.

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_wafer.py
"""
import csv
import json

import pytest

import dlnet

NPUS = 20  # every wafer variant has 20 NPUs
FIELDS = {
    "variant", "scenario", "group", "algorithm", "groups", "members", "time_s", "time_us",
    "injected_per_npu_bytes", "effective_GBps", "paper_GBps", "npu_link_bytes",
    "upper_link_bytes", "io_link_bytes", "io_fraction", "checked", "network",
}
# One all-reduce on three NPUs under different L1 switches of FRED: quick (well
# under a second for both variants, functional included).
GROUP = dict(variants="mesh,fred-d", scenarios="group", ranks="0,4,8", bytes="1MiB")


def test_module_surface():
    options = dlnet.wafer_options()
    assert all(set(o) == {"name", "help", "default", "kind"} for o in options)
    defaults = {o["name"]: o["default"] for o in options}
    for name in ("variants", "scenarios", "bytes", "io-bytes", "mp", "dp", "pp", "ranks",
                 "functional", "middle-stages", "npu-bandwidth", "seed"):
        assert name in defaults
    assert defaults["variants"] == "mesh,fred-a,fred-b,fred-c,fred-d"
    assert defaults["scenarios"] == "allreduce,groups,mix,io,priority"
    assert (defaults["mp"], defaults["dp"], defaults["pp"]) == (2, 5, 2)
    assert defaults["bytes"] == 64 << 20
    # The docstring lists every option, in Python spelling.
    assert "middle_stages" in dlnet.run_wafer.__doc__
    # the rows' keys are the wafer field table, in CSV column order
    assert {f["name"] for f in dlnet.result_fields()["wafer"]} == FIELDS


def run_rows(config=None, **options):
    out = dlnet.run_wafer(config, **options)
    assert set(out) == {"config", "rows", "wall_seconds"}
    assert out["wall_seconds"] > 0
    return out["rows"]


def test_group_allreduce_in_switch_and_ring():
    size = 1 << 20
    out = dlnet.run_wafer(**GROUP, functional=True)
    assert out["config"]["variants"] == "mesh,fred-d" and out["config"]["functional"] is True
    rows = out["rows"]
    assert [(r["variant"], r["scenario"], r["group"]) for r in rows] == [
        ("mesh", "group", "group"), ("fred-d", "group", "group")]
    json.dumps(rows)  # plain Python values only
    by_variant = {r["variant"]: r for r in rows}
    for r in rows:
        assert set(r) == FIELDS
        assert r["groups"] == 1 and r["members"] == 3
        assert r["time_us"] > 0
        assert r["time_s"] == pytest.approx(r["time_us"] * 1e-6, rel=1e-12)
        assert isinstance(r["groups"], int) and isinstance(r["checked"], bool)
        assert r["paper_GBps"] is None  # the paper gives no figure for a three-NPU group
        assert r["effective_GBps"] > 0
        assert r["npu_link_bytes"] > 0
        assert r["io_link_bytes"] == 0 and r["io_fraction"] == 0
        assert r["checked"] is True, r  # functional: every result compared and exact

    mesh, fred = by_variant["mesh"], by_variant["fred-d"]
    assert mesh["algorithm"] == "ring" and fred["algorithm"] == "in-switch"
    n = 3
    # in-switch: every NPU sends its buffer once to the switches
    assert fred["injected_per_npu_bytes"] == pytest.approx(size, rel=0.01)
    # ring: 2(N-1) steps of one N-th of the buffer
    assert mesh["injected_per_npu_bytes"] == pytest.approx(2 * (n - 1) / n * size, rel=0.01)
    # effective bandwidth is the injected bytes over the group's time (one group)
    for r in rows:
        assert r["effective_GBps"] == pytest.approx(
            r["injected_per_npu_bytes"] / r["time_s"] / 1e9, rel=1e-9)


def test_timing_runs_are_not_marked_checked():
    rows = run_rows(variants="fred-d", scenarios="group", ranks="0,4,8", bytes="64KiB")
    assert len(rows) == 1 and rows[0]["checked"] is False


def test_network_flow_against_packet():
    # network=flow: the in-switch all-reduce as flows through the same switch tree, the
    # mesh's ring as messages; both within 5 % of packet level, with the same link bytes
    out = {n: dlnet.run_wafer(**GROUP, functional=True, network=n) for n in ("packet", "flow")}
    assert out["flow"]["config"]["network"] == "flow"
    for p, f in zip(out["packet"]["rows"], out["flow"]["rows"]):
        assert (f["variant"], f["checked"]) == (p["variant"], True)
        assert f["time_s"] == pytest.approx(p["time_s"], rel=0.05)
        assert f["npu_link_bytes"] == pytest.approx(p["npu_link_bytes"], rel=0.005)
    with pytest.raises(ValueError, match="network: got 'fluid'"):
        dlnet.run_wafer(**GROUP, network="fluid")


def test_config_dict_dashes_and_keyword_override():
    # dict keys in kebab-case, keyword arguments with underscores win over the dict
    rows = run_rows({"variants": "mesh", "scenarios": "group", "middle-stages": 1,
                            "bytes": "1MiB"},
                           variants="fred-b", ranks="0-3", bytes="64KiB", middle_stages=2)
    assert [(r["variant"], r["members"]) for r in rows] == [("fred-b", 4)]
    assert rows[0]["injected_per_npu_bytes"] == pytest.approx(64 * 1024, rel=0.01)


def test_same_config_twice_is_identical():
    config = dict(GROUP, bytes="256KiB", variants="mesh,fred-b")
    first, second = dlnet.run_wafer(**config), dlnet.run_wafer(**config)
    assert (first["config"], first["rows"]) == (second["config"], second["rows"])


def test_results_dir_writes_the_examples_files(tmp_path):
    out = dlnet.run_wafer(variants="mesh,fred-a", scenarios="allreduce", bytes="1MiB",
                          results_dir=tmp_path)
    with open(tmp_path / "fred-vs-mesh.csv") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == [f["name"] for f in dlnet.result_fields()["wafer"]]
    assert [r["variant"] for r in table] == ["mesh", "fred-a"]
    for written, row in zip(table, out["rows"]):
        assert float(written["time_s"]) == row["time_s"]
        assert float(written["paper_GBps"]) == row["paper_GBps"]  # the paper's wafer figures
        assert written["checked"] == "0" and row["checked"] is False
    with open(tmp_path / "result.json") as f:
        assert json.load(f) == {"config": out["config"], "rows": out["rows"]}
    assert (tmp_path / "fred-vs-mesh.plt").exists()


# Bad input: ValueError naming the field.


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(variants="fred-x"), "variants: got 'fred-x'"),
        (dict(variants="mesh,"), "variants: got 'mesh,'; an item is empty"),
        (dict(mp=3), "parallelism: MP x DP x PP = 3 x 5 x 2 = 30 does not equal the 20 NPUs"),
        (dict(scenarios="group", ranks="0,0"), "ranks: '0' is listed twice"),
        (dict(scenarios="group", ranks=f"0,{NPUS + 5}"), "ranks: rank 25 is out of range"),
        # one rank: nothing to reduce (on the mesh the ring would never finish)
        (dict(variants="mesh", scenarios="group", ranks="3"), "ranks: got '3'"),
        # Four concurrent MP groups cannot share one middle subnetwork; found
        # when the flows are installed (the message names the flows first).
        (dict(variants="fred-d", scenarios="groups", middle_stages=1, bytes="64KiB"),
         "middle-stages m = 1"),
        (dict(scenarios="everything"), "scenarios: got 'everything'"),
        (dict(bytes=0), "bytes: got '0'"),
        (dict(bytes=81), "bytes: got 81"),
        (dict(io_bytes=0), "io-bytes: got '0'"),
        (dict(middle_stages=0), "middle-stages: got 0"),
        (dict(chunks=0), "chunks: got 0"),
        # used by no scenario of the run: refused, not ignored
        (dict(scenarios="allreduce", io_bytes="1MiB"), "io-bytes: got 1048576; it applies to "
                                                       "scenario io only"),
        (dict(seed=0), "seed: got '0'; expected a whole number from 1 to 4294944442"),
        (dict(no_such_key=1), "unknown option 'no-such-key'"),
    ],
)
def test_bad_input_raises_value_error_naming_the_field(options, field):
    with pytest.raises(ValueError) as info:
        dlnet.run_wafer(**options)
    assert field in str(info.value)


def test_conflicting_flows_name_the_flows_and_the_remedy():
    with pytest.raises(ValueError) as info:
        dlnet.run_wafer(variants="fred-d", scenarios="groups", middle_stages=1, bytes="64KiB")
    message = str(info.value)
    assert message.startswith("middle-stages: flows 'mp/")
    assert "cannot be routed at once through Fred_1(12)" in message
    assert "use more middle stages" in message


def test_bad_input_leaves_the_simulator_usable():
    # the conflict is found inside a run, after the wafer was built
    with pytest.raises(ValueError):
        dlnet.run_wafer(variants="fred-d", scenarios="groups", middle_stages=1, bytes="64KiB")
    rows = run_rows(variants="fred-d", scenarios="groups", bytes="64KiB", functional=True)
    assert [r["group"] for r in rows] == ["MP", "PP", "DP"]
    assert all(r["checked"] for r in rows)


def test_wrong_python_types_raise_type_error():
    # list options are comma-separated str
    with pytest.raises(TypeError, match="variants") as info:
        dlnet.run_wafer(variants=["mesh", "fred-d"])
    assert isinstance(info.value, ValueError)  # dlnet.OptionTypeError is both


def test_port_conflict_names_the_option_that_runs_it():
    with pytest.raises(ValueError, match="serialise-conflicts: false, and on fred-b"):
        dlnet.run_wafer(network="flow", bytes="1MiB", mp=5, dp=4, pp=1)
    out = dlnet.run_wafer(network="flow", bytes="1MiB", mp=5, dp=4, pp=1,
                          serialise_conflicts=True, variants="fred-b")
    assert out["rows"]
