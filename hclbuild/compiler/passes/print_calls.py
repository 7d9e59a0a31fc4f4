"""Give every hcl.print declaration (docs/IR.md, "Calls") a body that calls printf and fflush, for
the LLVM lowering: `@hcl_print_<k>(args)` prints its format (a constant global string) with its
arguments, whose types the DSL already made the C types the format reads. Output is flushed at once,
so it interleaves with the host's own output in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func, llvm

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream

_PRINTF = "printf"
_FFLUSH = "fflush"


def print_declarations(module: ir.Module) -> list[ir.Operation]:
    """The func.func declarations that carry hcl.print."""
    return [
        op.operation
        for op in module.body.operations
        if op.operation.name == "func.func"
        and attrs.print_format(op) is not None
        and not len(op.operation.regions[0].blocks)
    ]


def define_print_functions(module: ir.Module) -> None:
    """Bodies for the hcl.print declarations, plus the libc declarations they call."""
    declarations = print_declarations(module)
    if not declarations:
        return
    ptr = ir.Type.parse("!llvm.ptr")
    i32 = ir.IntegerType.get_signless(32)
    printf_type = ir.Type.parse("!llvm.func<i32 (ptr, ...)>")
    with ir.InsertionPoint.at_block_begin(module.body):
        llvm.LLVMFuncOp(_PRINTF, ir.TypeAttr.get(printf_type))
        llvm.LLVMFuncOp(_FFLUSH, ir.TypeAttr.get(ir.Type.parse("!llvm.func<i32 (ptr)>")))
    for op in declarations:
        name = upstream.symbol_name(op)
        fmt = attrs.print_format(op)
        if fmt is None:  # print_declarations returns only the functions that carry one
            continue
        text = fmt + "\0"
        data = text.encode()
        with ir.InsertionPoint(op):
            llvm.GlobalOp(
                ir.Type.parse(f"!llvm.array<{len(data)} x i8>"),
                f"{name}_format",
                ir.Attribute.parse("#llvm.linkage<internal>"),
                constant=True,
                value=ir.StringAttr.get(text),
            )
        function_type = upstream.function_type(op)
        block = op.regions[0].blocks.append(*function_type.inputs)
        with ir.InsertionPoint(block):
            address = llvm.AddressOfOp(ptr, f"{name}_format").result
            llvm.CallOp(
                i32,
                [address, *block.arguments],
                [],
                [],
                var_callee_type=ir.TypeAttr.get(printf_type),
                callee=ir.FlatSymbolRefAttr.get(_PRINTF),
            )
            llvm.CallOp(i32, [llvm.ZeroOp(ptr).result], [], [], callee=ir.FlatSymbolRefAttr.get(_FFLUSH))
            func.ReturnOp([])


@dataclass(frozen=True)
class DefinePrintFunctionsPass:
    """Pass form of `define_print_functions` (run by to_llvm on its copy of the module)."""

    name: ClassVar[str] = "define_print_functions"

    def run(self, module: ir.Module) -> None:
        define_print_functions(module)
