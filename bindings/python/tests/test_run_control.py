# SPDX-License-Identifier: GPL-2.0-only
"""pytest: how a Python run is controlled and what it returns.

Ctrl-C during a run, ns-3 attribute defaults (ns3_attributes), the results
folder (checked before the run; str, bytes or os.PathLike) and typed config
values.
"""
import os
import pathlib
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import dlnet

P2P = dict(topology="star", hosts=2, pattern="point-to-point", src=0, dst=1,
           message_bytes="4MiB")
SHORT = dict(topology="star", hosts=4, pattern="incast", message_bytes="64KiB")
# About 35 s of simulation on a 2-core machine: only an interrupt ends it in the test.
LONG = dict(topology="star", hosts=16, pattern="all-to-all", message_bytes="256MiB")


def without_wall(out):
    return {k: v for k, v in out.items() if k != "wall_seconds"}


# Typed config values.


def test_config_values_are_typed():
    out = dlnet.run_traffic(SHORT, functional=True, loss_rate=0, flow_control="lossy")
    c = out["config"]
    assert c["hosts"] == 4 and type(c["hosts"]) is int
    assert c["message-bytes"] == 65536 and type(c["message-bytes"]) is int
    assert c["functional"] is True
    assert c["loss-rate"] == 0.0 and type(c["loss-rate"]) is float
    assert "oversubscription" not in c  # a leaf-spine's option: a star's config omits it
    assert c["pattern"] == "incast" and c["link-rate"] == "100Gbps" and c["pcap"] == ""
    # and they go back in as they came out
    assert without_wall(dlnet.run_traffic(c)) == without_wall(out)


@pytest.mark.parametrize("options", [dlnet.traffic_options, dlnet.collective_options,
                                     dlnet.wafer_options])
def test_option_defaults_are_typed(options):
    defaults = {o["name"]: o["default"] for o in options()}
    assert type(defaults["seed"]) is int and defaults["seed"] == 1
    assert defaults["functional"] is False
    for o in options():
        assert type(o["default"]) in (int, float, bool, str)
    if options is dlnet.collective_options:
        assert defaults["step-factor"] == 2.0 and type(defaults["step-factor"]) is float
        assert defaults["max-bytes"] == 1 << 20 and defaults["op"] == "allreduce"
        assert defaults["mtu"] == 4096
    if options is dlnet.wafer_options:
        assert (defaults["mp"], defaults["dp"], defaults["pp"]) == (2, 5, 2)
        assert defaults["variants"] == "mesh,fred-a,fred-b,fred-c,fred-d"


# The results folder.


