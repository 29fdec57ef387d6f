"""The rule database: every rule indexed by CUDA name, header path, link name and asm pattern."""
from __future__ import annotations

import functools
import re
from typing import Iterable, Mapping

from portkit.codes import Status
from portkit.rules.model import DEFAULT_WEIGHTS, Library, Rule
from portkit.rules.rows import RuleRows
from portkit.rules.versions import parse_version
from portkit.textutil import without_template_arguments

_UNNAMED = ("header", "link", "asm")  # kinds whose HIP column holds no C++ name
_BUILT_AT_ONCE = ("link", "asm")  # kinds indexed by more than their name (headers: by path, when looked up)
# A rule's fields that hold what convert may write for its CUDA name
_SPELLING_FIELDS = ("hip", "roc", "older_hip", "hip_struct", "hip_for_args", "older_hip_in")
_PAIR_FIELDS = ("hip_for_args", "older_hip_in")  # (argument count or call, name) pairs


def _spellings(rule: Rule) -> set[str]:
    """Every name convert may write for a named rule's CUDA name: its HIP and ROC names, the older HIP's, the ones for
    an argument count or argument of a call, `struct X`'s."""
    spelled = {rule.hip, rule.roc, rule.older_hip, rule.hip_struct, *(n for _, n in rule.hip_for_args),
               *(n for _, n in rule.older_hip_in)}
    return {name for name in spelled if name}


