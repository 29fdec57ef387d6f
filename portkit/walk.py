"""Find the files to look at and read their bytes. Never parses.

Directories are walked in sorted order, without following symlinked
directories (no loops), skipping what `.gitignore` files and `--exclude`
patterns exclude (portkit/ignore.py matches them). Files named on the command
line are taken whatever the excludes say, typed as the walk types a directory's
(one of no kind it knows is an error). A file larger than the size limit is
skipped, never read.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import os
import re
from typing import Callable, Iterable, Mapping

from portkit.errors import InputError
from portkit.fileio import DEFAULT_READ_LIMIT, TooLarge, read_bytes
from portkit.ignore import IgnoreSpec, PatternError
from portkit.textutil import printable
from portkit.tracked import Tracked, tracked

DEFAULT_EXTENSIONS = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl")
CMAKE_NAMES = ("CMakeLists.txt",)
CMAKE_SUFFIXES = (".cmake",)
# automake's input and the template it writes are Makefile syntax with automake's variables, some of which configure
# gives them (AC_SUBST: the compiler configure.ac chose).
CONFIGURED_MAKEFILES = ("Makefile.am", "Makefile.in")
MAKE_NAMES = ("Makefile", "makefile", "GNUmakefile", *CONFIGURED_MAKEFILES)
# autoconf's input: m4 macros around shell, which sets the compiler and libraries the Makefiles are given; and the
# macro files configure.ac calls (m4/*.m4, acinclude.m4: where projects keep their CUDA checks, AX_CHECK_CUDA's shape).
AUTOCONF_NAMES = ("configure.ac", "configure.in")
AUTOCONF_SUFFIXES = (".m4",)
MAKE_SUFFIXES = (".mk",)
_SKIP_DIRS = {".git", ".hg", ".svn"}
_REQUIREMENTS = re.compile(r"^((requirements|constraints)[\w.-]*\.(txt|in)|environment\.ya?ml|pyproject\.toml|setup\.cfg|Pipfile)$")
# docker-compose.yml, compose.yaml, docker-compose.override.yml...: containers, like Dockerfiles.
_COMPOSE = re.compile(r"^(docker-)?compose(\.[\w-]+)?\.ya?ml$")
_BINARY_PROBE = 8192
_IGNORE_FILE_LIMIT = 1 << 20  # a .gitignore larger than this is not read (it is not one people write)
log = logging.getLogger(__name__)
DEFAULT_MAX_FILE_SIZE = DEFAULT_READ_LIMIT
BROKEN_LINK = "broken symbolic link skipped"
LINK_OUT = "symbolic link leading out of the input directory; skipped, not read"
# A walk warning: (path, message, reason); the reason is a Diagnostic's.
WalkWarning = tuple[str, str, str]
# Reasons a file the run should have analysed was not (a binary-looking, UTF-16, too large or
# unreadable file): a gate or a conversion over it is not complete. Links skipped are no such file.
_UNANALYSED = ("unreadable", "too-large", "skipped")
_NOT_FILES = (BROKEN_LINK, LINK_OUT)
IGNORED = "ignored"  # a walk warning's reason: .gitignore rules leave the path out, and git does not track it
_IGNORED_UNTRACKED = "ignored by .gitignore and not tracked by git"
_IGNORED_NO_GIT = "ignored by .gitignore, in no git work tree (none can be told committed: copy any the build needs)"


def not_analysed(message: str, reason: str) -> bool:
    """Whether a diagnostic says a file was left unanalysed (not merely a link skipped)."""
    return reason in _UNANALYSED and message not in _NOT_FILES


@dataclasses.dataclass(frozen=True, order=True)
class SourceFile:
    """A file to analyse: `path` as shown to the user, `file_type` says which analysis."""

    path: str
    file_type: str  # one of FILE_TYPES


@dataclasses.dataclass(frozen=True)
class Excludes:
    """gitignore-style patterns; `root` anchors them (a config file's directory), else they are
    matched against paths relative to each scanned directory (command-line --exclude)."""

    patterns: tuple[str, ...]
    root: str | None = None

    def spec(self) -> IgnoreSpec:
        try:
            return IgnoreSpec.from_lines(self.patterns)
        except PatternError as exc:
            raise InputError(f"bad exclude pattern {printable(exc)}") from None


FILE_TYPES = ("source", "cmake", "make", "autoconf", "docker", "script", "python", "requirements")
EXCLUDED = "excluded"  # all_files' type of a file the excludes name: copied as it is, never scanned
BUILD_TYPES = ("cmake", "make", "autoconf")
CONVERTED_BUILD_TYPES = BUILD_TYPES + ("script",)  # convert rewrites a shell script's nvcc lines too
SHELL_TYPES = ("autoconf", "script")  # shell syntax: convert rewrites them as scripts


def file_type(name: str, extensions: tuple[str, ...]) -> str | None:
    """"source", "cmake", "make", "autoconf", "docker", "script", "python", "requirements", or None."""
    if name in CMAKE_NAMES or name.endswith(CMAKE_SUFFIXES):
        return "cmake"
    if name in MAKE_NAMES or name.endswith(MAKE_SUFFIXES):
        return "make"
    if name in AUTOCONF_NAMES or name.endswith(AUTOCONF_SUFFIXES):
        return "autoconf"
    if os.path.splitext(name)[1].lower() in extensions:
        return "source"
    if name in ("Dockerfile", "Containerfile") or name.startswith("Dockerfile.") or name.endswith(".Dockerfile") \
            or _COMPOSE.match(name):
        return "docker"
    if _REQUIREMENTS.match(name):
        return "requirements"
    if name.endswith(".py"):
        return "python"
    if name.endswith(".sh"):
        return "script"
    return None


def _ignore_spec(directory: str, warnings: list[WalkWarning]) -> IgnoreSpec | None:
    """The directory's .gitignore; its bad lines are skipped with a warning, as git skips them."""
    path = os.path.join(directory, ".gitignore")
    try:
        if not os.path.isfile(path):
            return None
        if os.path.getsize(path) > _IGNORE_FILE_LIMIT:
            warnings.append((path, f"larger than {_IGNORE_FILE_LIMIT >> 20} MiB; not read", "ignore-file"))
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            spec, problems = IgnoreSpec.lenient(handle)
    except OSError:
        return None
    warnings.extend((path, printable(problem), "ignore-file") for problem in problems)
    return spec


def _ignored(path: str, is_dir: bool, specs: list[tuple[str, IgnoreSpec]]) -> bool:
    """Whether an entry of a walked directory is ignored (the walk skipped every ignored directory above it)."""
    for base, spec in specs:
        if path.startswith(base + os.sep):  # the walk joined it onto `base`: no '.', '..' or '//' below it
            rel = path[len(base) + 1:].replace(os.sep, "/")
        else:
            rel = os.path.relpath(os.path.abspath(path), os.path.abspath(base)).replace(os.sep, "/")
        if rel.startswith("../"):
            continue  # anchored elsewhere: a pattern only applies below its root
        if spec.match_entry(rel + "/" if is_dir else rel):
            return True
    return False


def _gitignored(full: str, is_dir: bool, in_ignored: bool, gitignores: list[tuple[str, IgnoreSpec]],
                git: Callable[[], Tracked], warnings: list[WalkWarning], ignored_dirs: set[str]) -> bool:
    """Whether the walk leaves `full` out: .gitignore rules ignore it (or the ignored directory it is in does)
    and git tracks nothing there. Left out, it is a warning (an ignored directory's entries are its own);
    an ignored directory holding tracked files joins `ignored_dirs`, walked for those files alone."""
    if not (in_ignored or _ignored(full, is_dir, gitignores)):
        return False
    if git().holds(full, is_dir):
        if is_dir:
            ignored_dirs.add(full)
        return False
    if not in_ignored:
        why = _IGNORED_UNTRACKED if git().known else _IGNORED_NO_GIT
        warnings.append((os.path.normpath(full) + (os.sep if is_dir else ""), why, IGNORED))
    return True


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _compiled(excludes: Iterable[Excludes]) -> dict[Excludes, IgnoreSpec]:
    return {e: e.spec() for e in excludes if e.patterns}


def _walk_directory(root: str, classify: Callable[[str], str | None], excludes: Mapping[Excludes, IgnoreSpec],
                    warnings: list[WalkWarning], walked: dict[str, list[tuple[str, IgnoreSpec]]] | None = None,
                    keep_excluded: bool = False) -> Iterable[SourceFile]:
    """The files `classify` names under `root`; `walked`, when given, receives each directory walked with
    the ignore rules that apply in it. With `keep_excluded`, what `excludes` excludes is walked too, its
    files typed EXCLUDED (what .gitignore files ignore never is, unless git tracks it: then it is kept, as
    git keeps it). Each path .gitignore rules leave out is a warning with the reason IGNORED."""
    git = functools.cache(lambda: tracked(root))  # asked only once a .gitignore rule leaves a path out
    ignored_dirs: set[str] = set()  # walked only for the tracked files they hold
    specs_by_dir: dict[str, list[tuple[str, IgnoreSpec]]] = {}
    exclude_specs = [(e.root or root, spec) for e, spec in excludes.items()]
    excluded_dirs: set[str] = set()  # with keep_excluded: directories walked though excluded
    real_root = os.path.realpath(root)

    def on_error(error: OSError) -> None:
        warnings.append((error.filename or root, f"cannot read directory: {error.strerror}", "unreadable"))

    for directory, dirnames, filenames in os.walk(root, onerror=on_error):
        spec = _ignore_spec(directory, warnings)
        gitignores = specs_by_dir.get(os.path.dirname(directory), []) + ([(directory, spec)] if spec else [])
        specs_by_dir[directory] = gitignores
        in_excluded = directory in excluded_dirs
        in_ignored = directory in ignored_dirs
        if walked is not None and not in_ignored:  # an ignored directory's untracked files are no include's
            walked[os.path.normpath(directory)] = gitignores + exclude_specs
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            if name in _SKIP_DIRS or os.path.islink(full):
                continue  # symlinked directories are never followed: no loops, no escapes
            if _gitignored(full, True, in_ignored, gitignores, git, warnings, ignored_dirs):
                continue
            if in_excluded or _ignored(full, True, exclude_specs):
                if not keep_excluded:
                    continue
                excluded_dirs.add(full)
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            found_type = classify(name)
            full = os.path.join(directory, name)
            if not found_type:
                continue
            if _gitignored(full, False, in_ignored, gitignores, git, warnings, ignored_dirs):
                continue
            if in_excluded or _ignored(full, False, exclude_specs):
                if not keep_excluded:
                    continue
                found_type = EXCLUDED
            if not os.path.isfile(full):  # FIFOs, sockets, devices would block or mislead a read
                if os.path.islink(full) and not os.path.exists(full):
                    warnings.append((os.path.normpath(full), BROKEN_LINK, "skipped"))
                continue
            if os.path.islink(full) and not _inside(os.path.realpath(full), real_root):
                warnings.append((os.path.normpath(full), LINK_OUT, "skipped"))
                continue  # /proc/self/environ, /etc/passwd: never read, never copied into an output
            yield SourceFile(os.path.normpath(full), found_type)


def discover(paths: Iterable[str], extensions: tuple[str, ...] = DEFAULT_EXTENSIONS,
             excludes: Iterable[Excludes] = (), includes_of: Callable[[str], Iterable[str]] | None = None
             ) -> tuple[list[SourceFile], list[WalkWarning]]:
    """The files under `paths`, and (path, message, reason) warnings for what could not be read; with
    `includes_of` (a source's quoted #include names), the files sources include, whatever their names."""
    compiled = _compiled(excludes)
    extensions = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions)
    files: dict[str, SourceFile] = {}
    warnings: list[WalkWarning] = []
    walked: dict[str, list[tuple[str, IgnoreSpec]]] = {}
    roots = [raw for raw in paths if os.path.isdir(raw)]
    for raw in paths:
        if os.path.isdir(raw):
            for found in _walk_directory(raw, lambda name: file_type(name, extensions), compiled, warnings, walked):
                files.setdefault(found.path, found)
            warnings = [warning for warning in warnings if warning[2] != IGNORED]  # a scan is not a copy: no loss
        elif os.path.isfile(raw):
            path = os.path.normpath(raw)
            files.setdefault(path, SourceFile(path, _named_file_type(raw, extensions)))
        elif os.path.lexists(raw):
            raise InputError(f"{raw}: not a regular file or directory")
        else:
            raise InputError(f"{raw}: no such file or directory")
    makefiles = [f.path for f in files.values() if f.file_type == "make"]
    for path in _make_fragments(makefiles, walked, set(files)):
        files[path] = SourceFile(path, "make")
    if includes_of is not None:
        sources = [f.path for f in files.values() if f.file_type == "source"]
        for path in _included_sources(sources, walked, set(files), includes_of, extensions):
            files[path] = SourceFile(path, "source")
    if roots:  # a file named alone is never matched against the excludes
        _warn_unused(compiled, roots)
    return sorted(files.values()), warnings


