"""The one JIT of hclbuild: run LLVM IR text from hclbuild.compiler.to_llvm with llvmlite (no MLIR here).

Calling convention. `to_llvm` gives every public function `_mlir_ciface_<name>`, which takes a
pointer to an MLIR ranked memref descriptor per memref argument and scalars by value. JITModule
adds one wrapper `__hcl_call_<name>(ptr argv)` per such function: argv[k] points at argument k
(the descriptor, or the scalar's bytes) and argv[n] at the result's bytes. So every scalar type
(i1, i33, i128, f32...) crosses the ctypes boundary as memory, never as a C argument.

Buffers. Arguments are used in place: outputs land in the caller's numpy array or Array.storage.
Arrays must be C-contiguous and writable (an APIError says so otherwise): they are not copied,
except a view that is not aligned to its element size, which goes through an aligned scratch
copy that is written back after the call.
Integer buffers hold raw bits in containers (hclbuild.dsl.types). The generated code assumes
odd-width inputs are zero-extended, so before a call the container bits above the width are
cleared; after it, an Array's storage is masked again and a plain numpy array of an odd-width
int type is rewritten as numbers (sign-extended for signed types).

Probes. IR built for golden-vector capture calls `hcl_probe`; runtime.jit_probes hands them to
the handler of the call (`JITModule(probe=...)` or `with jit.probing(handler):`). `read_buffer`
copies a probed buffer out.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import numpy as np

from hclbuild.code_units import unresolved
from hclbuild.dsl.array import Array
from hclbuild.dsl.storage import from_storage, to_storage
from hclbuild.dsl.types import DType
from hclbuild.errors import APIError, CompileError
from hclbuild.probes import PROBE_FUNCTION
from hclbuild.runtime.jit_probes import ProbeHandler, bind_forward_symbol, call_with_probes
from hclbuild.runtime.llvm_objects import CodeUnit, _one_line, compile_objects
from hclbuild.runtime.stream_events import RECORDER_IR, EventRecord, recorder_unit
from hclbuild.schedule.signature import ArgSpec, FunctionSignature

CIFACE_PREFIX = "_mlir_ciface_"
WRAPPER_PREFIX = "__hcl_call_"

_LOCK = threading.RLock()
_LLVM_READY = False
# sha256 of (opt level, IR text) -> compiled engine; engines live as long as the process
_CACHE: dict[str, _Compiled] = {}


# ---- LLVM set-up -------------------------------------------------------------------------


def _ensure_llvm() -> None:
    """Initialise the native target once and make compiler-rt helpers resolvable."""
    global _LLVM_READY
    if _LLVM_READY:
        return
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    # i128 division and i128<->float conversions become calls to __divti3, __floattidf...,
    # which live in libgcc_s; the Python binary does not necessarily export them
    libgcc = ctypes.util.find_library("gcc_s")
    if libgcc:
        with suppress(RuntimeError):
            llvm.load_library_permanently(libgcc)
    _LLVM_READY = True


def _host_cpu() -> tuple[str, str]:
    """The host CPU name and features (object caches are keyed by them, so host code is safe)."""
    try:
        return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    except RuntimeError:
        return "", ""


def _target_machine(opt_level: int) -> llvm.TargetMachine:
    """A target machine for the host CPU at code generation level opt_level."""
    cpu, features = _host_cpu()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=cpu, features=features, opt=opt_level, codemodel="jitdefault")


# ---- probed buffers ------------------------------------------------------------------------


def read_buffer(ptr: int, dtype: DType, shape: tuple[int, ...]) -> np.ndarray:
    """Copy prod(shape) containers of raw bits (dtype.np_storage) from address `ptr`."""
    shape = tuple(int(dim) for dim in shape)
    count = math.prod(shape)
    store = dtype.np_storage
    if count == 0:
        return np.zeros(shape, dtype=store)
    if not ptr:
        raise APIError(f"read_buffer: null pointer for {count} {dtype.name} elements")
    # one copy, straight out of the native buffer (string_at would make a second)
    raw = (ctypes.c_uint8 * (count * store.itemsize)).from_address(ptr)
    return np.ctypeslib.as_array(raw).view(store).reshape(shape).copy()


# ---- compilation -------------------------------------------------------------------------


@dataclass
class _EntryPoint:
    """A `_mlir_ciface_` function as compiled: LLVM parameter and result types, wrapper address."""

    name: str
    params: list[str]
    ret: str
    address: int = 0


@dataclass
class _Compiled:
    """One compiled module; the engine must stay referenced for its code to stay mapped."""

    engine: llvm.ExecutionEngine
    entries: dict[str, _EntryPoint]
    events: EventRecord | None  # the stream record of an engine whose IR has probes

    @property
    def has_probe(self) -> bool:
        return self.events is not None


def _compile(units: list[CodeUnit], opt_level: int, cache_dir: Path | None = None) -> _Compiled:
    """Compile unit by unit (hclbuild.runtime.llvm_objects) and load every object in one engine."""
    _ensure_llvm()
    units = list(units)
    entries = _entry_points(units)
    if entries:
        names = tuple(WRAPPER_PREFIX + name for name in entries)
        externals = tuple(CIFACE_PREFIX + name for name in entries)
        units.append(CodeUnit("<wrappers>", _wrapper_ir(entries.values()), True, names, externals))
    has_probe = PROBE_FUNCTION in unresolved(units)
    if has_probe:
        bind_forward_symbol()
        units.append(recorder_unit(RECORDER_IR))
    external = {name for name in unresolved(units) if not name.startswith("llvm.")}
    machines = {level: _target_machine(level) for level in {0, opt_level}}
    cpu, features = _host_cpu()
    objects, _ = compile_objects(units, opt_level, machines, cpu, features, cache_dir)
    try:
        # the engine's own module is empty: all code comes from the objects
        empty = llvm.parse_assembly("")
        empty.triple = machines[opt_level].triple
        engine = llvm.create_mcjit_compiler(empty, machines[opt_level])
        for data in objects:
            engine.add_object_file(llvm.ObjectFileRef.from_data(data))
        engine.finalize_object()
    except RuntimeError as err:
        raise CompileError(_one_line("LLVM JIT compilation failed", err)) from None
    # after the engine exists: creating it is what makes the process' own symbols searchable
    _check_external_symbols(external)
    for entry in entries.values():
        entry.address = engine.get_function_address(WRAPPER_PREFIX + entry.name)
        if not entry.address:
            raise CompileError(f"LLVM JIT: no code for {WRAPPER_PREFIX}{entry.name}")
    return _Compiled(engine, entries, EventRecord(engine) if has_probe else None)


def _entry_points(units: list[CodeUnit]) -> dict[str, _EntryPoint]:
    """The `_mlir_ciface_` functions with their LLVM parameter and result types (parsing only their units)."""
    entries: dict[str, _EntryPoint] = {}
    for unit in units:
        if not unit.entry:
            continue
        try:
            module = llvm.parse_assembly(unit.text)
            module.verify()
        except RuntimeError as err:
            raise CompileError(_one_line("LLVM IR does not parse or verify", err) + f"\n{err}") from None
        for function in module.functions:
            if function.name.startswith(CIFACE_PREFIX) and not function.is_declaration:
                fn_type = function.global_value_type
                name = function.name[len(CIFACE_PREFIX) :]
                entries[name] = _EntryPoint(
                    name,
                    [str(param) for param in fn_type.get_function_parameters()],
                    str(fn_type.get_function_return()),
                )
    return entries


def unit_of_text(text: str) -> CodeUnit:
    """One LLVM IR module text as a single code unit, what it defines and declares read by LLVM's parser."""
    _ensure_llvm()
    try:
        module = llvm.parse_assembly(text)
        module.verify()
    except RuntimeError as err:
        raise CompileError(_one_line("LLVM IR does not parse or verify", err) + f"\n{err}") from None
    functions = list(module.functions)
    defined = tuple(f.name for f in functions if not f.is_declaration)
    return CodeUnit(
        "<module>",
        text,
        light=False,
        defines=defined,
        externals=tuple(f.name for f in functions if f.is_declaration),
        entry=any(name.startswith(CIFACE_PREFIX) for name in defined),
    )


