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

No text given reaches gnuplot as a command: titles, labels, series names and
the path are quoted (single-quoted strings: gnuplot runs a `command` in
backquotes inside a double-quoted one) and refused when they hold a control
character other than a tab (a newline would end the string and the line);
``key`` is one of the placements below and ``value_format`` one numeric C
conversion. ``size`` is (width, height) in inches, each from 1 to 100 (a PNG
has 100 pixels per inch: 100 to 10000 pixels); ``key`` is "off", "" (gnuplot's
default) or words from inside, outside, above, below, top, bottom, left,
right, center, each at most once (e.g. 'top left', 'outside right top'). The
path must name a regular file (or none yet), of at most 255 bytes a component
and 4095 in all.
"""

import math
import numbers
import os
import re
import shutil
import subprocess
import sys
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

# Inches: a PNG of 100 to 10000 pixels a side (cairo allocates width x height x 4 bytes).
SIZE_RANGE = (1.0, 100.0)
# Key words by group: a key takes at most one word of each group (center at most once).
KEY_WORDS = [("inside", "outside"), ("above", "below"), ("top", "bottom"), ("left", "right"),
             ("center",)]
# Linux's NAME_MAX and PATH_MAX (less its NUL): a longer path is not opened and gnuplot
# then writes the figure to its standard output.
NAME_MAX, PATH_MAX = 255, 4095
# Any control character but the tab ends or garbles a line of the script.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# One numeric conversion (flags, width, precision): gnuplot's sprintf passes the format to C's.
_FORMAT = re.compile(r"%[-+ #0]*[0-9]{0,2}(\.[0-9]{0,2})?[diouxXeEfFgG]")


def _text(value: object, field: str) -> str:
    """value as text for the script: refused where it could end a string or a line."""
    text = str(value)
    bad = _CONTROL.search(text)
    if bad:
        raise ValueError(f"{field}: {text[:60]!r} holds the control character {bad.group()!r}; "
                         "text may hold printable characters and tabs only")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{field}: {text[:60]!r} is not valid Unicode (a lone surrogate)"
                         ) from None
    return text


def _output(path: PathArg) -> str:
    try:
        name = os.fspath(path)
    except TypeError:
        raise ValueError(f"path: expected a file name (str or os.PathLike), got "
                         f"{type(path).__name__}") from None
    if not isinstance(name, str):
        raise ValueError(f"path: expected a file name as str, got {type(name).__name__}")
    _text(name, "path")
    if len(name.encode("utf-8")) > PATH_MAX or any(
            len(part.encode("utf-8")) > NAME_MAX for part in name.split(os.sep)):
        raise ValueError(f"path: {name[:60]!r}... is too long (at most {NAME_MAX} bytes a "
                         f"component, {PATH_MAX} in all)")
    return name


def _size(size: Size) -> Tuple[float, float]:
    low, high = SIZE_RANGE
    refused = ValueError(f"size: expected (width, height) in inches, each from {low:g} to "
                         f"{high:g} (a PNG has 100 pixels per inch), got {size!r}")
    try:
        width, height = size
    except (TypeError, ValueError):
        raise refused from None
    for value in (width, height):
        if (not isinstance(value, numbers.Real) or isinstance(value, bool)
                or not low <= float(value) <= high):  # NaN too
            raise refused
    return width, height


def _key(key: str) -> str:
    words = key.split() if isinstance(key, str) else [""]  # not a word: refused
    groups = [[w for w in words if w in group] for group in KEY_WORDS]
    if key != "off" and (any(len(g) > 1 for g in groups) or sum(map(len, groups)) != len(words)):
        allowed = ", ".join(w for group in KEY_WORDS for w in group)
        raise ValueError(f"key: {key!r} is not a key placement: 'off', '' (gnuplot's default) "
                         f"or words from {allowed}, one of each pair at most (e.g. 'top left', "
                         "'outside right top')")
    return key


def _terminal(path: PathArg, size: Size) -> str:
    suffix = os.path.splitext(_output(path))[1].lower()
    width, height = _size(size)
    if suffix == ".png":
        return f"set terminal pngcairo enhanced font 'Sans,11' size {int(width * 100)},{int(height * 100)}"
    if suffix == ".pdf":
        return f"set terminal pdfcairo enhanced font 'Sans,9' size {width}in,{height}in"
    raise ValueError(f"path: '{path}' must end in .png or .pdf")


def _quote(text: object, field: str) -> str:
    # single quotes: no escapes to undo and no `command` run (gnuplot runs it in double quotes)
    return "'" + _text(text, field).replace("'", "''") + "'"


def _number(value: Any, field: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{field}: expected a number, got {value!r}") from None
    except OverflowError:  # an int beyond the largest float
        raise ValueError(f"{field}: expected a finite number, got one of {len(str(value))} "
                         "digits") from None
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{field}: expected a finite number, got {value!r}")
    return number


def _preamble(path: PathArg, title: Optional[str], xlabel: Optional[str], ylabel: Optional[str],
              size: Size, key: str = "top left") -> List[str]:
    lines = [_terminal(path, size), f"set output {_quote(_output(path), 'path')}",
             "set grid lc rgb '#dddddd'", "set border lw 1.2", f"set key {_key(key)} noopaque",
             "set datafile separator '\\t'", "set encoding utf8"]
    if title:
        lines.append(f"set title {_quote(title, 'title')}")
    if xlabel:
        lines.append(f"set xlabel {_quote(xlabel, 'xlabel')}")
    if ylabel:
        lines.append(f"set ylabel {_quote(ylabel, 'ylabel')}")
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
    # capped: past the largest float the limit would be inf, which no tic exceeds
    while tic <= min(high * 1.0001, sys.float_info.max):
        tics.append(f"{_quote(_size_label(tic), 'x')} {tic}")
        tic *= factor
    return "set xtics (" + ", ".join(tics) + ")"


def _block(name: str, rows: Iterable[Sequence[object]], field: str) -> List[str]:
    lines = ["\t".join(_text(v, field) for v in row) for row in rows]
    # gnuplot ends the block at the first line that starts with its terminator
    end, n = "EOD", 0
    while any(line.startswith(end) for line in lines):
        n += 1
        end = f"EOD{n}"
    return [f"${name} << {end}"] + lines + [end]


def _run(script: List[str], path: PathArg) -> str:
    name = _output(path)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(name)), exist_ok=True)
    except OSError as e:
        raise ValueError(f"path: cannot make the folder of {name!r}: {e.strerror or e}") from None
    if os.path.exists(name) and not os.path.isfile(name):
        # gnuplot would block on a FIFO, fail on a folder, write to a device
        raise ValueError(f"path: {name!r} exists and is not a regular file")
    # no shell; the figure goes to the file only (gnuplot writes it to stdout when the file
    # will not open)
    done = subprocess.run([GNUPLOT], input=("\n".join(script) + "\n").encode("utf-8"),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0 or not os.path.exists(name):
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"gnuplot failed for {name}: {message}")
    return name


def _check_rows(rows: Rows, columns: Iterable[Tuple[str, str]],
                optional: Sequence[str] = ()) -> List[Mapping[str, Any]]:
    """The rows, each a dict holding every column (but those in optional: left out rows)."""
    if isinstance(rows, (str, bytes, Mapping)) or not hasattr(rows, "__iter__"):
        raise ValueError(f"rows: expected a list of dicts (e.g. dlnet.sweep's table), got "
                         f"{type(rows).__name__}")
    checked = list(rows)
    if not checked:
        raise ValueError("rows: no rows to plot")
    for i, row in enumerate(checked):
        if not isinstance(row, Mapping):
            raise ValueError(f"rows: row {i} is not a dict but {type(row).__name__}")
    # a failed point of a sweep lacks the result columns: any row may name the columns
    names = list(dict.fromkeys(name for row in checked for name in row))
    for column, field in columns:
        if column not in names:
            raise ValueError(f"{field}: column '{column}' is not among "
                             f"{', '.join(map(str, names))}")
        _text(column, field)
        if column in optional:
            continue
        for i, row in enumerate(checked):
            if column not in row:
                raise ValueError(f"{field}: column '{column}' is missing from row {i}")
    return checked


def _names(values: Iterable[Any], field: str) -> List[Any]:
    if isinstance(values, Mapping) or not hasattr(values, "__iter__"):
        raise ValueError(f"{field}: expected a list, got {type(values).__name__}")
    return list(values)


def lines(rows: Rows, x: str, y: str, series: Optional[str] = None, path: PathArg = "figure.png", *,
          title: Optional[str] = None, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
          logx: bool = False, logy: bool = False, xbytes: bool = False, size: Size = (6.4, 4.0),
          points: bool = True, key: str = "top left") -> str:
    """One line per value of the column ``series`` (or a single line), y against x.

    rows: list of dicts (e.g. dlnet.sweep's table); x, y, series: column names.
    Points of a series are sorted by x; rows whose y is empty or missing (failed points)
    are left out.
    logx/logy: logarithmic axes (every value must then be > 0). xbytes: x is a size in bytes,
    labelled 1 KiB, 32 KiB, 1 MiB, ... (implies logx). key: gnuplot's key placement, e.g.
    'outside right top' (see the module's doc)."""
    logx = logx or xbytes
    checked = _check_rows(rows, [(x, "x"), (y, "y")] + ([(series, "series")] if series else []),
                          optional=[y])
    groups: Dict[str, List[Tuple[float, float]]] = {}
    for row in checked:
        if row.get(y) in ("", None):
            continue
        xv, yv = _number(row[x], "x"), _number(row[y], "y")
        if (logx and xv <= 0) or (logy and yv <= 0):
            raise ValueError(f"{'x' if logx and xv <= 0 else 'y'}: a log axis needs values > 0")
        groups.setdefault(_text(row[series], "series") if series else y, []).append((xv, yv))
    if not groups:
        raise ValueError("y: every value is empty")
    script = _preamble(path, title, xlabel or x, ylabel or y, size, key)
    if xbytes:
        xs = [v[0] for g in groups.values() for v in g]
        if not math.isfinite(max(xs) * 1.15):
            raise ValueError(f"x: {max(xs):g} bytes is beyond the range xbytes can draw")
        # an explicit range: gnuplot's autoscaled log range can drop the last tic
        script += ["set logscale x 2", _byte_tics(min(xs), max(xs)),
                   f"set xrange [{min(xs) / 1.15}:{max(xs) * 1.15}]"]
    elif logx:
        script.append("set logscale x")
    if logy:
        script.append("set logscale y")
    plots: List[str] = []
    for i, (name, values) in enumerate(groups.items()):
        script += _block(f"s{i}", sorted(values), "y")
        style = "linespoints pt 7 ps 0.6" if points else "lines"
        plots.append(f"$s{i} using 1:2 with {style} lw 2 lc rgb '{COLOURS[i % len(COLOURS)]}'"
                     f" title {_quote(name, 'series')}")
    script.append("plot " + ", ".join(plots))
    return _run(script, path)


def stacked_bars(rows: Rows, category: str, parts: Iterable[str], path: PathArg = "figure.png", *,
                 title: Optional[str] = None, ylabel: Optional[str] = None,
                 labels: Optional[Iterable[str]] = None, size: Size = (6.4, 4.0),
                 key: str = "outside right top") -> str:
    """One bar per row, labelled by the column ``category``, stacked from the columns ``parts``
    (e.g. an iteration time's compute, exposed communication and bubble). labels: legend names
    for the parts (default the column names). key: see the module's doc."""
    columns = _names(parts, "parts")
    if not columns:
        raise ValueError("parts: no columns to stack")
    checked = _check_rows(rows, [(category, "category")] + [(p, "parts") for p in columns])
    names = _names(labels, "labels") if labels is not None else columns
    if len(names) != len(columns):
        raise ValueError(f"labels: {len(names)} labels for {len(columns)} parts")
    data: List[List[Union[str, float]]] = []
    for row in checked:
        values = [_number(row[p], "parts") for p in columns]
        if any(v < 0 for v in values):
            raise ValueError("parts: a stacked part must be >= 0")
        data.append([_text(row[category], "category").replace("\t", " "), *values])
    script = _preamble(path, title, None, ylabel, size, key)
    script += ["set style data histograms", "set style histogram rowstacked",
               "set style fill solid 0.9 border -1", "set boxwidth 0.7", "set yrange [0:*]",
               "set xtics rotate by -30 nomirror" if len(checked) > 6 else "set xtics nomirror"]
    script += _block("bars", data, "category")
    plots = [f"$bars using {i + 2}{':xtic(1)' if i == 0 else ''} lc rgb "
             f"'{COLOURS[i % len(COLOURS)]}' title {_quote(label, 'labels')}"
             for i, label in enumerate(names)]
    script.append("plot " + ", ".join(plots))
    return _run(script, path)


def cdf(samples_by_series: Mapping[str, Iterable[float]], path: PathArg = "figure.png", *,
        title: Optional[str] = None, xlabel: str = "value", logx: bool = False,
        size: Size = (6.4, 4.0), key: str = "bottom right") -> str:
    """Empirical CDFs, one per series: samples_by_series maps a name to a list of numbers
    (e.g. flow completion times). key: see the module's doc."""
    if not isinstance(samples_by_series, dict) or not samples_by_series:
        raise ValueError("samples_by_series: expected a dict name -> list of numbers")
    script = _preamble(path, title, xlabel, "fraction", size, key)
    script.append("set yrange [0:1.02]")
    if logx:
        script.append("set logscale x")
    plots: List[str] = []
    for i, (name, samples) in enumerate(samples_by_series.items()):
        field = f"samples_by_series['{_text(name, 'samples_by_series')}']"
        if isinstance(samples, (str, bytes, Mapping)) or not hasattr(samples, "__iter__"):
            raise ValueError(f"{field}: expected a list of numbers, got {type(samples).__name__}")
        values = sorted(_number(v, field) for v in samples)
        if not values:
            raise ValueError(f"{field}: no samples")
        if logx and values[0] <= 0:
            raise ValueError(f"{field}: a log axis needs values > 0")
        count = len(values)
        script += _block(f"c{i}", [(v, (k + 1) / count) for k, v in enumerate(values)], field)
        plots.append(f"$c{i} using 1:2 with steps lw 2 lc rgb '{COLOURS[i % len(COLOURS)]}'"
                     f" title {_quote(name, 'samples_by_series')}")
    script.append("plot " + ", ".join(plots))
    return _run(script, path)


def heatmap(matrix: Iterable[Iterable[float]], row_labels: Sequence[object],
            col_labels: Sequence[object], path: PathArg = "figure.png", *,
            title: Optional[str] = None, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
            cblabel: Optional[str] = None, values: bool = False, value_format: str = "%.3g",
            size: Size = (6.4, 4.8)) -> str:
    """A matrix of numbers as coloured cells (e.g. utilisation per link and time bin):
    matrix[r][c] is drawn at row r (labelled row_labels[r], top to bottom) and column c.
    values: print each cell's number in it (value_format: one numeric C conversion, e.g. %g,
    %.2f or %d, with text around it; %% for a percent sign)."""
    rows_of = _names(matrix, "matrix") if not isinstance(matrix, (str, bytes)) else None
    if rows_of is None or any(isinstance(r, (str, bytes, Mapping)) or not hasattr(r, "__iter__")
                              for r in rows_of):
        raise ValueError("matrix: expected a non-empty list of rows (lists of numbers)")
    cells_of = [list(r) for r in rows_of]
    if not cells_of or not cells_of[0]:
        raise ValueError("matrix: expected a non-empty list of rows")
    if any(len(r) != len(cells_of[0]) for r in cells_of):
        raise ValueError("matrix: every row must have one length")
    row_labels, col_labels = _names(row_labels, "row_labels"), _names(col_labels, "col_labels")
    conversions = value_format.replace("%%", "") if isinstance(value_format, str) else ""
    if conversions.count("%") != 1 or not _FORMAT.search(conversions):
        raise ValueError(f"value_format: {value_format!r} is not one numeric C conversion "
                         "(%d, %i, %o, %u, %x, %X, %e, %E, %f, %F, %g or %G, with flags -+ #0, "
                         "a width and a precision of up to 2 digits, e.g. '%.3g', '%5.1f%%')")
    if len(row_labels) != len(cells_of):
        raise ValueError(f"row_labels: {len(row_labels)} labels for {len(cells_of)} rows")
    if len(col_labels) != len(cells_of[0]):
        raise ValueError(f"col_labels: {len(col_labels)} labels for {len(cells_of[0])} columns")
    script = _preamble(path, title, xlabel, ylabel, size, "off")
    script += ["unset grid", "set palette defined (0 '#ffffff', 1 '#fee391', 2 '#fe9929', "
               "3 '#cc4c02', 4 '#662506')", "set view map", "set yrange [] reverse",
               f"set xrange [-0.5:{len(cells_of[0]) - 0.5}]", f"set yrange [{len(cells_of) - 0.5}:-0.5]"]
    if cblabel:
        script.append(f"set cblabel {_quote(cblabel, 'cblabel')}")
    step_x = max(1, len(col_labels) // 16)
    step_y = max(1, len(row_labels) // 24)
    script.append("set xtics (" + ", ".join(f"{_quote(l, 'col_labels')} {i}"
                                            for i, l in enumerate(col_labels)
                                            if i % step_x == 0) + ")"
                  + (" rotate by -30" if max(len(str(l)) for l in col_labels) * len(col_labels) > 50 else ""))
    script.append("set ytics (" + ", ".join(f"{_quote(l, 'row_labels')} {i}"
                                            for i, l in enumerate(row_labels)
                                            if i % step_y == 0) + ")")
    cells = [(c, r, _number(v, "matrix")) for r, row in enumerate(cells_of) for c, v in enumerate(row)]
    script += _block("cells", cells, "matrix")
    labels = f", $cells using 1:2:(sprintf({_quote(value_format, 'value_format')}, $3)) with " \
        "labels notitle" if values else ""
    script.append("plot $cells using 1:2:3 with image notitle" + labels)
    return _run(script, path)
