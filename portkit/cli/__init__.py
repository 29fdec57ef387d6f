"""The command line: typer wiring, one module per command, and the one error handler.

Exit codes: 0 ok, 1 findings that block (check) or failures (verify),
2 usage, input, config or rule errors, 3 internal error, 130 interrupted.
"""
from __future__ import annotations

import logging
import os
import sys
import traceback
from typing import Optional

import click

from portkit.cli import check, convert, rules, scan, shim  # noqa: F401 - importing registers the commands
from portkit.cli.app import app
from portkit.errors import PortkitError


def _click_classes(name: str) -> tuple[type, ...]:
    """click's exception classes, and typer's vendored copies of them (typer >= 0.26 ships its own click)."""
    classes = [getattr(click.exceptions, name)]
    try:
        from typer._click import exceptions as vendored  # type: ignore[import-not-found]

        classes.append(getattr(vendored, name))
    except (ImportError, AttributeError):
        pass
    return tuple(dict.fromkeys(classes))


_CLICK_ERRORS = _click_classes("ClickException")
_CLICK_EXIT = _click_classes("Exit")
_CLICK_ABORT = _click_classes("Abort")


class _Stderr(logging.Handler):
    """The library's log records (portkit.pipeline's `log`), one line each on the stderr of the moment."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"portkit: {record.getMessage()}", file=sys.stderr)


def _show_log() -> None:
    logger = logging.getLogger("portkit")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr())
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _fail(message: str, code: int) -> int:
    print(f"portkit: error: {message}", file=sys.stderr)
    return code


def main(argv: Optional[list[str]] = None) -> int:
    """Run the CLI and turn every failure into a one-line message and an exit code."""
    _show_log()
    try:
        result = app(args=argv, prog_name="portkit", standalone_mode=False)
    except _CLICK_EXIT as exc:
        return exc.exit_code
    except _CLICK_ERRORS as exc:
        exc.show()
        return 2
    except _CLICK_ABORT:
        return _fail("aborted", 130)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except PortkitError as exc:
        if os.environ.get("PORTKIT_DEBUG"):
            traceback.print_exc()
        return _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no tracebacks for users
        if os.environ.get("PORTKIT_DEBUG"):
            traceback.print_exc()
        return _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", 3)
    return result if isinstance(result, int) else 0
