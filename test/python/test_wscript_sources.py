"""wscript-compat/wscript lists the same sources and headers as CMake.

The CMake build reads DLNET_SOURCES and DLNET_HEADERS from cmake/sources.cmake;
the waf-era wscript lists module.source and headers.source. Both name paths
relative to the repository root (the module folder). This test keeps them
equal, so the module still drops into contrib/ of a waf-era ns-3 tree.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CMAKE_FILE = ROOT / "cmake" / "sources.cmake"
WSCRIPT_FILE = ROOT / "wscript-compat" / "wscript"

# (CMake variable, wscript object whose .source is the same list)
PAIRS = [("DLNET_SOURCES", "module"), ("DLNET_HEADERS", "headers")]


def cmake_list(variable, text=None):
    """The entries of set(VARIABLE ...) in cmake/sources.cmake."""
    if text is None:
        text = CMAKE_FILE.read_text()
    text = re.sub(r"#[^\n]*", "", text)  # CMake line comments
    blocks = re.findall(r"\bset\s*\(\s*" + re.escape(variable) + r"\b(.*?)\)", text, re.S)
    assert len(blocks) == 1, (
        f"{CMAKE_FILE.relative_to(ROOT)}: expected one set({variable} ...) block, "
        f"found {len(blocks)}"
    )
    return [entry.strip('"') for entry in blocks[0].split()]


def wscript_lists(text=None):
    """{object name: list} for every `<name>.source = [...]` in the wscript."""
    if text is None:
        text = WSCRIPT_FILE.read_text()
    tree = ast.parse(text, filename=str(WSCRIPT_FILE))
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == "source"
                and isinstance(target.value, ast.Name)
                and isinstance(node.value, ast.List)
            ):
                name = target.value.id
                assert name not in found, f"wscript assigns {name}.source more than once"
                found[name] = ast.literal_eval(node.value)
    return found


def difference_message(cmake_var, wscript_var, cmake_entries, wscript_entries):
    only_cmake = sorted(set(cmake_entries) - set(wscript_entries))
    only_wscript = sorted(set(wscript_entries) - set(cmake_entries))
    lines = [f"{cmake_var} (cmake/sources.cmake) != {wscript_var}.source (wscript-compat/wscript):"]
    if only_cmake:
        lines.append("  only in cmake/sources.cmake: " + ", ".join(only_cmake))
    if only_wscript:
        lines.append("  only in wscript-compat/wscript: " + ", ".join(only_wscript))
    return "\n".join(lines)


@pytest.mark.parametrize("cmake_var,wscript_var", PAIRS)
def test_lists_are_equal(cmake_var, wscript_var):
    cmake_entries = cmake_list(cmake_var)
    lists = wscript_lists()
    assert wscript_var in lists, (
        f"wscript-compat/wscript has no `{wscript_var}.source = [...]` list "
        f"(found: {', '.join(sorted(lists)) or 'none'})"
    )
    wscript_entries = lists[wscript_var]
    assert cmake_entries, f"{cmake_var} in cmake/sources.cmake is empty"
    assert wscript_entries, f"{wscript_var}.source in wscript-compat/wscript is empty"
    assert set(cmake_entries) == set(wscript_entries), difference_message(
        cmake_var, wscript_var, cmake_entries, wscript_entries
    )


@pytest.mark.parametrize("cmake_var,wscript_var", PAIRS)
def test_lists_have_no_duplicates_and_name_real_files(cmake_var, wscript_var):
    for where, entries in [
        ("cmake/sources.cmake " + cmake_var, cmake_list(cmake_var)),
        ("wscript-compat/wscript " + wscript_var + ".source", wscript_lists().get(wscript_var, [])),
    ]:
        duplicates = sorted({e for e in entries if entries.count(e) > 1})
        assert not duplicates, f"{where} lists twice: {', '.join(duplicates)}"
        missing = [e for e in entries if not (ROOT / e).is_file()]
        assert not missing, f"{where} names files that do not exist: {', '.join(missing)}"


def test_parsers_see_a_difference():
    """The parsers themselves: a bogus entry on either side is reported."""
    cmake_text = "set(DLNET_SOURCES\n  a.cc # comment\n  b.cc\n)\n"
    wscript_text = "def build(bld):\n    module.source = ['a.cc', 'c.cc']\n"
    cmake_entries = cmake_list("DLNET_SOURCES", cmake_text)
    wscript_entries = wscript_lists(wscript_text)["module"]
    assert cmake_entries == ["a.cc", "b.cc"]
    assert wscript_entries == ["a.cc", "c.cc"]
    message = difference_message("DLNET_SOURCES", "module", cmake_entries, wscript_entries)
    assert "only in cmake/sources.cmake: b.cc" in message
    assert "only in wscript-compat/wscript: c.cc" in message
