"""Which of the project's own definitions each file sees.

A name the project defines is its own, not CUDA's, where a declaration of it is visible:
- a file others #include (a header, or a .cu included by another) is seen by the files
  that include it, directly or through other includes;
- a source file no other file #includes is a translation unit of its own, compiled alone
  and linked: a name no CUDA header declares that it defines can only be the project's
  wherever it is called, so every file sees those (except the `static` ones); a name CUDA
  declares too is the project's only in the unit and the files it includes (a unity
  build's `#define CUDA_VERSION` before its `#include "part.cu"`), or where a file sees a
  declaration of its own (C++ calls nothing undeclared). A call elsewhere spelled as
  CUDA's, with CUDA's header in view, is CUDA's: one program's copy of the driver API,
  loaded at run time, does not make the driver API every other program's own;
- a header no other file #includes (forced in with `-include`, perhaps) is seen by every
  file, except what it defines with internal linkage (`static`).
A project's layer for another vendor defines CUDA's names for that vendor's compiler alone (parse/vendor_layers.py):
those are no project names. So are a HIP layer's, where every file that includes it does so only in one branch of
several (`#ifdef USE_HIP` / `#include "hip.h"` / `#else` / `#include "cuda.h"`): the converted tree, built without the
project's switch, never sees them. One included unconditionally is the project's HIP code (a converted tree's).
One tree often holds several programs (a benchmark suite, a samples collection): one
program's copy of cuda.h does not make CUDA's names its neighbour's own. Includes are
matched by file name (what an #include names, without its directories), so an include
of a name several files have reaches each of them.
"""
from __future__ import annotations

import os
from typing import Callable, Iterable, Protocol

from portkit.parse.vendor_layers import HIP_LAYER, OTHER_VENDOR


# Suffixes of files compiled on their own (walk.DEFAULT_EXTENSIONS less the headers).
TRANSLATION_UNITS = frozenset({".cu", ".cpp", ".cc", ".cxx", ".c"})


class Defining(Protocol):
    """What scoping needs of a file's result (portkit.run.cache.FileResult has it)."""

    @property
    def definitions(self) -> frozenset[str]: ...

    @property
    def internal(self) -> frozenset[str]: ...

    @property
    def includes(self) -> tuple[str, ...]: ...

    @property
    def declared(self) -> frozenset[str]: ...

    @property
    def vendor_layer(self) -> str: ...

    @property
    def alternative_includes(self) -> frozenset[str]: ...

    @property
    def hip_aliases(self) -> tuple[tuple[str, bool], ...]: ...

    @property
    def hip_macros(self) -> tuple[tuple[str, bool], ...]: ...

    @property
    def hip_includes(self) -> frozenset[str]: ...


class IncludeGraph:
    """Which files include which (by file name), and the translation units among them; each file's walks
    are remembered, so the project's definitions and its variables share them."""

    def __init__(self, files: Iterable[tuple[str, Defining]]):
        self._includes: dict[str, tuple[str, ...]] = {}
        self._by_name: dict[str, list[str]] = {}
        self._includers: dict[str, list[str]] = {}  # a file name -> the files that include it
        self._alternative: dict[str, frozenset[str]] = {}  # a file -> what it includes only in one branch of several
        for path, result in files:
            self._includes[path] = result.includes
            self._alternative[path] = result.alternative_includes
            self._by_name.setdefault(os.path.basename(path), []).append(path)
            for target in set(result.includes):
                self._includers.setdefault(target, []).append(path)
        self.units = frozenset(path for path in self._includes if not self.is_included(path)
                               and os.path.splitext(path)[1].lower() in TRANSLATION_UNITS)
        self._reached: dict[str, frozenset[str]] = {}
        self._including: dict[str, frozenset[str]] = {}
        self._units_including: dict[str, frozenset[str]] = {}

    def is_included(self, path: str) -> bool:
        return os.path.basename(path) in self._includers

    def only_in_alternatives(self, path: str) -> bool:
        """Whether every file that includes `path` does so only in one branch of an #if chain with several."""
        name = os.path.basename(path)
        return all(name in self._alternative.get(includer, ()) for includer in self._includers.get(name, ()))

    def reached(self, path: str) -> frozenset[str]:
        """The file names `path` includes, directly or through the files those name."""
        found = self._reached.get(path)
        if found is not None:
            return found
        reached: set[str] = set()
        frontier = list(self._includes.get(path, ()))
        while frontier:
            name = frontier.pop()
            if name in reached:
                continue
            reached.add(name)
            for other in self._by_name.get(name, ()):
                frontier.extend(self._includes.get(other, ()))
        found = self._reached[path] = frozenset(reached)
        return found

    def including(self, path: str) -> frozenset[str]:
        """The files that include `path`, directly or through other files."""
        found = self._including.get(path)
        if found is not None:
            return found
        seen = {path}
        frontier = [path]
        while frontier:
            for includer in self._includers.get(os.path.basename(frontier.pop()), ()):
                if includer not in seen:
                    seen.add(includer)
                    frontier.append(includer)
        seen.discard(path)
        found = self._including[path] = frozenset(seen)
        return found

    def units_including(self, path: str) -> frozenset[str]:
        """The translation units `path` is part of: those that include it, directly or through other files."""
        found = self._units_including.get(path)
        if found is None:
            found = self._units_including[path] = self.including(path) & self.units
        return found


