"""Every `#pragma HLS` line of every example project's generated files is spelled as UG1399's pragma
reference spells it for the project's Vitis release: the current form (2022.2 on,
`array_partition variable=x type=cyclic factor=2 dim=2`) by default, the positional partition type
(`variable=x cyclic factor=2 dim=2`) for a release before 2022.2."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from emitted_projects import PROJECTS, EmittedFunction, emit_projects

from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.emit_hls import pragma_syntax
from hclbuild.compiler.emit_hls.pragmas import partition_pragmas

_NAME = r"[A-Za-z_]\w*"
_INT = r"[0-9]+"


@dataclass(frozen=True)
class PragmaGrammar:
    """One pragma of UG1399: its options (key -> value pattern), the required ones, bare words."""

    options: dict[str, str]
    required: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()


_INTERFACE_MODES = (
    "ap_none|ap_vld|ap_ack|ap_hs|ap_ovld|ap_memory|bram|ap_fifo|axis|m_axi|s_axilite|"
    "ap_ctrl_none|ap_ctrl_hs|ap_ctrl_chain|ap_stable"
)
_COMMON = {
    "pipeline": PragmaGrammar({"II": _INT, "style": "stp|frp|flp"}, words=frozenset({"off", "rewind"})),
    "unroll": PragmaGrammar({"factor": _INT, "off": "true"}, words=frozenset({"skip_exit_check"})),
    "dataflow": PragmaGrammar({}, words=frozenset({"disable_start_propagation"})),
    "inline": PragmaGrammar({}, words=frozenset({"off", "recursive"})),
    "loop_tripcount": PragmaGrammar({"min": _INT, "max": _INT, "avg": _INT}),
    "stream": PragmaGrammar(
        {"variable": _NAME, "type": "fifo|pipo|shared|unsync", "depth": _INT}, frozenset({"variable"})
    ),
    "interface": PragmaGrammar(
        {
            "mode": _INTERFACE_MODES,
            "port": _NAME,
            "bundle": _NAME,
            "depth": _INT,
            "offset": "off|direct|slave",
            "latency": _INT,
            "max_widen_bitwidth": _INT,
            "name": _NAME,
            "storage_type": r"\w+",
        },
        frozenset({"mode", "port"}),
        frozenset({"register"}),
    ),
}
# UG1399 2022.2 on: `array_partition variable=<name> type=<type> factor=<int> dim=<int>`
CURRENT = {
    **_COMMON,
    "array_partition": PragmaGrammar(
        {"variable": _NAME, "type": "cyclic|block|complete", "factor": _INT, "dim": _INT},
        frozenset({"variable"}),
    ),
}
# UG1399 2020.2 to 2022.1: `array_partition variable=<name> <type> factor=<int> dim=<int>`
BEFORE_2022_2 = {
    **_COMMON,
    "array_partition": PragmaGrammar(
        {"variable": _NAME, "factor": _INT, "dim": _INT},
        frozenset({"variable"}),
        frozenset({"cyclic", "block", "complete"}),
    ),
}


def pragma_errors(text: str, grammar: dict[str, PragmaGrammar]) -> list[str]:
    """What is wrong with each `#pragma HLS` line of `text` under `grammar` (empty: all well spelled)."""
    errors = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped.startswith("#pragma HLS"):
            continue
        words = stripped.split()[2:]
        where = f"line {number} '{stripped}'"
        if not words or words[0] not in grammar:
            errors.append(f"{where}: unknown pragma")
            continue
        rule = grammar[words[0]]
        given: dict[str, str] = {}
        bare: list[str] = []
        for word in words[1:]:
            key, equals, value = word.partition("=")
            if not equals:
                bare.append(word)
            elif key not in rule.options:
                errors.append(f"{where}: no option {key}=")
            elif not re.fullmatch(rule.options[key], value):
                errors.append(f"{where}: {key}={value} is not {rule.options[key]}")
            elif key in given:
                errors.append(f"{where}: {key}= given twice")
            else:
                given[key] = value
        errors += [f"{where}: stray word {w!r}" for w in bare if w not in rule.words]
        errors += [f"{where}: {key}= missing" for key in sorted(rule.required - set(given))]
        if words[0] == "array_partition":
            errors += _partition_errors(where, given, [w for w in bare if w in rule.words])
    return errors


def _partition_errors(where: str, given: dict[str, str], type_words: list[str]) -> list[str]:
    """The type is named once; block and cyclic take a factor, complete takes none."""
    kinds = ([given["type"]] if "type" in given else []) + type_words
    if len(kinds) != 1:
        return [f"{where}: names {len(kinds)} partition types"]
    if (kinds[0] == "complete") == ("factor" in given):
        return [f"{where}: factor= {'given' if 'factor' in given else 'missing'} for type {kinds[0]}"]
    return []


# ---- the checker itself ------------------------------------------------------------------------


def test_the_checker_refuses_what_ug1399_does_not_spell() -> None:
    assert pragma_errors("#pragma HLS array_partition variable=A type=cyclic factor=2 dim=2", CURRENT) == []
    assert pragma_errors("#pragma HLS array_partition variable=A cyclic dim=2 factor=2", CURRENT) == [
        "line 1 '#pragma HLS array_partition variable=A cyclic dim=2 factor=2': stray word 'cyclic'",
        "line 1 '#pragma HLS array_partition variable=A cyclic dim=2 factor=2': names 0 partition types",
    ]
    assert pragma_errors("#pragma HLS array_partition variable=A type=complete factor=2", CURRENT) == [
        "line 1 '#pragma HLS array_partition variable=A type=complete factor=2': factor= given for type complete"
    ]
    assert pragma_errors("#pragma HLS array_partition variable=A type=cyclic factor=2", BEFORE_2022_2)
    assert pragma_errors("#pragma HLS pipelined II=1", CURRENT) == [
        "line 1 '#pragma HLS pipelined II=1': unknown pragma"
    ]
    assert pragma_errors("#pragma HLS interface port=A", CURRENT) == [
        "line 1 '#pragma HLS interface port=A': mode= missing"
    ]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (None, "#pragma HLS array_partition variable=A type=cyclic factor=2 dim=2"),
        ("2025.1", "#pragma HLS array_partition variable=A type=cyclic factor=2 dim=2"),
        ("2022.2", "#pragma HLS array_partition variable=A type=cyclic factor=2 dim=2"),
        ("2022.1", "#pragma HLS array_partition variable=A cyclic factor=2 dim=2"),
        ("2020.2", "#pragma HLS array_partition variable=A cyclic factor=2 dim=2"),
    ],
)
def test_the_partition_is_spelled_for_the_release(version: str | None, expected: str) -> None:
    partition = ArrayPartition("cyclic", 2, 2)
    assert partition_pragmas("A", [partition], 2, "@f", pragma_syntax(version)) == [expected]


def test_a_complete_partition_has_no_factor() -> None:
    assert partition_pragmas("W", [ArrayPartition("complete", 0, 0)], 2, "@f") == [
        "#pragma HLS array_partition variable=W type=complete dim=0"
    ]


# ---- every generated file of projects/ -----------------------------------------------------------


def _all_errors(emitted: list[EmittedFunction], grammar: dict[str, PragmaGrammar]) -> list[str]:
    errors = []
    for function in emitted:
        for name, text in function.files.items():
            errors += [
                f"{function.project}/{function.func} ({function.flow}) {name}: {e}"
                for e in pragma_errors(text, grammar)
            ]
    return errors


@pytest.mark.slow
@pytest.mark.parametrize("flow", ["vivado", "vitis"])
def test_every_pragma_of_every_project_is_spelled_as_ug1399_spells_it(flow: str, tmp_path: Path) -> None:
    emitted = emit_projects(tmp_path, flow=flow)
    assert {f.project for f in emitted} == {p.name for p in PROJECTS}
    pragmas = sum(f.cpp.count("#pragma HLS array_partition") for f in emitted)
    assert pragmas > 20  # the check reads real partitions, not an empty suite
    assert _all_errors(emitted, CURRENT) == []


@pytest.mark.slow
def test_a_release_before_2022_2_gets_the_positional_partition_type(tmp_path: Path) -> None:
    emitted = emit_projects(tmp_path, vitis_version="2022.1")
    assert _all_errors(emitted, BEFORE_2022_2) == []
    assert _all_errors(emitted, CURRENT)  # the same files are not the current spelling