def _named_file_type(path: str, extensions: tuple[str, ...]) -> str:
    """A file named on the command line is typed as the walk types a directory's (notes.txt is no source in a
    directory, nor named alone): one of no kind the walk knows is an error, not a source read by default."""
    problem = unknown_kind(path, extensions)
    if problem:
        raise InputError(f"{path}: {problem}")
    return file_type(os.path.basename(path), extensions) or "source"


def unknown_kind(path: str, extensions: tuple[str, ...]) -> str:
    """Why the walk would read no file named as `path` (its name is no source's or build file's), or ""."""
    if file_type(os.path.basename(path), extensions) is not None:
        return ""
    extension = os.path.splitext(path)[1]
    known = f"the source extensions are {','.join(extensions)}"
    if not extension:
        return f"not a source or build file: its name has no extension ({known})"
    return f"not a source or build file: {extension} is not a source extension ({known}); add it to extensions to " \
           "read the file as a source"


def _warn_unused(compiled: Mapping[Excludes, IgnoreSpec], roots: list[str]) -> None:
    """One warning per given exclude pattern (not a config file's: those serve every run) that excluded nothing:
    most often one written from above the scanned directory ('proj/dev/' for 'dev/' when scanning proj)."""
    for excludes, spec in compiled.items():
        for pattern in excludes.patterns if excludes.root is None else ():
            if pattern not in spec.used and pattern.strip() and not pattern.startswith("#"):
                log.warning(printable(f"warning: exclude pattern {pattern!r} matched nothing under {', '.join(roots)}: "
                                      "a pattern is matched against the paths below each scanned directory, as in a "
                                      ".gitignore there (with a slash it is anchored at that directory, without one it "
                                      f"matches at any depth){_suggestion(pattern, roots)}"))


