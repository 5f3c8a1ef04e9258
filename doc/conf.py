# SPDX-License-Identifier: GPL-2.0-only
# Sphinx configuration of the dlnet manual (./dlnet docs, CTest docs-build).
# The API reference imports the dlnet package from the build folder: set
# DLNET_PYTHON_DIR (./dlnet docs and the CTest entry do), or it defaults to
# ../build/bindings/python.
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("DLNET_PYTHON_DIR",
                                  os.path.join(_here, "..", "build", "bindings", "python")))

project = "dlnet"
author = "dlnet developers"
copyright = "dlnet developers, GPL-2.0-only"
# The version is the package's (dlnet.__version__, CMake's PROJECT_VERSION).
try:
    import dlnet
except ImportError as e:
    raise RuntimeError("doc/conf.py: cannot import dlnet from %s (%s); build first "
                       "(./dlnet docs does)" % (sys.path[0], e)) from e
release = dlnet.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
# dlnet.sweep's docstring has Google-style Args:/Returns: sections.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
master_doc = "index"
exclude_patterns = ["_build"]
# Headings in the Markdown pages get anchors, so [text](#heading) links resolve.
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
html_theme = "alabaster"


# The experiment functions' docstrings are generated from the core's option
# table (dlnet.experiments._doc): a plain-text "Parameters (type, default:
# help):" list, shown as it is by help(). Render that list verbatim (a literal
# block) rather than parse the option help texts as reStructuredText.
_PARAMETERS = "Parameters (type, default: help):"


def _parameters_verbatim(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        if line.strip() == _PARAMETERS:
            lines[i] = line.rstrip() + ":"
            lines.insert(i + 1, "")
            break


def setup(app):
    app.connect("autodoc-process-docstring", _parameters_verbatim)
