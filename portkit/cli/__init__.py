"""The command line: typer wiring, one module per command, and the one error handler.

Exit codes: 0 ok, 1 findings that block (check) or failures (verify),
2 usage, input, config or rule errors, 3 internal error, 130 interrupted,
143 terminated (SIGTERM).
"""
from __future__ import annotations

import atexit
import gc
import io
import logging
import os
import sys
import traceback
from types import ModuleType
from typing import NoReturn, Optional

import typer

from portkit.cli import check, convert, merge, rules, scan, shim  # noqa: F401 - importing registers the commands
from portkit.cli.app import app, end_process_after
from portkit.cli.terminate import EXIT_CODE as _TERMINATED, Terminated, terminate_as_exception
from portkit import temporaries
from portkit.errors import PortkitError
from portkit.fileio import ClosedPipe, GuardedStream, silence
from portkit.textutil import printable

_CLOSED_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a command a closed pipe stopped


def _click_exceptions() -> ModuleType:
    """The exceptions of the click typer runs on: its own copy from typer 0.26 on (importing click as well
    would cost 10 ms of every start), click itself before."""
    try:
        from typer._click import exceptions  # type: ignore[import-not-found]
    except ImportError:
        from click import exceptions
    return exceptions


def _click_classes(name: str) -> tuple[type, ...]:
    """click's exception class `name`, and typer's own where it has one (typer.Exit from typer 0.26 on)."""
    found = (getattr(module, name, None) for module in (_click_exceptions(), typer))
    return tuple(dict.fromkeys(c for c in found if isinstance(c, type)))


_CLICK_ERRORS = _click_classes("ClickException")
_CLICK_EXIT = _click_classes("Exit")
_CLICK_ABORT = _click_classes("Abort")


class _Stderr(logging.Handler):
    """The library's log records (portkit.run.engines' `log`), one line each on the stderr of the moment."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"portkit: {record.getMessage()}", file=sys.stderr)


def _show_log() -> None:
    logger = logging.getLogger("portkit")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr())
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _fail(message: str, code: int) -> int:
    """One line on stderr: whatever a message quotes (file names, refs, patterns), never a
    control character that breaks the line or drives the terminal."""
    _stderr(f"portkit: error: {printable(message)}\n")
    return code


def _stderr(text: str) -> None:
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except OSError:
        pass  # nowhere left to report to


def _show_click_error(exc: Exception) -> None:
    buffer = io.StringIO()
    exc.show(file=buffer)  # type: ignore[attr-defined]
    _stderr("".join(printable(line) + "\n" for line in buffer.getvalue().splitlines()))


def _closed_pipe() -> int:
    """The reader went away (`portkit scan | head`): stop quietly, like a command killed by
    SIGPIPE (exit 141, never 1, which reads as "blocking findings")."""
    silence(sys.__stdout__)
    return _CLOSED_PIPE


def main(argv: Optional[list[str]] = None) -> int:
    """Run the CLI and turn every failure into a one-line message and an exit code."""
    _show_log()
    stdout = sys.stdout
    sys.stdout = GuardedStream(stdout)  # type: ignore[assignment]
    thresholds = gc.get_threshold()
    # A run keeps hundreds of thousands of small objects (findings, occurrences) until it
    # ends and makes few cycles: the collector's full passes over them were a third of a
    # warm scan, and a young pass over 100,000 of them 0.03 s of a convert's parent. Young
    # cycles are still collected, every million objects; the workers inherit this.
    gc.set_threshold(1_000_000, 50, 1_000)
    try:
        with terminate_as_exception():
            return _run(argv)
    finally:
        temporaries.remove_mine()  # those a signal stopped before they were placed
        gc.set_threshold(*thresholds)
        sys.stdout = stdout


def run() -> NoReturn:
    """The `portkit` command (and `python -m portkit`): `main`, then an exit that leaves the interpreter's
    objects where they are. Freeing a run's rule database, results and trees one by one took 0.03 s of
    every exit; the exit handlers still run (temporary directories, pools, logging) and both streams are
    flushed first, so nothing written is lost."""
    end_process_after()
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # reported (or unreportable) already: main flushed standard output before it returned
    atexit._run_exitfuncs()
    os._exit(code)


def _run(argv: Optional[list[str]]) -> int:
    try:
        result = app(args=argv, prog_name="portkit", standalone_mode=False)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not in the interpreter's exit
    except _CLICK_EXIT as exc:
        return _flushed(exc.exit_code)
    except _CLICK_ERRORS as exc:
        _show_click_error(exc)
        return 2
    except _CLICK_ABORT:
        return _fail("aborted", 130)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Terminated:
        return _fail("terminated", _TERMINATED)
    except (ClosedPipe, BrokenPipeError):
        return _closed_pipe()
    except PortkitError as exc:
        if os.environ.get("PORTKIT_DEBUG"):
            traceback.print_exc()
        return _fail(str(exc), exc.exit_code)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no tracebacks for users
        if os.environ.get("PORTKIT_DEBUG"):
            traceback.print_exc()
        return _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", 3)
    return result if isinstance(result, int) else 0


def _flushed(code: int) -> int:
    """A command's exit code, once what it printed has reached standard output."""
    try:
        sys.stdout.flush()
    except (ClosedPipe, BrokenPipeError):
        return _closed_pipe()
    except PortkitError as exc:
        return _fail(str(exc), exc.exit_code)
    return code
