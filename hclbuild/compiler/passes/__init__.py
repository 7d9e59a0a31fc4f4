"""MLIR passes of hclbuild, one per module: outline, verify, instrument, split_functions."""

from hclbuild.compiler.passes.instrument import InstrumentPass, ProbeSite, instrument_calls
from hclbuild.compiler.passes.outline import OutlinePass, outline_stages
from hclbuild.compiler.passes.split_functions import SplitFunctionsPass, function_modules
from hclbuild.compiler.passes.verify import VerifyPass, verify_module

__all__ = [
    "InstrumentPass",
    "OutlinePass",
    "ProbeSite",
    "SplitFunctionsPass",
    "VerifyPass",
    "function_modules",
    "instrument_calls",
    "outline_stages",
    "verify_module",
]
