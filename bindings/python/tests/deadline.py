# SPDX-License-Identifier: GPL-2.0-only
"""A time limit for a test body: a hang (a FIFO that blocks, a loop without end)
fails the test instead of the whole run."""
import contextlib
import signal


@contextlib.contextmanager
def deadline(seconds):
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