def _check_external_symbols(names: set[str]) -> None:
    """Every declared function must exist in the process (libm, libc...) or be an LLVM intrinsic.

    MCJIT would otherwise leave a null address behind and the first call would crash.
    """
    missing = [name for name in names if not llvm.address_of_symbol(name)]
    if missing:
        raise CompileError(f"LLVM JIT: unresolved external symbols: {', '.join(sorted(missing))}")


def _wrapper_ir(entries: Any) -> str:
    """LLVM IR of `__hcl_call_<name>(ptr argv)`: load each argument from argv[k], call, store result."""
    lines: list[str] = []
    for entry in entries:
        params = ", ".join(entry.params)
        lines.append(f"declare {entry.ret} @{CIFACE_PREFIX}{entry.name}({params})")
        lines.append(f"define void @{WRAPPER_PREFIX}{entry.name}(ptr %argv) {{")
        call_args = []
        for k, param in enumerate(entry.params):
            lines.append(f"  %slot{k} = getelementptr ptr, ptr %argv, i64 {k}")
            lines.append(f"  %ptr{k} = load ptr, ptr %slot{k}")
            if param == "ptr":
                call_args.append(f"ptr %ptr{k}")
            else:
                # our buffers are only byte-aligned for the value's container
                lines.append(f"  %val{k} = load {param}, ptr %ptr{k}, align 1")
                call_args.append(f"{param} %val{k}")
        call = f"call {entry.ret} @{CIFACE_PREFIX}{entry.name}({', '.join(call_args)})"
        if entry.ret == "void":
            lines.append(f"  {call}")
        else:
            n = len(entry.params)
            lines.append(f"  %result = {call}")
            lines.append(f"  %slot{n} = getelementptr ptr, ptr %argv, i64 {n}")
            lines.append(f"  %ptr{n} = load ptr, ptr %slot{n}")
            lines.append(f"  store {entry.ret} %result, ptr %ptr{n}, align 1")
        lines.append("  ret void")
        lines.append("}")
    return "\n".join(lines) + "\n"