def _suggestion(pattern: str, roots: list[str]) -> str:
    body = pattern.lstrip("!/")
    for root in roots:
        prefix = os.path.normpath(root).replace(os.sep, "/").lstrip("/") + "/"
        if prefix not in ("/", "./") and body.startswith(prefix) and body != prefix:
            return f"; did you mean {pattern[:len(pattern) - len(body)] + body[len(prefix):]!r}?"
    return ""


# `include`, `-include` and `sinclude` lines: the makefiles a makefile reads (make.defs, config.mak...).
_MAKE_INCLUDE = re.compile(r"^[ \t]*(?:-include|sinclude|include)[ \t]+([^\n#]+)", re.M)
# `CONFIG_FILE := Makefile.config` then `include $(CONFIG_FILE)` (caffe): a variable set to one plain word.
_MAKE_WORD_ASSIGNMENT = re.compile(r"^[ \t]*(\w+)[ \t]*(?::=|::=|\?=|=)[ \t]*([^\s$#*?\[]+)[ \t]*(?:#.*)?$", re.M)
_MAKE_VARIABLE = re.compile(r"\$[({](\w+)[)}]")
# The copy a project ships of a makefile it includes, which the user copies to that name (Makefile.config.example:
# the included Makefile.config is not in the tree, or is only a local copy): a makefile too.
_TEMPLATE_SUFFIXES = (".example", ".template", ".sample", ".dist", ".in")
_MAKEFILE_LIMIT = 1 << 20


