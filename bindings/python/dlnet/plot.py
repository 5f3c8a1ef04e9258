# SPDX-License-Identifier: GPL-2.0-only
"""Figures over gnuplot (``dlnet.plot``), the suite's plotting dependency.

For example::

    from dlnet import plot
    plot.lines(rows, x="size_bytes", y="busbw_GBps", series="topology",
               path="busbw.pdf", logx=True, xlabel="message size (bytes)")

Each function writes one figure; the path's suffix picks the output: ``.png``
(pngcairo) or ``.pdf`` (pdfcairo, for papers). Data go to gnuplot inline (no
temporary files); ``/usr/bin/gnuplot`` (Debian gnuplot-nox) runs the script,
and a failure raises RuntimeError with gnuplot's message. Bad input raises
ValueError naming the argument. Every function returns the path it wrote.
"""

import math
import os
import shutil
import subprocess
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["lines", "stacked_bars", "cdf", "heatmap", "GNUPLOT"]

GNUPLOT = shutil.which("gnuplot") or "/usr/bin/gnuplot"
# Readable in a two-column paper and on a screen: a colour-blind safe palette
# (Okabe-Ito, its yellow replaced by wine, too pale on white), thick lines, a light grid.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255",
           "#000000"]

PathArg = Union[str, "os.PathLike[str]"]
Size = Tuple[float, float]  # inches: width, height
Rows = Iterable[Mapping[str, Any]]  # e.g. dlnet.sweep's table


def _terminal(path: PathArg, size: Size) -> str:
    suffix = os.path.splitext(str(path))[1].lower()
    width, height = size
    if suffix == ".png":
        return f"set terminal pngcairo enhanced font 'Sans,11' size {int(width * 100)},{int(height * 100)}"
    if suffix == ".pdf":
        return f"set terminal pdfcairo enhanced font 'Sans,9' size {width}in,{height}in"
    raise ValueError(f"path: '{path}' must end in .png or .pdf")


def _quote(text: object) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: Any, field: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{field}: expected a number, got {value!r}") from None
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{field}: expected a finite number, got {value!r}")
    return number


def _preamble(path: PathArg, title: Optional[str], xlabel: Optional[str], ylabel: Optional[str],
              size: Size, key: str = "top left") -> List[str]:
    lines = [_terminal(path, size), f"set output {_quote(path)}",
             "set grid lc rgb '#dddddd'", "set border lw 1.2", f"set key {key} noopaque",
             "set datafile separator '\\t'", "set encoding utf8"]
    if title:
        lines.append(f"set title {_quote(title)}")
    if xlabel:
        lines.append(f"set xlabel {_quote(xlabel)}")
    if ylabel:
        lines.append(f"set ylabel {_quote(ylabel)}")
    return lines


def _size_label(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}"
        n /= 1024
    return ""


def _byte_tics(low: float, high: float) -> str:
    """Tics at powers of two, a factor 4 or 32 apart, labelled 1 KiB, 32 KiB, 1 MiB, ..."""
    factor = 32 if high / low > 2**12 else 4
    tic = 2 ** math.floor(math.log2(low))
    tics: List[str] = []
    while tic <= high * 1.0001:
        tics.append(f"{_quote(_size_label(tic))} {tic}")
        tic *= factor
    return "set xtics (" + ", ".join(tics) + ")"


def _block(name: str, rows: Iterable[Sequence[object]]) -> List[str]:
    return [f"${name} << EOD"] + ["\t".join(str(v) for v in row) for row in rows] + ["EOD"]


def _run(script: List[str], path: PathArg) -> str:
    folder = os.path.dirname(os.path.abspath(str(path)))
    os.makedirs(folder, exist_ok=True)
    done = subprocess.run([GNUPLOT], input="\n".join(script) + "\n", capture_output=True,
                          text=True, check=False)
    if done.returncode != 0 or not os.path.exists(path):
        raise RuntimeError(f"gnuplot failed for {path}: {done.stderr.strip()}")
    return str(path)


def _check_rows(rows: Rows, columns: Iterable[Tuple[str, str]]) -> List[Mapping[str, Any]]:
    checked = list(rows)
    if not checked:
        raise ValueError("rows: no rows to plot")
    for column, field in columns:
        if column not in checked[0]:
            raise ValueError(f"{field}: column '{column}' is not among {', '.join(checked[0])}")
    return checked


