# SPDX-License-Identifier: GPL-2.0-only
"""Topology comparison: AllReduce bus bandwidth against size, per topology and algorithm.

One dlnet.sweep over 7 topologies of 16 ranks (star, leaf-spine 1:1 and 2:1,
fat-tree k=4, dragonfly, 4x4 torus, 2 rail-optimised GPU servers of 8 GPUs)
x 4 algorithms (ring, direct, halving-doubling, double binary tree); each
point sweeps the sizes 1 KiB..1 GiB (x4 per row) itself, as nccl-tests does.
Then one figure per algorithm: busbw against size, one line per topology.

    ./dlnet python bindings/python/examples/topology_comparison.py --quick
    ./dlnet python bindings/python/examples/topology_comparison.py --workers 2
    ./dlnet python bindings/python/examples/topology_comparison.py --dask 2     # LocalCluster
    ./dlnet python bindings/python/examples/topology_comparison.py --scheduler tcp://host:8786

--quick: packet level, 1 KiB..1 MiB (under a minute on 2 cores). The full run
defaults to the flow-level network up to 1 GiB (--network packet for packet level
to 1 GiB: hours). Rerunning with the same --results resumes (finished points
are skipped).
"""
import argparse
import os
import sys
from typing import Any, Dict, List, Mapping

import dlnet
from dlnet import plot

TOPOLOGIES = {
    # label: (topology, leaf-spine oversubscription or None)
    "star": ("star", None),
    "leaf-spine 1:1": ("leaf-spine", 1),
    "leaf-spine 2:1": ("leaf-spine", 2),
    "fat-tree k=4": ("fat-tree", None),
    "dragonfly": ("dragonfly", None),
    "torus 4x4": ("torus", None),
    "rail-optimised 2x8 GPUs": ("rail-optimised", None),
}
ALGORITHMS = ["ring", "direct", "halving-doubling", "double-binary-tree"]


def label_of(row: Mapping[str, Any]) -> str:
    for label, (topology, oversubscription) in TOPOLOGIES.items():
        if row["topology"] == topology and str(row["oversubscription"]) == str(
                oversubscription if oversubscription is not None else ""):
            return label
    return str(row["topology"])


def run(args: argparse.Namespace) -> List[Dict[str, Any]]:
    def sweep(client: Any = None) -> List[Dict[str, Any]]:
        return dlnet.sweep(
            "collective",
            grid={"algorithm": ALGORITHMS},
            zip={"topology": [t for t, _ in TOPOLOGIES.values()],
                 "oversubscription": [o for _, o in TOPOLOGIES.values()]},
            fixed={"nodes": 16, "min_bytes": "1KiB", "max_bytes": "1MiB" if args.quick else "1GiB",
                   "step_factor": 4,
                   "network": args.network or ("packet" if args.quick else "flow")},
            results=args.results, seed=args.seed, workers=args.workers, client=client,
            scheduler=args.scheduler if client is None else None)

    if args.dask:
        from distributed import Client, LocalCluster

        # distributed's LocalCluster and Client carry no annotations
        with LocalCluster(n_workers=args.dask, processes=True,  # type: ignore[no-untyped-call]
                          threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster) as client:  # type: ignore[no-untyped-call]
            return sweep(client)
    return sweep()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="packet level, sizes to 1 MiB")
    parser.add_argument("--network", choices=["packet", "flow"],
                        help="default: packet with --quick, else flow")
    parser.add_argument("--workers", type=int, help="local processes (default: every core)")
    parser.add_argument("--dask", type=int, metavar="N", help="run on a Dask LocalCluster of N workers")
    parser.add_argument("--scheduler", help="run on the Dask scheduler at this address")
    parser.add_argument("--results", default="results/topology-comparison")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=["png", "pdf"], default="png")
    args = parser.parse_args()

    rows = run(args)
    failed = {r["point"]: r for r in rows if r["status"] != "ok"}
    for r in failed.values():
        print(f"failed: {r['topology']} {r['algorithm']}: {r['error']}", file=sys.stderr)
    ok = [dict(r, label=label_of(r), busbw_GBps=float(r["busbw_Bps"]) / 1e9)
          for r in rows if r["status"] == "ok"]
    largest = max(int(r["bytes"]) for r in ok)
    print(f"busbw (GB/s) at {largest} bytes")
    print(f"{'topology':<24}" + "".join(f"{a:>20}" for a in ALGORITHMS))
    for label in TOPOLOGIES:
        cells = {r["algorithm"]: r["busbw_GBps"] for r in ok
                 if r["label"] == label and int(r["bytes"]) == largest}
        print(f"{label:<24}" + "".join(f"{cells.get(a, float('nan')):>20.2f}" for a in ALGORITHMS))
    for algorithm in ALGORITHMS:
        path = os.path.join(args.results, f"busbw-{algorithm}.{args.format}")
        plot.lines([r for r in ok if r["algorithm"] == algorithm], x="bytes", y="busbw_GBps",
                   series="label", path=path, xbytes=True, key="outside right top",
                   title=f"AllReduce, {algorithm}, 16 ranks", size=(8, 4),
                   xlabel="buffer size (bytes)", ylabel="bus bandwidth (GB/s)")
        print(f"wrote {path}")
    print(f"wrote {os.path.join(args.results, 'sweep.csv')} ({len(rows)} rows)")
    # a bad option (ValueError) exits 2, as the programs do; another failure 1
    return 2 if any(r["error_type"] == "ValueError" for r in failed) else 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as e:
        print(f"topology_comparison: {e}", file=sys.stderr)
        sys.exit(2)
