#!/usr/bin/env python3
"""A layer never includes from a layer above it.

Every project header is included as "ns3/<name>.h" (or "<name>.h" beside it),
so a header's layer is the folder that holds it. ALLOWED says, per folder,
which folders its files may include from; anything else is an upward (or
sideways) include and fails the check, naming the file, the line and the
header.

    check-layers.py ROOT        check the tree at ROOT (exit 1 on a violation)
"""

import re
import sys
from pathlib import Path

# Bottom to top. A folder may include from itself and from those listed.
ALLOWED = {
    "model/common": [],
    "model/fabric": ["model/common"],
    "model/flow": ["model/common", "model/fabric"],
    "model/topology": ["model/common", "model/fabric", "model/flow"],
    "model/collective": ["model/common", "model/fabric", "model/flow", "model/topology"],
    "model/aggregation": ["model/common", "model/fabric", "model/flow", "model/topology", "model/collective"],
    "model/fred": ["model/common", "model/fabric", "model/flow", "model/topology", "model/collective"],
    "model/workload": ["model/common", "model/fabric", "model/flow", "model/topology", "model/collective",
                       "model/aggregation", "model/fred"],
    "model/scheduler": ["model/common", "model/fabric", "model/flow", "model/topology", "model/collective",
                        "model/aggregation", "model/fred", "model/workload"],
    "helper/experiment": ["model/common", "model/fabric", "model/flow", "model/topology", "model/collective",
                          "model/aggregation", "model/fred", "model/workload", "model/scheduler"],
    "helper": ["model/common", "model/fabric", "model/flow", "model/topology", "model/collective",
               "model/aggregation", "model/fred", "model/workload", "model/scheduler",
               "helper/experiment"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+["<](?:ns3/)?([A-Za-z0-9_.-]+\.h)[">]')


def check(root):
    root = Path(root)
    files = [p for folder in ALLOWED for p in sorted((root / folder).glob("*"))
             if p.suffix in (".h", ".cc")]
    home = {p.name: p.parent.relative_to(root).as_posix() for p in files if p.suffix == ".h"}
    problems = []
    for path in files:
        folder = path.parent.relative_to(root).as_posix()
        allowed = set(ALLOWED[folder]) | {folder}
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) not in home:
                continue
            target = home[m.group(1)]
            if target not in allowed:
                problems.append(f"{path.relative_to(root)}:{number}: includes {m.group(1)} "
                                f"from {target}, a layer {folder} may not use "
                                f"(allowed: {', '.join(sorted(allowed))})")
    unknown = sorted({p.parent.relative_to(root).as_posix()
                      for p in (root / "model").glob("*/*.[hc]*")} - set(ALLOWED))
    for folder in unknown:
        problems.append(f"{folder}: a source folder with no row in ALLOWED; give it its layer")
    return problems, len(files)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems, count = check(argv[1])
    for p in problems:
        print(p)
    print(f"layers: {count} files checked, {len(problems)} upward includes")
    if count == 0:
        print(f"layers: no source file under {argv[1]}; give the tree's root")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
