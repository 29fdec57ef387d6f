"""One exception hierarchy; the CLI turns each into a one-line message and exit 2."""
from __future__ import annotations


class PortkitError(Exception):
    """A known failure the user can fix: bad input, config or rules."""

    exit_code = 2


class UsageError(PortkitError):
    pass


class InputError(PortkitError):
    pass


class RuleError(PortkitError):
    """A rule file is malformed; the message names the file, entry and key."""


class ConfigError(PortkitError):
    pass
