"""The one way portkit writes a file: whole or not at all, and only what it was asked to replace.

- A regular file (or a new one) is replaced atomically: a short-named temporary
  file beside it, fsynced, then renamed over it, keeping its mode and owner.
- A character device, a FIFO or an open descriptor (/dev/null, a pipe,
  /dev/stdout) is written directly: renaming over it would replace the device
  with a regular file, or the file behind the descriptor with another one.
- "-" is standard output.
- Anything else (a directory, a socket, a block device) is refused.

Files inside an output tree and files rewritten in place are stricter: never
through a symlink, never a device (see `write_tree_file`, and `inplace.rewrite_in_place`).
Every failure is an OutputError whose message names the file.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import io
import os
import signal
import stat
import sys
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, TextIO

from portkit import temporaries
from portkit.errors import InputError, OutputError, PortkitError

_STOPS = {signal.SIGINT, signal.SIGTERM}  # what ends a run: held off while a file gets its name

STDOUT = "-"
DEFAULT_READ_LIMIT = 16 << 20


class ClosedPipe(Exception):
    """Standard output's reader went away. Not an OSError on purpose: click turns those into exit 1."""


class Refused(OutputError):
    """portkit chose not to write a file (read-only, linked, changed meanwhile...): the message says why."""


def cannot_write(path: Path | str, exc: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write: {exc.strerror or exc}")


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def _committing(path: Path, mode: int | None, owner: tuple[int, int] | None = None,
                before_replace: Callable[[], None] | None = None,
                place: Callable[[str, Path | str, int | None], None] | None = None, durable: bool = True,
                directory: int | None = None) -> Iterator[BinaryIO]:
    """A temporary file in `path`'s directory, open for the block; then `place`d (renamed over `path`).

    The temporary name is short (".pk-PID-" + 8 random characters + ".tmp", portkit/temporaries.py),
    so it fits NAME_MAX beside a 255-byte name. `before_replace` runs last, right before the
    rename: it raises to leave the target as it is. A block that raises leaves it as it is too.
    `durable`: fsync before the rename, so that even a power cut never leaves the target
    empty (a killed process never can); a new file in an output tree, which replaces
    nothing, skips it. `directory`: a descriptor of `path`'s directory, through which
    every step goes (a directory swapped for a symlink meanwhile is never followed).
    """
    fd, tmp, registered = temporaries.create(path.parent, directory)
    handle = None
    try:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)  # a stop between the file and its name would leak it
        try:
            handle = os.fdopen(fd, "wb")
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a stop held off lands here, and the file is closed below
        with handle:
            yield handle
            handle.flush()
            if owner is not None and owner != (os.geteuid(), os.getegid()):
                os.fchown(handle.fileno(), *owner)  # before chmod: chown clears set-user-ID bits
            os.fchmod(handle.fileno(), _default_mode() if mode is None else _kept_mode(mode, owner))
            if durable:
                os.fsync(handle.fileno())
        if before_replace is not None:
            before_replace()
        (place or _replace)(tmp, name_in(path, directory), directory)
    except BaseException:
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()  # not entered yet, where a stop landed as the file was made
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=directory)
        raise
    finally:
        temporaries.forget(registered)


def name_in(path: Path, directory: int | None) -> Path | str:
    """How `path` is named in calls: its last component, relative to its directory's descriptor, if there is one."""
    return path.name if directory is not None else path


def _replace(tmp: str, name: Path | str, directory: int | None) -> None:
    os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)


def _kept_mode(mode: int, owner: tuple[int, int] | None) -> int:
    """The mode a written file gets: set-user-ID and set-group-ID only with the owner they were
    set for (as `cp` without `-p`): a root run copying a user's 4755 file must not make it root's."""
    return mode if owner is not None else mode & ~(stat.S_ISUID | stat.S_ISGID)


