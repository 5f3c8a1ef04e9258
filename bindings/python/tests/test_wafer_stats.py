# SPDX-License-Identifier: GPL-2.0-only
"""pytest for the wafer experiment's statistics (run_wafer(stats=True), fred-vs-mesh
--stats=true): links, switches and ranks of every simulation checked against the rows of
fred-vs-mesh.csv they belong to, at packet and flow level; off by default and then
without any trace in the result files.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_wafer_stats.py
"""
import csv
import json

import pytest

import dlnet

NPUS = 20
SIZE = 1 << 20
IO_SIZE = 256 << 10


@pytest.fixture(scope="module", params=["packet", "flow"])
def run(request):
    """Every default scenario on the mesh, an endpoint FRED (A) and an in-switch FRED (B)."""
    return dlnet.run_wafer(variants="mesh,fred-a,fred-b", bytes=SIZE, io_bytes=IO_SIZE,
                           network=request.param, stats=True)


def simulation_of(out, row, table):
    """The rows of a statistics table from the simulation that measured a result row."""
    rows = [r for r in out[table] if r["variant"] == row["variant"]
            and r["scenario"] == row["scenario"] and row["group"] in r["group"].split("+")]
    assert rows, (table, row["variant"], row["scenario"], row["group"])
    assert len({r["group"] for r in rows}) == 1  # one simulation
    return rows


def test_link_bytes_add_up_to_the_rows(run):
    """Per tier, the links' bytes add up exactly to the row's npu/upper/io link bytes
    (one count each, from the same devices or flow network)."""
    for row in run["rows"]:
        links = simulation_of(run, row, "links")
        npu = sum(l["tx_bytes"] for l in links if l["tier"] not in ("fabric", "io"))
        upper = sum(l["tx_bytes"] for l in links if l["tier"] == "fabric")
        io = sum(l["tx_bytes"] for l in links if l["tier"] == "io")
        assert (npu, upper, io) == (row["npu_link_bytes"], row["upper_link_bytes"],
                                    row["io_link_bytes"]), (row["variant"], row["group"])
        for l in links:
            assert 0 <= l["utilisation"] <= 1
            packet = row["network"] == "packet"
            assert (l["tx_packets"] is not None) == packet
            assert (l["max_queue_bytes"] is not None) == packet
        # something ran near line rate on every simulation but the wafer all-reduce
        assert max(l["utilisation"] for l in links) > 0.1


def test_fred_upper_links_are_the_fabric_tier(run):
    """FRED: the L1-L2 (leaf-spine) links are the fabric tier and carry the collective's
    upper_link_bytes; a wafer-wide all-reduce must cross them."""
    for variant in ("fred-a", "fred-b"):
        row = next(r for r in run["rows"] if r["variant"] == variant and r["group"] == "wafer")
        fabric = [l for l in simulation_of(run, row, "links") if l["tier"] == "fabric"]
        assert len(fabric) == 2 * 5 * 4  # 5 L1 x 4 L2, both directions
        assert all({l["from"][:4], l["to"][:4]} <= {"leaf", "spin"} for l in fabric)
        assert sum(l["tx_bytes"] for l in fabric) == row["upper_link_bytes"] > 0


def test_link_ends_named_by_owner(run):
    """No link row has from == to: the mesh names an NPU's link to its router
    npuK-xX-yY / routerK and its router-to-router links routerA / routerC (the NPU and
    its router share a node); every end that is not an NPU, a FRED host or an I/O
    controller is a switch of switches.csv, so the two tables join on the name."""
    for row in run["rows"]:
        links = simulation_of(run, row, "links")
        switches = {s["switch"] for s in simulation_of(run, row, "switches")}
        assert all(l["from"] != l["to"] for l in links)
        for l in links:
            for end in (l["from"], l["to"]):
                assert end in switches or end.startswith(("npu", "host", "io")), end
        if row["variant"] == "mesh":
            local = [l for l in links if l["tier"] == "local"]
            assert len(local) == 2 * NPUS
            for l in local:
                npu, router = (l["from"], l["to"]) if l["from"].startswith("npu") \
                    else (l["to"], l["from"])
                assert router == "router" + npu[3:].split("-")[0]
            assert all(l["from"] in switches and l["to"] in switches
                       for l in links if l["tier"] == "fabric")


@pytest.mark.parametrize("network", ["packet", "flow"])
@pytest.mark.parametrize("topology", ["mesh", "torus"])
def test_grid_link_ends(topology, network):
    """The collective experiment on a 3 x 3 mesh or torus: no link has from == to, and
    the router ends are the switches' names."""
    out = dlnet.run_collective(topology=topology, rows=3, cols=3, min_bytes=64 << 10,
                               max_bytes=64 << 10, network=network, stats=True)
    switches = {s["switch"] for s in out["switches"]}
    assert switches == {"router%d" % r for r in range(9)}
    assert all(l["from"] != l["to"] for l in out["links"])
    assert all(l["to"] in switches for l in out["links"] if l["tier"] == "local"
               and l["from"].startswith("npu"))


