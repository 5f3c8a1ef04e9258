# SPDX-License-Identifier: GPL-2.0-only
"""Experiments for test_sweep.py, importable by the sweep's worker processes.

counted_collective appends one line (its options and seed) to the file named by
$DLNET_SWEEP_COUNTER when it starts, so a test counts the simulations that ran; crash=True makes the process die instead.
"""
import json
import os
import time

import dlnet


def counted_collective(delay=0.0, crash=False, **options):
    counter = os.environ.get("DLNET_SWEEP_COUNTER")
    if counter:
        with open(counter, "a") as f:
            f.write(json.dumps(options, sort_keys=True) + "\n")
    time.sleep(float(delay))
    if crash == "abort":  # the process dies of a signal (SIGABRT), as a C++ abort would
        os.abort()
    if crash:  # the process dies (as a segfault would), no exception
        os._exit(3)
    return dlnet.run_collective(**options)["result"]["rows"]


def two_parameters(a=0, b=0):
    """A function of named parameters only: a sweep refuses any other name up front."""
    return {"sum": a + b}
