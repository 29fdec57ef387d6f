"""The worker processes of a run: each file's result, from the cache or computed in a pool.

A pool's processes receive the run's `Job` once, at their start (the pool's initializer keeps it in
this module's `_state`: a process pool gives its workers no other place to hold it). `Workers`
keeps them for a later pass of the same run (convert's second pass, `analyze_reshaped`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import os
import pickle  # nosec B403: only between this process and its own workers
import signal
from typing import TYPE_CHECKING, Iterator

from portkit.analyze import Context, Select
from portkit.parse import MacroTable, compile_queries
from portkit.run.cache import FileResult
from portkit.run.file import Job, Reshaped, analyze_reshaped_file, held_job, processed
from portkit.run.request import Wanted
from portkit.settings import available_cpus
from portkit.walk import UTF16_BOMS, SourceFile, classify

if TYPE_CHECKING:
    import ctypes
    from concurrent.futures import ProcessPoolExecutor
# multiprocessing, concurrent.futures and ctypes are imported when a pool starts: a run of a few files starts
# none, and importing them was 0.007 s of its start.


# Below this many files, or this many bytes, a process pool costs more than it saves.
_POOL_THRESHOLD = 16


_POOL_BYTES = 64 << 10


@dataclasses.dataclass
class _ProcessState:
    """What a worker process holds between tasks: the job it received at its start, and the last update of it
    (Workers.update_for) applied. A process pool hands its tasks only the arguments of each call, so the one
    place a worker can keep the job it received once is a module global: this one, set by the initializer."""

    job: Job | None = None
    updated: tuple[bytes, Job] | None = None


_state = _ProcessState()


def _init_worker(job: Job) -> None:
    _state.job, _state.updated = job, None
    _die_with_parent()


def _die_with_parent() -> None:
    """A worker whose parent is killed (kill -9, an OOM kill) ends too instead of waiting forever (Linux)."""
    try:
        libc = _libc()
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the pool's own shutdown still applies


def _libc() -> ctypes.CDLL:
    """glibc by its usual name first: find_library runs `ldconfig -p`, milliseconds in every worker's start."""
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _process_in_worker(file: SourceFile, data: bytes | None, entry: str | None) -> FileResult:
    assert _state.job is not None
    return processed(_state.job, file, data, entry)


def _worker_pool(job: Job, workers: int) -> ProcessPoolExecutor:
    """Worker processes that each receive `job` once. fork shares the rules, the context and the
    parser's compiled queries with them at no cost (the queries are built here first, once)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    fork = "fork" in multiprocessing.get_all_start_methods()
    if fork:
        compile_queries(job.roles)
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork" if fork else None),
                               initializer=_init_worker, initargs=(job,))


class Workers:
    """Worker processes that outlive the pass that started them: convert's second pass runs in the first
    pass's processes, whose pages are already their own and whose memos are warm (fresh ones cost that
    pass half as much CPU again). Closed on leaving the `with` block."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.job: Job | None = None  # the job the processes received

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None

    def start(self, job: Job, workers: int) -> ProcessPoolExecutor:
        self.pool, self.job = _worker_pool(job, workers), job
        return self.pool

    def update_for(self, context: Context, macros: MacroTable | None, wanted: Wanted | None,
                   analyzers: Select | None = None) -> bytes | None:
        """What turns the processes' job into `held_job(context, macros, wanted, analyzers=analyzers)`: the fields of `context` that
        differ from the job's (the project's names), pickled once for every task. None when the processes cannot
        serve it: none running, or other rules or another macro table."""
        job = self.job
        if self.pool is None or job is None or job.context.rules is not context.rules or job.macros is not macros:
            return None
        changed = {field.name: getattr(context, field.name) for field in dataclasses.fields(Context)
                   if getattr(context, field.name) is not getattr(job.context, field.name)}
        return pickle.dumps((changed, wanted, analyzers))


