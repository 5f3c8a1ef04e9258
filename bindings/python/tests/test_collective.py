# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.run_collective: the collective experiment from Python.

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests
"""
import csv
import json
import math
import shutil

import pytest

import dlnet

HEADER = 24  # FabricHeader bytes in every packet
MTU = 4096  # default largest packet, header included
RATE = 100e9  # default link rate, bit/s
DELAY = 500e-9  # default link delay, s

STAR5 = {"topology": "star", "hosts": 5}
# A 2 x 4 leaf-spine: a grid, so the hierarchical algorithms run too.
LEAF_SPINE8 = {"topology": "leaf-spine", "leaves": 2, "hosts_per_leaf": 4}

CONCRETE = (
    "ring",
    "direct",
    "halving-doubling",
    "double-binary-tree",
    "hierarchical",
    "hierarchical-local-bw-aware",
)
# The concrete algorithms that implement each op (hierarchical ones only on a grid).
IMPLEMENTED = {
    "allreduce": {"ring", "direct", "halving-doubling", "double-binary-tree",
                  "hierarchical", "hierarchical-local-bw-aware"},
    "reducescatter": {"ring", "direct", "halving-doubling"},
    "allgather": {"ring", "direct", "halving-doubling"},
    "alltoall": {"ring", "direct"},
    "broadcast": {"ring", "direct", "halving-doubling", "double-binary-tree"},
    "reduce": {"ring", "direct", "halving-doubling", "double-binary-tree"},
}
HIERARCHICAL = {"hierarchical", "hierarchical-local-bw-aware"}


def rows_of(out):
    return out["result"]["rows"]


def test_module_surface():
    options = dlnet.collective_options()
    assert all(set(o) == {"name", "help", "default", "kind"} for o in options)
    defaults = {o["name"]: o["default"] for o in options}
    for name in ("op", "algorithm", "type", "min-bytes", "max-bytes", "step-factor", "ranks",
                 "root", "functional", "topology", "hosts", "link-rate"):
        assert name in defaults
    assert defaults["op"] == "allreduce" and defaults["algorithm"] == "ring"
    assert defaults["type"] == "fp32"
    assert "min_bytes" in dlnet.run_collective.__doc__


# (a) functional mode: every rank's buffer is checked against the reference.

FUNCTIONAL_CASES = [
    (op, alg)
    for op in ("allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "reduce")
    for alg in ("ring", "halving-doubling")
    if alg in IMPLEMENTED[op]
] + [("alltoall", "direct")]


@pytest.mark.parametrize("op, algorithm", FUNCTIONAL_CASES)
def test_functional_result_is_correct_on_five_ranks(op, algorithm):
    # Five ranks: not a power of two (halving-doubling folds) and most sizes do
    # not split evenly. alltoall needs a multiple of 5 elements per buffer.
    if op == "alltoall":
        sizes = dict(min_bytes=20, max_bytes=48020, step_factor=7)  # 20, 140, ..., 48020
        expected = [20 * 7**k for k in range(5)]
    else:
        sizes = dict(min_bytes=4, max_bytes=67228, step_factor=7)  # 1 element .. 16807
        expected = [4 * 7**k for k in range(6)]
    rooted = dict(root=3) if op in ("broadcast", "reduce") else {}  # others take no root
    out = dlnet.run_collective(
        STAR5, op=op, algorithm=algorithm, functional=True, **rooted, **sizes
    )
    rows = rows_of(out)
    assert [r["bytes"] for r in rows] == expected
    for r in rows:
        assert r["algorithm"] == algorithm
        assert r["checked"] is True, r
        assert r["correct"] is True, r
        assert r["time_s"] > 0


def test_alltoall_has_no_halving_doubling():
    with pytest.raises(ValueError, match="halving-doubling does not implement alltoall"):
        dlnet.run_collective(STAR5, op="alltoall", algorithm="halving-doubling", min_bytes=20,
                             max_bytes=20)


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "int32"])
@pytest.mark.parametrize("algorithm", ["ring", "halving-doubling"])
def test_functional_allreduce_in_other_types(dtype, algorithm):
    out = dlnet.run_collective(STAR5, algorithm=algorithm, type=dtype, functional=True,
                               min_bytes=4, max_bytes=4100, step_factor=32)
    rows = rows_of(out)
    assert len(rows) == 3
    assert all(r["type"] == dtype and r["checked"] and r["correct"] for r in rows)


# (b) ring allreduce against the store-and-forward formula.


def test_ring_allreduce_time_matches_formula():
    n = 4
    size = 16 << 20
    out = dlnet.run_collective(topology="star", hosts=n, op="allreduce", algorithm="ring",
                               min_bytes="16MiB", max_bytes="16MiB")
    rows = rows_of(out)
    assert len(rows) == 1
    r = rows[0]
    assert r["bytes"] == size and r["count"] == size // 4 and r["algorithm"] == "ring"

    part = size / n  # M: each of the 2(N-1) steps moves one part to the next rank
    wire = part + HEADER * math.ceil(part / (MTU - HEADER))  # M_wire
    # per step: serialise the part, two link delays, the switch forwards a
    # full packet before the last one leaves (store and forward)
    step = wire * 8 / RATE + 2 * DELAY + MTU * 8 / RATE
    expected = 2 * (n - 1) * step
    assert r["time_s"] == pytest.approx(expected, rel=0.02)
    # algbw = S / t and the nccl-tests allreduce factor 2(N-1)/N
    assert r["algbw_Bps"] == pytest.approx(size / r["time_s"], rel=1e-9)
    assert r["busbw_Bps"] == pytest.approx(r["algbw_Bps"] * 2 * (n - 1) / n, rel=1e-9)
    assert r["bound_s"] == pytest.approx(expected, rel=0.02)


def test_library_latencies_from_python():
    # ns3_attributes reach the collective engine: 8.4 us once and 3.4 us per step,
    # 2(N-1) steps of the ring on 4 ranks
    base = dict(topology="star", hosts=4, op="allreduce", algorithm="ring",
                min_bytes="1MiB", max_bytes="1MiB")
    plain = rows_of(dlnet.run_collective(**base))[0]["time_s"]
    slow = rows_of(dlnet.run_collective(**base, ns3_attributes={
        "ns3::CollectiveEngine::LaunchLatency": "8.4us",
        "ns3::CollectiveEngine::StepLatency": "3.4us"}))[0]["time_s"]
    assert slow - plain == pytest.approx(8.4e-6 + 6 * 3.4e-6, abs=1e-9)
    # a star's hosts are its ranks, so every step leaves its host: NetworkStepLatency
    net = rows_of(dlnet.run_collective(**base, ns3_attributes={
        "ns3::CollectiveEngine::LaunchLatency": "8.4us",
        "ns3::CollectiveEngine::StepLatency": "3.4us",
        "ns3::CollectiveEngine::NetworkStepLatency": "9.6us"}))[0]["time_s"]
    assert net - plain == pytest.approx(8.4e-6 + 6 * 9.6e-6, abs=1e-9)
    with pytest.raises(ValueError, match="ns3::CollectiveEngine::StepLatency"):
        dlnet.run_collective(**base, ns3_attributes={"ns3::CollectiveEngine::StepLatency": "-1us"})


def test_source_lock_step_from_python():
    # a boolean ns-3 attribute from text (ns-3.37 names its checker's kind without the
    # namespace; such attributes were refused): the torus tree at flow level, 16 MiB,
    # 4415.21 us with max-min, 4142.10 us with the NIC's lock step (doc/flow-network.md)
    base = dict(topology="torus", op="allreduce", algorithm="double-binary-tree",
                min_bytes="16MiB", max_bytes="16MiB", network="flow", estimate=False)
    plain = rows_of(dlnet.run_collective(**base))[0]["time_s"]
    lock = rows_of(dlnet.run_collective(**base, ns3_attributes={
        "ns3::FlowNetwork::SourceLockStep": "true"}))[0]["time_s"]
    assert plain == pytest.approx(4415.21e-6, rel=1e-5)
    assert lock == pytest.approx(4142.10e-6, rel=1e-5)
    with pytest.raises(ValueError, match="SourceLockStep: got 'maybe'"):
        dlnet.run_collective(**base, ns3_attributes={"ns3::FlowNetwork::SourceLockStep": "maybe"})


def direct_allreduce_at_flow_level(leaves, hosts_per_leaf):
    """A 1 MiB direct all-reduce at flow level on a leaf-spine of 4 spines."""
    return dict(topology="leaf-spine", leaves=leaves, hosts_per_leaf=hosts_per_leaf, spines=4,
                op="allreduce", algorithm="direct", min_bytes="1MiB", max_bytes="1MiB",
                network="flow", estimate=False)


def test_finish_tolerance_from_python():
    # the direct all-reduce of 64 ranks on an 8 x 8 leaf-spine, 1 MiB: its flows end
    # nanoseconds apart; by default (1e-4 of a flow's sending time) those ends are taken together,
    # in fewer events, with the time exact ends give (182.33557 us, doc/flow-network.md,
    # "Ends taken together") to 1e-4
    base = direct_allreduce_at_flow_level(leaves=8, hosts_per_leaf=8)
    default = rows_of(dlnet.run_collective(**base))[0]
    exact = rows_of(dlnet.run_collective(**base, ns3_attributes={
        "ns3::FlowNetwork::FinishTolerance": "0"}))[0]
    assert exact["time_s"] == pytest.approx(182.33557e-6, rel=1e-7)
    assert default["time_s"] == pytest.approx(exact["time_s"], rel=1e-4)
    assert default["events"] < exact["events"]
    for bad in ("nan", "0.5", "-1e-4"):
        with pytest.raises(ValueError, match="FinishTolerance: got"):
            dlnet.run_collective(**base, ns3_attributes={"ns3::FlowNetwork::FinishTolerance": bad})


def test_incremental_solve_from_python():
    # the same all-reduce on 256 ranks (16 x 16): after ends alone only the flows at or above
    # the lowest ended rate are solved again; the time and events are those of whole solves
    # (doc/flow-network.md, "After ends, the flows above"), to rounding
    base = direct_allreduce_at_flow_level(leaves=16, hosts_per_leaf=16)
    incremental = rows_of(dlnet.run_collective(**base))[0]
    whole = rows_of(dlnet.run_collective(**base, ns3_attributes={
        "ns3::FlowNetwork::IncrementalSolve": "false"}))[0]
    assert incremental["time_s"] == pytest.approx(whole["time_s"], rel=1e-7)
    assert incremental["events"] == whole["events"]
    with pytest.raises(ValueError, match="IncrementalSolve: got"):
        dlnet.run_collective(**base, ns3_attributes={"ns3::FlowNetwork::IncrementalSolve": "maybe"})


# (c) auto picks the algorithm the alpha-beta model predicts to be fastest.


def concrete_predictions(base):
    """bound_s of every concrete algorithm the op accepts on this topology."""
    predictions = {}
    for alg in CONCRETE:
        try:
            out = dlnet.run_collective(base, algorithm=alg)
        except ValueError as e:
            assert "does not implement" in str(e) or "needs a two-dimensional" in str(e), e
            continue
        (row,) = rows_of(out)
        assert row["algorithm"] == alg
        predictions[alg] = row["bound_s"]
    return predictions


@pytest.mark.parametrize("topology", [STAR5, LEAF_SPINE8], ids=["star5", "leaf-spine8"])
@pytest.mark.parametrize("op", sorted(IMPLEMENTED))
@pytest.mark.parametrize("size", [16, 4000])
def test_auto_picks_the_smallest_prediction(topology, op, size):
    # 16 B is 4 elements: fewer than the 8 chunks auto assumes for trees and
    # chains, so those run in 4. alltoall needs a multiple of 5 and of 8 elements.
    if op == "alltoall":
        size = 160 if size == 16 else size
    base = dict(topology, op=op, min_bytes=size, max_bytes=size)
    predictions = concrete_predictions(base)
    grid = topology is LEAF_SPINE8
    assert set(predictions) == {a for a in IMPLEMENTED[op] if grid or a not in HIERARCHICAL}

    (auto,) = rows_of(dlnet.run_collective(base, algorithm="auto"))
    assert auto["algorithm"] in predictions  # resolved: a concrete name, never "auto"
    best = min(predictions.values())
    assert auto["bound_s"] == pytest.approx(best, rel=1e-12), (auto["algorithm"], predictions)
    assert auto["bound_s"] == pytest.approx(predictions[auto["algorithm"]], rel=1e-12)


# (d) bad input: ValueError naming the field.


@pytest.mark.parametrize(
    "options, message",
    [
        ({"algorithm": "spiral"}, "algorithm: got 'spiral'"),
        ({"op": "allsum"}, "op: got 'allsum'"),
        ({"min_bytes": 0}, "min-bytes: got 0"),
        ({"min_bytes": 1001}, "min-bytes: 1001 is not a multiple of the 4-byte fp32 element"),
        ({"max_bytes": 1002, "min_bytes": 4}, "max-bytes: 1002 is not a multiple"),
        ({"ranks": "0,1,1"}, "ranks: '1' is listed twice"),
        ({"ranks": "0,99"}, "ranks: rank 99 is out of range"),
        ({"ranks": "0-99"}, "ranks: range 0-99 is longer than the cluster"),
        ({"ranks": "0,x"}, "ranks: got 'x'"),
        ({"topology": "star", "algorithm": "hierarchical"},
         "algorithm: hierarchical needs a two-dimensional topology"),
        ({"op": "alltoall", "algorithm": "double-binary-tree"},
         "algorithm: double-binary-tree does not implement alltoall"),
        ({"type": "fp8"}, "type: got 'fp8'"),
        ({"no_such_key": 1}, "unknown option 'no-such-key'"),
        ({"min_bytes": 8192, "max_bytes": 4096}, "max-bytes: smaller than min-bytes"),
        ({"min_bytes": 4, "max_bytes": 64, "step_factor": 1}, "step-factor: got 1"),
        ({"op": "broadcast", "root": 8}, "root: 8 is not a communicator index"),
        ({"op": "allgather", "root": 3}, "root: got 3; it applies to broadcast and reduce only"),
        ({"op": "alltoall", "min_bytes": 12, "max_bytes": 12}, "min-bytes: alltoall of 12 bytes"),
        ({"op": "allgather", "chunks": 3}, "chunks: allgather runs in one chunk"),
        ({"seed": 0}, "seed: got '0'; expected a whole number from 1 to 4294944442"),
        ({"topology": "star", "load_balancing": "packet"},
         "load-balancing: got packet; it applies where two ranks have two or more equal-cost"),
        ({"algorithm": "ring", "chunks_in_flight": 2},
         "chunks-in-flight: got 2; it applies when a rank runs two or more chunks at once"),
        ({"algorithm": "double-binary-tree", "chunks_in_flight": 9},
         "chunks-in-flight: got 9; expected 0 (all) to 8"),
        ({"algorithm": "switchml", "network": "flow", "aggregation_timeout": "5ms"},
         "aggregation-timeout: got 5ms; it applies at network=packet only"),
    ],
)
def test_bad_input_raises_value_error_naming_the_field(options, message):
    with pytest.raises(ValueError) as info:
        dlnet.run_collective(**options)
    assert message in str(info.value)


def test_bad_input_leaves_the_simulator_usable():
    with pytest.raises(ValueError):
        dlnet.run_collective(STAR5, ranks="0,1,1", min_bytes=4096, max_bytes=4096)
    out = dlnet.run_collective(STAR5, functional=True, min_bytes=4096, max_bytes=4096)
    assert rows_of(out)[0]["correct"] is True


# (e) determinism.


def test_same_config_twice_gives_the_same_result():
    # Packet spraying and random losses: the run draws random numbers, so the
    # seed must fix them.
    config = {
        "topology": "leaf-spine",
        "algorithm": "halving-doubling",
        "load_balancing": "packet",
        "flow_control": "lossy",
        "loss_rate": 0.01,
        "functional": True,
        "min_bytes": "16KiB",
        "max_bytes": "256KiB",
        "step_factor": 4,
        "seed": 3,
    }
    first = dlnet.run_collective(config)
    second = dlnet.run_collective(config)
    assert first["result"] == second["result"]
    assert first["config"] == second["config"]
    assert all(r["correct"] for r in rows_of(first))
    # the returned config (kebab-case keys, typed values) reproduces the run
    assert dlnet.run_collective(first["config"])["result"] == first["result"]



EVERY_TOPOLOGY = [
    {"topology": "star"},
    {"topology": "leaf-spine", "load_balancing": "packet"},
    {"topology": "mesh"},
    {"topology": "torus"},
    {"topology": "fat-tree"},
    {"topology": "dragonfly"},
    {"topology": "wafer-mesh"},
    {"topology": "fred-b"},
    {"topology": "fred-a", "link_rate": "500GBps", "link_delay": "20ns"},
    {"topology": "fred-c"},
    {"topology": "fred-d"},
    {"topology": "gpu-leaf-spine"},
    {"topology": "rail-optimised"},
    {"topology": "hetero-leaf-spine", "host_groups": "2x25Gbps,2x100Gbps", "hosts_per_leaf": 2},
]


def test_every_topology_kind_is_in_the_round_trip_list():
    help_text = next(o["help"] for o in dlnet.collective_options() if o["name"] == "topology")
    kinds = set(help_text.replace(" or ", ", ").split(", "))
    assert kinds == {t["topology"] for t in EVERY_TOPOLOGY}


@pytest.mark.parametrize("topology", EVERY_TOPOLOGY)
def test_returned_config_of_every_preset_runs_again_alike(topology):
    # A wafer takes link-rate and link-delay only when given (else its own NPU bandwidth
    # and delay), and the GPU servers and hetero-leaf-spine refuse link-rate: the returned
    # config wrote both at the fabric's defaults, which the run refused or, for a wafer,
    # ran 240 times slower (745.6 GB/s against 3.1 GB/s).
    first = dlnet.run_collective(topology, min_bytes="64KiB", max_bytes="64KiB")
    assert dlnet.run_collective(first["config"])["result"] == first["result"]

# (f) results_dir.


def test_results_dir_writes_files(tmp_path):
    folder = tmp_path / "sweep"
    out = dlnet.run_collective(STAR5, min_bytes="1KiB", max_bytes="16KiB", step_factor=4,
                               results_dir=folder)
    for name in ("collective.csv", "result.json"):
        assert (folder / name).is_file()
    if shutil.which("gnuplot"):
        png = (folder / "busbw.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
    else:  # pragma: no cover - gnuplot is a build dependency
        assert (folder / "busbw.plt").is_file()

    with open(folder / "collective.csv", newline="") as f:
        table = list(csv.reader(f))
    # the original columns first, unchanged; every column is a key of the returned rows
    assert table[0][:13] == ["op", "algorithm", "ranks", "bytes", "count", "type", "redop",
                             "time_s", "algbw_Bps", "busbw_Bps", "bound_s", "checked",
                             "correct"]
    assert table[0] == [f["name"] for f in dlnet.result_fields()["collective"]]
    assert all(set(row) == set(table[0]) for row in rows_of(out))
    assert len(table) == 1 + 3
    assert [int(line[3]) for line in table[1:]] == [1024, 4096, 16384]
    assert all(line[:3] == ["allreduce", "ring", "5"] for line in table[1:])
    for line, row in zip(table[1:], rows_of(out)):
        assert float(line[7]) == row["time_s"]  # written with full precision

    written = json.loads((folder / "result.json").read_text())
    # result.json keeps the option texts; Python has them typed
    assert written["config"] == out["config"]  # one serialisation: the same typed values
    assert written["sweeps"] == [out["result"]]


# (g) the size sweep.


def test_sweep_sizes():
    out = dlnet.run_collective(STAR5, min_bytes="1KiB", max_bytes="64KiB", step_factor=4)
    rows = rows_of(out)
    assert [r["bytes"] for r in rows] == [1024, 4096, 16384, 65536]
    assert [r["count"] for r in rows] == [256, 1024, 4096, 16384]
    assert all(a["bytes"] < b["bytes"] for a, b in zip(rows, rows[1:]))
    assert all(r["algorithm"] == "ring" and r["redop"] == "sum" for r in rows)
    # Bigger buffers amortise the per-step latency.
    assert all(a["busbw_Bps"] < b["busbw_Bps"] for a, b in zip(rows, rows[1:]))
    assert out["result"]["ranks"] == 5 and out["result"]["op"] == "allreduce"
    assert out["wall_seconds"] >= 0