class ProjectNames:
    """The project's definitions, and which files see each; with `declarations`, its variables, parameters and
    members instead (a copy of the driver API loaded at run time declares `cuDeviceGet` a function pointer).
    `cuda_declared`: the names of a set that a CUDA header declares too (asked once per file: most of a project's
    names are no rule's, and a set intersection finds the few that are); `graph`: the files' includes, when built
    already."""

    def __init__(self, files: Iterable[tuple[str, Defining]], cuda_declared: Callable[[frozenset[str]], set[str]],
                 declarations: bool = False, graph: IncludeGraph | None = None):
        files = list(files)
        self.graph = graph if graph is not None else IncludeGraph(files)
        everywhere: set[str] = set()
        linked: set[str] = set()
        in_included: dict[str, set[str]] = {}
        in_units: dict[str, set[str]] = {}
        for path, result in files:
            defined, internal = (result.declared, frozenset()) if declarations else (result.definitions, result.internal)
            if self._stands_in(path, result):
                defined = defined - cuda_declared(defined)
            if self.graph.is_included(path):
                name = os.path.basename(path)
                for one in defined:
                    in_included.setdefault(one, set()).add(name)
            elif path in self.graph.units:
                scoped = cuda_declared(defined) | (defined & internal)
                for one in scoped:
                    in_units.setdefault(one, set()).add(path)
                everywhere.update(defined - scoped)
                linked.update(defined - internal)
            else:
                everywhere.update(defined - internal)
        self.everywhere = frozenset(everywhere)
        # Kept as built (never changed again): a frozen copy of each took 0.2 s of CPU on the 1M-line scale tree.
        self.in_included = in_included
        self.in_units = in_units
        self._linked = frozenset(linked)
        self._seen: dict[str, FileNames] = {}

    def _stands_in(self, path: str, result: Defining) -> bool:
        """Whether the file's definitions of CUDA's names are a vendor layer's, not the project's."""
        layer = result.vendor_layer
        return layer == OTHER_VENDOR or layer == HIP_LAYER and self.graph.is_included(path) \
            and self.graph.only_in_alternatives(path)

    def any_file(self) -> frozenset[str]:
        """Every name some file sees as the project's own (a translation unit's `static` ones aside)."""
        return self.everywhere.union(self.in_included, self._linked)

    def seen_by(self, path: str) -> FileNames:
        seen = self._seen.get(path)
        if seen is None:
            seen = self._seen[path] = FileNames(self, path)
        return seen


class FileNames:
    """The project's names one file sees: `name in seen` is all a filter asks."""

    def __init__(self, project: ProjectNames, path: str):
        self._project = project
        self._path = path

    def __contains__(self, name: object) -> bool:
        if name in self._project.everywhere:
            return True
        if not isinstance(name, str):
            return False
        # Walked only for the few names the project defines in an included file or a translation unit.
        defining = self._project.in_included.get(name)
        if defining and not defining.isdisjoint(self._project.graph.reached(self._path)):
            return True
        units = self._project.in_units.get(name)
        return bool(units) and not units.isdisjoint(self._project.graph.units_including(self._path))


