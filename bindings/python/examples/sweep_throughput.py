# SPDX-License-Identifier: GPL-2.0-only
"""Sweep throughput: points per minute of one grid on 1 and on 2 local workers.

16 points (4 topologies x 4 algorithms, 16 ranks, packet level, 1 KiB..32 MiB), each
a few seconds. Each worker count runs the whole grid into a fresh folder (nothing is
resumed), so the figure is the end-to-end rate, process start-up included.

    ./dlnet python bindings/python/examples/sweep_throughput.py [--workers 1,2] [--quick]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import dlnet

GRID = {"topology": ["star", "leaf-spine", "fat-tree", "torus"],
        "algorithm": ["ring", "direct", "halving-doubling", "double-binary-tree"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--quick", action="store_true", help="sizes to 1 MiB (a smoke test)")
    args = parser.parse_args()
    fixed = {"nodes": 16, "min_bytes": "1KiB", "max_bytes": "1MiB" if args.quick else "32MiB",
             "step_factor": 2}
    print(f"{'workers':>7} {'points':>6} {'wall s':>8} {'points/min':>10} {'mean point s':>12}")
    for workers in (int(w) for w in args.workers.split(",")):
        folder = tempfile.mkdtemp(prefix="dlnet-throughput-")
        try:
            start = time.monotonic()
            rows = dlnet.sweep("collective", GRID, fixed=fixed, results=folder, workers=workers,
                               progress=False)
            wall = time.monotonic() - start
            points = os.path.join(folder, "points")
            seconds = [json.load(open(os.path.join(points, p)))["wall_seconds"]
                       for p in os.listdir(points)]
        finally:
            shutil.rmtree(folder)
        assert all(r["status"] == "ok" for r in rows)
        print(f"{workers:>7} {len(seconds):>6} {wall:8.2f} {len(seconds) / wall * 60:10.1f} "
              f"{sum(seconds) / len(seconds):12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
