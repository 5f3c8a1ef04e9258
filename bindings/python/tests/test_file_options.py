# SPDX-License-Identifier: GPL-2.0-only
"""What a fuzz run of the file options found mishandled: a results folder whose
name ran commands through the plot step, FIFOs that held a run for ever, a
device that swallowed a table, bytes that are not UTF-8 in a trace, seeds and
PCAP names that aborted the interpreter, an option given under both
spellings, hybrid ASTRA-sim files that no option could import."""
import json
import os

import pytest

import dlnet

SOURCE = os.path.join(os.path.dirname(__file__), "..", "..", "..")
MLP = os.path.join(SOURCE, "workloads", "mlp-model.txt")


@pytest.mark.parametrize("name", [
    "q\"; system \"touch {mark}\"; x=\"",
    "a'$(touch {mark})'b",
    "o'brien\nsystem('touch {mark}')",
])
def test_results_folder_name_runs_no_command(name, tmp_path):
    mark = tmp_path / "MARK"
    folder = tmp_path / "r" / name.format(mark=mark)
    dlnet.run_training(workload_file=MLP, workload_ranks=4, network="flow",
                       results_dir=str(folder))
    assert not mark.exists()
    # the plot is still drawn: the name reaches gnuplot as an argument
    assert (folder / "breakdown.png").stat().st_size > 0


def test_fifo_as_timeline_is_refused_before_the_run(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"^timeline: got '.*fifo'; it is not a regular file"):
        dlnet.run_collective(timeline=str(fifo), min_bytes="4KiB", max_bytes="4KiB",
                             results_dir=str(tmp_path / "r"))


