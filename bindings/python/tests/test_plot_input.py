# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.plot on hostile or malformed input (from a fuzz run): no text given reaches
gnuplot as a command, and bad input raises ValueError naming the argument.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_plot_input.py
"""
import math
import os

import pytest
from deadline import deadline

from dlnet import plot

ROWS = [{"x": 1, "y": 1.0, "s": "a"}, {"x": 2, "y": 3.0, "s": "a"}]
PNG = b"\x89PNG\r\n\x1a\n"


def made(path):
    with open(path, "rb") as f:
        assert f.read(8) == PNG


def injections(marker, out):
    run = f"system('touch {marker}')"
    return {
        "key": lambda: plot.lines(ROWS, "x", "y", None, out, key=f"left; {run}"),
        "title": lambda: plot.lines(ROWS, "x", "y", None, out, title=f"a\n{run}\n"),
        "xlabel": lambda: plot.lines(ROWS, "x", "y", None, out, xlabel=f"a\r\n{run}\n"),
        "series": lambda: plot.lines([dict(ROWS[0], s=f"a\n{run}\n")], "x", "y", "s", out),
        "row_labels": lambda: plot.heatmap([[1]], [f"a\n{run}\n"], ["c"], out),
        "col_labels": lambda: plot.heatmap([[1]], ["a"], [f"c\n{run}\n"], out),
        "cblabel": lambda: plot.heatmap([[1]], ["a"], ["c"], out, cblabel=f"c\n{run}\n"),
        "value_format": lambda: plot.heatmap([[1]], ["a"], ["c"], out, values=True,
                                             value_format=f"%g\n{run}\n"),
        "category": lambda: plot.stacked_bars(
            [{"s": f"a\nEOD\n{run}\n$x << EOD", "x": 1, "y": 1}], "s", ["x", "y"], out),
        "labels": lambda: plot.stacked_bars([{"s": "a", "x": 1}], "s", ["x"], out,
                                            labels=[f"x\n{run}\n"]),
        "samples_by_series": lambda: plot.cdf({f"a\n{run}\n": [1, 2]}, out),
        "path": lambda: plot.lines(ROWS, "x", "y", None, f"{out}\n{run}\n.png"),
    }


@pytest.mark.parametrize("field", sorted(injections("m", "o.png")))
def test_injected_gnuplot_command_is_refused_and_not_run(tmp_path, field):
    marker = tmp_path / "PWNED"
    call = injections(marker, str(tmp_path / "a.png"))[field]
    with deadline(60), pytest.raises(ValueError, match=f"^{field}: "):
        call()
    assert not marker.exists()


@pytest.mark.parametrize("call", [
    # gnuplot runs a `command` inside a double-quoted string
    lambda marker, out: plot.lines(ROWS, "x", "y", "s", out, title=f"`touch {marker}`",
                                   xlabel=f"it's \"`touch {marker}`\" \\"),
    lambda marker, out: plot.lines(ROWS, "x", "y", None, os.path.join(
        os.path.dirname(out), f"`touch {marker}`.png")),
    # and ends a data block at the first line that starts with its terminator
    lambda marker, out: plot.stacked_bars([{"s": "EOD", "x": 1},
                                           {"s": f"system('touch {marker}') #", "x": 2}],
                                          "s", ["x"], out),
], ids=["backquotes", "backquotes-in-path", "block-terminator"])
def test_text_gnuplot_would_run_is_drawn_as_text(tmp_path, call):
    marker = tmp_path / "PWNED"
    with deadline(60):
        made(call(marker, str(tmp_path / "a.png")))
    assert not marker.exists()


@pytest.mark.parametrize("size", [(0, 0), (-1, 5), (1e6, 1e6), (math.nan, 4), (4, math.inf),
                                  (0.5, 4), (101, 4), "ab", (4,), None, (True, 4)])
def test_size_out_of_range_is_refused(tmp_path, size):
    with deadline(60), pytest.raises(ValueError, match="^size: expected .* from 1 to 100"):
        plot.lines(ROWS, "x", "y", None, str(tmp_path / "a.png"), size=size)


@pytest.mark.parametrize("key", ["middle", "top top", "top bottom", "left right", "inside outside",
                                 "off top", 5, None])
def test_key_outside_the_placements_is_refused(tmp_path, key):
    with deadline(60), pytest.raises(ValueError, match="^key: .* is not a key placement.*"
                                                       "inside, outside, above, below, top"):
        plot.lines(ROWS, "x", "y", None, str(tmp_path / "a.png"), key=key)


@pytest.mark.parametrize("value_format", ["%s", "%d %d", "%", "%5", "%*d", "%n", "%ld", "%c",
                                          "%%d", "%d%", "%999d", 5])
def test_value_format_must_be_one_numeric_conversion(tmp_path, value_format):
    with deadline(60), pytest.raises(ValueError, match="^value_format: .* is not one numeric C "
                                                       "conversion"):
        plot.heatmap([[1, 2]], ["a"], ["b", "c"], str(tmp_path / "h.png"), values=True,
                     value_format=value_format)


@pytest.mark.parametrize("field, call", [
    ("title", lambda out: plot.lines(ROWS, "x", "y", None, out, title="a\x00b")),
    ("ylabel", lambda out: plot.lines(ROWS, "x", "y", None, out, ylabel="a\x1b[2Jb")),
    ("series", lambda out: plot.lines([dict(ROWS[0], s="a\nb")], "x", "y", "s", out)),
    ("title", lambda out: plot.lines(ROWS, "x", "y", None, out, title="\udcff")),
    ("x", lambda out: plot.lines([{"a\nb": 1, "y": 1}], "a\nb", "y", None, out)),
])
def test_control_characters_in_text_are_refused(tmp_path, field, call):
    with deadline(60), pytest.raises(ValueError, match=f"^{field}: "):
        call(str(tmp_path / "a.png"))


@pytest.mark.parametrize("name, message", [
    ("a" * 300 + ".png", "is too long"),  # gnuplot wrote the PNG to stdout
    (("b" * 200 + "/") * 21 + "a.png", "is too long"),
    ("a\x00.png", "control character"),
    ("file/a.png", "cannot make the folder"),
    ("folder.png", "exists and is not a regular file"),
    ("fifo.png", "exists and is not a regular file"),  # gnuplot blocked on it
    (5, "expected a file name"),
], ids=["component", "total", "nul", "below-a-file", "folder", "fifo", "int"])
def test_bad_output_paths_are_refused(tmp_path, name, message):
    (tmp_path / "file").write_text("")
    (tmp_path / "folder.png").mkdir()
    os.mkfifo(tmp_path / "fifo.png")
    path = str(tmp_path / name) if isinstance(name, str) else name
    with deadline(60), pytest.raises(ValueError, match=f"^path: .*{message}"):
        plot.lines(ROWS, "x", "y", None, path)
    assert sorted(os.listdir(tmp_path)) == ["fifo.png", "file", "folder.png"]


@pytest.mark.parametrize("field, call", [
    ("x", lambda out: plot.lines([{"x": 1, "y": 1}, {"y": 2}], "x", "y", None, out)),
    ("series", lambda out: plot.lines([{"x": 1, "y": 1, "s": "a"}, {"x": 1, "y": 2}], "x", "y",
                                      "s", out)),
    ("category", lambda out: plot.stacked_bars([{"c": "a", "p": 1}, {"p": 2}], "c", ["p"], out)),
    ("parts", lambda out: plot.stacked_bars([{"c": "a", "p": 1}, {"c": "b"}], "c", ["p"], out)),
])
def test_a_row_lacking_a_column_is_refused(tmp_path, field, call):
    with deadline(60), pytest.raises(ValueError, match=f"^{field}: column '.*' is missing from "
                                                       "row 1"):
        call(str(tmp_path / "a.png"))


def test_a_row_lacking_y_is_left_out_as_a_failed_point(tmp_path):
    # dlnet.sweep's table: a failed point has no result columns
    out = tmp_path / "a.png"
    with deadline(60):
        plot.lines([{"x": 1, "y": 1}, {"x": 2, "status": "failed"}, {"x": 3, "y": 2}], "x", "y",
                   None, str(out))
    made(out)


@pytest.mark.parametrize("field, call", [
    ("rows", lambda out: plot.lines(None, "x", "y", None, out)),
    ("rows", lambda out: plot.lines([1, 2], "x", "y", None, out)),
    ("rows", lambda out: plot.stacked_bars([None], "c", ["p"], out)),
    ("parts", lambda out: plot.stacked_bars([{"c": "a", "p": 1}], "c", None, out)),
    ("labels", lambda out: plot.stacked_bars([{"c": "a", "p": 1}], "c", ["p"], out, labels=5)),
    ("row_labels", lambda out: plot.heatmap([[1]], None, ["c"], out)),
    ("col_labels", lambda out: plot.heatmap([[1]], ["a"], 7, out)),
    ("matrix", lambda out: plot.heatmap(None, ["a"], ["c"], out)),
    ("matrix", lambda out: plot.heatmap([1], ["a"], ["c"], out)),
    ("samples_by_series", lambda out: plot.cdf({"a": None}, out)),
])
def test_wrong_types_are_refused_naming_the_argument(tmp_path, field, call):
    with deadline(60), pytest.raises(ValueError, match=f"^{field}"):
        call(str(tmp_path / "a.png"))


def test_numbers_beyond_a_float_are_refused(tmp_path):
    out = str(tmp_path / "a.png")
    with deadline(60), pytest.raises(ValueError, match="^x: expected a finite number"):
        plot.lines([{"x": 2**1100, "y": 1}], "x", "y", None, out)
    with deadline(60), pytest.raises(ValueError, match=r"^matrix: expected a finite number"):
        plot.heatmap([[2**1100]], ["a"], ["b"], out)
    # the byte tics counted up to inf: a loop without end
    with deadline(60), pytest.raises(ValueError, match="^x: .* beyond the range xbytes can draw"):
        plot.lines([{"x": 1, "y": 1}, {"x": 1.7e308, "y": 2}], "x", "y", None, out, xbytes=True)
