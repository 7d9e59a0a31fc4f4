"""hcl.operation: HeteroCL's module of tensor operations (`from heterocl.operation import ...`)."""

from hclbuild.dsl.array import asarray
from hclbuild.dsl.context import init
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
    "cast",
    "compute",
    "init",
    "max",
    "min",
    "mutate",
    "placeholder",
    "reduce_axis",
    "reducer",
    "scalar",
    "select",
    "sum",
    "update",
]