def test_fifo_in_the_results_folder_is_refused(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    os.mkfifo(folder / "result.json")
    with pytest.raises(ValueError, match=r"^results: got '.*result.json'; it is not a regular"):
        dlnet.run_training(workload_file=MLP, workload_ranks=4, network="flow",
                           results_dir=str(folder))


def test_device_in_the_results_folder_is_refused(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "training.csv").symlink_to("/dev/full")
    with pytest.raises(ValueError, match=r"^results: got '.*training.csv'; it is not a regular"):
        dlnet.run_training(workload_file=MLP, workload_ranks=4, network="flow",
                           results_dir=str(folder))


@pytest.mark.parametrize("path", ["fifo", "/dev/zero"])
def test_sparsity_file_that_is_not_a_regular_file_is_refused(path, tmp_path):
    if path == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    with pytest.raises(ValueError, match=r"^sparsity-file: '.*' is not a regular file"):
        dlnet.run_collective(algorithm="omnireduce", aggregator_placement="colocated",
                             sparsity_file=path, min_bytes="64KiB", max_bytes="64KiB")


def test_layer_name_not_utf8_is_written_as_replacement_characters(tmp_path):
    with open(MLP, "rb") as f:
        text = f.read()
    first = text.split(b"\n")[2].split()[0]
    workload = tmp_path / "w.txt"
    workload.write_bytes(text.replace(first + b" ", b"f\xff1 ", 1))
    dlnet.run_training(workload_file=str(workload), workload_ranks=4, network="flow",
                       results_dir=str(tmp_path / "r"))
    with open(tmp_path / "r" / "trace.json", encoding="utf-8") as f:
        trace = json.load(f)
    names = {e.get("name") for e in trace["traceEvents"]}
    assert any(n and "f\ufffd1" in n for n in names)


@pytest.mark.parametrize("run", [
    lambda: dlnet.run_traffic(hosts=4, seed=4294944443),
    lambda: dlnet.run_collective(hosts=4, flow_control="lossy", loss_rate=0.01,
                                 seed=4294967295),
])
def test_seed_beyond_the_generator_is_refused(run):
    # ns-3's MRG32k3a aborted the interpreter on its first draw with such a seed
    with pytest.raises(ValueError, match=r"^seed: got '\d+'; expected a whole number "
                                         r"from 1 to 4294944442"):
        run()


def test_pcap_name_too_long_is_refused(tmp_path):
    # ns-3 aborted the interpreter when it could not open a file of such a name
    with pytest.raises(ValueError, match=r"^pcap: got '.*'; its file name part has 250 bytes"):
        dlnet.run_collective(pcap=str(tmp_path / ("p" * 250)), hosts=2, min_bytes="4KiB",
                             max_bytes="4KiB")


def test_fifo_at_a_pcap_file_is_refused(tmp_path):
    os.mkfifo(tmp_path / "run-0-0.pcap")
    with pytest.raises(ValueError, match=r"^pcap: got '.*run-0-0.pcap'; it is not a regular"):
        dlnet.run_collective(pcap=str(tmp_path / "run"), hosts=2, min_bytes="4KiB",
                             max_bytes="4KiB")


def test_option_given_under_both_spellings_is_refused():
    with pytest.raises(ValueError, match=r"^min_bytes: given twice, as 'min-bytes' and "
                                         r"'min_bytes'; give it once"):
        dlnet.run_collective(**{"min-bytes": "64KiB"}, min_bytes="128KiB", max_bytes="128KiB")


HYBRID = """HYBRID_DATA_MODEL
1
fc0 -1 10 ALLREDUCE 8 10 ALLREDUCE 8 10 ALLREDUCE 8 0
"""


def test_hybrid_file_takes_its_model_groups_from_an_option(tmp_path):
    workload = tmp_path / "hdm.txt"
    workload.write_text(HYBRID)
    with pytest.raises(ValueError, match=r"workload-model-parallel: is 0 and the file gives no "
                                         r"model_parallel_NPU_group"):
        dlnet.run_training(workload_file=str(workload), workload_ranks=4, network="flow")
    r = dlnet.run_training(workload_file=str(workload), workload_ranks=4,
                           workload_model_parallel=2, network="flow")
    assert r["config"]["workload-model-parallel"] == 2
    assert r["jobs"][0]["iteration_s"] > 0 and r["jobs"][0]["collectives"] > 0


def test_results_folder_that_cannot_be_made_is_refused_before_the_run(tmp_path):
    # named results_dir (not results, the writers' name) and before the simulation, not after
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for folder, why in [(tmp_path / ("x" * 300), "File name too long"),
                        (loop / "a", "Too many levels of symbolic links")]:
        with pytest.raises(ValueError, match=f"^results_dir: cannot create folder .*: {why}"):
            dlnet.run_collective(results_dir=str(folder), min_bytes="4KiB", max_bytes="4KiB")


def test_empty_groups_file_is_refused_naming_it(tmp_path):
    groups = tmp_path / "groups.json"
    groups.write_text("\n")
    chakra = os.path.join(SOURCE, "workloads", "chakra-allreduce.json")
    with pytest.raises(ValueError, match=r"^workload-groups: '.*groups.json' is empty"):
        dlnet.run_training(workload_file=chakra, workload_groups=str(groups), network="flow")


def test_ns3_attributes_takes_any_mapping():
    import types
    attributes = types.MappingProxyType({"ns3::FabricNetDevice::IngressLatency": "10ns"})
    r = dlnet.run_collective(ns3_attributes=attributes, min_bytes="4KiB", max_bytes="4KiB")
    assert r["config"]["ns3-attributes"] == {"ns3::FabricNetDevice::IngressLatency": "10ns"}


def test_timeline_name_too_long_is_refused_before_the_run(tmp_path):
    # it was a RuntimeError ("cannot write") after the simulation
    with pytest.raises(ValueError, match=r"^timeline: got '.*'; its file name has 300 bytes"):
        dlnet.run_collective(timeline=str(tmp_path / ("t" * 300)), min_bytes="4KiB",
                             max_bytes="4KiB")


def test_input_file_options_take_paths_and_names_that_are_not_utf8(tmp_path):
    # the name comes back from a result as os.fsdecode makes it, and goes in again
    name = os.fsencode(str(tmp_path)) + b"/w\xff.txt"
    with open(MLP, "rb") as f, open(name, "wb") as out:
        out.write(f.read())
    r = dlnet.run_training(workload_file=name, workload_ranks=4, network="flow")
    again = dlnet.run_training(workload_file=r["config"]["workload-file"], workload_ranks=4,
                               network="flow")
    assert os.fsencode(again["config"]["workload-file"]) == name
    import pathlib
    dlnet.run_training(workload_file=pathlib.Path(MLP), workload_ranks=4, network="flow")


def test_backquote_or_quote_in_a_profile_path_runs_no_command(tmp_path):
    # the profile's path is the plots' model name: it ran commands from their titles
    folder = tmp_path / 'x"; system "touch MARK"; a="`touch MARK2`'
    folder.mkdir()
    profile = folder / "p.csv"
    with open(os.path.join(SOURCE, "heterps", "profile-example.csv")) as f:
        profile.write_text(f.read())
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        dlnet.schedule(profile=str(profile), schedulers="greedy", results_dir=str(tmp_path / "r"),
                       catalogue=os.path.join(SOURCE, "heterps", "catalogue-example.json"))
    finally:
        os.chdir(cwd)
    assert not (tmp_path / "MARK").exists() and not (tmp_path / "MARK2").exists()
    assert (tmp_path / "r" / "cost-vs-limit.png").stat().st_size > 0


def test_workload_file_run_gives_no_throughput_it_cannot_know(tmp_path):
    # a workload file gives no samples or FLOPs: None, not 0 (it read as a result of zero)
    out = dlnet.run_training(workload_file=MLP, workload_ranks=4, network="flow",
                             results_dir=str(tmp_path))
    job = out["jobs"][0]
    assert job["iteration_s"] > 0
    for field in ("samples_per_s", "tokens_per_s", "mfu", "hfu"):
        assert job[field] is None, field
