#!/usr/bin/env python3
"""SwitchML and OmniReduce at flow level against packet level: the agreement
tables of doc/flow-innet.md.

Runs every case twice with the built examples (network=packet, then
network=flow, everything else equal), reads their CSV results and prints
markdown tables: time at both levels, the difference and the wall times.

    /usr/bin/python3 bench/flow-innet-agreement.py [--build build] [--quick]

--quick runs sparse-allreduce's quick sweep instead of its full one (OmniReduce's
micro-benchmark: 100 MiB, 2/4/8 workers, 10 and 100 Gbit/s, nine densities).
Nothing is asserted here: the test suite dlnet-flow-aggregation asserts the 5 %.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time



def size(text):
    """Both ends of a one-size sweep."""
    return ["--min-bytes=" + text, "--max-bytes=" + text]


# Collective-bench cases beyond the test suite's: (name, arguments).
STAR = ["--topology=star", "--link-delay=500ns", "--switch-latency=100ns"]
LEAF_SPINE = ["--topology=leaf-spine", "--leaves=4", "--hosts-per-leaf=4", "--spines=2",
              "--link-delay=500ns", "--switch-latency=100ns"]
CASES = [
    ("switchml star 8, 64 MiB, pool 256",
     STAR + ["--hosts=8", "--algorithm=switchml", *size("64MiB"), "--pool-slots=256"]),
    ("switchml star 8, 64 MiB, pool 8 (window)",
     STAR + ["--hosts=8", "--algorithm=switchml", *size("64MiB"), "--pool-slots=8"]),
    ("switchml star 8, 64 MiB, k 64, pool 32",
     STAR + ["--hosts=8", "--algorithm=switchml", *size("64MiB"), "--packet-elements=64",
             "--pool-slots=32"]),
    ("switchml leaf-spine 4x4, 64 MiB, pool 256",
     LEAF_SPINE + ["--algorithm=switchml", *size("64MiB"), "--pool-slots=256"]),
    ("switchml leaf-spine 4x4 2:1, 64 MiB, pool 256",
     LEAF_SPINE + ["--oversubscription=2", "--algorithm=switchml", *size("64MiB"),
                   "--pool-slots=256"]),
    ("switchml leaf-spine 4x4, 64 MiB, pool 24 (window)",
     LEAF_SPINE + ["--algorithm=switchml", *size("64MiB"), "--pool-slots=24"]),
    ("switchml leaf-spine 4x4, 1 MiB, pool 256",
     LEAF_SPINE + ["--algorithm=switchml", *size("1MiB"), "--pool-slots=256"]),
    ("omnireduce leaf-spine servers 8+8, ECMP, d 0.5, 16 MiB",
     LEAF_SPINE + ["--mtu=9000", "--ranks=0-7", "--algorithm=omnireduce", "--density=0.5",
                   *size("16MiB")]),
    ("omnireduce leaf-spine servers 8+8, spraying, d 0.5, 16 MiB",
     LEAF_SPINE + ["--mtu=9000", "--ranks=0-7", "--algorithm=omnireduce", "--density=0.5",
                   "--load-balancing=packet", *size("16MiB")]),
    ("omnireduce leaf-spine colocated 16, d 0.1, 16 MiB",
     LEAF_SPINE + ["--mtu=9000", "--algorithm=omnireduce", "--density=0.1",
                   "--aggregator-placement=colocated", *size("16MiB")]),
    ("omnireduce star servers 8+1 (A = 1), d 1, 16 MiB",
     STAR + ["--hosts=9", "--mtu=9000", "--ranks=0-7", "--aggregators=1",
             "--algorithm=omnireduce", "--density=1", *size("16MiB")]),
    ("omnireduce star servers 8+8, d 0.1, packet time 200 ns, 4 MiB",
     STAR + ["--hosts=16", "--mtu=9000", "--ranks=0-7", "--algorithm=omnireduce",
             "--density=0.1", "--aggregator-packet-time=200ns", *size("4MiB")]),
    ("omnireduce star servers 8+8, d 0.01, fused 8, 16 MiB",
     STAR + ["--hosts=16", "--mtu=9000", "--ranks=0-7", "--algorithm=omnireduce",
             "--density=0.01", "--message-blocks=8", *size("16MiB")]),
    ("omnireduce star colocated 8, d 0.1, 1 MiB",
     STAR + ["--hosts=8", "--mtu=9000", "--algorithm=omnireduce", "--density=0.1",
             "--aggregator-placement=colocated", *size("1MiB")]),
    ("omnireduce star colocated 4, d 0.5, 256 KiB",
     STAR + ["--hosts=4", "--mtu=9000", "--algorithm=omnireduce", "--density=0.5",
             "--aggregator-placement=colocated", *size("256KiB")]),
    ("omnireduce star colocated 4, d 0.5, 256 KiB, pool 16 (window)",
     STAR + ["--hosts=4", "--mtu=9000", "--algorithm=omnireduce", "--density=0.5",
             "--aggregator-placement=colocated", "--pool-slots=16", *size("256KiB")]),
    ("switchml leaf-spine 4x4, pool 256, small sizes",
     LEAF_SPINE + ["--algorithm=switchml", "--min-bytes=4", "--max-bytes=1MiB",
                   "--step-factor=16"]),
    ("omnireduce star servers 8+8, d 0.5, small sizes",
     STAR + ["--hosts=16", "--mtu=9000", "--ranks=0-7", "--algorithm=omnireduce",
             "--density=0.5", "--min-bytes=1KiB", "--max-bytes=1MiB", "--step-factor=4"]),
    ("omnireduce star colocated 4, d 0.5, small sizes",
     STAR + ["--hosts=4", "--mtu=9000", "--algorithm=omnireduce", "--density=0.5",
             "--aggregator-placement=colocated", "--min-bytes=1KiB", "--max-bytes=1MiB",
             "--step-factor=4"]),
    ("omnireduce star colocated 4, d 0.3, pool 3, fused 2 (window), 1 MiB",
     STAR + ["--hosts=4", "--mtu=9000", "--algorithm=omnireduce", "--density=0.3",
             "--aggregator-placement=colocated", "--pool-slots=3", "--message-blocks=2",
             *size("1MiB")]),
    ("omnireduce star colocated 8, d 0.1, 4 MiB, pool 64",
     STAR + ["--hosts=8", "--mtu=9000", "--algorithm=omnireduce", "--density=0.1",
             "--aggregator-placement=colocated", "--pool-slots=64", *size("4MiB")]),
]


def size_text(n):
    """A byte count as text: 4 KiB, 16 MiB."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def run(binary, args, results):
    """Run an example; return (rows of its CSV, wall seconds)."""
    start = time.monotonic()
    subprocess.run([binary] + args + ["--results=" + results], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    name = "sparse-allreduce.csv" if "sparse" in os.path.basename(binary) else "collective.csv"
    with open(os.path.join(results, name)) as f:
        return list(csv.DictReader(f)), wall


def row(name, packet, flow, walls):
    diff = (flow - packet) / packet * 100
    wall = " | " if walls is None else f" | {walls[0]:.2f} / {walls[1]:.2f}"
    return f"| {name} | {packet * 1e6:.2f} | {flow * 1e6:.2f} | {diff:+.2f}{wall} |"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="the build folder")
    parser.add_argument("--quick", action="store_true", help="sparse-allreduce's quick sweep")
    opts = parser.parse_args()
    bench = os.path.join(opts.build, "examples", "collective-bench")
    sparse = os.path.join(opts.build, "examples", "sparse-allreduce")
    with tempfile.TemporaryDirectory() as tmp:
        print("| case | packet (us) | flow (us) | flow - packet (%) | wall packet / flow (s) |")
        print("|---|---:|---:|---:|---:|")
        for name, args in CASES:
            out = {}
            for net in ("packet", "flow"):
                out[net] = run(bench, args + ["--network=" + net], os.path.join(tmp, net))
            walls = (out["packet"][1], out["flow"][1])
            for p, f in zip(out["packet"][0], out["flow"][0]):
                label = name if len(out["packet"][0]) == 1 else f"{name}, {size_text(int(p['bytes']))}"
                print(row(label, float(p["time_s"]), float(f["time_s"]),
                          walls if len(out["packet"][0]) == 1 else None), flush=True)

        sweep = ["--quick"] if opts.quick else []
        both = {}
        walls = {}
        for net in ("packet", "flow"):
            both[net], walls[net] = run(sparse, sweep + ["--network=" + net],
                                        os.path.join(tmp, "sparse-" + net))
        print()
        print(f"sparse-allreduce{''.join(' ' + a for a in sweep)} (star, aggregators on servers, 1 block per "
              f"packet, mtu 9000): wall {walls['packet']:.1f} s packet, "
              f"{walls['flow']:.1f} s flow")
        print()
        print("| rate | N | algorithm | density | packet (us) | flow (us) | flow - packet (%) |")
        print("|---|---:|---|---:|---:|---:|---:|")
        worst = 0
        for p, f in zip(both["packet"], both["flow"]):
            tp, tf = float(p["time_s"]), float(f["time_s"])
            diff = (tf - tp) / tp * 100
            worst = max(worst, abs(diff))
            density = format(float(p["density"]), "g") if p["density"] else "-"
            print(f"| {p['rate']} | {p['workers']} | {p['algorithm']} | {density} "
                  f"| {tp * 1e6:.1f} | {tf * 1e6:.1f} | {diff:+.2f} |")
        print()
        print(f"largest |difference| of the sweep: {worst:.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
