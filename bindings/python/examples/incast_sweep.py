# SPDX-License-Identifier: GPL-2.0-only
"""Incast on a star: how the completion time grows with the message size (a dlnet.sweep
over a function of this script).

Every host but one sends one message to host 0 at the same time; the
receiver's link is the bottleneck, so the makespan approaches
(senders x wire bytes) / link rate and the efficiency column approaches 1.
`incast` turns one run into one row; dlnet.sweep runs it once per size, each
in its own process, and keeps the table in --results (rerun: finished sizes
are not run again).

    ./dlnet python bindings/python/examples/incast_sweep.py
    ./dlnet python bindings/python/examples/incast_sweep.py --hosts 16 --link-rate 400Gbps \\
        --results results/incast-sweep
"""
import argparse
import math
import sys
from typing import Dict, Union

import dlnet

HEADER = 24  # FabricHeader bytes per packet


def incast(hosts: int, link_rate: str, mtu: int, message_bytes: Union[int, str],
           seed: int) -> Dict[str, Union[int, float]]:
    """One incast run -> one row (the sweep adds the options as columns)."""
    out = dlnet.run_traffic(topology="star", hosts=hosts, pattern="incast", target=0,
                            message_bytes=message_bytes, link_rate=link_rate, mtu=mtu, seed=seed)
    r = out["result"]
    if not r["all_delivered"]:
        raise RuntimeError(f"only {r['delivered_messages']} of {r['expected_messages']} "
                           "messages delivered")
    message = int(out["config"]["message-bytes"])
    rate = min(link["rate_bps"] for link in r["links"])  # every link of the star
    packets = math.ceil(message / (mtu - HEADER))
    # The receiver's link carries every sender's wire bytes back to back.
    ideal = (hosts - 1) * (message + packets * HEADER) * 8 / rate
    return {
        "bytes": message,
        "makespan_s": r["makespan_s"],
        "ideal_s": ideal,
        "efficiency": ideal / r["makespan_s"],
        "goodput_bps": r["aggregate_goodput_bps"],
        "mean_fct_s": sum(m["fct_s"] for m in r["messages"]) / len(r["messages"]),
        "max_queue_bytes": max(link["max_queue_bytes"] for link in r["links"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=8, help="hosts on the star (default 8)")
    parser.add_argument("--link-rate", default="100Gbps", help="every link (default 100Gbps)")
    parser.add_argument("--mtu", type=int, default=4096, help="largest packet, header included")
    parser.add_argument("--sizes", default="4KiB,16KiB,64KiB,256KiB,1MiB,4MiB",
                        help="comma-separated message sizes (default 4KiB..4MiB)")
    parser.add_argument("--results", default="results/incast-sweep",
                        help="folder of sweep.csv and the points (default results/incast-sweep)")
    parser.add_argument("--workers", type=int, help="local processes (default: every core)")
    args = parser.parse_args()

    rows = dlnet.sweep(incast, {"message_bytes": args.sizes.split(",")},
                       fixed={"hosts": args.hosts, "link_rate": args.link_rate, "mtu": args.mtu},
                       results=args.results, workers=args.workers)
    print(f"incast on a {args.hosts}-host star: {args.hosts - 1} senders -> host 0, "
          f"{args.link_rate} links\n")
    header = (f"{'message':>10} {'makespan us':>12} {'ideal us':>10} {'efficiency':>10} "
              f"{'goodput Gb/s':>12} {'mean fct us':>11} {'max queue B':>11}")
    print(header)
    print("-" * len(header))
    for row in rows:
        if row["status"] != "ok":  # a bad option (ValueError) exits 2, as the programs do
            print(f"message size {row['message_bytes']}: {row['error']}", file=sys.stderr)
            sys.exit(2 if row["error_type"] == "ValueError" else 1)
        print(f"{row['message_bytes']:>10} {row['makespan_s'] * 1e6:12.2f} "
              f"{row['ideal_s'] * 1e6:10.2f} {row['efficiency']:10.3f} "
              f"{row['goodput_bps'] / 1e9:12.2f} {row['mean_fct_s'] * 1e6:11.2f} "
              f"{row['max_queue_bytes']:11d}")
    print(f"\nwrote {args.results}/sweep.csv")


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:  # bad option: the message names the field
        print(f"incast_sweep: {e}", file=sys.stderr)
        sys.exit(2)
