"""One exception hierarchy for the library; only the CLI turns them into messages and exit codes.

Library code raises the domain error that says what is wrong (a rule file, the
configuration, an input, an output, a missing tool). Messages name files and
keys, never command-line flags: the CLI knows which flag a value came from.
"""
from __future__ import annotations


class PortkitError(Exception):
    """A known failure the user can fix: exit code 2 with a one-line message."""

    exit_code = 2


class InputError(PortkitError):
    """A path, version or other input cannot be used."""


class OutputError(PortkitError):
    """An output cannot be written where it was asked for."""


class RuleFileError(PortkitError):
    """A rule or data file is malformed; the message names the file, entry and key."""


class ConfigError(PortkitError):
    """The project configuration ([tool.portkit] or .portkit.toml) is malformed."""


class ToolError(PortkitError):
    """An external tool (libclang, hipcc, hipify-perl) is missing or failed to start."""
