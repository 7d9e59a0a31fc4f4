"""hcl.operation: HeteroCL's module of tensor operations (`from heterocl.operation import ...`,
`hcl.operation.copy(values)`)."""

from hclbuild.dsl.array import asarray
from hclbuild.dsl.context import init
from hclbuild.dsl.dataops import bitcast, cast_np, const_tensor, copy, pack, unpack
from hclbuild.dsl.operations import (
    cast,
    compute,
    max,
    min,
    mutate,
    placeholder,
    reduce_axis,
    reducer,
    scalar,
    select,
    sum,
    update,
)

__all__ = [
    "asarray",
    "bitcast",
    "cast",
    "cast_np",
    "compute",
    "const_tensor",
    "copy",
    "init",
    "max",
    "min",
    "mutate",
    "pack",
    "placeholder",
    "reduce_axis",
    "reducer",
    "scalar",
    "select",
    "sum",
    "unpack",
    "update",
]
