"""hclbuild/templates/*.j2 rendered with jinja2: the files of an HLS project, CI pipelines.

The templates only loop and branch over data their callers prepared; a value a template names and
the caller did not give is an error (StrictUndefined), not an empty string.
"""

from __future__ import annotations

import contextlib
import io
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jinja2

from hclbuild.atomic import write_bytes_atomic

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """jinja2's cache of compiled templates, which writes each entry atomically. A cache is never a
    reason to fail: an entry it cannot read (damaged on disk) is compiled again, and one it cannot
    write (the folder removed or read-only since) is not kept."""

    def load_bytecode(self, bucket: Any) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:
            bucket.reset()

    def dump_bytecode(self, bucket: Any) -> None:
        # through hclbuild.atomic, not jinja2's own temporary (`<entry>.cache<random>.tmp`): that name
        # carries no pid, so a SIGKILLed build's half-written entry was left for good
        if not Path(self.directory).is_dir():
            return  # removed since: not made again (write_bytes_atomic makes missing folders)
        entry = io.BytesIO()
        bucket.write_bytecode(entry)
        with contextlib.suppress(OSError):
            write_bytes_atomic(self._get_cache_filename(bucket), entry.getvalue())


def keep_compiled_templates(folder: Path) -> None:
    """Keep the compiled templates in `folder` from now on in this process. Compiling them is about
    70 ms a process, the testbench's most, and every doit worker that emits a function pays it;
    loading them compiled is about 3 ms."""
    environment = _environment()
    cache = environment.bytecode_cache
    if isinstance(cache, _TemplateCache) and cache.directory == str(folder):
        return
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # a build folder that cannot hold the cache only costs the compile
    environment.bytecode_cache = _TemplateCache(str(folder))


@cache
def harness_text(name: str) -> str:
    """A file of the C simulation harness (templates/hclbuild_tb.*), copied as it is into every
    function folder: the same bytes everywhere, so that csim compiles it once per compiler and flags."""
    return (TEMPLATE_DIR / name).read_text(encoding="utf-8")


def render_template(name: str, **values: Any) -> str:
    """Render one template of hclbuild/templates with StrictUndefined (a missing value is a bug)."""
    return _environment().get_template(name).render(**values)
