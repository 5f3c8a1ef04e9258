# SPDX-License-Identifier: GPL-2.0-only
"""Allreduce algorithms on a leaf-spine: bus bandwidth by size, and what 'auto' picks.

Runs the same sweep of buffer sizes once per algorithm (ring, halving-doubling,
double-binary-tree, direct) on a 16-rank leaf-spine (4 leaves x 4 hosts), then
once with algorithm=auto, which picks per size the algorithm the alpha-beta
model predicts to be fastest. The table gives the simulated busbw of each
algorithm (the nccl-tests figure: algbw x 2(N-1)/N for allreduce), marks the
fastest with '*', and names auto's pick and whether it was the fastest.

    ./dlnet python bindings/python/examples/collectives.py
    ./dlnet python bindings/python/examples/collectives.py --leaves 8 --spines 4 \\
        --oversubscription 2 --max-bytes 64MiB --results results/allreduce-algorithms
"""
import argparse
import csv
import os
import sys

import dlnet

ALGORITHMS = ("ring", "halving-doubling", "double-binary-tree", "direct")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=4, help="leaf switches (default 4)")
    parser.add_argument("--hosts-per-leaf", type=int, default=4, help="hosts per leaf (default 4)")
    parser.add_argument("--spines", type=int, default=2, help="spine switches (default 2)")
    parser.add_argument("--oversubscription", type=float, default=1,
                        help="leaf downlink/uplink capacity ratio (default 1)")
    parser.add_argument("--link-rate", default="100Gbps", help="host links (default 100Gbps)")
    parser.add_argument("--load-balancing", default="flow",
                        help="equal-cost paths: flow (ECMP) or packet (spraying); default flow")
    parser.add_argument("--op", default="allreduce", help="collective (default allreduce)")
    parser.add_argument("--type", default="fp32", help="element type (default fp32)")
    parser.add_argument("--min-bytes", default="1KiB", help="smallest buffer (default 1KiB)")
    parser.add_argument("--max-bytes", default="16MiB", help="largest buffer (default 16MiB)")
    parser.add_argument("--step-factor", type=float, default=4,
                        help="size multiplier between rows (default 4)")
    parser.add_argument("--algorithms",
                        help="comma-separated algorithms to compare (default: "
                             + ",".join(ALGORITHMS) + ", those of them that implement --op)")
    parser.add_argument("--functional", action="store_true",
                        help="carry real data and check every rank's result (slower)")
    parser.add_argument("--results", help="folder for comparison.csv and one sub-folder per "
                                          "algorithm (collective.csv, result.json, plots)")
    args = parser.parse_args()

    chosen = args.algorithms is not None
    algorithms = [a.strip() for a in (args.algorithms if chosen else ",".join(ALGORITHMS))
                  .split(",") if a.strip()]
    if not algorithms:
        raise ValueError("algorithms: got an empty list")
    if "auto" in algorithms:
        raise ValueError("algorithms: 'auto' is always run; list concrete algorithms only")

    config = {
        "topology": "leaf-spine",
        "leaves": args.leaves,
        "hosts_per_leaf": args.hosts_per_leaf,
        "spines": args.spines,
        "oversubscription": args.oversubscription,
        "link_rate": args.link_rate,
        "load_balancing": args.load_balancing,
        "op": args.op,
        "type": args.type,
        "min_bytes": args.min_bytes,
        "max_bytes": args.max_bytes,
        "step_factor": args.step_factor,
        "functional": args.functional,
    }

    def run(algorithm: str) -> dlnet.CollectiveRun:
        folder = os.path.join(args.results, algorithm) if args.results else None
        out = dlnet.run_collective(config, algorithm=algorithm, results_dir=folder)
        rows = out["result"]["rows"]
        wrong = [r["bytes"] for r in rows if r["checked"] and not r["correct"]]
        if wrong:
            sys.exit(f"collectives: {algorithm}: wrong result at sizes {wrong}")
        return out

    sweeps = {}
    for alg in algorithms:
        try:
            sweeps[alg] = run(alg)
        except ValueError as e:
            # The default list leaves out what the op lacks; a list given is run as given.
            if chosen or "does not implement" not in str(e):
                raise
            print(f"(skipping {alg}: it does not implement {args.op})")
    algorithms = list(sweeps)
    auto = run("auto")
    first = sweeps[algorithms[0]]["result"]
    sizes = [r["bytes"] for r in first["rows"]]
    wall = sum(out["wall_seconds"] for out in sweeps.values()) + auto["wall_seconds"]

    print(f"{args.op} on a {first['ranks']}-rank leaf-spine ({args.leaves} leaves x "
          f"{args.hosts_per_leaf} hosts, {args.spines} spines, {args.link_rate}, "
          f"oversubscription {args.oversubscription:g}, {args.load_balancing} load balancing)")
    print(f"busbw in GB/s, simulated; * = fastest at that size; auto = the model's pick\n")
    width = max(len(a) for a in algorithms) + 1
    header = f"{'bytes':>10} " + " ".join(f"{a:>{width}}" for a in algorithms) \
             + f"  {'auto picks':<20} {'auto busbw':>10}  {'pick fastest?':<13}"
    print(header)
    print("-" * len(header))

    table = []
    for i, size in enumerate(sizes):
        busbw = {a: sweeps[a]["result"]["rows"][i]["busbw_Bps"] for a in algorithms}
        best = max(busbw.values())
        pick = auto["result"]["rows"][i]
        cells = " ".join(
            f"{busbw[a] / 1e9:>{width - 1}.2f}{'*' if busbw[a] == best else ' '}"
            for a in algorithms
        )
        # The fastest of the compared algorithms, and whether auto's pick is it
        # (the pick may be one we did not compare, e.g. hierarchical).
        fastest = [a for a in algorithms if busbw[a] == best]
        verdict = "yes" if pick["algorithm"] in fastest else (
            "n/a" if pick["algorithm"] not in busbw else f"no ({fastest[0]})")
        print(f"{size:>10} {cells}  {pick['algorithm']:<20} {pick['busbw_Bps'] / 1e9:>10.2f}"
              f"  {verdict:<13}")
        row = {"bytes": size}
        row.update({f"busbw_Bps_{a}": busbw[a] for a in algorithms})
        row.update({f"bound_s_{a}": sweeps[a]["result"]["rows"][i]["bound_s"]
                    for a in algorithms})
        row.update({"auto_algorithm": pick["algorithm"], "auto_busbw_Bps": pick["busbw_Bps"],
                    "fastest": fastest[0]})
        table.append(row)
    print(f"\nsimulated {len(algorithms) + 1} sweeps of {len(sizes)} sizes in {wall:.2f} s wall")

    if args.results:
        path = os.path.join(args.results, "comparison.csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows(table)
        print(f"wrote {path}")


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:  # bad option: the message names the field
        print(f"collectives: {e}", file=sys.stderr)
        sys.exit(2)