def _start_pool(job: Job, todo: list[tuple[SourceFile, bytes | None, str | None]], jobs: int,
                stack: contextlib.ExitStack, holder: Workers | None = None) -> Iterator[FileResult]:
    """The fresh results of `todo`: from worker processes, which start on them now, or computed here as the
    iterator is consumed when a pool would cost more than it saves. `holder`: where to keep the processes
    for a later pass (else they end with `stack`)."""
    columns = _columns(todo)
    workers = min(jobs or available_cpus(), available_cpus())
    sizes = _sizes(columns[0])
    if workers == 1 or not _worth_a_pool(job, columns[0], sizes):
        return map(functools.partial(processed, job), *columns)
    # Largest first, in small chunks: no worker is left with one big file while the others wait.
    order = sorted(range(len(todo)), key=lambda i: -sizes[i])
    columns = [[column[i] for i in order] for column in columns]
    pool = holder.start(job, workers) if holder is not None else stack.enter_context(_worker_pool(job, workers))
    return pool.map(_process_in_worker, *columns, chunksize=max(1, min(8, len(todo) // (workers * 32))))


def file_results(job: Job, files: list[SourceFile], datas: list[bytes | None], entries: list[str | None],
                 jobs: int, holder: Workers | None = None) -> Iterator[FileResult]:
    """Each file's result, from the cache when its bytes are unchanged, else freshly processed.

    The files without a cache entry go to the workers first, so that reading the others overlaps their work."""
    cache = job.cache
    stored = [cache is not None and cache.has(entry, job.summary) for entry in entries]
    todo = [item for item, hit in zip(zip(files, datas, entries), stored) if not hit]
    with contextlib.ExitStack() as stack:
        fresh = _start_pool(job, todo, jobs, stack, holder)
        late = []  # entries that exist but do not hold (damaged, or a file they were made from changed)
        for file, data, entry in itertools.compress(zip(files, datas, entries), stored):
            hit = cache.lookup(file, entry, job.summary) if cache is not None else None
            if hit is not None:
                yield dataclasses.replace(hit if job.wanted is None else hit.keeping(job.wanted),
                                          data=_as_analysed(data) if job.keep_sources else None)
            else:
                late.append((file, data, entry))
        yield from fresh
    yield from map(functools.partial(processed, job), *_columns(late))


def _as_analysed(data: bytes | None) -> bytes | None:
    """A file's bytes as a fresh result keeps them: UTF-16 text as the UTF-8 it was analysed as (walk.classify), so
    that a cached result's findings fit its text."""
    return classify(data).data if data is not None and data[:2] in UTF16_BOMS else data


def _columns(todo: list[tuple[SourceFile, bytes | None, str | None]]) -> list[list]:
    """(file, bytes, entry) rows as three columns: the arguments `processed` is mapped over."""
    return [list(column) for column in zip(*todo)] or [[], [], []]


def _sizes(files: list[SourceFile]) -> list[int]:
    sizes = []
    for file in files:
        try:
            sizes.append(os.stat(file.path).st_size)
        except OSError:
            sizes.append(0)  # reported when the file itself is processed
    return sizes


def _worth_a_pool(job: Job, files: list[SourceFile], sizes: list[int]) -> bool:
    """Whether starting worker processes costs less than it saves: many files, or a few big ones."""
    if len(files) >= _POOL_THRESHOLD:
        return True
    if len(files) < 2:
        return False
    # A clang unit takes a tenth of a second or more: two of them already pay for a pool.
    return sum(map(job.is_clang_unit, (f.path for f in files))) >= 2 or sum(sizes) >= _POOL_BYTES


def _analyze_reshaped_in_worker(path: str, data: bytes, shape: str) -> Reshaped:
    assert _state.job is not None
    return analyze_reshaped_file(_state.job, path, data, shape)


def _analyze_reshaped_updated(update: bytes, path: str, data: bytes, shape: str) -> Reshaped:
    job = _state.job
    assert job is not None
    if _state.updated is None or _state.updated[0] != update:
        changed, wanted, analyzers = pickle.loads(update)  # nosec B301: our own parent's bytes, through the pool's pipe
        context = dataclasses.replace(job.context, **changed)
        _state.updated = update, held_job(context, job.macros, wanted, job.known, analyzers)
    return analyze_reshaped_file(_state.updated[1], path, data, shape)


def analyze_reshaped(files: list[tuple[str, bytes, str]], context: Context, macros: MacroTable | None = None,
                     jobs: int = 0, wanted: Wanted | None = None, workers: Workers | None = None,
                     analyzers: Select | None = None) -> Iterator[Reshaped]:
    """Files held in memory, each with the shape (portkit/parse/recovery.py:tree_shape) of the text it
    was made from: each one's own shape, and its findings where that differs (None where it does not:
    the same structure, so nothing new to find). A parse each, and the analysis only where needed; in
    worker processes when there are enough files to pay for them, which start at once: the caller may
    do other work before it reads the results. `wanted`: the findings the caller acts on (Job.wanted); `analyzers`:
    those that can make them (Job.analyzers).
    `workers`: processes kept from the run's first pass, used when they can serve this one."""
    update = workers.update_for(context, macros, wanted, analyzers) if workers is not None and files else None
    if update is not None:
        pool = workers.pool
        assert pool is not None
        futures = {i: pool.submit(_analyze_reshaped_updated, update, *files[i]) for i in _largest_first(files)}
        return (futures[i].result() for i in range(len(files)))
    job = held_job(context, macros, wanted, analyzers=analyzers)
    count = min(jobs or available_cpus(), available_cpus(), len(files))
    if count < 2 or (len(files) < _POOL_THRESHOLD and sum(len(data) for _, data, _ in files) < _POOL_BYTES):
        return (analyze_reshaped_file(job, *file) for file in files)
    pool = _worker_pool(job, count)
    futures = {i: pool.submit(_analyze_reshaped_in_worker, *files[i]) for i in _largest_first(files)}
    return _shut_after(pool, (futures[i].result() for i in range(len(files))))


def _largest_first(files: list[tuple[str, bytes, str]]) -> list[int]:
    """Submitted largest first (one big file last would leave the other workers waiting), read back in order."""
    return sorted(range(len(files)), key=lambda i: -len(files[i][1]))


def _shut_after(pool: ProcessPoolExecutor, results: Iterator[Reshaped]) -> Iterator[Reshaped]:
    with pool:
        yield from results