def commit(path: Path, fill: Callable[[BinaryIO], None], mode: int | None, owner: tuple[int, int] | None = None,
           before_replace: Callable[[], None] | None = None,
           place: Callable[[str, Path | str, int | None], None] | None = None, durable: bool = True,
           directory: int | None = None) -> None:
    """Write `path` whole through a temporary file (`_committing`): `fill` writes the bytes."""
    with _committing(path, mode, owner, before_replace, place, durable, directory) as handle:
        fill(handle)


def lookup(path: Path, follow: bool, directory: int | None = None) -> os.stat_result | None:
    try:
        return os.stat(name_in(path, directory), dir_fd=directory, follow_symlinks=follow)
    except FileNotFoundError:
        return None


def _names_a_descriptor(path: Path) -> bool:
    """Whether `path` or a symlink on its way is /proc/.../fd/N or /dev/fd/N (as /dev/stdout
    is): it names a file some process has open, which is written into, never replaced."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on symlink hops
        if current.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def write_output(path: Path, data: bytes) -> None:
    """Write a file the user named (a report, a baseline, a header): see `open_output`; "-" is standard output."""
    if str(path) == STDOUT:
        return _to_stdout(data)
    with open_output(path) as handle:
        handle.write(data)


@contextlib.contextmanager
def open_output(path: Path) -> Iterator[BinaryIO]:
    """A file the user named, open for writing during the block: the file is replaced when the block
    ends, whole, or (the block raised) not at all.

    A symlink is followed and its target replaced (the link stays a link); devices,
    FIFOs and open descriptors (/dev/stdout) are written directly.
    """
    try:
        found = lookup(path, follow=True)
        if found is None and os.path.islink(path):
            raise OutputError(f"{path}: a symbolic link to a missing file; refusing to write through it")
        if found is not None and not (stat.S_ISREG(found.st_mode) or stat.S_ISCHR(found.st_mode)
                                      or stat.S_ISFIFO(found.st_mode)):
            raise OutputError(f"{path}: {_kind(found)}; refusing to write to it")
        if found is not None and (not stat.S_ISREG(found.st_mode) or _names_a_descriptor(path)):
            with open(path, "wb") as direct:  # no temporary file, no rename: it would replace the device
                yield direct
            return
        mode = found.st_mode & 0o7777 if found else None
        owner = (found.st_uid, found.st_gid) if found and can_give((found.st_uid, found.st_gid)) else None
        with _committing(Path(os.path.realpath(path)), mode, owner) as handle:  # a symlink stays a link
            yield handle
    except OSError as exc:
        raise cannot_write(path, exc) from None


def _to_stdout(data: bytes) -> None:
    stream = GuardedStream(sys.stdout)
    stream.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (a test's capture): the bytes are our own UTF-8
        stream.write(data.decode("utf-8", "replace"))
    else:
        GuardedStream(buffer).write(data)  # type: ignore[arg-type]
    stream.flush()


def _kind(found: os.stat_result) -> str:
    if stat.S_ISDIR(found.st_mode):
        return "is a directory"
    return "not a regular file, a character device or a FIFO"


def write_tree_file(path: Path, data: bytes | None = None, source: Path | None = None, mode: int | None = None,
                    seen: Seen | None = None, new: bool = False, placing: Callable[[str], None] | None = None,
                    directory: int | None = None) -> str:
    """Write a file inside an output tree: `data`, or a streamed copy of `source`; the SHA-256 written.

    Only a regular file (or nothing) is replaced; a symlink, FIFO or device
    where the file should go is refused, never followed or opened. `seen`: the file
    as the run first found it, replaced only if it still is; `new`: the name was
    free, and a file that appeared there since is left (both Refused). `placing`
    hears the bytes' SHA-256 right before they take the name (the output's journal).
    `directory`: a descriptor of `path`'s directory, through which every step goes.
    A new file is not fsynced: it replaces nothing, and a killed run still leaves it
    whole or absent.
    """
    hasher = hashlib.sha256()

    def before_replace() -> None:
        if seen is not None:
            unchanged(path, seen.expected, seen.found, directory)
        if placing is not None:
            placing(hasher.hexdigest())

    try:
        found = lookup(path, follow=False, directory=directory)
        if found is not None and not stat.S_ISREG(found.st_mode):
            what = "a symbolic link" if stat.S_ISLNK(found.st_mode) else _kind(found)
            raise OutputError(f"{path}: {what} where portkit's output goes; left as it is")
        src = _source(source)
        with src or contextlib.nullcontext():  # streamed: a large file never sits in memory
            commit(path, lambda h: _fill(h, hasher, data, src), mode, before_replace=before_replace,
                   place=place_new if new else _replace, durable=found is not None, directory=directory)
    except FileExistsError:
        raise Refused(f"{path}: appeared while portkit was running; left as it is") from None
    except OSError as exc:
        raise cannot_write(path, exc) from None
    return hasher.hexdigest()


def _source(source: Path | None) -> BinaryIO | None:
    try:
        return open_regular(source) if source is not None else None
    except OSError as exc:
        raise OutputError(f"{source}: cannot read: {exc.strerror or exc}") from None


def _fill(handle: BinaryIO, hasher: "hashlib._Hash", data: bytes | None, source: BinaryIO | None) -> None:
    """Write `data`, or copy `source` a chunk at a time, hashing what is written."""
    if source is None:
        hasher.update(data or b"")
        handle.write(data or b"")
        return
    while chunk := source.read(1 << 20):
        hasher.update(chunk)
        handle.write(chunk)


def open_regular(path: Path | str, follow: bool = True, directory: int | None = None) -> BinaryIO:
    """`path` (in `directory`, a descriptor, if given) open for reading if it is a regular file (checked
    on the open descriptor), else OSError: opened without blocking, so a FIFO swapped in never hangs the run."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    handle = open(os.open(path, flags, dir_fd=directory), "rb")
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return handle