# ---- the public API ----------------------------------------------------------------------


class JITModule:
    """LLVM code units (hclbuild.compiler.to_llvm.lower_to_llvm_units), or one LLVM IR module text,
    compiled with llvmlite (O0-O3, MCJIT), one object per unit.

    Engines are cached per process by the units' hash; objects per unit by its text, and on disk in
    `cache_dir` when one is given (hclbuild.runtime.llvm_objects).
    """

    def __init__(
        self,
        code: str | Sequence[CodeUnit],
        probe: ProbeHandler | None = None,
        opt_level: int = 3,
        cache_dir: str | Path | None = None,
    ):
        if not isinstance(code, str) and not (
            isinstance(code, Sequence) and all(isinstance(unit, CodeUnit) for unit in code)
        ):
            raise APIError(f"JITModule: expected LLVM IR text or code units, got {type(code).__name__}")
        if opt_level not in (0, 1, 2, 3):
            raise APIError(f"JITModule: opt_level must be 0..3, got {opt_level!r}")
        units = [unit_of_text(code)] if isinstance(code, str) else list(code)
        digest = hashlib.sha256(f"{opt_level}\n".encode())
        for unit in units:
            digest.update(f"{unit.name}\n{len(unit.text)}\n{unit.text}".encode())
        key = digest.hexdigest()
        with _LOCK:
            compiled = _CACHE.get(key)
            if compiled is None:
                compiled = _compile(units, opt_level, None if cache_dir is None else Path(cache_dir))
                _CACHE[key] = compiled
        self._compiled = compiled
        self.ir_hash = key
        self.probe: ProbeHandler | None = probe

    @property
    def function_names(self) -> list[str]:
        """Names of the callable (public) functions."""
        return sorted(self._compiled.entries)

    @property
    def has_probe(self) -> bool:
        """Whether the IR calls hcl_probe."""
        return self._compiled.has_probe

    @contextmanager
    def probing(self, handler: ProbeHandler) -> Iterator[None]:
        """Within the block, calls of this module's functions report probes to `handler`."""
        previous, self.probe = self.probe, handler
        try:
            yield
        finally:
            self.probe = previous

    def function(self, signature: FunctionSignature) -> JITFunction:
        """A Python callable for `signature.name`, checking arguments against `signature`."""
        if not isinstance(signature, FunctionSignature):
            raise APIError(
                f"JITModule.function: expected a FunctionSignature, got {type(signature).__name__}"
            )
        entry = self._compiled.entries.get(signature.name)
        if entry is None:
            available = ", ".join(self.function_names) or "none"
            raise APIError(
                f"JITModule.function: no public function '{signature.name}' (available: {available})"
            )
        _check_entry(signature, entry)
        return JITFunction(self, signature, entry)


