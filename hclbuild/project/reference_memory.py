"""Whether a design's tensors fit in memory, checked before the reference run allocates any.

A design whose tensors outgrow the machine otherwise died in the middle of the reference run: a
MemoryError from numpy, or a child the kernel's OOM killer took (SIGKILL, no message), possibly
after minutes of other work. The estimate counts what the run holds at once:

    the top's arguments        twice (the arrays passed in and the copy kept as golden inputs),
                               plus one 8-byte-per-element temporary for the largest random input
    outlined functions' args   twice (the golden vectors before and after the first call)
    buffers                    every statically shaped memref.alloc/alloca of every function
                               (ir/manifest.json's "buffers", recorded by compile)

The limit is `[reference] memory_gb` when project.toml sets it, else the memory available now
(MemAvailable, and a cgroup's memory.max when the process runs in one).
"""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path

from hclbuild.errors import ConfigError
from hclbuild.project.manifest import DesignManifest

GB = 1e9
_SHOWN = 4  # tensors named in the message, largest first
_CGROUP = Path("/sys/fs/cgroup")


def check_reference_memory(name: str, manifest: DesignManifest, memory_gb: float | None = None) -> None:
    """ConfigError in one line when the reference run's tensors exceed the limit (see module doc)."""
    tensors: list[tuple[int, str]] = []  # (bytes held, description)
    total = 0
    largest_input = 0
    top = manifest.top
    for func in manifest.functions:
        for arg in manifest.signatures[func].args:
            if arg.is_scalar and func != top:
                continue  # a scalar of a call: a few bytes
            count = math.prod(arg.shape) if arg.shape else 1
            size = count * (arg.dtype.storage_bits // 8)
            total += 2 * size
            if func == top:
                largest_input = max(largest_input, 8 * count)
                tensors.append(
                    (size, f"{arg.name} {_shape(list(arg.shape))} {arg.dtype.name} {_amount(size)}")
                )
    for buffer in manifest.buffers:
        total += buffer.size
        tensors.append(
            (
                buffer.size,
                f"{buffer.name} {_shape(buffer.shape)} {_amount(buffer.size)} (in {buffer.function})",
            )
        )
    total += largest_input
    limit, source = _limit(memory_gb)
    if limit is None or total <= limit:
        return
    shown = [text for _, text in sorted(tensors, key=lambda item: -item[0])[:_SHOWN]]
    more = f", and {len(tensors) - _SHOWN} more" if len(tensors) > _SHOWN else ""
    hint = (
        "raise [reference] memory_gb or"
        if memory_gb is not None
        else "set [reference] memory_gb to allow more, or"
    )
    raise ConfigError(
        f"{name}: the reference run needs about {_amount(total)} for its tensors, more than the "
        f"{_amount(limit)} {source} ({', '.join(shown)}{more}); {hint} make the sizes smaller"
    )


def _limit(memory_gb: float | None) -> tuple[float | None, str]:
    if memory_gb is not None:
        return memory_gb * GB, "[reference] memory_gb allows"
    available = available_memory()
    return (available, "of memory available") if available is not None else (None, "")


def available_memory() -> int | None:
    """Bytes this process may still allocate: MemAvailable, or less when a cgroup limits it."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    try:
        limit, used = (
            (_CGROUP / "memory.max").read_text().strip(),
            (_CGROUP / "memory.current").read_text().strip(),
        )
        if limit != "max":
            found.append(max(0, int(limit) - int(used)))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def _shape(shape: list[int]) -> str:
    return "x".join(map(str, shape)) if shape else "scalar"


def _amount(size: float) -> str:
    for unit, scale in (("GB", GB), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{int(size)} B"
