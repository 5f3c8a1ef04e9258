# SPDX-License-Identifier: GPL-2.0-only
"""pytest for the dlnet Python module (bindings/python).

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests
"""
import json
import math
import threading

import pytest

import dlnet

HEADER = 24  # FabricHeader bytes in every packet
MTU = 4096  # default largest packet, header included
RATE = 100e9  # default link rate, bit/s
DELAY = 500e-9  # default link delay, s


def without_wall(out):
    """The deterministic part of a run_traffic result."""
    return {k: v for k, v in out.items() if k != "wall_seconds"}


def test_module_surface():
    assert isinstance(dlnet.__version__, str) and dlnet.__version__
    options = dlnet.traffic_options()
    names = [o["name"] for o in options]
    for name in ("topology", "hosts", "pattern", "message-bytes", "link-rate", "mtu", "seed"):
        assert name in names
    assert all(set(o) == {"name", "help", "default", "kind"} for o in options)
    defaults = {o["name"]: o["default"] for o in options}
    assert defaults["mtu"] == MTU
    assert defaults["link-rate"] == "100Gbps"
    # The docstring lists every option, in Python spelling.
    assert "message_bytes" in dlnet.run_traffic.__doc__


def test_point_to_point_matches_store_and_forward_formula():
    message = 1 << 20
    out = dlnet.run_traffic(
        topology="star", hosts=2, pattern="point-to-point", src=0, dst=1, message_bytes=message
    )
    r = out["result"]
    assert r["all_delivered"] is True
    assert r["delivered_messages"] == 1
    assert r["ranks"] == 2
    assert out["wall_seconds"] >= 0

    payload = MTU - HEADER  # 4072 bytes per packet
    packets = math.ceil(message / payload)
    wire_bytes = message + packets * HEADER
    hops = 2  # host -> switch -> host
    expected = wire_bytes * 8 / RATE + hops * DELAY + (hops - 1) * MTU * 8 / RATE
    assert r["messages"][0]["packets"] == packets
    assert r["makespan_s"] == pytest.approx(expected, rel=0.005)


def test_result_structure():
    out = dlnet.run_traffic(topology="star", hosts=4, pattern="incast", message_bytes="64KiB")
    assert set(out) == {"config", "result", "wall_seconds"}
    assert isinstance(out["wall_seconds"], float)
    config, r = out["config"], out["result"]
    assert config["pattern"] == "incast" and config["hosts"] == 4
    assert config["message-bytes"] == 64 * 1024
    assert isinstance(r["events"], int) and isinstance(r["makespan_s"], float)
    assert isinstance(r["all_intact"], bool)
    assert len(r["messages"]) == 3
    m = r["messages"][0]
    assert m["dst"] == 0 and m["bytes"] == 64 * 1024 and m["intact"] is True
    assert all(l["tier"] and l["rate_bps"] > 0 for l in r["links"])
    json.dumps(out)  # plain Python values only


def test_same_config_twice_is_identical():
    config = {"topology": "leaf-spine", "pattern": "permutation", "message_bytes": "256KiB", "seed": 7}
    first = dlnet.run_traffic(config)
    second = dlnet.run_traffic(config)
    assert without_wall(first) == without_wall(second)


def test_returned_config_reproduces_the_run():
    first = dlnet.run_traffic(topology="star", hosts=4, pattern="all-to-all", message_bytes=32768)
    again = dlnet.run_traffic(first["config"])  # kebab-case keys, typed values
    assert without_wall(first) == without_wall(again)


def test_seed_changes_random_permutation():
    base = {"topology": "star", "hosts": 8, "pattern": "permutation", "shift": 0, "message_bytes": 65536}
    a = dlnet.run_traffic(base, seed=1)
    b = dlnet.run_traffic(base, seed=2)
    pairs = lambda out: sorted((m["src"], m["dst"]) for m in out["result"]["messages"])
    assert pairs(a) != pairs(b)
    # Still a derangement: everybody sends once, receives once, never to itself.
    for out in (a, b):
        p = pairs(out)
        assert [s for s, _ in p] == list(range(8))
        assert sorted(d for _, d in p) == list(range(8))
        assert all(s != d for s, d in p)


