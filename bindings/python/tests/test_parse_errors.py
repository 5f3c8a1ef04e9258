# SPDX-License-Identifier: GPL-2.0-only
"""Bad input through the Python module: a ValueError naming the field, never a
dead interpreter, a silent default or a wrong folder."""
import os
import subprocess
import sys

import pytest

import dlnet


@pytest.mark.parametrize(
    "options, message",
    [
        ({"link_delay": "500"}, "link-delay: got '500'; write a unit, e.g. 500ns"),
        ({"link_delay": 500}, "link-delay: got '500'; write a unit, e.g. 500ns"),
        ({"link_rate": "100"}, "link-rate: got '100'; write a unit, e.g. 100Gbps"),
        ({"link_delay": "1e30s"}, "link-delay: got '1e30s'; expected a time from 0ns to 1s"),
        (
            {"link_rate": "18446744073709551615bps"},
            "link-rate: got '18446744073709551615bps'; expected a positive data rate from 1bps to 40000Gbps",
        ),
        ({"link_rate": "9" * 5000 + "bps"}, "link-rate: got '999"),
        ({"seed": 0}, "seed: got '0'; expected a whole number from 1 to 4294944442"),
        ({"algorithm": ""}, "algorithm: got ''"),
        ({"ranks": "0,1,"}, "ranks: got '0,1,'; an item is empty"),
        # '' was the command line's bare --functional, true; in Python '' reads as false
        ({"functional": ""}, "functional: got ''; expected true or false"),
        # the example was 100000000000Gbps, above the largest rate
        ({"link_rate": 100e9}, "link-rate: got '100000000000'; write a unit, e.g. 100000000000bps"),
        # "from 0 up" let 2**64 seem to be taken
        ({"run": 2**64}, "run: got '18446744073709551616'; expected a whole number from 0 to "
                         "18446744073709551615"),
    ],
)
def test_collective_bad_values(options, message):
    with pytest.raises(ValueError) as info:
        dlnet.run_collective(**options)
    assert message in str(info.value)


@pytest.mark.parametrize("flag", ["quick", "functional"])
def test_sparse_flags_refuse_empty_text(flag):
    # run_sparse's flags were text to Python, so '' ran as the bare flag: true
    assert {o["name"]: o["kind"] for o in dlnet.sparse_options()}[flag] == "bool"
    with pytest.raises(ValueError, match=f"{flag}: got ''; expected true or false"):
        dlnet.run_sparse(**{flag: ""})


# Each in a child interpreter: before the fix, ns-3 aborted the process.
@pytest.mark.parametrize(
    "call, field",
    [
        ("dlnet.run_collective(link_delay='9e9s')", "link-delay"),
        ("dlnet.run_collective(switch_latency='9e9s')", "switch-latency"),
        ("dlnet.run_traffic(link_delay='2562047h')", "link-delay"),
        ("dlnet.run_traffic(flow_control='lossy', retransmit_timeout='9e9s')", "retransmit-timeout"),
        ("dlnet.run_collective(algorithm='switchml', aggregation_timeout='9e9s')", "aggregation-timeout"),
        (
            "dlnet.run_collective(algorithm='omnireduce', aggregator_placement='colocated',"
            " aggregator_packet_time='9e9s')",
            "aggregator-packet-time",
        ),
        ("dlnet.run_traffic(pcap='/dev/null/dir/x')", "pcap"),
        ("dlnet.run_wafer(link_delay='9e9s')", "link-delay"),
    ],
)
def test_out_of_range_raises_instead_of_aborting(call, field):
    code = (
        "import dlnet\n"
        "try:\n"
        f"    {call}\n"
        "except ValueError as e:\n"
        "    print('ValueError:', e)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("ValueError: " + field + ":"), child.stdout


def test_binary_sparsity_file_message_names_file_and_line(tmp_path):
    path = tmp_path / "pattern.bin"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError) as info:
        dlnet.run_collective(
            algorithm="omnireduce", aggregator_placement="colocated", sparsity_file=str(path)
        )
    text = str(info.value)
    assert text.startswith(str(path) + ":1: "), text
    assert text.isprintable()


def test_results_dir_as_bytes_is_the_folder_itself(tmp_path):
    folder = tmp_path / "bytes-run"
    dlnet.run_traffic(hosts=2, message_bytes=4096, results_dir=os.fsencode(folder))
    assert (folder / "result.json").is_file()
    assert not any("b'" in p.name for p in tmp_path.iterdir())


def test_results_dir_of_another_type_is_refused():
    with pytest.raises(ValueError, match="results_dir"):
        dlnet.run_traffic(hosts=2, message_bytes=4096, results_dir=42)


def test_retransmit_timeout_above_100ms_is_honoured():
    """A first timeout of 1 s is waited for (it was capped at 100 ms)."""
    out = dlnet.run_traffic(
        hosts=2,
        pattern="point-to-point",
        flow_control="lossy",
        loss_rate=0.2,
        message_bytes=65536,
        retransmit_timeout="1s",
    )
    r = out["result"]
    assert r["all_delivered"] is True
    assert r["retransmissions"] > 0
    assert r["makespan_s"] >= 1.0