def _llvm_type(dtype: DType) -> str:
    if dtype.is_float:
        return {16: "half", 32: "float", 64: "double"}[dtype.bits]
    return f"i{dtype.bits}"


def _check_entry(signature: FunctionSignature, entry: _EntryPoint) -> None:
    """The signature must describe the compiled function: arity, memref vs scalar, scalar types."""
    name = signature.name
    if len(entry.params) != len(signature.args):
        raise CompileError(
            f"@{name}: the signature has {len(signature.args)} arguments,"
            f" the compiled function {len(entry.params)}"
        )
    for spec, param in zip(signature.args, entry.params):
        if param == "ptr":
            continue
        if not spec.is_scalar or param != _llvm_type(spec.dtype):
            raise CompileError(
                f"@{name}: argument '{spec.name}' ({spec.dtype.name}{list(spec.shape)}) is {param} in LLVM IR"
            )
    if (signature.ret is None) != (entry.ret == "void"):
        raise CompileError(
            f"@{name}: the signature returns {signature.ret}, the compiled function {entry.ret}"
        )
    if signature.ret is not None and entry.ret != _llvm_type(signature.ret):
        raise CompileError(f"@{name}: returns {entry.ret} in LLVM IR, not {signature.ret.name}")


class _MemRefDescriptorBase(ctypes.Structure):
    """Ranked memref descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}."""


_DESCRIPTOR_TYPES: dict[int, type[ctypes.Structure]] = {}


def _descriptor_type(rank: int) -> type[ctypes.Structure]:
    with _LOCK:
        if rank not in _DESCRIPTOR_TYPES:
            fields: list[tuple[str, Any]] = [
                ("allocated", ctypes.c_void_p),
                ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64),
            ]
            if rank:  # a rank-0 descriptor has no size or stride arrays
                fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
            _DESCRIPTOR_TYPES[rank] = type(
                f"MemRefDescriptor{rank}", (_MemRefDescriptorBase,), {"_fields_": fields}
            )
        return _DESCRIPTOR_TYPES[rank]


def _descriptor(buffer: np.ndarray) -> ctypes.Structure:
    """A descriptor of a C-contiguous buffer (strides in elements)."""
    descriptor = _descriptor_type(buffer.ndim)()
    address = buffer.ctypes.data
    descriptor.allocated = address
    descriptor.aligned = address
    descriptor.offset = 0
    stride = 1
    for axis in reversed(range(buffer.ndim)):
        descriptor.sizes[axis] = buffer.shape[axis]
        descriptor.strides[axis] = stride
        stride *= buffer.shape[axis]
    return descriptor