def lines(rows: Rows, x: str, y: str, series: Optional[str] = None, path: PathArg = "figure.png", *,
          title: Optional[str] = None, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
          logx: bool = False, logy: bool = False, xbytes: bool = False, size: Size = (6.4, 4.0),
          points: bool = True, key: str = "top left") -> str:
    """One line per value of the column ``series`` (or a single line), y against x.

    rows: list of dicts (e.g. dlnet.sweep's table); x, y, series: column names.
    Points of a series are sorted by x; rows whose y is empty (failed points) are left out.
    logx/logy: logarithmic axes (every value must then be > 0). xbytes: x is a size in bytes,
    labelled 1 KiB, 32 KiB, 1 MiB, ... (implies logx). key: gnuplot's key placement, e.g.
    'outside right top'."""
    logx = logx or xbytes
    checked = _check_rows(rows, [(x, "x"), (y, "y")] + ([(series, "series")] if series else []))
    groups: Dict[str, List[Tuple[float, float]]] = {}
    for row in checked:
        if row[y] in ("", None):
            continue
        xv, yv = _number(row[x], "x"), _number(row[y], "y")
        if (logx and xv <= 0) or (logy and yv <= 0):
            raise ValueError(f"{'x' if logx and xv <= 0 else 'y'}: a log axis needs values > 0")
        groups.setdefault(str(row[series]) if series else y, []).append((xv, yv))
    if not groups:
        raise ValueError("y: every value is empty")
    script = _preamble(path, title, xlabel or x, ylabel or y, size, key)
    if xbytes:
        xs = [v[0] for g in groups.values() for v in g]
        # an explicit range: gnuplot's autoscaled log range can drop the last tic
        script += ["set logscale x 2", _byte_tics(min(xs), max(xs)),
                   f"set xrange [{min(xs) / 1.15}:{max(xs) * 1.15}]"]
    elif logx:
        script.append("set logscale x")
    if logy:
        script.append("set logscale y")
    plots: List[str] = []
    for i, (name, values) in enumerate(groups.items()):
        script += _block(f"s{i}", sorted(values))
        style = "linespoints pt 7 ps 0.6" if points else "lines"
        plots.append(f"$s{i} using 1:2 with {style} lw 2 lc rgb '{COLOURS[i % len(COLOURS)]}'"
                     f" title {_quote(name)}")
    script.append("plot " + ", ".join(plots))
    return _run(script, path)


def stacked_bars(rows: Rows, category: str, parts: Iterable[str], path: PathArg = "figure.png", *,
                 title: Optional[str] = None, ylabel: Optional[str] = None,
                 labels: Optional[Iterable[str]] = None, size: Size = (6.4, 4.0),
                 key: str = "outside right top") -> str:
    """One bar per row, labelled by the column ``category``, stacked from the columns ``parts``
    (e.g. an iteration time's compute, exposed communication and bubble). labels: legend names
    for the parts (default the column names)."""
    columns = list(parts)
    if not columns:
        raise ValueError("parts: no columns to stack")
    checked = _check_rows(rows, [(category, "category")] + [(p, "parts") for p in columns])
    names = list(labels) if labels is not None else columns
    if len(names) != len(columns):
        raise ValueError(f"labels: {len(names)} labels for {len(columns)} parts")
    data: List[List[Union[str, float]]] = []
    for row in checked:
        values = [_number(row[p], "parts") for p in columns]
        if any(v < 0 for v in values):
            raise ValueError("parts: a stacked part must be >= 0")
        data.append([str(row[category]).replace("\t", " "), *values])
    script = _preamble(path, title, None, ylabel, size, key)
    script += ["set style data histograms", "set style histogram rowstacked",
               "set style fill solid 0.9 border -1", "set boxwidth 0.7", "set yrange [0:*]",
               "set xtics rotate by -30 nomirror" if len(checked) > 6 else "set xtics nomirror"]
    script += _block("bars", data)
    plots = [f"$bars using {i + 2}{':xtic(1)' if i == 0 else ''} lc rgb "
             f"'{COLOURS[i % len(COLOURS)]}' title {_quote(label)}" for i, label in enumerate(names)]
    script.append("plot " + ", ".join(plots))
    return _run(script, path)


