"""Where the Vitis executables and headers are, and which release they are."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from hclbuild import tool_processes
from hclbuild.errors import ToolError

# package.output.format replaced syn.output.format in Vitis 2025.1 (UG1399 "Package Options")
PACKAGE_FORMAT_SINCE = (2025, 1)
_VERSION = re.compile(r"(?<!\d)(20\d\d)\.(\d)(?!\d)")  # "v2024.2", "/Vitis/2024.2/bin"
_VERSION_TIMEOUT = 120.0


class Executable(NamedTuple):
    """A Vitis executable: found on PATH, else in the bin/ of the first install variable that names
    a folder holding it."""

    name: str
    homes: tuple[str, ...]  # install variables, e.g. XILINX_HLS


class VitisTools(NamedTuple):
    """The Vitis executables found (name -> path) and the HLS install with its headers."""

    found: Mapping[str, Path]
    xilinx_hls: Path | None = None
    include_dir: Path | None = None  # $XILINX_HLS/include: ap_int.h, hls_stream.h, hls_math.h

    def path(self, name: str) -> Path | None:
        """Where executable `name` is, or None."""
        return self.found.get(name)


def locate(executables: Iterable[Executable], environ: Mapping[str, str] | None = None) -> VitisTools | None:
    """The `executables` on PATH or under their install variables; None when none is found."""
    env = os.environ if environ is None else environ
    search_path = env.get("PATH", "")
    found: dict[str, Path] = {}
    for executable in executables:
        on_path = shutil.which(executable.name, path=search_path) if search_path else None
        if on_path:
            found[executable.name] = Path(on_path)
            continue
        for home in map(_existing_dir, (env.get(variable) for variable in executable.homes)):
            candidate = home / "bin" / executable.name if home else None
            if candidate and candidate.is_file() and os.access(candidate, os.X_OK):
                found[executable.name] = candidate
                break
    if not found:
        return None
    xilinx_hls = _existing_dir(env.get("XILINX_HLS"))
    vitis_hls = found.get("vitis_hls")
    if xilinx_hls is None and vitis_hls is not None and vitis_hls.parent.name == "bin":
        # <install>/bin/vitis_hls: the install root holds include/ even when XILINX_HLS is unset
        xilinx_hls = _existing_dir(str(vitis_hls.parent.parent))
    include_dir = _existing_dir(str(xilinx_hls / "include")) if xilinx_hls else None
    return VitisTools(found, xilinx_hls, include_dir)


def version_of(executable: Path, *, timeout: float = _VERSION_TIMEOUT) -> str | None:
    """ "2024.2" for a Vitis executable: from its install path, else from its `--version` output."""
    for text in (str(executable.resolve()), str(executable)):
        match = _VERSION.search(text)
        if match:
            return f"{match.group(1)}.{match.group(2)}"
    flag = "-version" if executable.name == "vitis_hls" else "--version"
    try:
        done = tool_processes.run([str(executable), flag], timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(done.stdout + done.stderr)
    return f"{match.group(1)}.{match.group(2)}" if match else None


def output_format_key(version: str | None) -> str:
    """The hls_config.cfg key of the export format: syn.output.format to 2024.2, then
    package.output.format (None, an unknown version, means the current spelling)."""
    if version is None:
        return "package.output.format"
    match = _VERSION.fullmatch(version)
    if match is None:
        raise ToolError(f"Vitis version {version!r}: expected YEAR.N such as 2024.2")
    since = (int(match.group(1)), int(match.group(2))) >= PACKAGE_FORMAT_SINCE
    return "package.output.format" if since else "syn.output.format"


def _existing_dir(text: str | None) -> Path | None:
    if not text:
        return None
    path = Path(text)
    return path if path.is_dir() else None
