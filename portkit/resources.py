"""Where the bundled data lives (inside the wheel, or at the top of a checkout), and how it is read."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from portkit.errors import RuleFileError
from portkit.fileio import TooLarge, read_bytes
from portkit.store import cache_root, read_entry, write_entry
from portkit.textutil import printable

_PACKAGE = Path(__file__).resolve().parent
MAX_YAML_SIZE = 8 << 20  # bytes; the largest built-in rule file is a few hundred KiB
MAX_YAML_DEPTH = 32  # rule files nest four levels deep


class YamlRefused(ValueError):
    """A YAML file portkit refuses to build: the message is portkit's, never the YAML library's."""


def data_dir(name: str) -> Path:
    bundled = _PACKAGE / "_data" / name
    if bundled.is_dir():
        return bundled
    return _PACKAGE.parent / name


def rules_dir() -> Path:
    return data_dir("rules")


def templates_dir() -> Path:
    return data_dir("templates")


def _loader() -> Any:
    """The C loader when libyaml is there (the rule files are large). yaml is imported only when a file
    is read: a run whose data files are all cached never pays for it."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _check_events(text: str) -> None:
    """Refuse what makes a small YAML file expensive, before it is built: anchors and
    aliases (an alias bomb grows a few lines into gigabytes), deep nesting (the C parser
    recurses) and tags (a rule file is plain data). The event stream is flat, so this check
    itself is cheap and safe.

    Newer libyaml releases stop deep flow nesting with a limit and wording of their own
    before they yield a single event; the pure-Python parser, slower but lazy, then finds
    portkit's reason, so the message does not depend on the installed library."""
    import yaml

    loader = _loader()
    try:
        _walk_events(yaml.parse(text, Loader=loader))
    except yaml.MarkedYAMLError:
        if loader is yaml.SafeLoader:
            raise
        _walk_events(yaml.parse(text, Loader=yaml.SafeLoader))
        raise


def _walk_events(events: Any) -> None:
    import yaml

    depth = 0
    for event in events:
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlRefused(f"line {line}: anchors and aliases (&, *) are not allowed in portkit's YAML files")
        if getattr(event, "tag", None):
            raise YamlRefused(f"line {line}: tags ({printable(event.tag)}) are not allowed in portkit's YAML files")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise YamlRefused(f"line {line}: nested deeper than {MAX_YAML_DEPTH} levels")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def read_bounded(path: Path) -> bytes:
    """A rule or data file's bytes: a regular file, the read itself capped at MAX_YAML_SIZE (an 8 GiB
    sparse file or /dev/zero is refused before anything is read or fingerprinted)."""
    try:
        return read_bytes(path, MAX_YAML_SIZE)
    except TooLarge:
        raise RuleFileError(f"{path}: larger than {MAX_YAML_SIZE >> 20} MiB; not a rule file") from None


def read_yaml(path: Path) -> Any:
    """A YAML file's data; a RuleFileError naming the file (and line) when it cannot be read,
    is larger than MAX_YAML_SIZE, nests too deeply or uses anchors, aliases or tags."""
    try:
        text = read_bounded(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleFileError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    import yaml

    try:
        _check_events(text)
        return yaml.load(text, Loader=_loader())  # noqa: S506 - a safe loader: data only, no tags
    except YamlRefused as exc:
        raise RuleFileError(f"{path}: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}: " if mark else ""
        problem = exc.problem or str(exc).splitlines()[0]
        raise RuleFileError(f"{path}: {where}invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise RuleFileError(f"{path}: invalid YAML: {exc}") from None


def load_data(name: str, parse: Any) -> Any:
    """One of the bundled `rules/_*.yaml` data files, shaped by `parse(data)`.

    `parse` raises KeyError/TypeError/ValueError on a malformed file; that becomes
    a RuleFileError naming the file, so every data file fails the same way.
    """
    path = rules_dir() / name
    try:
        return parse(_cached_yaml(path))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RuleFileError(f"{path}: malformed: {exc}") from None


def _cached_yaml(path: Path) -> Any:
    """A bundled data file's data, kept in the cache as JSON under the SHA-256 of its bytes (a JSON read
    costs a tenth of the YAML parse); data JSON would change (a number as a key) is read as YAML each time."""
    try:
        entry = cache_root() / f"data-{hashlib.sha256(read_bounded(path)).hexdigest()[:24]}.json"
    except (OSError, RuleFileError):
        return read_yaml(path)  # which names the problem
    data = read_entry(entry)
    if data is not None:
        return data
    data = read_yaml(path)
    try:
        same = json.loads(json.dumps(data)) == data
    except (TypeError, ValueError):  # a date, say: not JSON
        same = False
    if same:
        write_entry(entry, data)
    return data
