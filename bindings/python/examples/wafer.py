# SPDX-License-Identifier: GPL-2.0-only
"""Where does each wafer stop scaling? Wafer-wide all-reduce bandwidth by size.

Runs the wafer-wide all-reduce of the FRED paper on the 2D mesh and on
Fred-A..D for a sweep of sizes per NPU, and prints the effective per-NPU
bandwidth (bytes an NPU injects / the collective's time) beside the paper's
figure for a large all-reduce. Endpoint algorithms (mesh, Fred-A, Fred-C)
lose to their per-step latencies at small sizes; in-switch ones (Fred-B,
Fred-D) take one pass through the switches whatever the size.

    ./dlnet python bindings/python/examples/wafer.py
    ./dlnet python bindings/python/examples/wafer.py --sizes 4MiB,64MiB --variants mesh,fred-d
"""
import argparse

import dlnet

PAPER = {"mesh": 1500, "fred-a": 1850, "fred-b": 1500, "fred-c": 3000, "fred-d": 3000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1MiB,4MiB,16MiB,64MiB",
                        help="comma-separated sizes per NPU (default 1MiB,4MiB,16MiB,64MiB)")
    parser.add_argument("--variants", default="mesh,fred-a,fred-b,fred-c,fred-d",
                        help="wafers (default all five)")
    args = parser.parse_args()
    variants = args.variants.split(",")
    sizes = args.sizes.split(",")
    table = {}
    for size in sizes:
        out = dlnet.run_wafer(variants=args.variants, scenarios="allreduce", bytes=size)
        for row in out["rows"]:
            table[(size, row["variant"])] = (row["effective_GBps"], row["time_s"])
    print("effective GB/s per NPU, wafer-wide all-reduce")
    print("%-8s" % "size" + "".join("%10s" % v for v in variants))
    for size in sizes:
        print("%-8s" % size + "".join("%10.1f" % table[(size, v)][0] for v in variants))
    print("%-8s" % "paper" + "".join("%10s" % PAPER.get(v, "-") for v in variants))
    print("\ntime (us), wafer-wide all-reduce")
    for size in sizes:
        print("%-8s" % size + "".join("%10.2f" % (table[(size, v)][1] * 1e6) for v in variants))


if __name__ == "__main__":
    main()
