# SPDX-License-Identifier: GPL-2.0-only
"""pytest for the collective statistics (stats=True): the links and ranks tables in the
result dict and links.csv / ranks.csv next to collective.csv; off by default and then
without any trace in the result files.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_link_stats.py
"""
import csv
import json
import math

import pytest

import dlnet

HEADER = 24  # FabricHeader bytes
MTU = 4096   # default largest packet, header included


def wire_bytes(payload):
    """A message's bytes on a link: a header per segment (closed form)."""
    return payload + HEADER * math.ceil(payload / (MTU - HEADER))


def test_saturated_link_bytes_and_utilisation():
    size = 16 << 20
    out = dlnet.run_collective(topology="star", hosts=2, op="sendrecv", min_bytes=size,
                               max_bytes=size, stats=True)
    links = {(l["from"], l["to"]): l for l in out["links"]}
    ranks = out["ranks"]
    assert [r["bytes_sent"] for r in ranks] == [size, 0]
    assert [r["bytes_received"] for r in ranks] == [0, size]
    up = links[("host0", "switch0")] if ("host0", "switch0") in links else \
        next(l for (a, _), l in links.items() if a == "host0")
    down = next(l for (a, b), l in links.items() if b == "host1")
    for l in (up, down):
        assert l["tx_bytes"] == wire_bytes(ranks[0]["bytes_sent"])
        assert l["utilisation"] >= 0.99
        assert l["bytes"] == size and l["algorithm"] == "ring"
        assert l["busy_s"] > 0 and l["credit_stalls"] is not None


@pytest.mark.parametrize("network", ["packet", "flow"])
def test_rank_finish_and_network_time_sendrecv(network):
    """2 ranks on a star, one message: both ranks finish when it is delivered, the
    collective's time; both wait for the network all that time; closed form: the wire
    bytes at 100 Gb/s (plus latency and one packet of store-and-forward, < 1 %)."""
    size = 16 << 20
    out = dlnet.run_collective(topology="star", hosts=2, op="sendrecv", min_bytes=size,
                               max_bytes=size, network=network, stats=True)
    time = out["result"]["rows"][0]["time_s"]
    r0, r1 = out["ranks"]
    assert r1["finish_s"] == time and r0["finish_s"] == time
    assert r0["network_s"] == time and r1["network_s"] == time
    assert time == pytest.approx(wire_bytes(size) * 8 / 100e9, rel=0.01)


def test_rank_times_ring_all_reduce():
    """4-rank ring all-reduce: every rank finishes within the run, the last at its end;
    a rank waits for the network at most until it finishes and most of the time."""
    out = dlnet.run_collective(topology="star", hosts=4, min_bytes=1 << 20, max_bytes=1 << 20,
                               stats=True)
    time = out["result"]["rows"][0]["time_s"]
    finishes = [r["finish_s"] for r in out["ranks"]]
    assert max(finishes) == time
    for r in out["ranks"]:
        assert 0.5 * time < r["network_s"] <= r["finish_s"] <= time


@pytest.mark.parametrize("op,algorithm", [("reduce", "halving-doubling"),
                                          ("reduce", "double-binary-tree"),
                                          ("broadcast", "ring"), ("alltoall", "direct")])
def test_rank_times_asymmetric_schedules(op, algorithm):
    """Schedules whose ranks' last sends land after their last receives (a reduce's
    non-roots): network_s <= finish_s <= time on every rank, the last finish is the time."""
    out = dlnet.run_collective(topology="star", hosts=8, op=op, algorithm=algorithm,
                               min_bytes=1 << 20, max_bytes=1 << 20, stats=True)
    time = out["result"]["rows"][0]["time_s"]
    assert max(r["finish_s"] for r in out["ranks"]) == pytest.approx(time, rel=1e-12)
    for r in out["ranks"]:
        assert 0 < r["network_s"] <= r["finish_s"] <= time * (1 + 1e-12), r


SWITCHML_HEADER = 16  # SwitchmlHeader bytes