def _make_fragments(makefiles: list[str], walked: dict[str, list[tuple[str, IgnoreSpec]]],
                    known: set[str]) -> list[str]:
    """The files walked makefiles include whose names say nothing (`include ../common/make.defs`): makefiles
    too. Only a file the walk kept (in a directory it walked, not ignored), named without variables or
    wildcards, relative to the including makefile's directory, where make usually runs."""
    found: set[str] = set()
    todo = list(makefiles)
    while todo:
        makefile = todo.pop()
        try:
            text = read_bytes(makefile, _MAKEFILE_LIMIT).decode("utf-8", "replace")
        except (OSError, TooLarge):
            continue  # reported when the file itself is read
        for included in included_makefiles(os.path.dirname(makefile), text):
            for path in (included, *(included + suffix for suffix in _TEMPLATE_SUFFIXES)):
                specs = walked.get(os.path.dirname(path))
                if path in known or path in found or specs is None or os.path.islink(path) \
                        or not os.path.isfile(path) or _ignored(path, False, specs):
                    continue
                found.add(path)
                todo.append(path)
    return sorted(found)


def included_makefiles(directory: str, text: str) -> list[str]:
    """The paths of the files a makefile (its `text`) includes, named without variables (or with one the file sets
    to a plain word) or wildcards, relative to `directory`, where make runs (the including makefile's, usually)."""
    words = {m.group(1): m.group(2) for m in _MAKE_WORD_ASSIGNMENT.finditer(text)}
    paths = []
    for match in _MAKE_INCLUDE.finditer(text):
        for word in _MAKE_VARIABLE.sub(lambda m: words.get(m.group(1), m.group()), match.group(1)).split():
            if "$" not in word and not any(c in word for c in "*?["):
                paths.append(os.path.normpath(os.path.join(directory, word)))
    return paths


