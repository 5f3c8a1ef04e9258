# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.run_training: training iterations on a simulated cluster from Python.

Run by CTest (test "pytest") or by hand:

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_training.py
"""
import csv
import json
import os

import pytest

import dlnet

# A small transformer, TP 2 x PP 2 x DP 2 on a star of 8 hosts.
SMALL = dict(topology="star", hosts=8, model="transformer", layers=2, hidden=256, heads=4,
             sequence=64, vocabulary=512, tp=2, pp=2, dp=2, microbatches=2, iterations=2)


def test_options_and_fields():
    names = {o["name"] for o in dlnet.training_options()}
    for n in ("model", "dp", "tp", "pp", "microbatches", "schedule", "zero", "workload-file",
              "tp-backend", "dp-backend", "jobs", "free-communication"):
        assert n in names
    jobs = [f["name"] for f in dlnet.result_fields()["training_jobs"]]
    assert jobs[:6] == ["job", "mode", "workload", "ranks", "warmup_s", "iteration_s"]
    assert "exposed_dp_s" in jobs and "bubble_s" in jobs
    assert "run_training" in dir(dlnet) and "microbatches" in dlnet.run_training.__doc__


def test_typed_result_and_breakdown_sums():
    out = dlnet.run_training(**SMALL)
    assert out["config"]["tp"] == 2 and out["config"]["model"] == "transformer"
    (job,) = out["jobs"]
    assert job["mode"] == "together" and job["ranks"] == 8
    assert isinstance(job["iteration_s"], float) and job["iteration_s"] > 0
    parts = ["compute_s", "exposed_tp_s", "exposed_ep_s", "exposed_pp_s", "exposed_ws_s",
             "exposed_dp_s", "bubble_s", "idle_s"]
    assert sum(job[p] for p in parts) == pytest.approx(job["iteration_s"], rel=1e-9)
    assert job["bubble_s"] > 0  # two pipeline stages
    assert 0 < job["mfu"] < 1
    assert job["hfu"] == job["mfu"]  # nothing recomputed
    assert len(out["ranks"]) == 8
    dims = {c["dimension"] for c in out["comms"]}
    assert dims == {"tp", "pp", "dp"}


def test_recomputation_counts_in_hfu_not_mfu():
    # model FLOPs per sample: 72 B s l h^2 (1 + s/6h + V/12lh); with the forward recomputed:
    # 96 B s l h^2 (1 + s/6h + V/16lh) (Narayanan et al. 2021, eq. 3)
    (job,) = dlnet.run_training(**dict(SMALL, recompute=True))["jobs"]
    s, l, h, V = 64, 2, 256, 512
    model = 72 * (1 + s / (6 * h) + V / (12 * l * h))
    hardware = 96 * (1 + s / (6 * h) + V / (16 * l * h))
    assert 0 < job["mfu"] < job["hfu"] < 1
    assert job["hfu"] / job["mfu"] == pytest.approx(hardware / model, rel=1e-12)


def test_free_communication_is_never_slower():
    real = dlnet.run_training(**SMALL)["jobs"][0]["iteration_s"]
    free = dlnet.run_training(**SMALL, free_communication=True)["jobs"][0]["iteration_s"]
    assert free < real


def test_megatron_pipeline_messages_reach_the_plan():
    # scatter-gather: each TP rank sends half the activation, and a TP all-gather per message
    # (a TP group, microbatch and direction) rebuilds it (their timing: the ns-3 suite
    # dlnet-training-simulation)
    base = dlnet.run_training(**SMALL)
    both = dlnet.run_training(**SMALL, pipeline_scatter_gather=True, blocking_pipeline_sends=True)
    assert both["config"]["pipeline-scatter-gather"] is True
    assert both["config"]["blocking-pipeline-sends"] is True
    def pp(out):
        return sorted(c["bytes"] for c in out["comms"] if c["dimension"] == "pp")
    assert pp(both) == [b // 2 for b in pp(base)]
    def gathers(out):
        return [c for c in out["comms"] if c["dimension"] == "tp" and c["op"] == "allgather"]
    assert not gathers(base)
    # 2 iterations x 2 DP groups x 2 microbatches x 2 directions x 1 stage boundary
    assert len(gathers(both)) == 16


def test_two_jobs_report_alone_and_together():
    out = dlnet.run_training(**dict(SMALL, tp=1, pp=1, dp=4, jobs=2))
    modes = [(j["job"], j["mode"]) for j in out["jobs"]]
    assert modes == [("job0", "together"), ("job1", "together"), ("job0", "alone"),
                     ("job1", "alone")]
    for j in out["jobs"][:2]:
        assert j["slowdown"] >= 1 - 1e-9
    for j in out["jobs"][2:]:
        assert j["slowdown"] is None


def test_results_dir_and_trace(tmp_path):
    dlnet.run_training(**SMALL, results_dir=tmp_path)
    for f in ("training.csv", "comms.csv", "ranks.csv", "result.json", "trace.json"):
        assert (tmp_path / f).exists(), f
    trace = json.loads((tmp_path / "trace.json").read_text())
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["pid"] for e in events} == set(range(8))
    assert {e["tid"] for e in events} >= {0, 1, 2, 3}  # compute, tp, pp, dp
    rows = list(csv.DictReader(open(tmp_path / "training.csv")))
    assert rows[0]["job"] == "job0"


def test_workload_file(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "..", "workloads", "mlp-model.txt")
    out = dlnet.run_training(topology="star", hosts=8, workload_file=path, workload_ranks=4,
                             iterations=1)
    assert out["jobs"][0]["ranks"] == 4 and out["jobs"][0]["iteration_s"] > 0


@pytest.mark.parametrize("options, field", [
    (dict(model="bert-large", tp=3), "tp"),
    (dict(model="resnet9000"), "model"),
    (dict(schedule="zigzag"), "schedule"),
    (dict(dp_backend="spiral"), "dp-backend"),
    (dict(layers=4), "layers"),  # only with model=transformer
    (dict(workload_ranks=4), "workload-ranks"),  # only with workload-file
    (dict(dp=64), "topology: the star has 8 ranks"),  # more ranks than the topology has
    # --experts reaches the transformer's shape
    (dict(model="transformer", layers=2, hidden=256, heads=4, sequence=64, vocabulary=512,
          experts=4, dp=6, ep=3), "ep: 3 does not divide the 4 experts"),
    (dict(efficiency=1e-9), "device: a layer pass takes"),  # beyond the simulator's clock
    (dict(workload_file="/dev/zero", workload_ranks=2), "workload-file: '/dev/zero' is not a"),
    # a flag or a backend of a dimension the job lacks: taken and ignored before
    (dict(SMALL, tp=1, dp=4, sequence_parallel=True), "sequence-parallel: got true"),
    (dict(SMALL, pp=1, dp=4, tied_embedding_copy=True), "tied-embedding-copy: got true"),
    (dict(SMALL, dp=1, dp_class=0), "dp-class: got 0"),
])
def test_bad_options_raise_value_error(options, field):
    with pytest.raises(ValueError, match=field):
        dlnet.run_training(**dict(dict(topology="star", hosts=8), **options))


def test_interleaved_send_with_backward_reaches_the_plan():
    # the graph it makes: GoogleTest TrainingPlan.InterleavedSendWithBackward
    inter = dict(SMALL, layers=4, schedule="interleaved", virtual_stages=2, microbatches=4,
                 blocking_pipeline_sends=True)
    early = dlnet.run_training(**inter)
    late = dlnet.run_training(**inter, interleaved_send_with_backward=True)
    assert early["config"]["interleaved-send-with-backward"] is False
    assert late["config"]["interleaved-send-with-backward"] is True
    def pp(out, key):
        return sorted(c[key] for c in out["comms"] if c["dimension"] == "pp")
    assert pp(late, "bytes") == pp(early, "bytes")  # the same messages
    assert pp(late, "start_s") != pp(early, "start_s")  # some sent later: the option acts


def test_send_rendezvous_reaches_the_simulation():
    # its timing: the ns-3 suite dlnet-training-simulation ("send rendezvous")
    out = dlnet.run_training(**SMALL, blocking_pipeline_sends=True, send_rendezvous=True)
    assert out["config"]["send-rendezvous"] is True
    without = dlnet.run_training(**SMALL, blocking_pipeline_sends=True)
    assert without["config"]["send-rendezvous"] is False
    def starts(o):
        return sorted(c["start_s"] for c in o["comms"] if c["dimension"] == "pp")
    assert starts(out) != starts(without)  # a send waits for its receiver: the option acts


def test_tied_embedding_copy_adds_a_first_last_all_reduce():
    # SMALL: tp 2, pp 2, dp 2, 2 iterations: per iteration one all-reduce of the embedding's
    # gradient between the first and the last stage per (TP, DP) index, of V·h/tp elements
    def dp_all_reduces(out):
        return [c for c in out["comms"] if c["dimension"] == "dp" and c["op"] == "allreduce"]
    base = dlnet.run_training(**SMALL)
    more = dlnet.run_training(**SMALL, tied_embedding_copy=True)
    assert more["config"]["tied-embedding-copy"] is True
    assert len(dp_all_reduces(more)) == len(dp_all_reduces(base)) + 2 * 2 * 2
    assert more["jobs"][0]["iteration_s"] > base["jobs"][0]["iteration_s"]


def test_local_ddp_copies_add_two_compute_tasks_per_rank():
    # overlap off (one all-reduce after backward): a flatten before it, a copy back after,
    # so the iteration is longer and the compute time grows
    base = dlnet.run_training(**SMALL, overlap=False)
    more = dlnet.run_training(**SMALL, overlap=False, local_ddp_copies=True)
    assert more["config"]["local-ddp-copies"] is True
    assert more["jobs"][0]["iteration_s"] > base["jobs"][0]["iteration_s"]
    assert more["jobs"][0]["compute_s"] > base["jobs"][0]["compute_s"]


def test_ddp_bucket_copies_add_compute_beside_overlapped_buckets():
    # overlap on (PyTorch DDP's buckets): a copy into each bucket before its all-reduce and
    # a copy back after them all, on the compute stream
    base = dlnet.run_training(**SMALL, overlap=True)
    more = dlnet.run_training(**SMALL, overlap=True, ddp_bucket_copies=True)
    assert more["config"]["ddp-bucket-copies"] is True
    assert more["jobs"][0]["compute_s"] > base["jobs"][0]["compute_s"]
    assert more["jobs"][0]["iteration_s"] > base["jobs"][0]["iteration_s"]
    # with overlap off there is no bucket to copy into: refused, not ignored
    with pytest.raises(ValueError, match="ddp-bucket-copies: .* overlap is off"):
        dlnet.run_training(**SMALL, overlap=False, ddp_bucket_copies=True)


def test_vocab_parallel_all_reduces_add_two_per_microbatch():
    # SMALL: tp 2, pp 2, dp 2, 2 microbatches, 2 iterations: one embedding all-reduce per
    # microbatch on the first stage, one logits all-reduce on the last, per DP index
    def tp_all_reduces(out):
        return [c for c in out["comms"] if c["dimension"] == "tp" and c["op"] == "allreduce"]
    base = dlnet.run_training(**SMALL)
    more = dlnet.run_training(**SMALL, vocab_parallel_all_reduces=True)
    assert more["config"]["vocab-parallel-all-reduces"] is True
    assert len(tp_all_reduces(more)) == len(tp_all_reduces(base)) + 2 * 2 * 2 * 2
