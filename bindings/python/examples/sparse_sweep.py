# SPDX-License-Identifier: GPL-2.0-only
"""Sparse-aggregation sweep: AllReduce time against block density and worker count.

One dlnet.sweep over densities x workers of run_sparse (OmniReduce-style sparse
blocks; every point also runs ring and SwitchML on the same tensor as references),
then two figures: time against density (OmniReduce per worker count, with ring as
flat references) and OmniReduce's speedup over ring.

    ./dlnet python bindings/python/examples/sparse_sweep.py --quick   # 4 MiB tensor, seconds
    ./dlnet python bindings/python/examples/sparse_sweep.py           # 100 MiB tensor, minutes
"""
import argparse
import os
import sys

import dlnet
from dlnet import plot

DENSITIES = [1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01]
WORKERS = [2, 4, 8, 16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 4 MiB tensor")
    parser.add_argument("--workers", type=int, help="local processes (default: every core)")
    parser.add_argument("--scheduler", help="run on the Dask scheduler at this address")
    parser.add_argument("--results", default="results/sparse-sweep")
    parser.add_argument("--format", choices=["png", "pdf"], default="png")
    args = parser.parse_args()

    rows = dlnet.sweep(
        "sparse",
        {"workers": [str(w) for w in WORKERS], "densities": [str(d) for d in DENSITIES]},
        fixed={"tensor_bytes": "4MiB" if args.quick else "100MiB", "rates": "100Gbps"},
        results=args.results, workers=args.workers, scheduler=args.scheduler)
    failed = [r for r in rows if r["status"] != "ok"]
    for r in failed:
        print(f"failed: workers {r['workers']} density {r['densities']}: {r['error']}",
              file=sys.stderr)
    ok = [dict(r, time_ms=float(r["time_s"]) * 1e3) for r in rows if r["status"] == "ok"]
    omni = [dict(r, series=f"omnireduce, {r['workers']} workers", density=float(r["densities"]))
            for r in ok if r["algorithm"] == "omnireduce"]
    ring = [dict(r, series=f"ring, {r['workers']} workers", density=float(r["densities"]))
            for r in ok if r["algorithm"] == "ring"]
    print(f"{'workers':>8}{'density':>9}{'omnireduce ms':>15}{'ring ms':>10}{'switchml ms':>13}"
          f"{'speedup':>9}")
    for r in omni:
        same = {x["algorithm"]: x for x in ok if x["point"] == r["point"]}
        print(f"{r['workers']:>8}{r['density']:>9g}{r['time_ms']:15.3f}"
              f"{same['ring']['time_ms']:10.3f}{same['switchml']['time_ms']:13.3f}"
              f"{float(r['speedup_over_ring']):9.2f}")
    tensor = "4 MiB" if args.quick else "100 MiB"
    path = os.path.join(args.results, f"time-vs-density.{args.format}")
    plot.lines(omni + ring, x="density", y="time_ms", series="series", path=path, logx=True,
               logy=True, key="outside right top", size=(8, 4.5),
               title=f"sparse AllReduce of {tensor} at 100 Gbit/s", xlabel="block density",
               ylabel="time (ms)")
    print(f"wrote {path}")
    path = os.path.join(args.results, f"speedup.{args.format}")
    plot.lines(omni, x="density", y="speedup_over_ring", series="workers", path=path, logx=True,
               title="OmniReduce speedup over ring", xlabel="block density",
               ylabel="speedup over ring", key="top right")
    print(f"wrote {path}\nwrote {os.path.join(args.results, 'sweep.csv')}")
    # a bad option (ValueError) exits 2, as the programs do; another failure 1
    return 2 if any(r["error_type"] == "ValueError" for r in failed) else 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as e:
        print(f"sparse_sweep: {e}", file=sys.stderr)
        sys.exit(2)
