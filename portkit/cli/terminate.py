"""SIGTERM ends a run the way Ctrl-C does: through every cleanup, not in the middle of a write.

By default SIGTERM (what `kill`, a CI runner's timeout and `docker stop` send) ends
the process at once: a temporary file being written stays behind in your tree and
an output directory is left without its manifest. Raised as `Terminated` in the
main thread instead, it unwinds like KeyboardInterrupt: each temporary file is
removed, what was written is recorded, and the run exits 143 (128 + SIGTERM).
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator

EXIT_CODE = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived. A BaseException, as KeyboardInterrupt: no `except Exception` may swallow it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


def _default_in_child() -> None:
    """A forked worker process ends at once on SIGTERM, as before (its parent does the cleaning up)."""
    if signal.getsignal(signal.SIGTERM) is _raise_terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


os.register_at_fork(after_in_child=_default_in_child)


@contextlib.contextmanager
def terminate_as_exception() -> Iterator[None]:
    """During the block, SIGTERM raises Terminated (only the main thread may set a handler: elsewhere, as it was)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
