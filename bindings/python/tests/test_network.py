# SPDX-License-Identifier: GPL-2.0-only
"""pytest for network=packet|flow: every run_* function takes it, every result says which
model produced it, flow level agrees with packet level on small cases measured here, and
what the flow level cannot give (packets, queues, losses, captures) is refused or None.

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_network.py
"""
import csv
import json
import os

import pytest

import dlnet

LEAF_SPINE = dict(topology="leaf-spine", leaves=2, hosts_per_leaf=4)
# a 2-layer transformer, TP 2 x PP 2 x DP 2 on two 4-GPU servers: every dimension talks
TRAINING = dict(topology="rail-optimised", servers=2, gpus_per_server=4, model="transformer",
                layers=2, hidden=1024, heads=8, sequence=256, vocabulary=1024, tp=2, pp=2, dp=2,
                microbatches=2, iterations=2, trace=False)


def option_names(options):
    return {o["name"] for o in options}


def test_every_experiment_takes_the_option():
    for options in (dlnet.traffic_options(), dlnet.collective_options(),
                    dlnet.training_options(), dlnet.wafer_options(), dlnet.sparse_options(),
                    dlnet.heterps_options()):
        assert "network" in option_names(options)
        defaults = {o["name"]: o["default"] for o in options}
        assert defaults["network"] == "packet"
    # the field tables of the rows carry it (CSV columns and dict keys)
    fields = dlnet.result_fields()
    for table in ("traffic_summary", "collective", "collective_summary", "sparse", "wafer",
                  "training_jobs"):
        assert "network" in [f["name"] for f in fields[table]], table


@pytest.mark.parametrize("run, options", [
    (dlnet.run_traffic, LEAF_SPINE),
    (dlnet.run_collective, LEAF_SPINE),
    (dlnet.run_training, TRAINING),
    (dlnet.run_wafer, dict(variants="mesh", scenarios="group", ranks="0,1", bytes="64KiB")),
    (dlnet.run_sparse, dict(tensor_bytes="64KiB", densities="1", workers=2, rates="100Gbps")),
    (dlnet.run_heterogeneous, dict(model="dlrm", limit=4e6, schedulers="exact", sweep=0,
                                   batches=4, warmup=1)),
])
def test_a_bad_network_is_a_value_error(run, options):
    with pytest.raises(ValueError, match="network"):
        run(**options, network="fluid")


def test_flow_refuses_what_it_cannot_model():
    with pytest.raises(ValueError, match="network: flow models lossless fabrics only"):
        dlnet.run_traffic(**LEAF_SPINE, network="flow", flow_control="lossy")
    with pytest.raises(ValueError, match="pcap: network=flow"):
        dlnet.run_traffic(**LEAF_SPINE, network="flow", pcap="/tmp/dlnet-never")
    with pytest.raises(ValueError, match="network"):
        dlnet.run_sparse(tensor_bytes="64KiB", densities="1", workers=2, rates="100Gbps",
                         loss=0.01, network="flow")


def test_traffic_links_from_the_flow_network(tmp_path):
    """tx_bytes and utilisation come from the flow network's bytes per link; packet counts and
    queue depths do not exist at flow level and are None (empty CSV cells), never zeros."""
    runs = {net: dlnet.run_traffic(**LEAF_SPINE, pattern="permutation", shift=4,
                                   message_bytes="1MiB", network=net,
                                   results_dir=str(tmp_path / net))
            for net in ("packet", "flow")}
    for net, out in runs.items():
        assert out["result"]["network"] == net
        assert out["config"]["network"] == net
        assert json.load(open(tmp_path / net / "result.json"))["result"]["network"] == net
    packet, flow = runs["packet"]["result"], runs["flow"]["result"]
    assert flow["makespan_s"] == pytest.approx(packet["makespan_s"], rel=0.03)
    plinks = {(l["from"], l["to"]): l for l in packet["links"]}
    busy = 0
    for l in flow["links"]:
        assert l["tx_packets"] is None and l["max_queue_bytes"] is None
        assert l["drops"] == 0  # lossless
        p = plinks[(l["from"], l["to"])]
        assert p["tx_packets"] is not None and p["max_queue_bytes"] is not None
        if p["tx_bytes"] > 1 << 20:
            # the same messages on the same routes (packet level adds credits on the way back)
            assert l["tx_bytes"] == pytest.approx(p["tx_bytes"], rel=0.01)
            assert l["utilisation"] == pytest.approx(p["utilisation"], rel=0.05)
            busy += 1
    assert busy >= 8  # every host uplink, every spine hop of the shift-4 permutation
    with open(tmp_path / "flow" / "links.csv") as f:
        row = next(csv.DictReader(f))
        assert row["tx_packets"] == "" and row["max_queue_bytes"] == ""