class RuleDatabase:
    """All rules; a later rule for the same name replaces an earlier one (user files override).

    From the cache, `rows`: link libraries, asm families and namespace members are built at once (about a
    hundred), a header the first time its path is looked up, every other rule the first time a look-up asks
    for its name; an asm family's pattern is compiled at the first asm statement."""

    def __init__(self, libraries: Iterable[Library], rules: Iterable[Rule] = (), rows: RuleRows | None = None):
        self.libraries = {lib.id: lib for lib in libraries}
        self.by_name: dict[str, Rule] = {}  # the named rules built so far
        self._rows = rows
        self._unbuilt: dict[str, int] = {}  # the others: their rows
        self._headers: dict[str, Rule] = {}  # the headers built so far
        self._unbuilt_headers: dict[str, int] = {}  # the others: their rows
        self._header_directories: dict[str, Rule] = {}  # `thrust/system/cuda/`: every header below it no rule names
        self.links: dict[str, Rule] = {}
        self._asm: list[Rule] = []
        # Members of a namespace's classes by member name: `cooperative_groups::thread_block_tile::meta_group_rank`.
        self._namespace_members: dict[str, dict[str, Rule]] = {}
        self._hip_headers: frozenset[str] | None = None
        # a HIP header's earliest rule (hip_header_rule): its HIP release and CUDA path
        self._hip_header_rules: dict[str, tuple[tuple[int, ...], str]] | None = None
        self._hip_names: frozenset[str] | None = None  # every HIP spelling a named rule writes
        self._hip_prefixes: tuple[str, ...] | None = None  # the ROCm libraries' name prefixes (hipsolver, rocblas)
        self._header_names: frozenset[str] | None = None
        self._brought_names: frozenset[str] | None = None
        self._qualified: dict[str, tuple[Rule | None, str]] = {}  # lookup_qualified's answers: names recur
        for rule in rules:
            self._add(rule)
        if rows is not None:
            for row, (kind, cuda) in enumerate(zip(rows.column("kind"), rows.column("cuda"))):
                if kind == "header" and cuda.endswith("/"):
                    self._add(rows.rule(row))
                elif kind == "header":
                    self._headers.pop(cuda, None)
                    self._unbuilt_headers[cuda] = row
                elif kind in _BUILT_AT_ONCE or kind == "field" and cuda.count("::") >= 2:
                    self._add(rows.rule(row))
                else:
                    self.by_name.pop(cuda, None)
                    self._unbuilt[cuda] = row

    def _add(self, rule: Rule) -> None:
        self._qualified.clear()
        if rule.kind == "header" and rule.cuda.endswith("/"):
            self._header_directories[rule.cuda] = rule
        elif rule.kind == "header":
            self._headers[rule.cuda] = rule
            self._unbuilt_headers.pop(rule.cuda, None)
        elif rule.kind == "link":
            self.links[rule.cuda] = rule
            if rule.cmake:
                self.links[rule.cmake] = rule
        elif rule.kind == "asm":
            self._asm.append(rule)
        else:
            self.by_name[rule.cuda] = rule
            self._unbuilt.pop(rule.cuda, None)
            if rule.kind == "field" and rule.cuda.count("::") >= 2:
                self._namespace_members.setdefault(rule.cuda.rsplit("::", 1)[1], {})[rule.cuda] = rule

    @property
    def headers(self) -> dict[str, Rule]:
        """Every header rule by its CUDA path, all built."""
        for path in list(self._unbuilt_headers):
            self._header(path)
        return self._headers

    def _header(self, path: str) -> Rule | None:
        rule = self._headers.get(path)
        row = self._unbuilt_headers.pop(path, None) if rule is None else None
        if row is not None and self._rows is not None:
            rule = self._headers[path] = self._rows.rule(row)
        return rule

    @functools.cached_property
    def asm_patterns(self) -> list[tuple[re.Pattern[str], Rule]]:
        """Each asm family's pattern, compiled when the first asm statement asks (39 patterns: 0.001 s)."""
        return [(re.compile(rule.pattern), rule) for rule in self._asm]

    def __len__(self) -> int:
        return len(self.by_name) + len(self._unbuilt) + len(self._headers) + len(self._unbuilt_headers) \
            + len(self._header_directories) + len({id(r) for r in self.links.values()}) + len(self._asm)

    def named_rules(self) -> list[Rule]:
        """Every rule looked up by name (functions, types, enums, macros, fields...), all built."""
        for name in list(self._unbuilt):
            self._build(name)
        return list(self.by_name.values())

    def all_rules(self) -> list[Rule]:
        seen: dict[int, Rule] = {}
        for group in (self.named_rules(), self.headers.values(), self._header_directories.values(), self.links.values(),
                      self._asm):
            for rule in group:
                seen.setdefault(id(rule), rule)
        return sorted(seen.values(), key=lambda r: (r.library, r.kind, r.cuda))

    def lookup(self, name: str) -> Rule | None:
        return self.by_name.get(name) or self._build(name)

    def _build(self, name: str) -> Rule | None:
        row = self._unbuilt.pop(name, None)
        if row is None or self._rows is None:
            return None
        rule = self.by_name[name] = self._rows.rule(row)
        return rule

    def namespace_members(self, member: str) -> Iterable[Rule]:
        return self._namespace_members.get(member, {}).values()

    def header(self, path: str) -> Rule | None:
        """The rule for the header at `path`: its own, else its directory's (the nearest), else its file name's."""
        return self._header(path) or self._directory(path) or self._header(path.rsplit("/", 1)[-1])

    def header_by_file_name_only(self, path: str) -> bool:
        """Whether `path` is a CUDA header's only by its file name: its directories are no part of the header's
        name (`mylib/util/cuda.h` for cuda.h, where `cub/cub.cuh` is CUB's by its whole path)."""
        return "/" in path and not (self._header(path) or self._directory(path)) \
            and self._header(path.rsplit("/", 1)[-1]) is not None

    def _directory(self, path: str) -> Rule | None:
        slash = path.rfind("/")
        while self._header_directories and slash > 0:
            rule = self._header_directories.get(path[:slash + 1])
            if rule is not None:
                return rule
            slash = path.rfind("/", 0, slash)
        return None

    def hip_header(self, path: str) -> str:
        """What convert makes of an include: the HIP header of a CUDA one, a HIP header as it is, else ""."""
        rule = self.header(path)
        if rule is not None:
            return rule.hip
        if self._hip_headers is None:
            self._hip_headers = frozenset(h for r in self.headers.values() for h in (r.hip, r.roc, r.older_hip) if h)
        return path if path in self._hip_headers else ""

    def hip_header_rule(self, path: str) -> Rule | None:
        """For a HIP header a rule writes (`hip/hip_fp8.h`), the rule that writes it from the earliest HIP release
        (its `hip_added`: a project's HIP code may include it where the targeted HIP lacks it)."""
        if self._hip_header_rules is None:
            self._hip_header_rules = {}
            for rule in self._headers.values():
                self._note_hip_header(rule.hip, rule.hip_added, rule.cuda)
            if self._rows is not None:  # the others from their columns: most runs build no header rule for it
                columns = zip(*(self._rows.column(field) for field in ("kind", "cuda", "hip", "hip_added")))
                for kind, cuda, hip, added in columns:
                    if kind == "header" and cuda in self._unbuilt_headers:
                        self._note_hip_header(hip, added, cuda)
        found = self._hip_header_rules.get(path)
        return self.header(found[1]) if found is not None else None

    def _note_hip_header(self, hip: str, added: str, cuda: str) -> None:
        """Keep the CUDA header whose rule writes `hip` from the earliest HIP release."""
        known = self._hip_header_rules.get(hip) if self._hip_header_rules is not None else None
        version = parse_version(added) if added else (0,)
        if hip and self._hip_header_rules is not None and (known is None or version < known[0]):
            self._hip_header_rules[hip] = (version, cuda)

    def is_hip_spelling(self, name: str) -> bool:
        """Whether `name`, or the longest part of `a::b::c` that a rule writes, is a HIP spelling some rule writes for a
        CUDA name (RCCL's ncclAllToAll for ncclAlltoAll, rocThrust's `thrust::hip::par` for `thrust::cuda::par`): a
        project's HIP branch, or convert's output, not a CUDA name no rule knows; or a name spelled with a ROCm
        library's prefix. A project's #define of a CUDA name as one is its own mapping, whose name stays as written
        (portkit/parse/handlers.py): renamed, it would define the HIP name. The spellings are read from the rules' HIP
        columns, without building the rules."""
        parts = without_template_arguments(name).split("::")
        spellings = self._hip_spellings()
        shortest = 2 if len(parts) > 1 else 1  # `thrust::hip::x`, never `thrust::x` by `thrust` alone
        if any("::".join(parts[:end]) in spellings for end in range(len(parts), shortest - 1, -1)):
            return True
        return len(parts) == 1 and self._rocm_prefixed(name)

    def _rocm_prefixed(self, name: str) -> bool:
        """Whether `name` is spelled with a ROCm library's prefix (`HIPSOLVER_FILL_MODE_LOWER`, `rocblas_strsm`: the
        libraries' `hip_library`, `roc_library`), names no rule writes but HIP's all the same."""
        if self._hip_prefixes is None:
            named = [n for lib in self.libraries.values() for n in (lib.hip_library, lib.roc_library) if n.strip()]
            words = {n.split()[0].lower() for n in named}
            self._hip_prefixes = tuple(sorted(w for w in words if w.startswith(("hip", "roc")) and w.isalnum()))
        lowered = name.lower()
        return any(lowered.startswith(p) and not name[len(p):len(p) + 1].islower() for p in self._hip_prefixes)

    def _hip_spellings(self) -> frozenset[str]:
        if self._hip_names is None:
            spelled = {h for r in self.by_name.values() for h in _spellings(r)}
            if self._rows is not None:
                named = [kind not in _UNNAMED for kind in self._rows.column("kind")]
                for field in _SPELLING_FIELDS:
                    values = self._rows.column(field)
                    pairs = field in _PAIR_FIELDS
                    spelled.update(name for row, value in enumerate(values) if named[row] and value
                                   for name in ([n for _, n in value] if pairs else [value]))
            self._hip_names = frozenset(spelled)
        return self._hip_names

    def header_names(self) -> frozenset[str]:
        """Every name a header's rule `declares`: the uses an include of such a header may be kept for."""
        if self._header_names is None:
            self._header_names = frozenset(name for r in self.headers.values() for name in r.declares)
        return self._header_names

    def brought_names(self) -> frozenset[str]:
        """Every name a header that another header's rule `cuda_brings` declares (cuda_fp16.h's `half`)."""
        if self._brought_names is None:
            brought = {path for r in self.headers.values() for path in r.cuda_brings}
            self._brought_names = frozenset(name for path in brought if (rule := self.header(path)) for name in rule.declares)
        return self._brought_names

    def link(self, name: str) -> Rule | None:
        return self.links.get(name)

    def lookup_qualified(self, name: str) -> tuple[Rule | None, str]:
        """The rule for the longest known prefix of `a::b::c<T>` (template arguments ignored)."""
        found = self._qualified.get(name)
        if found is None:
            found = self._qualified[name] = self._longest_prefix(name)
        return found

    def _longest_prefix(self, name: str) -> tuple[Rule | None, str]:
        parts = without_template_arguments(name).split("::")
        for end in range(len(parts), 0, -1):
            prefix = "::".join(parts[:end])
            rule = self.lookup(prefix)
            if rule is not None:
                return rule, prefix
        return None, ""

    def is_api(self, name: str) -> bool:
        """Whether `name` is a CUDA API a rule knows (not a name C/C++ shares, like floor or y0)."""
        rule = self.lookup(name)
        return rule is not None and not rule.c_library

    def is_hip_alias(self, name: str, alias: str) -> bool:
        """Whether `alias` is a HIP name convert may write for the CUDA API `name` (`#define cudaMalloc hipMalloc`), or
        another vendor's name for it, spelled as CUDA's with the vendor's prefix (`#define cudaMalloc musaMalloc`,
        `cublasSgemm mublasSgemm`): a port's alias, whose uses stay CUDA's, for HIP as for that vendor."""
        rule = self.lookup(name)
        if rule is None or not alias:
            return False
        return alias in (rule.hip, rule.older_hip, *(n for _, n in rule.hip_for_args)) or _vendor_spelling(name, alias)

    def reads_arguments(self, name: str) -> bool:
        """Whether what becomes of a call of `name` depends on its arguments' texts: a rule that casts, drops,
        masks or chooses its form by an argument (defaults count the arguments only); a name no rule knows may
        stand for one (`using`)."""
        rule = self.lookup(name)
        return rule is None or bool(rule.cast_args or rule.const_args or rule.null_args or rule.form_args or rule.coordinate_cast
                                    or rule.mask_arg >= 0 or rule.symbol_arg >= 0)

    def is_hip_pointer(self, name: str) -> bool:
        """Whether `name` is a type that is an integer in CUDA and a pointer in HIP (arithmetic on it breaks)."""
        rule = self.lookup(name)
        return rule is not None and rule.hip_pointer

    def is_cuda_declared(self, name: str) -> bool:
        """Whether a CUDA header declares `name`: an API a rule knows, not one of the helpers that
        projects copy into their tree (a library marked `vendored`, the CUDA Samples' helper_cuda.h)."""
        rule = self.lookup(name)
        if rule is None or rule.c_library:
            return False
        library = self.libraries.get(rule.library)
        return library is None or not library.vendored

    def cuda_declared_among(self, names: frozenset[str]) -> set[str]:
        """The names of `names` a CUDA header declares (`is_cuda_declared`), looking at only those a rule knows."""
        return {name for name in (names & self.by_name.keys()) | (names & self._unbuilt.keys())
                if self.is_cuda_declared(name)}

    def known_names(self) -> frozenset[str]:
        """Every name worth keeping while parsing: rule names and the last part of qualified ones."""
        names = set(self.by_name) | set(self._unbuilt)
        names.update(n.rsplit("::", 1)[-1] for n in tuple(names) if "::" in n)
        return frozenset(names)

    def find(self, name: str) -> Rule | None:
        """Any rule called `name`: a CUDA name, a header, a link library or an asm family."""
        found = self.lookup(name) or self._header(name) or self._header_directories.get(name) or self.links.get(name)
        return found or next((r for r in self._asm if r.cuda == name), None)

    def match_asm(self, template: str) -> Rule | None:
        for pattern, rule in self.asm_patterns:
            if pattern.search(template):
                return rule
        return None

    def title(self, library: str) -> str:
        lib = self.libraries.get(library)
        return lib.title if lib else library

    def weight(self, rule: Rule, status: Status, defaults: Mapping[Status, float] = DEFAULT_WEIGHTS) -> float:
        """Hours for one distinct name: the rule's own weight, else its library's for the status, else `defaults`'."""
        if rule.weight:
            return rule.weight
        lib = self.libraries.get(rule.library)
        if lib and status in lib.weights:
            return lib.weights[status]
        return defaults.get(status, defaults.get(Status.UNSUPPORTED, 0.0))


_CUDA_PREFIX = re.compile(r"__nv|cuda|CUDA|cu|CU|nv|NV")


def _vendor_spelling(name: str, alias: str) -> bool:
    """`musaMalloc` for `cudaMalloc`, `mublasSgemm` for `cublasSgemm`, `MUBLAS_OP_N` for `CUBLAS_OP_N`: the rest of the
    name after CUDA's prefix, behind another vendor's prefix of at most six letters. A project's own wrapper keeps more
    of its own name, or CUDA's (`tracked_malloc`, `myCudaMalloc`)."""
    prefix = _CUDA_PREFIX.match(name)
    rest = name[prefix.end():] if prefix else ""
    vendor = alias[:-len(rest)] if len(rest) >= 3 and alias.endswith(rest) else ""
    return 0 < len(vendor) <= 6 and vendor.strip("_").isalpha() and not any(w in vendor.lower() for w in ("cu", "nv"))
