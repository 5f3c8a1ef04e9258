# SPDX-License-Identifier: GPL-2.0-only
"""The three figures of doc/python.md's gallery that no other example makes: a CDF of flow
completion times, a heatmap of the utilisation of each leaf-spine link per algorithm (the
per-link statistics), and a heatmap of bus bandwidth per topology and algorithm.

    ./dlnet python bindings/python/examples/gallery.py [--results DIR] [--format pdf]

The heatmap reads the table of topology_comparison.py (run it first, same --results
parent: results/topology-comparison/sweep.csv by default).
"""
import argparse
import csv
import os
import sys

import dlnet
from dlnet import plot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results/gallery")
    parser.add_argument("--comparison", default="results/topology-comparison/sweep.csv",
                        help="topology_comparison.py's table")
    parser.add_argument("--format", choices=["png", "pdf"], default="png")
    args = parser.parse_args()
    if not os.path.exists(args.comparison):
        print(f"--comparison: {args.comparison} does not exist; run topology_comparison.py "
              "first (or give its sweep.csv)", file=sys.stderr)
        sys.exit(2)

    # CDF: flow completion times of all-to-all on a 2:1 leaf-spine, per load-balancing mode.
    fct = {}
    for balancing in ("flow", "packet"):
        out = dlnet.run_traffic(topology="leaf-spine", leaves=4, hosts_per_leaf=4,
                                oversubscription=2, pattern="all-to-all",
                                message_bytes="256KiB", load_balancing=balancing)
        fct[f"ECMP per {balancing}"] = [m["fct_s"] * 1e6 for m in out["result"]["messages"]]
    path = plot.cdf(fct, os.path.join(args.results, f"fct-cdf.{args.format}"),
                    xlabel="flow completion time (us)", title="all-to-all, 256 KiB, 2:1 leaf-spine")
    print(f"wrote {path}")

    # Heatmap: utilisation of every directed leaf-spine link, one column per algorithm
    # (a 16 MiB AllReduce on a 2:1 leaf-spine; stats=True gives out["links"]).
    algorithms = ["ring", "halving-doubling", "double-binary-tree", "direct"]
    utilisation = {}
    for algorithm in algorithms:
        run = dlnet.run_collective(topology="leaf-spine", leaves=4, hosts_per_leaf=4, spines=2,
                                   oversubscription=2, algorithm=algorithm, min_bytes="16MiB",
                                   max_bytes="16MiB", stats=True)
        for link in run["links"]:
            if link["tier"] == "fabric":
                utilisation[(link["from"], link["to"], algorithm)] = link["utilisation"]
    fabric = list(dict.fromkeys((f, t) for f, t, _ in utilisation))
    matrix = [[utilisation[(f, t, a)] for a in algorithms] for f, t in fabric]
    path = plot.heatmap(matrix, [f"{f}>{t}" for f, t in fabric], algorithms,
                        os.path.join(args.results, f"link-utilisation.{args.format}"),
                        cblabel="utilisation", values=True, value_format="%.2f",
                        title="16 MiB AllReduce, 2:1 leaf-spine: leaf-spine links", size=(6, 7))
    print(f"wrote {path}")

    # Heatmap: busbw at the largest size, topology x algorithm, from the comparison's table.
    with open(args.comparison) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    largest = max(int(r["bytes"]) for r in rows)
    rows = [r for r in rows if int(r["bytes"]) == largest]
    names = list(dict.fromkeys((r["topology"], r["oversubscription"]) for r in rows))
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    cell = {(r["topology"], r["oversubscription"], r["algorithm"]): float(r["busbw_Bps"]) / 1e9
            for r in rows}
    matrix = [[cell[(t, o, a)] for a in algorithms] for t, o in names]
    labels = [t + (f" {o}:1" if o else "") for t, o in names]
    path = plot.heatmap(matrix, labels, algorithms,
                        os.path.join(args.results, f"busbw-heatmap.{args.format}"),
                        cblabel="busbw (GB/s)", values=True, value_format="%.1f", title=f"AllReduce busbw at {largest} bytes")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