def _included_sources(sources: list[str], walked: dict[str, list[tuple[str, IgnoreSpec]]], known: set[str],
                      includes_of: Callable[[str], Iterable[str]], extensions: tuple[str, ...]) -> list[str]:
    """The files walked sources include whose names no extension makes sources (`memory.nvidia.hpp.inc`,
    `ops.def`): sources too, and what they include in turn. A second round after the first's, since only
    the sources' text says which; `includes_of` reads no file twice (the plan keeps each one's include
    names with its #defines). Only a file the walk kept (in a directory it walked, not ignored, not
    excluded); each is followed once, so the round is bounded by the tree. A name with a source extension is
    the first round's already, or none the walk keeps: it costs no look at the file system."""
    found: set[str] = set()
    todo = list(sources)
    while todo:
        includer = todo.pop()
        for name in includes_of(includer):
            if name.lower().endswith(extensions):
                continue
            path = _resolve_include(name, includer, walked, known)
            if path is None or path in known or path in found or os.path.islink(path) or not os.path.isfile(path) \
                    or _ignored(path, False, walked[_directory(path)]):
                continue
            found.add(path)
            todo.append(path)
    return sorted(found)


def _directory(path: str) -> str:
    return os.path.dirname(path) or "."


def _resolve_include(name: str, includer: str, walked: Mapping[str, object], known: set[str]) -> str | None:
    """Where `#include "name"` in `includer` leads among the walked files: beside the includer, else in the
    directories above it, nearest first (a project's root on the -I path: ginkgo's "common/cuda_hip/..."
    from cuda/components/). Only a walked directory's file is looked at, so most tries cost a dict lookup."""
    if os.path.isabs(name):
        return None
    base = os.path.dirname(includer)
    while True:
        candidate = os.path.normpath(os.path.join(base, name))
        if candidate in known or (_directory(candidate) in walked and os.path.isfile(candidate)):
            return candidate
        if not base or base == os.path.dirname(base):
            return None
        base = os.path.dirname(base)


def all_files(root: str, excludes: Iterable[Excludes] = ()) -> tuple[list[SourceFile], list[WalkWarning]]:
    """Every file under `root` that .gitignore keeps or git tracks, for mirroring a tree: "other", or EXCLUDED
    where `excludes` say it is not to be scanned (an excluded file is still part of the project: its copy builds).
    The warnings include each path left out as ignored (reason IGNORED)."""
    warnings: list[WalkWarning] = []
    files = list(_walk_directory(root, lambda name: "other", _compiled(excludes), warnings, keep_excluded=True))
    return files, warnings


@dataclasses.dataclass(frozen=True)
class ReadResult:
    data: bytes | None
    warning: str = ""
    encoding: str = "utf-8"
    problem: str = ""  # "", "unreadable", "too-large", "skipped" (binary) or "encoding"


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


def too_large(size: int, limit: int) -> str:
    return f"skipped: too large ({_mib(size)}; the limit is {_mib(limit)}, max-file-size)"


def read_source(path: str, limit: int = DEFAULT_MAX_FILE_SIZE) -> ReadResult:
    """The file's bytes, or None with the reason it is skipped."""
    try:
        data = read_bytes(path, limit)
    except TooLarge as exc:
        return ReadResult(None, too_large(exc.args[0], limit), problem="too-large")
    except OSError as exc:
        return ReadResult(None, f"cannot read file: {exc.strerror or exc}", problem="unreadable")
    return classify(data)


# Byte order marks of UTF-16 text (a Windows resource.h): its zero bytes are no sign of a binary file.
UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def _utf16(data: bytes) -> ReadResult | None:
    """UTF-16 text with a BOM, as UTF-8 without it (what portkit reads and edits; convert writes a changed file
    back in its encoding, portkit/convert/encodings.py); None for anything else."""
    encoding = UTF16_BOMS.get(data[:2])
    if encoding is None:
        return None
    try:
        return ReadResult(data[2:].decode(encoding).encode("utf-8", "surrogatepass"),
                          f"{encoding.upper()} text (byte order mark); read as UTF-8", encoding, "encoding")
    except UnicodeDecodeError:
        return None


def classify(data: bytes) -> ReadResult:
    """Binary files are skipped; UTF-16 text with a BOM is read as UTF-8; text that is not UTF-8 is read as
    Latin-1, with a warning."""
    utf16 = _utf16(data)
    if utf16 is not None:
        return utf16
    if b"\0" in data[:_BINARY_PROBE]:
        return ReadResult(None, "binary file skipped", problem="skipped")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ReadResult(data, f"not valid UTF-8 (byte {exc.start}); read as Latin-1", "latin-1", "encoding")
    return ReadResult(data)
