"""In-network aggregation through the Python module: switchml and omnireduce."""

import os

import dlnet
import pytest

STAR16 = dict(topology="star", hosts=16, ranks="0-7", mtu=9000)


def run(**options):
    return dlnet.run_collective(**options)["result"]["rows"][0]


def test_switchml_is_exact_and_flat_in_workers():
    times = []
    for n in (4, 8):
        row = run(topology="star", hosts=n, algorithm="switchml", min_bytes="1MiB",
                  max_bytes="1MiB", functional=True)
        assert row["correct"] and row["max_error"] == 0
        times.append(row["time_s"])
    assert times[0] == pytest.approx(times[1], rel=0.03)


def test_omnireduce_sparse_is_exact_and_faster_than_dense():
    dense = run(**STAR16, algorithm="omnireduce", min_bytes="8MiB", max_bytes="8MiB",
                density=1.0, message_blocks=4)
    sparse = run(**STAR16, algorithm="omnireduce", min_bytes="8MiB", max_bytes="8MiB",
                 density=0.01, message_blocks=4, functional=True)
    assert sparse["correct"] and sparse["max_error"] == 0
    assert dense["time_s"] > 3 * sparse["time_s"]
    # the first burst sends each slot's first blocks (256 slots x 4 lanes of 1 KiB),
    # then only the worker's own non-zero blocks (1% of 8192)
    blocks = 8 * 1024 * 1024 // 1024
    assert sparse["bytes_up_per_worker"] <= (256 * 4 + round(0.01 * blocks)) * 1024
    assert dense["bytes_up_per_worker"] == blocks * 1024


def test_omnireduce_reads_a_sparsity_file(tmp_path):
    path = tmp_path / "pattern.txt"
    blocks = 64
    lines = ["dlnet-sparsity 1", f"workers 2 blocks {blocks}", "0: 0 5 9", "1: 5 63"]
    path.write_text("\n".join(lines) + "\n")
    row = run(topology="star", hosts=4, ranks="0-1", algorithm="omnireduce",
              min_bytes=blocks * 256 * 4, max_bytes=blocks * 256 * 4,
              sparsity_file=str(path), functional=True, pool_slots=4)
    assert row["correct"]
    # each of the 4 slots' first blocks, then only the non-zero ones (3 and 2): not all 64
    assert row["bytes_up_per_worker"] <= (4 + 3) * 256 * 4


def test_omnireduce_pads_a_last_partial_block():
    # 1 MiB in blocks of 1000 values: 262 whole blocks and one of 144, padded with zeros
    # (it was refused naming block-elements)
    row = run(**STAR16, algorithm="omnireduce", min_bytes="1MiB", max_bytes="1MiB",
              block_elements=1000, density=0.5, functional=True)
    assert row["correct"] and row["max_error"] == 0


@pytest.mark.parametrize("options, field", [
    (dict(block_elements=0), "block-elements"),
    (dict(pool_slots=0), "pool-slots"),
    (dict(density=1.5), "density"),
    (dict(density=-0.1), "density"),
    (dict(sparsity_file="/nonexistent/pattern.txt"), "/nonexistent/pattern.txt"),
    (dict(aggregator_placement="moon"), "aggregator-placement"),
    (dict(topology="leaf-spine", leaves=4, hosts_per_leaf=4, ranks="0-7",
          aggregator_placement="switch"), "aggregator-placement"),
    (dict(ranks="0-15"), "aggregators"),
])
def test_omnireduce_bad_input_raises_value_error(options, field):
    config = dict(STAR16, algorithm="omnireduce", min_bytes="1MiB", max_bytes="1MiB")
    if "topology" in options:
        del config["hosts"]  # a star's option; another topology refuses it
    config.update(options)
    with pytest.raises(ValueError) as info:
        dlnet.run_collective(**config)
    assert field in str(info.value)


def test_sparsity_file_with_more_workers_than_the_communicator(tmp_path):
    path = tmp_path / "wide.txt"
    path.write_text("dlnet-sparsity 1\nworkers 3 blocks 4\n0: 0\n1: 1\n2: 2\n")
    with pytest.raises(ValueError) as info:
        run(topology="star", hosts=4, ranks="0-1", algorithm="omnireduce",
            min_bytes=4 * 256 * 4, max_bytes=4 * 256 * 4, sparsity_file=str(path))
    assert "workers" in str(info.value)


def test_malformed_sparsity_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("not-a-pattern\n")
    with pytest.raises(ValueError) as info:
        run(topology="star", hosts=4, ranks="0-1", algorithm="omnireduce",
            min_bytes=4 * 256 * 4, max_bytes=4 * 256 * 4, sparsity_file=str(path))
    assert str(path) in str(info.value)


@pytest.mark.parametrize("options, field", [
    (dict(topology="mesh"), "switchml"),
    (dict(type="fp16"), "type"),
    (dict(pool_slots=0), "pool-slots"),
    (dict(packet_elements=5000), "packet-elements"),
])
def test_switchml_bad_input_raises_value_error(options, field):
    config = dict(topology="star", hosts=4, algorithm="switchml", min_bytes="1MiB",
                  max_bytes="1MiB")
    if "topology" in options:
        del config["hosts"]  # a star's option; another topology refuses it
    config.update(options)
    with pytest.raises(ValueError) as info:
        dlnet.run_collective(**config)
    assert field in str(info.value)
