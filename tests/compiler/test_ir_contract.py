"""The IR contract: hclbuild.compiler.attrs names every attribute, nothing else touches them, the
docs list them, and they read back as the records they were written from."""

from __future__ import annotations

import io
import itertools
import re
import tokenize
from pathlib import Path

import pytest
from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.context import new_context
from hclbuild.errors import CompileError
from hclbuild.schedule.directives import LoopDirectives

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "hclbuild"
# the two modules allowed to touch op attributes
ATTRIBUTE_MODULES = {PACKAGE / "compiler" / "attrs.py", PACKAGE / "compiler" / "upstream_attrs.py"}


def _tokens(path: Path) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p not in ATTRIBUTE_MODULES)


# ---- one place names the attributes -------------------------------------------------------------


def test_every_attribute_is_hcl_prefixed_and_named_once() -> None:
    names = [spec.name for spec in attrs.ATTRIBUTES]
    assert len(names) == len(set(names))
    assert all(name.startswith(attrs.PREFIX) for name in names)


def test_no_module_but_the_attribute_modules_touches_op_attributes() -> None:
    found = []
    for path in _sources():
        tokens = _tokens(path)
        for before, token in itertools.pairwise(tokens):
            if token.type == tokenize.NAME and token.string == "attributes" and before.string == ".":
                found.append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert found == []


def test_no_module_but_attrs_spells_an_attribute_name() -> None:
    contract = {spec.name for spec in attrs.ATTRIBUTES}
    found = []
    for path in _sources():
        for token in _tokens(path):
            if token.type == tokenize.STRING and token.string[0] in "\"'":
                value = token.string.strip("\"'")
                if value in contract:
                    found.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {token.string}")
    assert found == []


def test_the_docs_attribute_table_is_the_generated_one() -> None:
    text = (ROOT / "docs" / "IR.md").read_text(encoding="utf-8")
    assert attrs.markdown_table() in text
    # every hcl.<name> the contract's prose mentions as an attribute is one
    mentioned = set(re.findall(r"`(hcl\.\w+)(?: = [^`]*)?`", text))
    dsl_calls = {"hcl.build", "hcl.const_tensor", "hcl.scalar", "hcl.for_", "hcl.while_"}
    assert mentioned - dsl_calls <= {spec.name for spec in attrs.ATTRIBUTES}


# ---- typed reads and writes ---------------------------------------------------------------------


def _loop() -> tuple[ir.Module, ir.Operation]:
    context = new_context()
    module = ir.Module.parse("func.func @f() { affine.for %i = 0 to 4 { } return }", context)
    loop = module.body.operations[0].regions[0].blocks[0].operations[0].operation
    return module, loop


def test_loop_directives_round_trip() -> None:
    _, loop = _loop()
    assert attrs.loop_directives(loop) == LoopDirectives()
    wanted = LoopDirectives(pipeline_ii=2, unroll=0, parallel=True, dataflow=True)
    attrs.set_loop_directives(loop, wanted)
    assert attrs.loop_directives(loop) == wanted
    assert "hcl.pipeline_ii = 2 : i32" in str(loop) and "hcl.unroll = 0 : i32" in str(loop)
    attrs.set_loop_directives(loop, LoopDirectives(unroll=4))
    assert attrs.loop_directives(loop) == LoopDirectives(unroll=4)
    assert "pipeline_ii" not in str(loop) and "parallel" not in str(loop)


def test_partitions_and_stream_ports_are_records_in_code_and_strings_in_the_ir() -> None:
    module, loop = _loop()
    func = module.body.operations[0]
    parts = [[attrs.ArrayPartition("cyclic", 1, 4), attrs.ArrayPartition("complete", 0)], []]
    attrs.set_arg_partitions(func, parts)
    assert 'hcl.arg_partitions = [["cyclic:1:4", "complete:0:0"], []]' in str(func)
    assert attrs.arg_partitions(func) == parts
    attrs.set_arg_streams(func, [attrs.StreamPort("read", 4), None])
    assert 'hcl.arg_streams = ["read:4", ""]' in str(func)
    assert attrs.arg_streams(func) == [attrs.StreamPort("read", 4), None]
    attrs.set_outline_axis(func, attrs.AxisSite("C", "j.outer"))
    assert attrs.outline_axis(func) == attrs.AxisSite("C", "j.outer")
    attrs.set_outlined_stages(func, ["a", "b"])
    assert attrs.outlined_stages(func) == ["a", "b"]
    assert upstream.symbol_name(func) == "f" and attrs.loop_name(loop) is None


@pytest.mark.parametrize(
    "text",
    ["cyclic:1", "ring:1:2", "block:x:2", "complete:1:-1"],
)
def test_a_malformed_partition_is_a_compile_error_naming_it(text: str) -> None:
    with pytest.raises(CompileError, match=re.escape(f"malformed partition '{text}'")):
        attrs.parse_partition(text, "@f: A")