def cdf(samples_by_series: Mapping[str, Iterable[float]], path: PathArg = "figure.png", *,
        title: Optional[str] = None, xlabel: str = "value", logx: bool = False,
        size: Size = (6.4, 4.0), key: str = "bottom right") -> str:
    """Empirical CDFs, one per series: samples_by_series maps a name to a list of numbers
    (e.g. flow completion times)."""
    if not isinstance(samples_by_series, dict) or not samples_by_series:
        raise ValueError("samples_by_series: expected a dict name -> list of numbers")
    script = _preamble(path, title, xlabel, "fraction", size, key)
    script.append("set yrange [0:1.02]")
    if logx:
        script.append("set logscale x")
    plots: List[str] = []
    for i, (name, samples) in enumerate(samples_by_series.items()):
        values = sorted(_number(v, f"samples_by_series['{name}']") for v in samples)
        if not values:
            raise ValueError(f"samples_by_series['{name}']: no samples")
        if logx and values[0] <= 0:
            raise ValueError(f"samples_by_series['{name}']: a log axis needs values > 0")
        count = len(values)
        script += _block(f"c{i}", [(v, (k + 1) / count) for k, v in enumerate(values)])
        plots.append(f"$c{i} using 1:2 with steps lw 2 lc rgb '{COLOURS[i % len(COLOURS)]}'"
                     f" title {_quote(name)}")
    script.append("plot " + ", ".join(plots))
    return _run(script, path)


def heatmap(matrix: Iterable[Iterable[float]], row_labels: Sequence[object],
            col_labels: Sequence[object], path: PathArg = "figure.png", *,
            title: Optional[str] = None, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
            cblabel: Optional[str] = None, values: bool = False, value_format: str = "%.3g",
            size: Size = (6.4, 4.8)) -> str:
    """A matrix of numbers as coloured cells (e.g. utilisation per link and time bin):
    matrix[r][c] is drawn at row r (labelled row_labels[r], top to bottom) and column c.
    values: print each cell's number in it (value_format, a C format)."""
    cells_of = [list(r) for r in matrix]
    if not cells_of or not cells_of[0]:
        raise ValueError("matrix: expected a non-empty list of rows")
    if any(len(r) != len(cells_of[0]) for r in cells_of):
        raise ValueError("matrix: every row must have one length")
    if len(row_labels) != len(cells_of):
        raise ValueError(f"row_labels: {len(row_labels)} labels for {len(cells_of)} rows")
    if len(col_labels) != len(cells_of[0]):
        raise ValueError(f"col_labels: {len(col_labels)} labels for {len(cells_of[0])} columns")
    script = _preamble(path, title, xlabel, ylabel, size, "off")
    script += ["unset grid", "set palette defined (0 '#ffffff', 1 '#fee391', 2 '#fe9929', "
               "3 '#cc4c02', 4 '#662506')", "set view map", "set yrange [] reverse",
               f"set xrange [-0.5:{len(cells_of[0]) - 0.5}]", f"set yrange [{len(cells_of) - 0.5}:-0.5]"]
    if cblabel:
        script.append(f"set cblabel {_quote(cblabel)}")
    step_x = max(1, len(col_labels) // 16)
    step_y = max(1, len(row_labels) // 24)
    script.append("set xtics (" + ", ".join(f"{_quote(l)} {i}" for i, l in enumerate(col_labels)
                                            if i % step_x == 0) + ")"
                  + (" rotate by -30" if max(len(str(l)) for l in col_labels) * len(col_labels) > 50 else ""))
    script.append("set ytics (" + ", ".join(f"{_quote(l)} {i}" for i, l in enumerate(row_labels)
                                            if i % step_y == 0) + ")")
    cells = [(c, r, _number(v, "matrix")) for r, row in enumerate(cells_of) for c, v in enumerate(row)]
    script += _block("cells", cells)
    labels = f", $cells using 1:2:(sprintf({_quote(value_format)}, $3)) with labels notitle" \
        if values else ""
    script.append("plot $cells using 1:2:3 with image notitle" + labels)
    return _run(script, path)