def _mask_in_place(storage: np.ndarray, dtype: DType) -> None:
    """Clear container bits above the width (the zero-extended form the generated code expects)."""
    if storage.dtype == np.bool_ or dtype.bits == dtype.storage_bits or storage.size == 0:
        return
    if dtype.words:
        words = storage.reshape(-1).view(np.uint64).reshape(-1, dtype.words)
        full, rest = divmod(dtype.bits, 64)
        if rest:
            words[:, full] &= np.uint64((1 << rest) - 1)
        words[:, full + (1 if rest else 0) :] = 0
        return
    unsigned = storage.view(np.dtype(f"u{storage.dtype.itemsize}"))
    unsigned &= unsigned.dtype.type((1 << dtype.bits) - 1)


def _to_numbers_in_place(storage: np.ndarray, dtype: DType) -> None:
    """Rewrite odd-width raw bits as numbers: masked (unsigned) or sign-extended (signed)."""
    _mask_in_place(storage, dtype)
    if (
        storage.dtype == np.bool_
        or not dtype.is_signed
        or dtype.bits == dtype.storage_bits
        or storage.size == 0
    ):
        return
    if dtype.words:
        # sign-extend the top bit of the width through the rest of the container
        words = storage.reshape(-1).view(np.int64).reshape(-1, dtype.words)
        full, rest = divmod(dtype.bits - 1, 64)
        shift = np.int64(63 - rest)
        words[:, full] = (words[:, full] << shift) >> shift
        words[:, full + 1 :] = (words[:, full] >> np.int64(63))[:, None]
        return
    unused = 64 - dtype.bits
    signed = (storage.astype(np.int64) << np.int64(unused)) >> np.int64(unused)
    storage[...] = signed.astype(storage.dtype)


