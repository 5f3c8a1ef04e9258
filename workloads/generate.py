#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reproduce the example workload files of this folder (see README.md).

The hand-made files are written from the small formulas below. ResNet-50
comes from dlnet's model zoo (C++): this script runs the gtest that renders
MakeModel("resnet50") as an ASTRA-sim 1.0 file with DLNET_REGENERATE set,
which makes the test write workloads/resnet50-data.txt instead of comparing.

Usage: /usr/bin/python3 workloads/generate.py [BUILD_DIR]   (default: build)
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Assumed device: 100 TFLOP/s at 1 GHz -> cycles = FLOPs / 1e5.
FLOPS_PER_CYCLE = 1e14 / 1e9


def cycles(flops):
    return int(round(flops / FLOPS_PER_CYCLE))


def layer(name, fwd, fwd_type, fwd_bytes, ig, ig_type, ig_bytes, wg, wg_type, wg_bytes, update, extra=None):
    cols = [name, -1, fwd, fwd_type, fwd_bytes, ig, ig_type, ig_bytes, wg, wg_type, wg_bytes, update]
    if extra:
        cols.append(extra)
    return " ".join(str(c) for c in cols)


def write(name, header, layers):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(header + "\n" + str(len(layers)) + "\n" + "\n".join(layers) + "\n")


def transformer():
    # 6 blocks (attention + MLP layers), h 1024, s 512, microbatch 8, TP 4, fp16.
    h, s, b, tp = 1024, 512, 8, 4
    act = 2 * b * s * h
    rows = []
    for i in range(6):
        attn = (2 * b * s * 4 * h * h + 4 * b * s * s * h) / tp
        mlp = 2 * b * s * 8 * h * h / tp
        for kind, fl, params in (("attn", attn, 4 * h * h + 4 * h), ("mlp", mlp, 8 * h * h + 5 * h)):
            rows.append(layer("block%d_%s" % (i, kind), cycles(fl), "ALLREDUCE", act, cycles(fl), "ALLREDUCE", act,
                              cycles(fl), "ALLREDUCE", 2 * params // tp, 100))
    write("transformer-hybrid.txt", "HYBRID_TRANSFORMER model_parallel_NPU_group: 4", rows)


def dlrm():
    # Embedding (layer 0) exchanged with AllToAll; bottom MLP 1..3; top MLP 4..7; batch 512, fp32.
    b, dim, tables = 512, 64, 8
    emb = b * tables * dim * 4
    rows = [layer("embedding", 20000, "ALLTOALL", emb, 20000, "ALLTOALL", emb, 0, "NONE", 0, 500)]
    widths = [13, 512, 256, 64]
    for i in range(3):
        p = widths[i] * widths[i + 1]
        rows.append(layer("bottom%d" % i, cycles(2 * b * p), "NONE", 0, cycles(2 * b * p), "NONE", 0,
                          cycles(2 * b * p), "ALLREDUCE", 4 * p, 50))
    top = [479, 512, 256, 128, 1]
    for i in range(4):
        p = top[i] * top[i + 1]
        rows.append(layer("top%d" % i, cycles(2 * b * p), "NONE", 0, cycles(2 * b * p), "NONE", 0,
                          cycles(2 * b * p), "ALLREDUCE", 4 * p, 50))
    write("dlrm-hybrid.txt", "HYBRID_DLRM 3", rows)


def mlp():
    # Model parallel MLP: each layer's output gathered forward, its gradient reduce-scattered.
    b = 256
    widths = [4096, 4096, 4096, 4096, 1024]
    rows = []
    for i in range(4):
        fl = 2 * b * widths[i] * widths[i + 1]
        rows.append(layer("fc%d" % i, cycles(fl), "ALLGATHER", 2 * b * widths[i + 1], cycles(fl), "REDUCESCATTER",
                          2 * b * widths[i], cycles(fl), "NONE", 0, 10))
    write("mlp-model.txt", "MODEL", rows)


def gpt_simai():
    # GPT-like: TP 2, PP 2, GA 4, 8 GPUs (DP 2); compute in ns (100 TFLOP/s).
    h, s, b, tp, v = 2048, 1024, 1, 2, 51200
    act = 2 * b * s * h
    ns = lambda fl: int(round(fl / 1e14 * 1e9))
    rows = [layer("embedding", ns(2 * b * s * h), "ALLREDUCE", act, 0, "NONE", 0, 0, "ALLREDUCE", 2 * v * h // tp, 0)]
    for i in range(4):
        fl = (24 * b * s * h * h + 4 * b * s * s * h) / tp
        rows.append(layer("layer%d" % i, ns(fl), "ALLREDUCE", 2 * act, ns(fl), "ALLREDUCE", 2 * act, ns(fl),
                          "ALLREDUCE", 2 * 12 * h * h // tp, 0))
    rows.append(layer("lm_head", ns(2 * b * s * h * v / tp), "NONE", 0, ns(2 * b * s * h * v / tp), "ALLREDUCE", act,
                      ns(2 * b * s * h * v / tp), "NONE", 0, 0))
    header = ("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 2 vpp: 1 ga: 4 all_gpus: 8 "
              "checkpoints: 0 checkpoint_initiates: 0 pp_comm: %d" % act)
    write("gpt-simai.txt", header, rows)


def chakra():
    # 4 ranks: compute, AllReduce over group 0, compute, a ring send/receive,
    # then an AllGather inside pairs (groups 1 and 2).
    traces = []
    for r in range(4):
        nodes = [
            {"Id": 1, "Name": "fwd", "NodeType": 4, "runtime": 50, "data_deps": [], "is_cpu_op": False},
            {"Id": 2, "Name": "grad_allreduce", "NodeType": 7, "data_deps": [1], "comm_type": 0,
             "comm_size": 1 << 20, "pg_name": "0"},
            {"Id": 3, "Name": "opt", "NodeType": 4, "runtime": 20, "data_deps": [2]},
            {"Id": 4, "Name": "send_next", "NodeType": 5, "data_deps": [3], "comm_src": r,
             "comm_dst": (r + 1) % 4, "comm_tag": 7, "comm_size": 65536},
            {"Id": 5, "Name": "recv_prev", "NodeType": 6, "data_deps": [3], "comm_src": (r + 3) % 4,
             "comm_dst": r, "comm_tag": 7, "comm_size": 65536},
            {"Id": 6, "Name": "pair_allgather", "NodeType": 7, "data_deps": [4, 5], "comm_type": 2,
             "comm_size": 262144, "pg_name": "1" if r < 2 else "2"},
            {"Id": 7, "Name": "meta", "NodeType": 1, "data_deps": [6]},
        ]
        traces.append({"rank": r, "workload_graph": nodes})
    with open(os.path.join(HERE, "chakra-allreduce.json"), "w") as f:
        json.dump({"ranks": 4, "traces": traces}, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "chakra-groups.json"), "w") as f:
        json.dump({"0": [0, 1, 2, 3], "1": [0, 1], "2": [2, 3]}, f)
        f.write("\n")


def resnet(build):
    env = dict(os.environ, DLNET_REGENERATE="1")
    subprocess.check_call([os.path.join(build, "test", "dlnet-gtest"),
                           "--gtest_filter=WorkloadImport.ResNet50FileMatchesModelZoo"], env=env)


if __name__ == "__main__":
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    transformer()
    dlrm()
    mlp()
    gpt_simai()
    chakra()
    resnet(build)
