"""`portkit shim`: a header that lets one source tree build with nvcc and hipcc."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from portkit.cli.app import Force, NoBackup, UsageError, choice, examples, pipeline_command
from portkit.settings import RunSettings
from portkit.textutil import printable


# portkit.shim.header's STYLES (importing it would load the rules for every command)
Style = choice("Style", ("cuda", "neutral"))


@pipeline_command("CUDA source files or directories.", examples(
    "portkit shim src/ -o include/portkit_gpu.h", "portkit shim src/ -o include/gpu.h --style neutral --sources gpu-src/"),
    without=("rocm_version", "cuda_version"))
def shim(
    settings: RunSettings,
    output: Path = typer.Option(..., "--output", "-o", help="The header to write, e.g. include/portkit_gpu.h."),
    style: Style = typer.Option("cuda", "--style", help="cuda: sources keep CUDA names; neutral: sources use gpu* names."),
    sources: Optional[Path] = typer.Option(None, "--sources", help="Write the sources, rewritten to use the header, here."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite the sources themselves to use the header."),
    no_backup: NoBackup = False,
    force: Force = False,
) -> None:
    """Generate a dual-compile header for exactly the CUDA APIs the project uses.

    Under hipcc it includes the HIP/ROCm headers and maps the names (with fallbacks for
    older HIP); otherwise it includes the CUDA headers. A library HIP does not ship
    (MIOpen, hipBLAS, rocWMMA...) gets a part beside it per CUDA header (portkit_gpu_cudnn.h),
    so it stays as optional as it was. Names with no HIP equivalent are listed in it with
    their advice. With --sources or --in-place the sources' CUDA includes are replaced by
    the header or the part, where and under the conditions they were (and, in the neutral
    style, names by gpu* names). The header's directory must exist. Exit 0 written, 2 bad input,
    files not written, or a file not scanned (binary, too large: named; the header lacks its names).
    """
    from portkit.shim.project import ShimOptions, make_shim

    if sources is not None and in_place:
        raise UsageError("choose one of --sources OUTDIR and --in-place")
    if style == "neutral" and sources is None and not in_place:
        raise UsageError("the neutral style renames names in the sources: add --sources OUTDIR or --in-place")
    outcome = make_shim(settings, ShimOptions(output, style, sources, in_place, not no_backup, force))
    built = outcome.shim
    rewritten = (f"{outcome.rewritten} sources rewritten" if (in_place or sources)
                 else f"{outcome.rewritten} sources would include it")
    print(f"portkit shim: {printable(output)} maps {len(built.mappings)} names and {len(built.headers)} headers "
          f"({len(built.fallbacks)} with fallbacks for older HIP); {len(built.unportable)} names have no HIP equivalent"
          + (f", {len(built.unmapped)} it cannot map (listed in the header)" if built.unmapped else "")
          + (f", {len(built.newer)} only in newer HIP releases (listed in the header)" if built.newer else "")
          + (f", {len(built.left_to_layer)} left to the project's own HIP layer (listed in the header)"
             if built.left_to_layer else "")
          + (f"; {len(built.parts)} library headers have a part beside it" if built.parts else "") + "; " + rewritten)
    for note in outcome.notes:
        print(f"portkit: note: {printable(note)}", file=sys.stderr)
    for warning in outcome.warnings:
        print(f"portkit: warning: {printable(warning)}", file=sys.stderr)
    for failure in outcome.failures:
        print(f"portkit: error: {printable(failure)}", file=sys.stderr)
    raise typer.Exit(2 if outcome.failures else 0)