def _aligned_copy(buffer: np.ndarray, alignment: int) -> np.ndarray:
    raw = np.empty(buffer.nbytes + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    copy = raw[start : start + buffer.nbytes].view(buffer.dtype).reshape(buffer.shape)
    copy[...] = buffer
    return copy


@dataclass
class _BoundArg:
    """One argument ready for native code: the bytes argv points at, and what to do afterwards."""

    pointer: int
    keep: Any
    after: Callable[[], None] | None = None


class JITFunction:
    """A compiled function called with one value per ArgSpec; memref outputs are written in place."""

    def __init__(self, jit: JITModule, signature: FunctionSignature, entry: _EntryPoint):
        self.jit = jit
        self.signature = signature
        self._entry = entry
        self._native = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(entry.address)
        self.__name__ = signature.name

    def __repr__(self) -> str:
        args = ", ".join(
            f"{a.name}: {a.dtype.name}{list(a.shape) if not a.is_scalar else ''}" for a in self.signature.args
        )
        return f"<JITFunction {self.signature.name}({args})>"

    def __call__(self, *args: Any) -> Any:
        """Run the function; returns its scalar result (Python int/float) or None."""
        signature = self.signature
        if len(args) != len(signature.args):
            names = ", ".join(signature.arg_names)
            raise APIError(
                f"{signature.name}: expected {len(signature.args)} arguments ({names}), got {len(args)}"
            )
        # check everything before touching any buffer, so a bad argument changes nothing
        checked = [
            self._check(spec, param, value)
            for spec, param, value in zip(signature.args, self._entry.params, args)
        ]
        bound = [self._bind(spec, param, value) for (spec, param, value) in checked]
        result = None
        slots = [b.pointer for b in bound]
        if signature.ret is not None:
            result = np.zeros((), dtype=signature.ret.np_storage)
            slots.append(result.ctypes.data)
        argv = (ctypes.c_void_p * max(len(slots), 1))(*slots)
        probe_error = call_with_probes(
            lambda: self._native(ctypes.addressof(argv)), self.jit.probe, self.jit._compiled.events
        )
        for b in bound:
            if b.after is not None:
                b.after()
        if probe_error is not None:
            raise probe_error
        if result is None or signature.ret is None:
            return None
        return from_storage(result, signature.ret).item()

    # ---- per-argument checks and conversions ------------------------------------------------

    def _check(self, spec: ArgSpec, param: str, value: Any) -> tuple[ArgSpec, str, Any]:
        where = f"{self.signature.name}: argument '{spec.name}'"
        if param != "ptr":
            return spec, param, self._scalar_storage(spec, value, where)
        dtype = spec.dtype
        if isinstance(value, Array):
            # by name: a Struct Array holds the packed uint<bits> the IR spells
            if value.dtype.name != dtype.name:
                raise APIError(f"{where} has dtype {value.dtype.name}, expected {dtype.name}")
            storage = value.storage
            if not isinstance(storage, np.ndarray) or storage.dtype.itemsize * 8 != dtype.storage_bits:
                raise APIError(f"{where}: the Array's storage is not {dtype.np_storage} containers")
        elif isinstance(value, np.ndarray):
            if dtype.is_fixed:
                raise APIError(
                    f"{where} is {dtype.name}: pass hcl.asarray(values, dtype='{dtype.name}'),"
                    " not a numpy array"
                )
            storage = value
            bool_ok = dtype.bits == 1 and storage.dtype == np.bool_
            if storage.dtype != dtype.np_storage and not bool_ok:
                raise APIError(
                    f"{where} has numpy dtype {storage.dtype}, expected {dtype.np_storage} for {dtype.name}"
                )
        else:
            raise APIError(
                f"{where}: expected a numpy array or hcl.asarray Array, got {type(value).__name__}"
            )
        if len(storage.shape) != len(spec.shape) or any(
            want != -1 and want != got for want, got in zip(spec.shape, storage.shape)
        ):
            raise APIError(f"{where} has shape {tuple(storage.shape)}, expected {spec.shape}")
        if not storage.flags.c_contiguous:
            raise APIError(
                f"{where} is not C-contiguous; pass np.ascontiguousarray(...) and read the result from it"
            )
        if not storage.flags.writeable:
            raise APIError(f"{where} is read-only; the function writes its arguments in place")
        return spec, param, value

    @staticmethod
    def _scalar_storage(spec: ArgSpec, value: Any, where: str) -> np.ndarray:
        dtype = spec.dtype
        if isinstance(value, Array):
            if value.dtype.name != dtype.name or value.shape != ():
                raise APIError(
                    f"{where}: expected a {dtype.name} scalar, got an Array {value.dtype.name}{value.shape}"
                )
            return np.array(value.storage, dtype=dtype.np_storage)
        if isinstance(value, np.ndarray) and value.shape == ():
            value = value.item()
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise APIError(f"{where}: expected a {dtype.name} number, got {type(value).__name__}")
        if dtype.is_int and isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise APIError(f"{where}: {value!r} is not an integer ({dtype.name})")
        if dtype.is_int and isinstance(value, (float, np.floating)):
            value = int(value)
        if isinstance(value, (int, np.integer)) and not dtype.is_float:
            value = int(value)
            return to_storage(np.array(value, dtype=object), dtype)
        return to_storage(np.array(value, dtype=np.float64), dtype)

    @staticmethod
    def _bind(spec: ArgSpec, param: str, value: Any) -> _BoundArg:
        if param != "ptr":
            storage = np.ascontiguousarray(value)
            return _BoundArg(storage.ctypes.data, storage)
        dtype = spec.dtype
        is_array = isinstance(value, Array)
        storage = value.storage if is_array else value
        _mask_in_place(storage, dtype)
        finish = _mask_in_place if is_array else _to_numbers_in_place
        buffer = storage
        alignment = min(storage.dtype.itemsize, 16)
        if storage.size and storage.ctypes.data % alignment:
            # i128 and vectorised code assume natural alignment; numpy views need not have it
            buffer = _aligned_copy(storage, alignment)

        def after() -> None:
            if buffer is not storage:
                storage[...] = buffer
            finish(storage, dtype)

        descriptor = _descriptor(buffer)
        return _BoundArg(ctypes.addressof(descriptor), (descriptor, buffer), after)
