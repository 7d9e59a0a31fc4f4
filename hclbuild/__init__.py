"""hclbuild: a HeteroCL-compatible DSL compiled through MLIR into per-function Vitis HLS projects.

`import hclbuild as hcl` gives HeteroCL's public surface; nothing here imports MLIR until a
schedule is lowered or built.
"""

from hclbuild.api import build, lower
from hclbuild.dsl.array import Array, asarray
from hclbuild.dsl.context import init
from hclbuild.dsl.dataops import bitcast, cast_np, const_tensor, copy, pack, unpack
from hclbuild.dsl.functions import def_
from hclbuild.dsl.imperative import break_, elif_, else_, for_, if_, return_, while_
from hclbuild.dsl.printing import print_ as print  # noqa: A004 - HeteroCL's name
from hclbuild.dsl.operations import (
    abs,
    and_,
    cast,
    compute,
    cos,
    exp,
    log,
    log2,
    log10,
    max,
    min,
    mutate,
    not_,
    or_,
    placeholder,
    power,
    reduce_axis,
    reducer,
    scalar,
    select,
    sin,
    sqrt,
    sum,
    tan,
    tanh,
    update,
)
from hclbuild.dsl.types import (
    Fixed,
    Float,
    Index,
    Int,
    Struct,
    UFixed,
    UInt,
    get_bitwidth,
    get_fractional_bitwidth,
)
from hclbuild.errors import (
    APIError,
    CompileError,
    ConfigError,
    DTypeError,
    HCLError,
    HCLNotImplementedError,
    MLIRLimitationError,
    ToolError,
)
from hclbuild.schedule.schedule import Partition, Schedule, Stage, StageFunction, create_schedule

from hclbuild.platform import Platform
from hclbuild.schedule.scheme import Scheme, create_schedule_from_scheme, create_scheme
from hclbuild.compiler.loop_nests import get_affine_loop_nests
from hclbuild import operation, report  # noqa: E402  HeteroCL users import from these modules

customize = create_schedule  # HeteroCL's other name

__version__ = "0.1.0"

__all__ = [
    "APIError", "Array", "CompileError", "ConfigError", "DTypeError", "Fixed", "Float", "HCLError",
    "HCLNotImplementedError", "Int", "MLIRLimitationError", "Partition", "Schedule", "Stage",
    "StageFunction", "ToolError", "UFixed", "UInt", "abs", "and_", "asarray", "bitcast", "break_", "build",
    "cast", "cast_np", "const_tensor", "copy",
    "compute", "cos", "create_schedule", "def_", "elif_", "else_", "exp", "for_", "get_bitwidth",
    "get_fractional_bitwidth", "if_", "Index", "init", "log",
    "log10", "log2", "lower", "max", "min", "mutate", "not_", "or_", "pack", "placeholder", "power", "print",
    "reduce_axis", "reducer", "return_", "scalar", "select", "sin", "sqrt", "Struct", "sum", "tan", "tanh",
    "unpack", "update", "while_",
]
__all__ += [
    "Platform", "Scheme", "create_schedule_from_scheme", "create_scheme", "customize",
    "get_affine_loop_nests", "operation", "report",
]
