# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.plot: each figure kind is written as PNG and PDF; bad input raises ValueError.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_plot.py
"""
import pytest

from dlnet import plot

ROWS = [{"size": 2**k, "busbw": k * v, "topology": t}
        for t, v in (("star", 1.0), ("torus", 1.5)) for k in range(10, 21, 2)]
BREAKDOWN = [{"plan": "dp8", "compute": 1.0, "comm": 0.5, "bubble": 0.0},
             {"plan": "tp2 pp4", "compute": 1.0, "comm": 0.2, "bubble": 0.3}]

PNG = b"\x89PNG\r\n\x1a\n"
PDF = b"%PDF"


def made(path, magic):
    with open(path, "rb") as f:
        head = f.read(8)
    assert head.startswith(magic), head
    assert path.stat().st_size > 1000


@pytest.mark.parametrize("suffix, magic", [("png", PNG), ("pdf", PDF)])
def test_every_kind_writes_the_format_of_its_suffix(tmp_path, suffix, magic):
    path = tmp_path / f"lines.{suffix}"
    assert plot.lines(ROWS, "size", "busbw", "topology", str(path), xbytes=True,
                      title="busbw") == str(path)
    made(path, magic)
    path = tmp_path / f"bars.{suffix}"
    plot.stacked_bars(BREAKDOWN, "plan", ["compute", "comm", "bubble"], str(path),
                      ylabel="seconds")
    made(path, magic)
    path = tmp_path / f"cdf.{suffix}"
    plot.cdf({"a": [3, 1, 2], "b": [0.5, 4, 9, 2]}, str(path), logx=True, xlabel="fct (s)")
    made(path, magic)
    path = tmp_path / f"heat.{suffix}"
    plot.heatmap([[0, 0.5, 1], [1, 0.2, 0]], ["l0", "l1"], ["t0", "t1", "t2"], str(path),
                 cblabel="utilisation", values=True)
    made(path, magic)


def test_log_axes_and_series_in_one_plot(tmp_path):
    path = tmp_path / "log.png"
    plot.lines(ROWS, "size", "busbw", "topology", str(path), logx=True, logy=True)
    made(path, PNG)
    single = tmp_path / "single.png"
    plot.lines(ROWS, "size", "busbw", path=str(single))  # no series: one line
    made(single, PNG)


def test_bad_input_raises_value_error(tmp_path):
    out = str(tmp_path / "x.png")
    with pytest.raises(ValueError, match="path: .* must end in .png or .pdf"):
        plot.lines(ROWS, "size", "busbw", "topology", str(tmp_path / "x.svg"))
    with pytest.raises(ValueError, match="y: column 'nope' is not among"):
        plot.lines(ROWS, "size", "nope", "topology", out)
    with pytest.raises(ValueError, match="rows: no rows"):
        plot.lines([], "size", "busbw", None, out)
    with pytest.raises(ValueError, match="y: a log axis needs values > 0"):
        plot.lines([{"x": 1, "y": 0}], "x", "y", None, out, logy=True)
    with pytest.raises(ValueError, match="x: expected a number"):
        plot.lines([{"x": "big", "y": 1}], "x", "y", None, out)
    with pytest.raises(ValueError, match="parts: a stacked part must be >= 0"):
        plot.stacked_bars([{"c": "a", "p": -1}], "c", ["p"], out)
    with pytest.raises(ValueError, match="labels: 1 labels for 2 parts"):
        plot.stacked_bars(BREAKDOWN, "plan", ["compute", "comm"], out, labels=["x"])
    with pytest.raises(ValueError, match="samples_by_series"):
        plot.cdf([], out)
    with pytest.raises(ValueError, match=r"samples_by_series\['a'\]: no samples"):
        plot.cdf({"a": []}, out)
    with pytest.raises(ValueError, match="matrix: every row must have one length"):
        plot.heatmap([[1, 2], [3]], ["a", "b"], ["x", "y"], out)
    with pytest.raises(ValueError, match="col_labels: 1 labels for 2 columns"):
        plot.heatmap([[1, 2]], ["a"], ["x"], out)
    assert not (tmp_path / "x.png").exists()