@pytest.mark.parametrize("topology", ["rail-optimised", "gpu-leaf-spine"])
def test_gpu_server_link_ends(topology):
    """GPU servers: a GPU's local link ends at its router (routerK, a switch), not at a
    second end named after the GPU."""
    out = dlnet.run_collective(topology=topology, servers=2, gpus_per_server=4,
                               min_bytes=64 << 10, max_bytes=64 << 10, stats=True)
    switches = {s["switch"] for s in out["switches"]}
    assert all(l["from"] != l["to"] for l in out["links"])
    local = [l for l in out["links"] if l["tier"] == "local"]
    assert len(local) == 2 * 8
    assert all((l["from"] in switches) != (l["to"] in switches) for l in local)


def test_rank_bytes_and_finish(run):
    """Per NPU: the bytes sent add up to the row's injected bytes per sender times the
    senders; a rank finishes within the row's time and the last exactly at it
    (endpoint algorithms, and in-switch at packet level, where finish_s is the NPU's
    last result and network_s equals it); in-switch all-reduce: every NPU sends and
    receives its buffer; in-switch at flow level: times unknown (the flows end every
    NPU with the job)."""
    for row in run["rows"]:
        if row["scenario"] in ("mix", "priority", "io"):
            continue  # several rows per simulation; io: no byte counts (null)
        ranks = simulation_of(run, row, "ranks")
        assert [r["rank"] for r in ranks] == list(range(NPUS))
        sent = [r["bytes_sent"] for r in ranks if r["bytes_sent"] > 0]
        assert sum(sent) == pytest.approx(row["injected_per_npu_bytes"] * len(sent), rel=1e-12)
        assert sum(r["bytes_received"] for r in ranks) > 0
        if row["algorithm"] == "in-switch":
            if row["group"] == "wafer":
                assert all(r["bytes_sent"] == r["bytes_received"] == SIZE for r in ranks)
            if row["network"] == "flow":
                assert all(r["finish_s"] is None and r["network_s"] is None for r in ranks)
                continue
            assert all(r["network_s"] == r["finish_s"] for r in ranks)
        timed = [r for r in ranks if r["finish_s"] is not None]
        assert {r["rank"] for r in timed} == {r["rank"] for r in ranks if r["bytes_sent"]
                                             or r["bytes_received"]}
        for r in timed:
            assert 0 < r["finish_s"] <= row["time_s"] * (1 + 1e-12)
            assert 0 < r["network_s"] <= row["time_s"] * (1 + 1e-12)
        assert max(r["finish_s"] for r in timed) == pytest.approx(row["time_s"], rel=1e-9)


def check_in_switch_ranks(ranks, links, time):
    """Every NPU's finish_s (its last result) is at least what its L1 link delivered to
    it at the link's rate (it cannot have its result sooner) and at most the collective's
    time, the last at it; network_s = finish_s."""
    down = {l["to"]: l for l in links if l["tier"] == "host" and l["from"].startswith("leaf")}
    assert len(ranks) == NPUS
    for r in ranks:
        link = down["host%d" % r["rank"]]
        assert 0 < link["tx_bytes"] * 8 / link["rate_bps"] <= r["finish_s"] <= time
        assert r["network_s"] == r["finish_s"]
    assert max(r["finish_s"] for r in ranks) == pytest.approx(time, rel=1e-9)


def test_in_switch_rank_times(run):
    """fred-b's wafer-wide in-switch all-reduce at packet level: per NPU as
    check_in_switch_ranks (it streams its buffer and waits for results from the start to
    its last result); flow level: null. The same through the collective experiment on
    the fred-b topology (its own defaults: another MTU, so other times)."""
    row = next(r for r in run["rows"] if r["variant"] == "fred-b" and r["group"] == "wafer")
    assert row["algorithm"] == "in-switch"
    ranks = simulation_of(run, row, "ranks")
    if row["network"] == "flow":
        assert all(r["finish_s"] is None and r["network_s"] is None for r in ranks)
        return
    check_in_switch_ranks(ranks, simulation_of(run, row, "links"), row["time_s"])
    out = dlnet.run_collective(topology="fred-b", algorithm="fred-in-switch", op="allreduce",
                               min_bytes=SIZE, max_bytes=SIZE, stats=True)
    check_in_switch_ranks(out["ranks"], out["links"], out["result"]["rows"][0]["time_s"])
    flow = dlnet.run_collective(topology="fred-b", algorithm="fred-in-switch", op="allreduce",
                                min_bytes=SIZE, max_bytes=SIZE, stats=True, network="flow")
    assert all(r["finish_s"] is None and r["network_s"] is None for r in flow["ranks"])


