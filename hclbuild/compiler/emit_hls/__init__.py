"""IR-contract MLIR (docs/IR.md) -> Vitis HLS C++: one C++ function per func.func.

Integer semantics. MLIR integers are signless and wrap at their width; C++ promotes small types to
int and signed overflow is undefined. So every SSA value becomes a local declared with the C type
of its width and of the signedness it got from memory (the declaration truncates); sign-specific
ops view their operands through casts to the signed/unsigned type of that width; add/sub/mul/shl
on standard widths that could overflow `int` are computed in uint32_t/uint64_t. The generated code
therefore needs no -fwrapv. It assumes two's complement conversions to signed types (GCC/Clang,
and C++20). Shift amounts of standard widths are masked to the promoted width, which keeps C
defined where MLIR has poison (shift by >= width); ap_int shifts are defined for any amount.

Other conventions:
- `index` values and loop variables are `int` (HLS designs never index beyond 2**31).
- Fixed-point memory, scalar arguments and results are ap_fixed/ap_ufixed. Fixed-point SSA values
  are ap_fixed expressions where the ap_fixed operation gives the IR's bits (fixed_plan.py, from the
  builder's hcl.fixed marks): `acc = acc + x[i] * h[i];`. Elsewhere (bit slices, variable shifts,
  conversions with quantization/overflow modes, loop-carried values) they are raw bits, read with
  `.range(w - 1, 0)` and put back whole through an ap_fixed local (a part-select assignment to an
  array element is a read-modify-write of it in HLS), with a `// raw bits: why` comment.
- Integer constants are inlined as literals spelled for the signed/unsigned view their use needs;
  constants wider than 64 bits become locals built from 64-bit halves.
- Side-effect-free ops whose results are unused are not emitted (no -Wunused-variable).
- scf.for is `for (i = lo; i < hi; i += step)` whatever the sign of the step, which is how MLIR
  defines it (and lowers it to LLVM): a negative step with lo > hi runs zero times.
- Remainders wider than 64 bits are a - (a / b) * b: the ap_types `%` is wrong for some values.
"""

from hclbuild.compiler.emit_hls.assembly import c_signature, emit_function_files, emit_module
from hclbuild.compiler.emit_hls.c_types import CArg, CSignature
from hclbuild.compiler.emit_hls.interfaces import (
    ArgInterface,
    FunctionInterfaces,
    blackbox_interfaces,
    default_interfaces,
    override_interfaces,
)
from hclbuild.compiler.emit_hls.pragmas import PragmaSyntax, pragma_syntax

__all__ = [
    "ArgInterface",
    "CArg",
    "CSignature",
    "FunctionInterfaces",
    "PragmaSyntax",
    "blackbox_interfaces",
    "c_signature",
    "default_interfaces",
    "emit_function_files",
    "emit_module",
    "override_interfaces",
    "pragma_syntax",
]
