# SPDX-License-Identifier: GPL-2.0-only
"""pytest: link utilisation is the busy fraction of the makespan (first send
to last delivery), not of the simulated time (which runs on to stop_time)."""
import re

import dlnet

P2P = dict(topology="star", hosts=2, pattern="point-to-point", src=0, dst=1,
           message_bytes="4MiB")


def test_saturated_link_reads_fully_busy():
    out = dlnet.run_traffic(P2P)
    links = {(l["from"], l["to"]): l for l in out["result"]["links"]}
    busy = [l["utilisation"] for l in links.values() if l["tx_bytes"] > 4 << 20]
    assert len(busy) == 2  # host 0 -> switch -> host 1
    assert all(0.99 <= u <= 1 for u in busy), busy
    # stop_time only bounds the simulation: it changes no utilisation
    later = dlnet.run_traffic(P2P, stop_time="1000s")
    assert later["result"]["links"] == out["result"]["links"]


def test_link_utilisation_plot_has_bars(tmp_path):
    dlnet.run_traffic(P2P, results_dir=tmp_path)
    assert (tmp_path / "link-utilisation.png").is_file()
    script = (tmp_path / "link-utilisation.plt").read_text()
    # the impulses' data: "index value" lines; two of them near 100 %
    values = [float(m.group(1)) for m in re.finditer(r"^\d+ ([0-9.e+-]+)$", script, re.M)]
    assert sum(v >= 99 for v in values) == 2, values