def test_rank_times_switchml_two_hosts():
    """SwitchML all-reduce of 16 MiB on a 2-host star (100 Gb/s), packet level: the
    workers' packets go to the switch, so the times come from each worker's last result.
    Each sends and receives B in packets of 256 int32 (1024 B + 16 B SwitchML + 24 B fabric
    header): the time is those wire bytes at 100 Gb/s within 1 % (closed form); each rank
    finishes within it, the last at its end, and waits for the network all along."""
    size = 16 << 20
    out = dlnet.run_collective(topology="star", hosts=2, algorithm="switchml", min_bytes=size,
                               max_bytes=size, stats=True)
    time = out["result"]["rows"][0]["time_s"]
    wire = (size // 1024) * (1024 + SWITCHML_HEADER + HEADER)
    assert time == pytest.approx(wire * 8 / 100e9, rel=0.01)
    ranks = out["ranks"]
    assert len(ranks) == 2 and max(r["finish_s"] for r in ranks) == time
    for r in ranks:
        assert 0.5 * time < r["network_s"] <= r["finish_s"] <= time


def test_rank_times_in_network_differ_per_rank():
    """OmniReduce, aggregators colocated on the 4 workers, 10 % dense blocks: the ranks
    finish at their own times (their last results), all within the run, the last at its end."""
    out = dlnet.run_collective(topology="star", hosts=4, algorithm="omnireduce",
                               aggregator_placement="colocated", density=0.1,
                               min_bytes=1 << 20, max_bytes=1 << 20, stats=True)
    time = out["result"]["rows"][0]["time_s"]
    finishes = [r["finish_s"] for r in out["ranks"]]
    assert max(finishes) == time and len(set(finishes)) > 1
    assert all(0 < f <= time for f in finishes)


def test_rank_times_unknown_for_in_network_backend_at_flow_level():
    """The flow-level twins of SwitchML and OmniReduce end every worker at the job's end
    (no per-worker completion is modelled): the columns stay null there."""
    out = dlnet.run_collective(topology="star", hosts=4, algorithm="switchml", network="flow",
                               min_bytes=1 << 20, max_bytes=1 << 20, stats=True)
    assert len(out["ranks"]) == 4
    assert all(r["finish_s"] is None and r["network_s"] is None for r in out["ranks"])


def test_flow_level_leaves_queues_unknown():
    out = dlnet.run_collective(topology="star", hosts=4, min_bytes=1 << 20, max_bytes=1 << 20,
                               network="flow", stats=True)
    assert len(out["links"]) == 8 and len(out["ranks"]) == 4
    for l in out["links"]:
        assert l["tx_packets"] is None and l["max_queue_bytes"] is None
        assert l["max_queue_packets"] is None and l["credit_stalls"] is None
        assert l["busy_s"] > 0 and 0 < l["utilisation"] <= 1


def test_leaf_spine_uplinks_busiest():
    out = dlnet.run_collective(topology="leaf-spine", leaves=4, hosts_per_leaf=4, spines=2,
                               oversubscription=2, load_balancing="packet",
                               algorithm="halving-doubling", min_bytes=1 << 20,
                               max_bytes=1 << 20, stats=True)
    links = sorted(out["links"], key=lambda l: -l["busy_s"])
    fabric = [l for l in links if l["tier"] == "fabric"]
    hosts = [l for l in links if l["tier"] != "fabric"]
    assert links[0]["tier"] == "fabric"
    assert min(l["busy_s"] for l in fabric) > max(l["busy_s"] for l in hosts)


def test_files_and_off_by_default(tmp_path):
    args = dict(topology="star", hosts=4, min_bytes=1 << 20, max_bytes=2 << 20)
    off = dlnet.run_collective(results_dir=str(tmp_path / "off"), **args)
    on = dlnet.run_collective(results_dir=str(tmp_path / "on"), stats=True, **args)
    assert "links" not in off and "link_stats" not in off["result"]
    assert not (tmp_path / "off" / "links.csv").exists()
    assert (tmp_path / "off" / "collective.csv").read_bytes() == \
        (tmp_path / "on" / "collective.csv").read_bytes()
    with open(tmp_path / "on" / "links.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(on["links"]) == 2 * 8
    fields = [f["name"] for f in dlnet.result_fields()["collective_links"]]
    assert list(rows[0].keys()) == fields
    with open(tmp_path / "on" / "ranks.csv") as f:
        assert len(list(csv.DictReader(f))) == 2 * 4
    with open(tmp_path / "on" / "switches.csv") as f:
        switches = list(csv.DictReader(f))
    assert len(switches) == len(on["switches"]) == 2
    # every packet a host sent went through the star's one switch
    for size in (1 << 20, 2 << 20):
        sent = sum(l["tx_packets"] for l in on["links"] if l["bytes"] == size
                   and l["tier"] == "host" and l["from"].startswith("host"))
        assert [s["packets"] for s in on["switches"] if s["bytes"] == size] == [sent]


def test_timeline_one_track_per_rank(tmp_path):
    path = tmp_path / "timeline.json"
    out = dlnet.run_collective(topology="star", hosts=8, algorithm="ring", min_bytes=1 << 20,
                               max_bytes=1 << 20, timeline=str(path))
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    assert sorted(names) == list(range(8)) and names[3] == "rank 3"
    assert {e["pid"] for e in slices} == set(range(8))
    # ring all-reduce: 2 (n - 1) steps, one message per rank each, seen at both ends
    assert len(slices) == 2 * 8 * 2 * 7
    time_us = out["result"]["rows"][0]["time_s"] * 1e6
    assert all(e["ts"] + e["dur"] <= time_us + 1e-6 for e in slices)


def test_timeline_refused_for_in_network_algorithms(tmp_path):
    path = tmp_path / "timeline.json"
    with pytest.raises(ValueError, match="timeline: omnireduce aggregates in the network"):
        dlnet.run_collective(topology="star", hosts=8, algorithm="omnireduce",
                             min_bytes=1 << 20, max_bytes=1 << 20, timeline=str(path))
    assert not path.exists()


def timeline_slices(tmp_path, name, **kw):
    """Run one collective with a timeline; return (result, file bytes, X slices)."""
    path = tmp_path / name
    out = dlnet.run_collective(topology="star", min_bytes=1 << 20, max_bytes=1 << 20,
                               timeline=str(path), **kw)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return out, path.read_bytes(), [e for e in events if e["ph"] == "X"]


@pytest.mark.parametrize("network", ["packet", "flow"])
def test_timeline_ring_steps(tmp_path, network):
    """4-rank ring all-reduce, packet and flow level: every rank's track has one send and one receive slice
    named "step s" for s in 0..2(n-1)-1; rank r's step-s send (to r+1) is the same message
    as r+1's step-s receive (same times); rank r sends step s+1 only after its step-s
    receive is delivered (the ring's dependency: this fails if the labels are shifted);
    the file is byte-identical on a second run."""
    n = 4
    _, text, slices = timeline_slices(tmp_path, "a.json", hosts=n, algorithm="ring",
                                      network=network)
    _, again, _ = timeline_slices(tmp_path, "b.json", hosts=n, algorithm="ring", network=network)
    assert text == again
    steps = list(range(2 * (n - 1)))
    send = {(e["pid"], e["args"]["step"]): e for e in slices if e["tid"] % 2 == 0}
    recv = {(e["pid"], e["args"]["step"]): e for e in slices if e["tid"] % 2 == 1}
    assert len(send) == len(recv) == len(slices) // 2 == n * len(steps)
    for r in range(n):
        assert sorted(s for (p, s) in send if p == r) == steps
        assert sorted(s for (p, s) in recv if p == r) == steps
        for s in steps:
            out, into = send[(r, s)], recv[((r + 1) % n, s)]
            assert out["name"] == into["name"] == f"step {s}"
            assert out["args"]["dst"] == (r + 1) % n and out["args"]["peer"] == (r + 1) % n
            assert into["args"]["src"] == r and into["args"]["peer"] == r
            assert (out["ts"], out["dur"]) == (into["ts"], into["dur"])
            assert out["args"]["bytes"] == (1 << 20) // n
            assert out["args"]["chunk"] == 0 and out["args"]["collective"] == 0
            if s + 1 in steps:
                got = recv[(r, s)]
                assert send[(r, s + 1)]["ts"] >= got["ts"] + got["dur"] - 1e-6


def test_timeline_halving_doubling_steps(tmp_path):
    """8-rank halving-doubling: log2(8) * 2 = 6 steps on every track; step s exchanges
    with the rank at distance 4, 2, 1, 1, 2, 4 (XOR) and B/2, B/4, B/8, B/8, B/4, B/2 bytes."""
    n, size = 8, 1 << 20
    _, _, slices = timeline_slices(tmp_path, "hd.json", hosts=n, algorithm="halving-doubling")
    distance = [4, 2, 1, 1, 2, 4]
    assert len(slices) == 2 * n * len(distance)
    for e in slices:
        r, s = e["pid"], e["args"]["step"]
        assert e["name"] == f"step {s}"
        assert e["args"]["peer"] == r ^ distance[s]
        assert e["args"]["bytes"] == size // (2 * distance[0] // distance[s])
    for r in range(n):
        assert sorted(e["args"]["step"] for e in slices if e["pid"] == r and e["tid"] % 2 == 0) \
            == list(range(len(distance)))


def test_timeline_needs_one_size(tmp_path):
    with pytest.raises(ValueError, match="timeline"):
        dlnet.run_collective(topology="star", hosts=4, min_bytes=1 << 20, max_bytes=2 << 20,
                             timeline=str(tmp_path / "t.json"))


def test_timeline_is_a_path(tmp_path):
    """timeline takes str, bytes or os.PathLike; anything else is a dlnet.OptionTypeError (a
    TypeError and a ValueError) naming it, and a file that cannot be written is a ValueError
    before the run."""
    for value in (123, True, 1.5):
        with pytest.raises(dlnet.OptionTypeError, match="timeline"):
            dlnet.run_collective(topology="star", hosts=4, timeline=value)
    with pytest.raises(ValueError, match="timeline: .* is a folder"):
        dlnet.run_collective(topology="star", hosts=4, timeline=tmp_path)
    dlnet.run_collective(topology="star", hosts=4, timeline=tmp_path / "sub" / "p.json")
    dlnet.run_collective(topology="star", hosts=4, timeline=bytes(tmp_path / "b.json"))
    for name in ("sub/p.json", "b.json"):
        assert json.loads((tmp_path / name).read_text())["traceEvents"]


@pytest.mark.parametrize("pool", [4, 16])
def test_switchml_peak_slots(pool):
    """SwitchML, pool of P slots, 4 workers on a star, 1 MiB (far more than P packets).
    Lossless: the workers' packets of a slot arrive together, so a round completes before
    the next slot's begins (measured peak 1; asserted within [1, P]). With 1 % loss a lost
    contribution holds its slot until the retransmission while the workers' windows move
    on: all P slots are occupied at once. Never more than P. Other backends: null."""
    def peaks(**kw):
        out = dlnet.run_collective(topology="star", hosts=4, algorithm="switchml",
                                   pool_slots=pool, min_bytes=1 << 20, max_bytes=1 << 20,
                                   stats=True, **kw)
        return [s["peak_slots"] for s in out["switches"]]
    lossless, = peaks()
    assert 1 <= lossless <= pool
    assert peaks(flow_control="lossy", loss_rate=0.01) == [pool]
    ring = dlnet.run_collective(topology="star", hosts=4, min_bytes=1 << 20, max_bytes=1 << 20,
                                stats=True)
    assert [s["peak_slots"] for s in ring["switches"]] == [None]


@pytest.mark.parametrize("pool", [4, 16])
def test_omnireduce_peak_slots(pool):
    """OmniReduce aggregating in the star's switch, pool of S slots, 4 workers, 1 MiB
    (1024 blocks of 256 floats: every slot used). Its program leaves the switch when the
    job ends; the peak is read before. Lossless: within [1, S] (measured 1); with 1 % loss
    a lost contribution holds its slot until the worker's timeout: all S occupied at once.
    Aggregators on hosts (colocated) and the flow level have no switch program: null."""
    def peaks(**kw):
        out = dlnet.run_collective(topology="star", hosts=4, algorithm="omnireduce",
                                   aggregator_placement="switch", pool_slots=pool,
                                   min_bytes=1 << 20, max_bytes=1 << 20, stats=True, **kw)
        return [s["peak_slots"] for s in out["switches"]]
    lossless, = peaks()
    assert 1 <= lossless <= pool
    assert peaks(flow_control="lossy", loss_rate=0.01) == [pool]
    assert peaks(network="flow") == [None]
    colocated = dlnet.run_collective(topology="star", hosts=4, algorithm="omnireduce",
                                     aggregator_placement="colocated", min_bytes=1 << 20,
                                     max_bytes=1 << 20, stats=True)
    assert [s["peak_slots"] for s in colocated["switches"]] == [None]


TRAINING = dict(topology="star", hosts=8, model="transformer", layers=2, hidden=256, heads=4,
                sequence=64, vocabulary=512, tp=2, pp=2, dp=2, microbatches=2, iterations=2)


STATS_FILES = ("links.csv", "switches.csv", "rank-stats.csv")


def test_training_links(tmp_path):
    """run_training(stats=True): links.csv (the traffic experiment's LinkFields) of the run;
    the job rows unchanged, and with stats off no statistics and every file as before."""
    off = dlnet.run_training(**TRAINING, results_dir=str(tmp_path / "off"))
    default = dlnet.run_training(**TRAINING, stats=False, results_dir=str(tmp_path / "default"))
    on = dlnet.run_training(**TRAINING, stats=True, results_dir=str(tmp_path / "on"))
    for key in ("links", "link_stats", "switches", "switch_stats", "rank_stats"):
        assert key not in off and key in on
    for f in STATS_FILES:
        assert not (tmp_path / "off" / f).exists() and (tmp_path / "on" / f).exists()
    for f in ("training.csv", "result.json", "ranks.csv", "comms.csv", "trace.json"):
        assert (tmp_path / "off" / f).read_bytes() == (tmp_path / "default" / f).read_bytes()
    # the statistics only observe: the run itself is the same
    for f in ("training.csv", "ranks.csv", "comms.csv", "trace.json"):
        assert (tmp_path / "on" / f).read_bytes() == (tmp_path / "off" / f).read_bytes()
    assert on["jobs"] == off["jobs"] and on["ranks"] == off["ranks"]
    fields = dlnet.result_fields()
    on_json = json.loads((tmp_path / "on" / "result.json").read_text())
    for f, key, table in (("switches.csv", "switch_stats", "training_switches"),
                          ("rank-stats.csv", "rank_stats", "training_rank_stats")):
        with open(tmp_path / "on" / f) as fh:
            rows = list(csv.DictReader(fh))
        names = [c["name"] for c in fields[table]]
        assert list(rows[0]) == names
        assert len(rows) == len(on[key]) == len(on_json[key])
    assert on["switches"] == on["switch_stats"]
    assert [s["switch"] for s in on["switches"]] == ["switch"]
    assert on["switches"][0]["packets"] > 0
    assert [(r["job"], r["rank"], r["cluster_rank"]) for r in on["rank_stats"]] == \
        [(r["job"], r["rank"], r["cluster_rank"]) for r in on["ranks"]]
    links = on["links"]
    assert len(links) == 16  # 8 host links, both directions
    with open(tmp_path / "on" / "links.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["from"] for r in rows] == [l["from"] for l in links]
    assert all(0 <= l["utilisation"] <= 1 for l in links)
    up = [l for l in links if l["from"].startswith("host")]
    # tensor, pipeline and data parallel traffic leave every host
    assert all(l["tx_bytes"] > 0 and l["busy_s"] > 0 for l in up)


def test_training_rank_stats_columns():
    """rank-stats.csv keeps its columns and their order, and its message columns are the
    shared per-rank table's (collective and wafer ranks.csv): same names and units."""
    fields = dlnet.result_fields()
    training = [(c["name"], c["unit"]) for c in fields["training_rank_stats"]]
    assert [n for n, _ in training] == ["job", "rank", "cluster_rank", "bytes_sent",
                                        "bytes_received", "finish_s", "compute_s",
                                        "network_s", "exposed_s"]
    shared = {c["name"]: c["unit"] for c in fields["collective_ranks"]}
    for name in ("bytes_sent", "bytes_received", "finish_s", "network_s"):
        assert dict(training)[name] == shared[name] == \
            {c["name"]: c["unit"] for c in fields["wafer_ranks"]}[name]


# one DATA-parallel layer (ASTRA-sim 1.0 text): forward and weight-gradient compute of
# 1e6 cycles each (1 ms at 1 GHz), then an 8 MiB weight-gradient AllReduce
DP_WORKLOAD = "DATA\n1\nl0 -1 1000000 NONE 0 0 NONE 0 1000000 ALLREDUCE 8388608 0\n"


@pytest.mark.parametrize("network", ["packet", "flow"])
def test_training_rank_stats_closed_form(tmp_path, network):
    """Per-rank statistics of a 2-rank pure-DP job on a 100 Gb/s star (one iteration):
    compute_s is the configured 2 ms, network_s is the AllReduce's time, which is the
    wire bytes of what each rank sends (B: two messages of B/2) at 100 Gb/s within 1 %,
    exposed_s = network_s (nothing overlaps it), finish_s = the iteration time; every
    rank sends and receives B, and the host links carry exactly those messages."""
    path = tmp_path / "dp.txt"
    path.write_text(DP_WORKLOAD)
    size = 8 << 20
    out = dlnet.run_training(topology="star", hosts=2, workload_file=str(path),
                             workload_ranks=2, iterations=1, network=network, stats=True)
    job = out["jobs"][0]
    comm, = out["comms"]
    assert comm["bytes"] == size
    ranks = out["rank_stats"]
    assert len(ranks) == 2
    wire = 2 * wire_bytes(size // 2) * 8 / 100e9
    for r, b in zip(ranks, out["ranks"]):
        assert r["compute_s"] == pytest.approx(2e-3, rel=1e-9)
        assert r["bytes_sent"] == r["bytes_received"] == size
        assert r["network_s"] == pytest.approx(comm["time_s"], rel=1e-9)
        assert r["network_s"] == pytest.approx(wire, rel=0.01)
        assert r["exposed_s"] == pytest.approx(r["network_s"], rel=1e-9)
        assert r["finish_s"] == pytest.approx(job["iteration_s"], rel=1e-9)
        # the breakdown over the same window (one iteration): the same compute and exposure
        assert r["compute_s"] == pytest.approx(b["compute_s"], rel=1e-9)
        assert r["exposed_s"] == pytest.approx(b["exposed_dp_s"], rel=1e-9)
    up = [l for l in out["links"] if l["from"].startswith("host")]
    assert sum(l["tx_bytes"] for l in up) == \
        sum(2 * wire_bytes(r["bytes_sent"] // 2) for r in ranks)


@pytest.mark.parametrize("network", ["packet", "flow"])
def test_training_rank_stats_hybrid(network):
    """A TP x PP x DP job (one iteration): for every rank compute_s equals the breakdown's,
    exposed_s <= network_s, exposed_s <= the breakdown's exposed communication (its messages
    lie inside its communication tasks), compute_s + exposed_s <= finish_s <= the
    iteration; all ranks' bytes sent = all ranks' bytes received, and the hosts' uplinks
    carry them plus a header per packet (exactly at packet level)."""
    out = dlnet.run_training(**dict(TRAINING, iterations=1), network=network, stats=True)
    it = out["jobs"][0]["iteration_s"]
    eps = 1e-12
    for r, b in zip(out["rank_stats"], out["ranks"]):
        exposed = sum(v for k, v in b.items() if k.startswith("exposed_"))
        assert r["compute_s"] == pytest.approx(b["compute_s"], rel=1e-9)
        assert 0 < r["exposed_s"] <= r["network_s"] + eps
        assert r["exposed_s"] <= exposed + eps
        assert r["compute_s"] + r["exposed_s"] <= r["finish_s"] + eps
        assert r["finish_s"] <= it + eps
    assert max(r["finish_s"] for r in out["rank_stats"]) == pytest.approx(it, rel=1e-9)
    sent = sum(r["bytes_sent"] for r in out["rank_stats"])
    assert sent == sum(r["bytes_received"] for r in out["rank_stats"]) > 0
    up = [l for l in out["links"] if l["from"].startswith("host")]
    carried = sum(l["tx_bytes"] for l in up)
    if network == "packet":
        # lossless: no acknowledgements, every packet a header and payload of those messages
        assert carried == sent + HEADER * sum(l["tx_packets"] for l in up)
    # a header per full segment, at most one more per message
    assert sent * MTU / (MTU - HEADER) <= carried <= sent * MTU / (MTU - HEADER) * 1.001


def test_training_rank_stats_in_network_and_jobs(tmp_path):
    """SwitchML's traffic goes to the switch, not between ranks: the message columns are
    null (compute still known) and the switch shows its slots; two jobs: one row per
    job rank, each job's ranks as the closed form (two iterations: twice the bytes)."""
    path = tmp_path / "dp.txt"
    path.write_text(DP_WORKLOAD)
    common = dict(topology="star", workload_file=str(path), workload_ranks=2, stats=True)
    sw = dlnet.run_training(**common, hosts=2, iterations=1, dp_backend="switchml", type="fp32")
    for r in sw["rank_stats"]:
        assert r["compute_s"] == pytest.approx(2e-3, rel=1e-9)
        assert all(r[k] is None for k in ("bytes_sent", "bytes_received", "finish_s",
                                          "network_s", "exposed_s"))
    assert sw["switches"][0]["peak_slots"] >= 1
    two = dlnet.run_training(**common, hosts=4, iterations=2, jobs=2)
    assert [(r["job"], r["cluster_rank"]) for r in two["rank_stats"]] == \
        [("job0", 0), ("job0", 1), ("job1", 2), ("job1", 3)]
    assert all(r["bytes_sent"] == 2 * (8 << 20) for r in two["rank_stats"])
    assert all(r["compute_s"] == pytest.approx(4e-3, rel=1e-9) for r in two["rank_stats"])