@pytest.mark.parametrize("kind", [str, bytes, pathlib.Path])
def test_results_dir_as_str_bytes_or_pathlike(tmp_path, kind, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "out"
    given = {str: str(folder), bytes: os.fsencode(str(folder)), pathlib.Path: folder}[kind]
    dlnet.run_traffic(SHORT, results_dir=given)
    assert (folder / "result.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no "b'...'" folder


@pytest.mark.parametrize("bad", [123, 1.5, ["x"], "a\0b"])
def test_results_dir_of_another_type_is_refused(bad):
    with pytest.raises(ValueError, match="results_dir"):
        dlnet.run_traffic(SHORT, results_dir=bad)


@pytest.mark.parametrize("run", ["traffic", "collective"])
def test_bad_results_dir_is_reported_before_the_run(tmp_path, run):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    start = time.monotonic()
    with pytest.raises(ValueError, match="results_dir: cannot create folder"):
        if run == "traffic":
            dlnet.run_traffic(LONG, results_dir=blocker / "sub")
        else:
            dlnet.run_collective(topology="star", hosts=16, min_bytes="1GiB",
                                 max_bytes="1GiB", results_dir=blocker / "sub")
    assert time.monotonic() - start < 5  # the long simulation never started


@pytest.mark.parametrize("run", ["traffic", "collective", "training"])
def test_a_refused_run_makes_no_results_folder(tmp_path, run):
    # validation touches nothing: the folder is made by the writers, after the run
    new = tmp_path / "new" / "sub"
    with pytest.raises(ValueError):
        if run == "traffic":
            dlnet.run_traffic(dict(SHORT, pattern="bogus"), results_dir=new)
        elif run == "collective":
            dlnet.run_collective(topology="star", hosts=4, algorithm="spiral", results_dir=new)
        else:
            dlnet.run_training(topology="star", hosts=4, schedule="bogus", results_dir=new)
    assert not (tmp_path / "new").exists()
    # a run that goes through makes it
    dlnet.run_collective(topology="star", hosts=4, min_bytes="4KiB", max_bytes="4KiB",
                         results_dir=new)
    assert new.is_dir()


# ns-3 attribute defaults.

LATENCY = "ns3::FabricNetDevice::IngressLatency"  # a host device's: switches set their own


def test_ns3_attribute_takes_effect_for_one_run_only():
    base = dlnet.run_traffic(P2P)["result"]["makespan_s"]
    slower = dlnet.run_traffic(P2P, ns3_attributes={LATENCY: "1us"})["result"]["makespan_s"]
    assert slower == pytest.approx(base + 1e-6, abs=1e-12)
    assert dlnet.run_traffic(P2P)["result"]["makespan_s"] == base  # back to the default


def test_ns3_attribute_in_run_collective_and_run_wafer():
    config = dict(topology="star", hosts=4, min_bytes="64KiB", max_bytes="64KiB")
    base = dlnet.run_collective(config)["result"]["rows"][0]["time_s"]
    slower = dlnet.run_collective(config, ns3_attributes={LATENCY: "1us"})
    assert slower["result"]["rows"][0]["time_s"] > base + 1e-6  # every step pays it
    assert dlnet.run_collective(config)["result"]["rows"][0]["time_s"] == base

    group = dict(variants="mesh", scenarios="group", ranks="0,1", bytes="64KiB")
    t = dlnet.run_wafer(group)["rows"][0]["time_us"]
    assert dlnet.run_wafer(group, ns3_attributes={LATENCY: "1us"})["rows"][0]["time_us"] > t
    assert dlnet.run_wafer(group)["rows"][0]["time_us"] == t


@pytest.mark.parametrize(
    "attributes, message",
    [
        ({"ns3::NoSuchType::Mtu": "100"}, "ns3::NoSuchType::Mtu: no ns-3 type"),
        ({"ns3::FabricNetDevice::Colour": "red"}, "has no attribute 'Colour'.*Mtu"),
        ({"ns3::FabricEndpoint::StageDepth": "lots"}, "StageDepth: got 'lots'"),
        ({"ns3::FabricEndpoint::StageDepth": "4.5"}, "StageDepth: got '4.5'"),
        ({"ns3::FabricNetDevice::Mtu": 100}, "Mtu: dlnet sets it on every object"),
        ({"ns3::FabricNetDevice::ReceiveErrorModel": "x"}, "cannot be set from text"),
        ({LATENCY: "5parsecs"}, "IngressLatency"),
        ({LATENCY: "-1us"}, "IngressLatency"),
        ({"FabricNetDevice::Mtu": "100"}, "ns3::Type::Attribute"),
        ("ns3::FabricNetDevice::Mtu=100", "ns3_attributes: expected a dict"),
    ],
)
def test_bad_ns3_attribute_is_a_value_error(attributes, message):
    for run in (dlnet.run_traffic, dlnet.run_collective, dlnet.run_wafer):
        with pytest.raises(ValueError, match=message):
            run(ns3_attributes=attributes)


def test_refused_attribute_names_an_option_only_where_the_run_has_it():
    chunks = {"ns3::CollectiveEngine::Chunks": 4}
    with pytest.raises(ValueError, match="from its option 'chunks'.*use chunks instead"):
        dlnet.run_collective(ns3_attributes=chunks)
    # a training run sets the engine's chunks itself: it has no chunks option to name
    with pytest.raises(ValueError, match=r"this run sets it itself \(it has no option 'chunks', which others take\)"):
        dlnet.run_training(ns3_attributes=chunks)
    mtu = {"ns3::FabricNetDevice::Mtu": 100}
    for run in (dlnet.run_traffic, dlnet.run_collective):
        with pytest.raises(ValueError, match="from its option 'mtu'.*use mtu instead"):
            run(ns3_attributes=mtu)
    with pytest.raises(ValueError, match=r"this run sets it itself \(it has no option 'mtu', which others take\)"):
        dlnet.run_wafer(ns3_attributes=mtu)


# Ctrl-C.

INTERRUPTED_CHILD = textwrap.dedent(
    """
    import json, sys, time
    import dlnet
    LONG, SHORT = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    print("started", flush=True)
    try:
        getattr(dlnet, sys.argv[3])(LONG)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), flush=True)
    out = dlnet.run_traffic(SHORT)
    del out["wall_seconds"]
    print(json.dumps(out), flush=True)
    """
)


@pytest.mark.parametrize(
    "run, long",
    [
        ("run_traffic", LONG),
        ("run_collective", dict(topology="star", hosts=16, min_bytes="1GiB",
                                max_bytes="1GiB", algorithm="direct")),  # about 17 s
        # no simulator events: the scheduler's episodes check for Ctrl-C themselves (it went
        # on for 27 s before they did)
        ("schedule", dict(schedulers="rl", episodes=100000)),
        # flow level: one all-to-all of 1024 hosts re-solves a million flows at a time (24 s)
        ("run_traffic", dict(topology="fat-tree", k=16, pattern="all-to-all",
                             message_bytes="1MiB", network="flow")),
        # the training graph is built while the options are checked, with Python's lock held:
        # the interrupt came out as RuntimeError, not KeyboardInterrupt
        ("run_training", dict(model="gpt3-175b", pp=8, hosts=8, microbatches=2048,
                              iterations=64, comms=False, trace=False,
                              compute_model="kernels")),
    ],
)
def test_ctrl_c_stops_a_run_and_the_next_run_works(run, long):
    import json

    child = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_CHILD, json.dumps(long), json.dumps(SHORT), run],
        stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(1.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        # a second at most, and a few more for a loaded machine to schedule the child
        ready, _, _ = select.select([child.stdout], [], [], 10)
        assert ready, "the run went on after SIGINT"
        word, _, when = child.stdout.readline().partition(" ")
        assert word == "interrupted", word
        assert float(when) - sent < 1.0  # CLOCK_MONOTONIC is the same for both processes
        after = json.loads(child.stdout.readline())
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    fresh = without_wall(dlnet.run_traffic(SHORT))
    assert after == json.loads(json.dumps(fresh))
