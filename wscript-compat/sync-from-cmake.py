# Rewrite the source, header and example lists of wscript-compat/wscript from
# cmake/sources.cmake and examples/CMakeLists.txt:  python3 wscript-compat/sync-from-cmake.py .
import re, sys
root = sys.argv[1]
cm = open(f"{root}/cmake/sources.cmake").read()
def block(name):
    m = re.search(r"set\(%s\s+(.*?)\)" % name, cm, re.S)
    return m.group(1).split()
ws = open(f"{root}/wscript-compat/wscript").read()
def repl(ws, key, items):
    i = ws.index(key + " = [")
    j = ws.index("    ]", i)
    body = "".join(f"        '{x}',\n" for x in items)
    return ws[:i] + key + " = [\n" + body + ws[j:]
ws = repl(ws, "module.source", block("DLNET_SOURCES"))
ws = repl(ws, "headers.source", block("DLNET_HEADERS"))
ex = re.search(r"set\(DLNET_EXAMPLES ([^)]*)\)", open(f"{root}/examples/CMakeLists.txt").read()).group(1).split()
ws = re.sub(r"for name in \[[^\]]*\]:", "for name in [%s]:" % ", ".join(f"'{e}'" for e in ex), ws)
open(f"{root}/wscript-compat/wscript", "w").write(ws)