def test_collective_flow_against_packet():
    rows = {}
    for net in ("packet", "flow"):
        out = dlnet.run_collective(**LEAF_SPINE, algorithm="ring", min_bytes="1MiB",
                                   max_bytes="4MiB", network=net)
        assert out["result"]["network"] == net
        assert all(r["network"] == net for r in out["result"]["rows"])
        rows[net] = out["result"]["rows"]
    assert len(rows["packet"]) == len(rows["flow"]) == 3  # 1, 2 and 4 MiB
    for p, f in zip(rows["packet"], rows["flow"]):
        # (the ring on this leaf-spine agrees to the nanosecond: the C++ suites hold the rest)
        assert f["time_s"] == pytest.approx(p["time_s"], rel=1e-6)
        assert f["events"] < p["events"]


def test_training_flow_against_packet_and_deterministic():
    out = {net: dlnet.run_training(**TRAINING, network=net) for net in ("packet", "flow")}
    for net, o in out.items():
        assert o["network"] == net and o["config"]["network"] == net
        assert [j["network"] for j in o["jobs"]] == [net]
    p, f = out["packet"]["jobs"][0], out["flow"]["jobs"][0]
    assert f["iteration_s"] == pytest.approx(p["iteration_s"], rel=0.005)  # measured -0.06 %
    assert out["flow"]["events"] < out["packet"]["events"]
    again = dlnet.run_training(**TRAINING, network="flow")
    del again["wall_seconds"], out["flow"]["wall_seconds"]
    assert json.dumps(again, sort_keys=True) == json.dumps(out["flow"], sort_keys=True)


def test_wafer_link_bytes_at_flow_level():
    """The wafer's bytes per link tier come from the flow network at flow level: the same
    messages on the same routes as at packet level."""
    rows = {}
    for net in ("packet", "flow"):
        out = dlnet.run_wafer(variants="mesh,fred-c", scenarios="group", ranks="0,5,10,15",
                              bytes="1MiB", network=net)
        assert out["config"]["network"] == net
        rows[net] = {r["variant"]: r for r in out["rows"]}
    for v in ("mesh", "fred-c"):
        p, f = rows["packet"][v], rows["flow"][v]
        assert (p["network"], f["network"]) == ("packet", "flow")
        assert f["npu_link_bytes"] > 0
        for key in ("npu_link_bytes", "upper_link_bytes"):
            assert f[key] == p[key], (v, key)  # the same messages on the same links
        assert f["time_s"] == pytest.approx(p["time_s"], rel=0.005), v  # measured 0.013 %


def test_heterogeneous_simulation_says_its_network():
    out = dlnet.run_heterogeneous(model="dlrm", limit=4e6, schedulers="exact", sweep=0,
                                  batches=4, warmup=1, network="flow")
    assert out["config"]["network"] == "flow"
    assert out["simulation"]["network"] == "flow"
    assert out["simulation"]["simulated_throughput"] > 0


def test_sparse_rows_say_their_network():
    out = dlnet.run_sparse(tensor_bytes="64KiB", densities="1", workers=2, rates="100Gbps")
    assert out["config"]["network"] == "packet"
    assert {r["network"] for r in out["rows"]} == {"packet"}