class TooLarge(OSError):
    """A file over the size limit; never read (an OSError: every reader that skips an unreadable file skips it)."""


def read_bytes(path: str | os.PathLike[str], limit: int = DEFAULT_READ_LIMIT) -> bytes:
    """A regular file's bytes; TooLarge (carrying its size) rather than read more than `limit` bytes,
    even from a file that grows while it is read. Anything else (a FIFO swapped in after the walk,
    /dev/zero behind a link) is an OSError: it is opened without blocking and never read."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise TooLarge(size)
        data = handle.read(size + 1)  # not read(limit + 1): that allocates the limit's 16 MiB for every file
        if len(data) > size:  # grown since the stat
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise TooLarge(len(data))
    return data


@dataclasses.dataclass(frozen=True)
class JsonDocument:
    """A kind of JSON document portkit reads, as its errors name it: `noun` ("a portkit baseline"), the error a
    file that is no such document raises, the label of an unreadable one, and what a parse failure says."""

    noun: str
    limit: int
    invalid: type[PortkitError] = InputError
    unreadable: str = "cannot read"
    not_json: Callable[[ValueError], str] = lambda exc: "not JSON"


def read_json(path: Path, document: JsonDocument, parse: Callable[[bytes], object]) -> object:
    """A JSON document (`parse` of its bytes), read as `read_bytes` reads (a regular file, the read itself
    capped: a FIFO or /dev/zero behind the name is refused); every failure one error line."""
    try:
        return parse(read_bytes(path, document.limit))
    except TooLarge:
        raise document.invalid(f"{path}: larger than {document.limit >> 20} MiB; not {document.noun}") from None
    except OSError as exc:
        raise InputError(f"{path}: {document.unreadable}: {exc.strerror or exc}") from None
    except RecursionError:
        raise document.invalid(f"{path}: not {document.noun} (nested too deeply)") from None
    except ValueError as exc:  # invalid JSON or UTF-8, or an integer too long to convert
        raise document.invalid(f"{path}: not {document.noun} ({document.not_json(exc)})") from None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path | str, directory: int | None = None) -> str | None:
    """The SHA-256 of a regular file's bytes (not following a symlink; `path` in `directory`, a descriptor,
    if given), or None."""
    try:
        with open_regular(path, follow=False, directory=directory) as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest() if hasattr(hashlib, "file_digest") \
                else digest(handle.read())
    except OSError:
        return None


@dataclasses.dataclass(frozen=True)
class Expected:
    """What portkit read from a file: checked again right before the file is replaced."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> "Expected":
        return cls(len(data), digest(data))


