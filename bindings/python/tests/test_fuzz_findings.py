# SPDX-License-Identifier: GPL-2.0-only
"""Inputs a fuzz run found answered with an exception other than ValueError, a
silent result or a misnamed field: each is now a ValueError naming the option."""
import json
import os
import subprocess
import sys

import pytest

import dlnet


@pytest.mark.parametrize(
    "function, options, message",
    [
        # one rank: time 0 and bandwidths reported as 0 GB/s
        (dlnet.run_collective, dict(ranks="3", min_bytes="64KiB", max_bytes="64KiB"),
         "ranks: got '3', which lists one rank; a collective needs two or more"),
        # flow level: a flow ending beyond the picosecond clock waited for ever
        # (RuntimeError "the fabric stalled"); now refused before the run, as at packet
        # level (which printed 988800 s for 64KiB, or a negative time past ns-3's clock):
        # the contention-free bound is beyond the 1-day limit of a run
        (dlnet.run_collective, dict(network="flow", link_rate="1bps", min_bytes="1MiB",
                                    max_bytes="1MiB"),
         r"rates: allreduce of 1048576 bytes with ring on 8 ranks needs at least .* more than "
         r"a run may simulate \(1d\)"),
        (dlnet.run_collective, dict(link_rate="1bps", min_bytes="64KiB", max_bytes="64KiB"),
         r"rates: allreduce of 65536 bytes with ring on 8 ranks needs at least"),
        (dlnet.run_collective, dict(topology="leaf-spine", oversubscription=4, op="alltoall",
                                    algorithm="direct", link_rate="200bps", min_bytes="1MiB",
                                    max_bytes="1MiB"),
         "^rates: alltoall of 1048576 bytes with direct on 8 ranks had not finished after 1d"),
        # a day of latency overran the clock as a slow link does, and only the rates were named
        (dlnet.run_collective, dict(min_bytes="1MiB", max_bytes="1MiB", ns3_attributes={
            "ns3::FabricNetDevice::IngressLatency": "1d"}),
         r"^ns3::FabricNetDevice::IngressLatency, rates: allreduce of 1048576 bytes with ring "
         r"on 8 ranks had not finished after 1d.*lower ns3::FabricNetDevice::IngressLatency or "
         r"lower the sizes"),
        (dlnet.run_sparse, dict(network="flow", rates="1bps", tensor_bytes="1MiB", workers="2",
                                densities="1"),
         # (at packet level switchml is refused first: a packet outlasts its timeout; flow
         # level has no timer)
         r"^rates: allreduce of 1048576 bytes with .* on 2 ranks needs at least .* more than "
         r"a run may simulate \(1d\)"),
        # beyond 1 TiB the message named max-bytes, which run_sparse does not take
        (dlnet.run_sparse, dict(tensor_bytes=2**63, workers="2", densities="1"),
         "tensor-bytes: got '9223372036854775808'"),
        # messages are all sent at time 0 and each keeps ~1.5 KB
        (dlnet.run_traffic, dict(messages=2**31, message_bytes=1024),
         "messages: 2147483648 per flow x 8 flows is more than 2097152"),
    ],
)
def test_refused_naming_the_field(function, options, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        function(results_dir=str(tmp_path), **options)


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(network="\udc80"), "network"),
        (dict(ns3_attributes={"ns3::FlowNetwork::SolverMemory": "\udc80"}),
         "ns3::FlowNetwork::SolverMemory"),
        (dict(ns3_attributes={"ns3::FlowNetwork::\udc80": "1"}), "ns3_attributes"),
    ],
)
def test_lone_surrogate_is_a_value_error(options, field, tmp_path):
    # a str without UTF-8 text raised pybind11's RuntimeError "Unable to cast"
    with pytest.raises(ValueError, match="^" + field + r": got .*no UTF-8 text"):
        dlnet.run_collective(results_dir=str(tmp_path), **options)


@pytest.mark.parametrize(
    "variable, value, message",
    [
        # ns-3 aborted the interpreter (status 134) on a value it could not read
        ("NS_ATTRIBUTE_DEFAULT", "ns3::FlowNetwork::SolverMemory=abc",
         "NS_ATTRIBUTE_DEFAULT: ns3::FlowNetwork::SolverMemory: got 'abc'"),
        # and skipped an unknown name silently
        ("NS_ATTRIBUTE_DEFAULT", "ns3::FlowNetwork::Bogus=1",
         "ns3::FlowNetwork has no attribute 'Bogus'"),
        # every run sets the run number from its option
        ("NS_GLOBAL_VALUE", "RngRun=3", "NS_GLOBAL_VALUE: RngRun: every run sets it"),
    ],
)
def test_environment_refused_naming_the_variable(variable, value, message, tmp_path):
    # dlnet reads the variables once per process: a fresh interpreter for each
    script = (
        "import dlnet\n"
        "try:\n"
        f"    dlnet.run_collective(network='flow', hosts=4, results_dir={str(tmp_path)!r})\n"
        "except ValueError as e:\n"
        "    print('ValueError:', e)\n"
    )
    env = dict(os.environ, **{variable: value})
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ValueError: " + variable + ": "), done.stdout + done.stderr
    assert message in done.stdout, done.stdout


def test_result_config_records_the_ns3_attributes(tmp_path):
    # result.json's config left the ns-3 attributes out, so it did not say how to run again
    one = dict(min_bytes="1MiB", max_bytes="1MiB", network="flow")
    slow = dlnet.run_collective(results_dir=str(tmp_path), ns3_attributes={
        "ns3::FabricNetDevice::IngressLatency": "10us"}, **one)
    assert slow["config"]["ns3-attributes"] == {"ns3::FabricNetDevice::IngressLatency": "10us"}
    with open(tmp_path / "result.json") as f:
        assert json.load(f)["config"]["ns3-attributes"] == slow["config"]["ns3-attributes"]
    again = dlnet.run_collective(slow["config"])
    plain = dlnet.run_collective(**one)
    assert "ns3-attributes" not in plain["config"]
    time = lambda out: out["result"]["rows"][0]["time_s"]
    assert time(again) == time(slow)
    # ring on 8 ranks: 14 steps, each 10 us later at its receiver
    assert time(slow) - time(plain) == pytest.approx(14 * 10e-6, rel=1e-9)


@pytest.mark.parametrize(
    "options",
    [
        dict(),  # a zoo model: its shape options (0, its own) were written and then refused
        dict(model="transformer", layers=2, hidden=512, heads=8, sequence=128, vocabulary=1000),
        dict(workload_file=os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                        "workloads", "transformer-hybrid.txt"),
             workload_ranks=8, topology="star", hosts=8),
    ],
)
def test_training_config_runs_again(options):
    first = dlnet.run_training(**options)
    again = dlnet.run_training(first["config"])
    assert again["config"] == first["config"]
    assert again["jobs"] == first["jobs"]