def test_in_switch_mix_rank_times(run):
    """fred-b's mix (MP and DP in-switch, PP by messages, one simulation): at packet level
    every NPU is timed by its in-switch results and its messages together, within the
    simulation and the last at its end; at flow level the NPUs in an in-switch collective
    are null (their messages alone would understate the time)."""
    rows = [r for r in run["rows"] if r["variant"] == "fred-b" and r["scenario"] == "mix"]
    ranks = simulation_of(run, rows[0], "ranks")
    if rows[0]["network"] == "flow":
        assert all(r["finish_s"] is None for r in ranks)
        return
    end = max(r["time_s"] for r in rows)
    assert all(0 < r["network_s"] <= r["finish_s"] * (1 + 1e-12) <= end * (1 + 1e-12)
               for r in ranks)
    assert max(r["finish_s"] for r in ranks) == pytest.approx(end, rel=1e-9)
    assert len({r["finish_s"] for r in ranks}) > 1


def test_io_ranks_unknown(run):
    io = [r for r in run["ranks"] if r["scenario"] == "io"]
    assert io
    for r in io:
        assert r["bytes_sent"] is None and r["finish_s"] is None


def test_switches_and_peak_slots(run):
    """The mesh's 20 routers, FRED's 5 L1 and 4 L2 switches; peak_slots (most partial
    results held at once) only where a FRED switch program runs, at packet level:
    within [1, 20] on the switches of an in-switch wafer-wide reduction, 0 for weight
    streaming (the switches copy, nothing is reduced), null for endpoint schedules."""
    for row in run["rows"]:
        switches = simulation_of(run, row, "switches")
        assert len(switches) == (NPUS if row["variant"] == "mesh" else 9)
        packet = row["network"] == "packet"
        for s in switches:
            assert (s["packets"] is not None) == packet
            assert s["no_route_drops"] in (0, None)
            if not packet or row["variant"] == "mesh":
                assert s["peak_slots"] is None
            elif row["scenario"] == "io":
                assert s["peak_slots"] == 0
            elif row["variant"] == "fred-a":
                assert s["peak_slots"] is None
        if row["variant"] == "fred-b" and packet and row["group"] == "wafer":
            assert all(1 <= s["peak_slots"] <= NPUS for s in switches)


def test_files_and_off_by_default(tmp_path):
    args = dict(variants="mesh,fred-b", scenarios="allreduce,priority", bytes=SIZE)
    off = dlnet.run_wafer(results_dir=str(tmp_path / "off"), **args)
    on = dlnet.run_wafer(results_dir=str(tmp_path / "on"), stats=True, **args)
    assert "links" not in off and "stats" not in off["config"]
    for name in ("links.csv", "switches.csv", "ranks.csv"):
        assert not (tmp_path / "off" / name).exists()
    assert (tmp_path / "off" / "fred-vs-mesh.csv").read_bytes() == \
        (tmp_path / "on" / "fred-vs-mesh.csv").read_bytes()
    # result.json: the same but for the option and the three tables
    with open(tmp_path / "on" / "result.json") as f:
        with_stats = json.load(f)
    with open(tmp_path / "off" / "result.json") as f:
        without = json.load(f)
    assert with_stats["config"].pop("stats") is True
    assert "stats" not in without["config"]
    for key in ("links", "switches", "ranks"):
        assert with_stats.pop(key) == on[key]
    assert with_stats == without
    # the CSV files: the field tables' columns, one line per row of the Python tables
    fields = dlnet.result_fields()
    for name, table in (("links", "wafer_links"), ("switches", "wafer_switches"),
                        ("ranks", "wafer_ranks")):
        with open(tmp_path / "on" / (name + ".csv")) as f:
            rows = list(csv.DictReader(f))
        columns = [c["name"] for c in fields[table]]
        assert list(rows[0].keys()) == columns
        assert columns[:3] == ["variant", "scenario", "group"]
        assert len(rows) == len(on[name])
        assert [r["group"] for r in rows] == [r["group"] for r in on[name]]
    # one simulation per allreduce variant, three per priority variant
    groups = sorted({(r["variant"], r["group"]) for r in on["switches"]})
    assert groups == sorted((v, g) for v in ("mesh", "fred-b") for g in
                            ("wafer", "MP-alone", "DP-alone", "MP-with-DP+DP-with-MP"))
