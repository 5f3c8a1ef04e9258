# SPDX-License-Identifier: GPL-2.0-only
"""dlnet: simulation of the networks that train deep-learning models (ns-3).

The compiled core (``dlnet._core``) runs the experiments; this package is
the Python side around it. ``import dlnet`` gives every experiment function
of the core (``run_traffic``, ``run_collective``, ``run_wafer``,
``run_sparse``, ``run_training``, ``schedule``, ``run_heterogeneous`` and
their helpers).
"""

from ._core import *  # noqa: F401,F403  (the experiment API)
from ._core import __version__  # noqa: F401

__all__ = [name for name in dir() if not name.startswith("_")]  # (the core's functions)

# The pure-Python side: sweeps (dlnet.sweep) and figures (dlnet.plot).
from .sweeps import sweep  # noqa: E402,F401
from . import plot  # noqa: E402,F401

__all__ += ["sweep", "plot"]