class HipLayer:
    """The CUDA names the project's own HIP layer defines for its HIP build, and which files see each: kaldi's
    hip/hipify.h (`#define cublasSgemm_v2 hipblasSgemm`), which its files include under `#ifdef __IS_HIP_COMPILE__`,
    or colmap's aliases under `#if defined(__HIP_PLATFORM_AMD__) || defined(USE_HIP)`. A port's alias counts where a
    branch hipcc takes for AMD holds it, or where its file is one a file includes in such a branch (its HIP switch's,
    or a test of HIP's own macros; parse/vendor_layers.py: hip_branch). A file sees the aliases of the files it
    includes, directly or not, and its own: their uses there are done work for the project's HIP build. So are the
    layer's own definitions, #defines that are more than a rename (ParsedFile.hip_macros: kaldi's `cublasStrsm_v2(a,
    ..., l)` with a const_cast, a zero-size workaround for `cudaMemcpy2DAsync`, `curandSetGeneratorOrdering(x, y) 0`,
    `__fdiv_rd __fdiv_rn`): their uses are left to the layer (`kept_by`), as renamed they would bypass it; but not
    those of a layer that stands in for CUDA's runtime header where every includer has it in one branch of several
    (llama.cpp's vendors/hip.h, ProjectNames): the converted tree, built without the switch, never sees it. Another
    vendor's layer (`#define cudaMalloc musaMalloc`) is no HIP layer."""

    def __init__(self, files: Iterable[tuple[str, Defining]], graph: IncludeGraph):
        files = list(files)
        switched = {name for _, result in files for name in result.hip_includes}
        self._defining: dict[str, dict[str, str]] = {}  # a file -> {CUDA name it defines for HIP: that file}
        self._own: dict[str, frozenset[str]] = {}  # a file -> the names among those it defines as more than a rename
        for path, result in files:
            if result.vendor_layer == OTHER_VENDOR:
                continue
            layer = os.path.basename(path) in switched
            stands_in = result.vendor_layer == HIP_LAYER and graph.is_included(path) and graph.only_in_alternatives(path)
            own = frozenset(name for name, held in result.hip_macros if (held or layer) and not stands_in)
            aliases = {name: path for name, held in result.hip_aliases if held or layer}
            aliases.update((name, path) for name in own)
            if aliases:
                self._defining[path] = aliases
            if own:
                self._own[path] = own
        self._graph = graph
        self._layer_files = sorted(self._defining)
        self._seen: dict[str, tuple[dict[str, str], frozenset[str]]] = {}

    def __bool__(self) -> bool:
        return bool(self._defining)

    def names(self) -> dict[str, str]:
        """Every CUDA name the layer defines for HIP, each with the file that defines it (the first by path)."""
        defined: dict[str, str] = {}
        for path in sorted(self._defining):
            for name, header in self._defining[path].items():
                defined.setdefault(name, header)
        return defined

    def seen_by(self, path: str) -> dict[str, str]:
        """The layer's CUDA names `path` sees, each with the file that defines it (the first by path)."""
        return self._seen_by(path)[0]

    def kept_by(self, path: str) -> frozenset[str]:
        """The layer's CUDA names `path` sees that some file it sees defines as more than a rename: left to it."""
        return self._seen_by(path)[1]

    def _seen_by(self, path: str) -> tuple[dict[str, str], frozenset[str]]:
        seen = self._seen.get(path)
        if seen is None:
            if not self._defining:
                return {}, frozenset()
            names: dict[str, str] = {}
            own: set[str] = set()
            # Asked of the few layer files (which files include each), not of every file's includes.
            for other in self._layer_files:
                if other == path or path in self._graph.including(other):
                    for name, header in self._defining[other].items():
                        names.setdefault(name, header)
                    own.update(self._own.get(other, ()))
            seen = self._seen[path] = (names, frozenset(own))
        return seen
