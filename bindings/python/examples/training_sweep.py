# SPDX-License-Identifier: GPL-2.0-only
"""Training sweep: iteration time against the DP x TP x PP split, with its breakdown.

A transformer (8 layers, hidden 2048, 16 heads, sequence 1024) on 16 GPUs (2
rail-optimised servers of 8), every split tp x pp x dp = 16 at one global batch
(dp x microbatches = 32 samples per iteration): one dlnet.sweep, then a stacked-bar
figure of each split's iteration (compute, exposed TP/PP/DP communication, pipeline
bubble, idle) and the table.

    ./dlnet python bindings/python/examples/training_sweep.py --quick   # flow level, seconds
    ./dlnet python bindings/python/examples/training_sweep.py           # packet level, minutes
"""
import argparse
import os
import sys

import dlnet
from dlnet import plot

# (tp, pp, dp); tp x pp x dp = 16 ranks.
SPLITS = [(1, 1, 16), (2, 1, 8), (4, 1, 4), (8, 1, 2), (1, 2, 8), (1, 4, 4), (2, 2, 4),
          (2, 4, 2), (4, 2, 2), (4, 4, 1), (8, 2, 1)]
GLOBAL_BATCH = 32  # samples per iteration: dp x microbatches (microbatch size 1)
PARTS = ["compute_s", "exposed_tp_s", "exposed_ep_s", "exposed_pp_s", "exposed_ws_s",
         "exposed_dp_s", "bubble_s", "idle_s"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="flow-level network (seconds)")
    parser.add_argument("--workers", type=int, help="local processes (default: every core)")
    parser.add_argument("--scheduler", help="run on the Dask scheduler at this address")
    parser.add_argument("--results", default="results/training-sweep")
    parser.add_argument("--format", choices=["png", "pdf"], default="png")
    args = parser.parse_args()

    rows = dlnet.sweep(
        "training",
        zip={"tp": [s[0] for s in SPLITS], "pp": [s[1] for s in SPLITS],
             "dp": [s[2] for s in SPLITS],
             "microbatches": [GLOBAL_BATCH // s[2] for s in SPLITS]},
        fixed={"topology": "rail-optimised", "servers": 2, "gpus_per_server": 8,
               "model": "transformer", "layers": 8, "hidden": 2048, "heads": 16,
               "sequence": 1024, "vocabulary": 32000, "iterations": 2, "trace": False,
               "network": "flow" if args.quick else "packet"},
        results=args.results, workers=args.workers, scheduler=args.scheduler)
    failed = [r for r in rows if r["status"] != "ok"]
    for r in failed:
        print(f"failed: tp {r['tp']} pp {r['pp']} dp {r['dp']}: {r['error']}", file=sys.stderr)
    ok = [dict(r, split=f"tp{r['tp']} pp{r['pp']} dp{r['dp']}",
               **{p: float(r[p]) * 1e3 for p in PARTS})  # ms
          for r in rows if r["status"] == "ok" and r["mode"] == "together"]
    print(f"{'split':<16}{'iteration ms':>14}{'samples/s':>12}" + "".join(
        f"{p[:-2]:>14}" for p in PARTS))
    for r in ok:
        print(f"{r['split']:<16}{float(r['iteration_s']) * 1e3:14.3f}"
              f"{float(r['samples_per_s']):12.1f}" + "".join(f"{r[p]:14.3f}" for p in PARTS))
    parts = [p for p in PARTS if any(r[p] > 0 for r in ok)]  # leave out parts zero everywhere
    path = os.path.join(args.results, f"breakdown.{args.format}")
    plot.stacked_bars(ok, "split", parts, path, ylabel="iteration time (ms)",
                      labels=[p[:-2].replace("_", " ") for p in parts], size=(8, 4.5),
                      title=f"transformer on 16 GPUs, {GLOBAL_BATCH} samples per iteration")
    print(f"wrote {path}\nwrote {os.path.join(args.results, 'sweep.csv')}")
    # a bad option (ValueError) exits 2, as the programs do; another failure 1
    return 2 if any(r["error_type"] == "ValueError" for r in failed) else 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as e:
        print(f"training_sweep: {e}", file=sys.stderr)
        sys.exit(2)
