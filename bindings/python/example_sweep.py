# SPDX-License-Identifier: GPL-2.0-only
"""Incast on a star: how the completion time grows with the message size.

Every host but one sends one message to host 0 at the same time; the
receiver's link is the bottleneck, so the makespan approaches
(senders x wire bytes) / link rate and the efficiency column approaches 1.

    ./dlnet python bindings/python/example_sweep.py
    ./dlnet python bindings/python/example_sweep.py --hosts 16 --link-rate 400Gbps \\
        --results results/incast-sweep
"""
import argparse
import csv
import math
import os
import sys

import dlnet

HEADER = 24  # FabricHeader bytes per packet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=8, help="hosts on the star (default 8)")
    parser.add_argument("--link-rate", default="100Gbps", help="every link (default 100Gbps)")
    parser.add_argument("--mtu", type=int, default=4096, help="largest packet, header included")
    parser.add_argument(
        "--sizes",
        default="4KiB,16KiB,64KiB,256KiB,1MiB,4MiB",
        help="comma-separated message sizes (default 4KiB..4MiB)",
    )
    parser.add_argument("--results", help="folder for sweep.csv and one sub-folder per size")
    args = parser.parse_args()

    senders = args.hosts - 1
    rows = []
    print(f"incast on a {args.hosts}-host star: {senders} senders -> host 0, {args.link_rate} links\n")
    header = f"{'message':>10} {'makespan us':>12} {'ideal us':>10} {'efficiency':>10} " \
             f"{'goodput Gb/s':>12} {'mean fct us':>11} {'max queue B':>11} {'wall s':>7}"
    print(header)
    print("-" * len(header))
    for size in args.sizes.split(","):
        out = dlnet.run_traffic(
            topology="star",
            hosts=args.hosts,
            pattern="incast",
            target=0,
            message_bytes=size,
            link_rate=args.link_rate,
            mtu=args.mtu,
            results_dir=os.path.join(args.results, size) if args.results else None,
        )
        r = out["result"]
        if not r["all_delivered"]:
            sys.exit(f"message size {size}: only {r['delivered_messages']} of "
                     f"{r['expected_messages']} messages delivered")
        message = int(out["config"]["message-bytes"])
        rate = min(l["rate_bps"] for l in r["links"])  # every link of the star
        packets = math.ceil(message / (args.mtu - HEADER))
        # The receiver's link carries every sender's wire bytes back to back.
        ideal = senders * (message + packets * HEADER) * 8 / rate
        mean_fct = sum(m["fct_s"] for m in r["messages"]) / len(r["messages"])
        max_queue = max(l["max_queue_bytes"] for l in r["links"])
        row = {
            "message_bytes": message,
            "makespan_s": r["makespan_s"],
            "ideal_s": ideal,
            "efficiency": ideal / r["makespan_s"],
            "goodput_bps": r["aggregate_goodput_bps"],
            "mean_fct_s": mean_fct,
            "max_queue_bytes": max_queue,
            "wall_s": out["wall_seconds"],
        }
        rows.append(row)
        print(f"{size:>10} {row['makespan_s'] * 1e6:12.2f} {ideal * 1e6:10.2f} "
              f"{row['efficiency']:10.3f} {row['goodput_bps'] / 1e9:12.2f} "
              f"{mean_fct * 1e6:11.2f} {max_queue:11d} {row['wall_s']:7.3f}")

    if args.results:
        path = os.path.join(args.results, "sweep.csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        print(f"\nwrote {path}")


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:  # bad option: the message names the field
        print(f"example_sweep: {e}", file=sys.stderr)
        sys.exit(2)
