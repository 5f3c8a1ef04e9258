"""The layer check (test/layers/check-layers.py) passes on the tree and
fails on a deliberate upward include."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "test" / "layers" / "check-layers.py"


def run(root):
    return subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)


def copy_tree(tmp_path):
    for folder in ("model", "helper"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


def test_tree_passes():
    out = run(ROOT)
    assert out.returncode == 0, out.stdout
    assert "0 upward includes" in out.stdout


def test_upward_include_fails(tmp_path):
    root = copy_tree(tmp_path)
    header = root / "model" / "fabric" / "fabric-header.h"
    text = header.read_text()
    header.write_text(text.replace('#include "ns3/header.h"',
                                   '#include "ns3/header.h"\n#include "ns3/collective-engine.h"', 1))
    out = run(root)
    assert out.returncode == 1
    assert ("model/fabric/fabric-header.h" in out.stdout
            and "includes collective-engine.h from model/collective" in out.stdout), out.stdout


def test_model_including_helper_fails(tmp_path):
    root = copy_tree(tmp_path)
    source = root / "model" / "collective" / "communicator.cc"
    source.write_text('#include "ns3/collective-experiment.h"\n' + source.read_text())
    out = run(root)
    assert out.returncode == 1
    assert "from helper/experiment" in out.stdout, out.stdout


def test_empty_tree_fails(tmp_path):
    # a wrong root checks nothing: that must not read as a pass
    out = run(tmp_path)
    assert out.returncode == 1
    assert "0 files checked" in out.stdout and "no source file" in out.stdout, out.stdout