def test_keywords_override_dict_and_value_types():
    out = dlnet.run_traffic(
        {"hosts": 8, "pattern": "point-to-point"},
        hosts=3,  # wins over the dict
        functional=True,  # bool -> "true" -> True
        message_bytes=1e5,  # whole float -> "100000" -> 100000
        topology="star",
    )
    c = out["config"]
    assert c["hosts"] == 3 and c["functional"] is True and c["message-bytes"] == 100000
    assert out["result"]["all_intact"] is True
    lossy = dlnet.run_traffic(hosts=2, flow_control="lossy", loss_rate=0.001, message_bytes=4096)
    assert float(lossy["config"]["loss-rate"]) == 0.001


@pytest.mark.parametrize(
    "options, field",
    [
        ({"no_such_option": 1}, "unknown option 'no-such-option'"),
        ({"link_rate": "0Gbps"}, "link-rate: got '0Gbps'"),
        ({"link_rate": "-5Gbps"}, "link-rate: got '-5Gbps'"),
        ({"mtu": 10}, "mtu: got 10"),
        ({"topology": "ring"}, "topology: got 'ring'"),
        ({"pattern": "broadcastz"}, "pattern: got 'broadcastz'"),
        ({"hosts": 4, "pattern": "point-to-point", "src": 4}, "src: rank 4 is out of range"),
        ({"topology": "mesh", "rows": 0}, "rows: got '0'; expected a whole number from 1 to"),
        ({"hosts": -1}, "hosts: got '-1'"),
        ({"hosts": 2.5}, "hosts: got '2.5'"),
        ({"functional": "maybe"}, "functional: got 'maybe'"),
    ],
)
def test_bad_input_raises_value_error_naming_the_field(options, field):
    with pytest.raises(ValueError) as info:
        dlnet.run_traffic(**options)
    assert field in str(info.value)


def test_bad_input_leaves_the_simulator_usable():
    with pytest.raises(ValueError):
        dlnet.run_traffic(hosts=2, pattern="point-to-point", dst=5)
    out = dlnet.run_traffic(hosts=2, pattern="point-to-point", message_bytes=4096)
    assert out["result"]["all_delivered"] is True


def test_wrong_python_types_raise_type_error():
    # dlnet.OptionTypeError: a TypeError and a ValueError (test_option_types.py)
    with pytest.raises(TypeError, match="hosts"):
        dlnet.run_traffic(hosts=[2])
    with pytest.raises(ValueError, match="config"):
        dlnet.run_traffic(5)


def test_functional_lossy_incast_recovers():
    out = dlnet.run_traffic(
        topology="star",
        hosts=4,
        pattern="incast",
        flow_control="lossy",
        loss_rate=0.01,
        functional=True,
        message_bytes="1MiB",
    )
    r = out["result"]
    assert r["all_delivered"] is True
    assert r["all_intact"] is True
    assert r["retransmissions"] > 0
    assert r["drops"] > 0
    assert r["duplicate_deliveries"] == 0


def test_results_dir_writes_files(tmp_path):
    out = dlnet.run_traffic(
        topology="star", hosts=4, pattern="incast", message_bytes="64KiB", results_dir=tmp_path / "run"
    )
    folder = tmp_path / "run"
    for name in ("messages.csv", "links.csv", "result.json"):
        assert (folder / name).is_file()
    written = json.loads((folder / "result.json").read_text())
    assert written["result"] == out["result"]
    assert written["config"] == out["config"]  # one serialisation: the same typed values
    lines = (folder / "messages.csv").read_text().splitlines()
    assert lines[0].startswith("src,dst,msg_id") and len(lines) == 1 + 3


def test_threads_take_turns():
    """ns-3 is not thread-safe: concurrent calls are serialised, results unchanged."""
    config = {"topology": "star", "hosts": 8, "pattern": "all-to-all", "message_bytes": 16384}
    expected = without_wall(dlnet.run_traffic(config))
    results, errors = [], []

    def work():
        try:
            results.append(without_wall(dlnet.run_traffic(config)))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == [expected] * 3