def unchanged(path: Path, expected: Expected, first: os.stat_result, directory: int | None = None) -> None:
    now = os.stat(name_in(path, directory), dir_fd=directory, follow_symlinks=False)
    same = (now.st_size, now.st_mtime_ns, now.st_ino) == (first.st_size, first.st_mtime_ns, first.st_ino)
    if not same or now.st_size != expected.size or file_digest(name_in(path, directory), directory) != expected.sha256:
        raise Refused(f"{path}: changed while portkit was running; left as it is, run again")


@dataclasses.dataclass(frozen=True)
class Seen:
    """A file of an output tree as a run first found it: replaced only while it is still so."""

    expected: Expected
    found: os.stat_result

    @classmethod
    def at(cls, path: Path) -> "Seen | None":
        """What is at `path` now; None when nothing is."""
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            return None
        return cls(Expected(found.st_size, file_digest(path) or ""), found)


def can_give(owner: tuple[int, int]) -> bool:
    """Whether a new file of ours can be given this owner (root can; others only their own uid and groups)."""
    uid, gid = owner
    return os.geteuid() == 0 or (uid == os.geteuid() and (gid == os.getegid() or gid in os.getgroups()))


def place_new(tmp: str, name: Path | str, directory: int | None) -> None:
    """Give the temporary file its final name only if that name is free."""
    try:
        os.link(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)  # FileExistsError rather than replace anything
    except FileExistsError:
        raise
    except OSError:  # no hard links on this file system: claim the name exclusively, then rename over our claim
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=directory))
        _replace(tmp, name, directory)
        return
    os.unlink(tmp, dir_fd=directory)


@contextlib.contextmanager
def output_stream(path: Path | None) -> Iterator[TextIO]:
    """Standard output (None or "-"), or a file (`open_output`) that appears when the output is complete:
    written as it comes, never held whole."""
    if path is None or str(path) == STDOUT:
        yield sys.stdout
        return
    with open_output(path) as handle:
        # Renderers escape what they show; backslashreplace is the last guard for a stray surrogate.
        text = io.TextIOWrapper(handle, encoding="utf-8", errors="backslashreplace", newline="")
        try:
            yield text
            text.flush()
        finally:
            text.detach()  # the handle is open_output's to close


class GuardedStream:
    """A stream (standard output) whose write failures are OutputErrors: a full disk or
    /dev/full is a message and exit 2, not an internal error. A closed pipe is a
    ClosedPipe, which the CLI ends quietly."""

    def __init__(self, stream: TextIO, name: str = "standard output"):
        self._stream = stream
        self._name = name

    def _guard(self, action: Callable[[], object]) -> object:
        try:
            return action()
        except OSError as exc:
            silence(self._stream)  # what is still buffered must not fail again when Python exits
            if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
                raise ClosedPipe() from None
            raise OutputError(f"cannot write to {self._name}: {exc.strerror or exc}") from None

    def write(self, text: str) -> int:
        return self._guard(lambda: self._stream.write(text))  # type: ignore[return-value]

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, name: str) -> object:  # isatty, fileno, encoding, buffer...
        return getattr(self._stream, name)


def silence(stream: object) -> None:
    """Point a failed stream's file descriptor at /dev/null: nothing more can reach its reader."""
    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # no real file descriptor (a test's capture)
