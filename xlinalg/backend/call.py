"""Calling a JIT-compiled kernel with NumPy arrays and Python scalars.

Every memref argument is an `ndarray` of the signature's dtype and rank whose
static dims and strides match; it is passed as MLIR's expanded descriptor with
the view's data pointer as both the allocated and the aligned pointer, offset
0, its sizes and its strides in elements (NumPy's are in bytes, and may be
negative or zero). For a memref with a strided layout (`MemRefArg.strides` not
None) any view works - transposed, sliced, reversed - as long as it is aligned
to its element size; a memref with the identity layout (`strides` None) needs a
C-contiguous array, since the kernel then computes addresses from the sizes
alone. Kernels write memref arguments in place. Arguments that share memory
are rejected when the kernel writes one of them (`check_no_overlap`), and so are
read-only arrays the kernel may write.

A direct call checks its arguments in full once per *argument signature* (the types,
dtypes, shapes, strides and writeability of the arguments): `_CallPlan` keeps what
these checks found and a filled call frame (`frame.py`), so a later call with the same
signature only reads the data pointers, checks their alignment and the overlap of
written arguments, converts the scalars and makes one ctypes call (~2 us, was ~17 us).
"""

from __future__ import annotations

import ctypes
import numbers
import operator
from typing import Any

import numpy as np

from xlinalg.backend.data_pointer import DATA_WORD, MEMORY, data_pointer
from xlinalg.backend.frame import FrameLayout, frame_layout
from xlinalg.backend.signature import ctypes_param_types, ctypes_return_type
from xlinalg.errors import BackendError
from xlinalg.ir.numpy_dtypes import is_float_dtype, is_half_dtype
from xlinalg.lowering.abi import FunctionSignature, MemRefArg, ScalarArg


class PreparedArgs(tuple[Any, ...]):
    """The flat ctypes-ready argument list of one call (see `NativeFunction.prepare`), and
    the result buffers it contains (arrays the kernel writes its static results into)."""

    buffers: tuple[np.ndarray, ...] = ()


def _shape_text(shape: tuple[int | None, ...]) -> str:
    return "x".join("?" if d is None else str(d) for d in shape) or "scalar"


def _memref_args(index: int, spec: MemRefArg, value: Any, fname: str) -> list[Any]:
    where = f"'{fname}' argument {index}"
    if not isinstance(value, np.ndarray):
        raise BackendError(f"{where}: expected a numpy.ndarray, got {type(value).__name__}")
    want_dtype = np.dtype(spec.dtype)
    if value.dtype != want_dtype:
        raise BackendError(f"{where}: expected dtype {want_dtype}, got {value.dtype}")
    rank = len(spec.shape)
    if value.ndim != rank:
        raise BackendError(
            f"{where}: expected rank {rank} (memref<{_shape_text(spec.shape)}>), got rank {value.ndim} "
            f"(shape {value.shape})"
        )
    for d, (want, got) in enumerate(zip(spec.shape, value.shape)):
        if want is not None and want != got:
            raise BackendError(
                f"{where}: dim {d} must be {want} (memref<{_shape_text(spec.shape)}>), got shape {value.shape}"
            )
    if spec.written and value.size and not value.flags.writeable:
        raise BackendError(f"{where}: the array is read-only and the kernel writes this argument")
    itemsize = want_dtype.itemsize
    data = data_pointer(value)
    if data % itemsize:
        raise BackendError(f"{where}: data pointer is not aligned to the element size {itemsize}")
    strides: list[int] = []
    for d, byte_stride in enumerate(value.strides):
        if byte_stride % itemsize:
            raise BackendError(
                f"{where}: stride {byte_stride} bytes in dim {d} is not a multiple of the element size {itemsize}"
            )
        strides.append(byte_stride // itemsize)
    if value.size == 0:
        pass  # an empty array is never indexed, whatever strides NumPy gave it
    elif spec.strides is None:
        # Identity layout: the kernel indexes row-major from the sizes alone and
        # ignores the strides, so the array must be C-contiguous.
        expected = 1
        for d in reversed(range(rank)):
            if value.shape[d] > 1 and strides[d] != expected:
                raise BackendError(
                    f"{where}: memref<{_shape_text(spec.shape)}x{want_dtype}> has the identity layout "
                    f"and needs a C-contiguous array, got element strides {tuple(strides)} for shape "
                    f"{value.shape} (pass numpy.ascontiguousarray(...), or give the memref a "
                    "strided layout)"
                )
            expected *= value.shape[d]
    else:
        for d, (want, got) in enumerate(zip(spec.strides, strides)):
            # A dim of size <= 1 never uses its stride.
            if want is not None and want != got and value.shape[d] > 1:
                raise BackendError(
                    f"{where}: stride of dim {d} must be {want} elements, got {got} (strides {tuple(strides)})"
                )
    return [data, data, 0, *value.shape, *strides]


def _extent(value: np.ndarray, data: int) -> tuple[int, int]:
    """[first byte, one past the last byte] of the elements of `value` (data pointer `data`)."""
    lo = hi = data
    for n, stride in zip(value.shape, value.strides):
        if stride < 0:
            lo += (n - 1) * stride
        else:
            hi += (n - 1) * stride
    return lo, hi + value.itemsize


def check_no_overlap(fname: str, args: list[tuple[int, np.ndarray, int, bool]]) -> None:
    """Reject memref arguments that share memory when the kernel writes one of them.

    `args`: (argument index, array, data pointer, written) of the non-empty memref
    arguments. The compiled code assumes distinct memref arguments do not overlap
    (as upstream MLIR does: loops keep values in registers and the LLVM IR marks
    memref pointers `noalias`), so such a call could compute garbage. Arrays that
    only share memory with arguments the kernel never writes are fine. A bounds
    test first (cheap, the common case); only overlapping bounds pay for NumPy's
    exact `shares_memory` (interleaved views, e.g. even and odd columns, pass).
    """
    if len(args) < 2 or not any(w for _, _, _, w in args):
        return
    spans = [(*_extent(value, data), i, value, w) for i, value, data, w in args]
    for a, (lo_a, hi_a, i, value_a, written_a) in enumerate(spans):
        for lo_b, hi_b, j, value_b, written_b in spans[a + 1 :]:
            if (
                (written_a or written_b)
                and lo_a < hi_b
                and lo_b < hi_a
                and np.shares_memory(value_a, value_b)
            ):
                which = i if written_a else j
                raise BackendError(
                    f"'{fname}' arguments {i} and {j} share memory and the kernel writes "
                    f"argument {which}: the compiled code assumes distinct memref arguments "
                    "do not overlap (pass a copy)"
                )


def _scalar_arg(index: int, spec: ScalarArg, value: Any, fname: str) -> Any:
    where = f"'{fname}' argument {index}"
    dtype = np.dtype(spec.dtype)
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise BackendError(
                f"{where}: expected a {dtype} scalar, got an array of shape {value.shape}"
            )
        value = value[()]
    is_bool = isinstance(value, (bool, np.bool_))
    if dtype == np.bool_:
        if not is_bool and value not in (0, 1):
            raise BackendError(f"{where}: expected a bool, got {value!r}")
        return bool(value)
    if is_float_dtype(dtype):
        real = isinstance(value, numbers.Real) or (
            isinstance(value, np.generic) and is_float_dtype(value.dtype)
        )  # bfloat16 scalars
        if is_bool or not real:
            raise BackendError(f"{where}: expected a {dtype} scalar, got {type(value).__name__}")
        converted = dtype.type(value)
        if is_half_dtype(dtype):
            return int(converted.view(np.uint16))
        return float(converted)
    try:
        as_int = operator.index(value)
    except TypeError:
        raise BackendError(
            f"{where}: expected an integer ({dtype}), got {type(value).__name__}"
        ) from None
    if is_bool:
        raise BackendError(f"{where}: expected an integer ({dtype}), got a bool")
    info = np.iinfo(dtype)
    if not info.min <= as_int <= info.max:
        raise BackendError(f"{where}: {as_int} does not fit in {dtype}")
    return as_int


_libc_free = ctypes.CDLL(None).free
_libc_free.argtypes = [ctypes.c_void_p]
_libc_free.restype = None


def _take_memref_result(spec: MemRefArg, descriptor: Any) -> np.ndarray:
    """A NumPy copy of the memref result a kernel wrote into `descriptor`; frees its buffer.

    The buffer is the callee's `aligned_alloc`: the same C heap as this process's `free`.
    """
    rank = len(spec.shape)
    words = list(descriptor)
    allocated, aligned, offset = words[0], words[1], words[2]
    sizes = tuple(words[3 : 3 + rank])
    strides = words[3 + rank : 3 + 2 * rank]
    dtype = np.dtype(spec.dtype)
    try:
        out = np.empty(sizes, dtype)
        if out.size:
            # Only the elements the view addresses; strides may be anything.
            span = 1 + sum((n - 1) * st for n, st in zip(sizes, strides))
            flat = np.ctypeslib.as_array(
                (ctypes.c_char * (span * dtype.itemsize)).from_address(
                    aligned + offset * dtype.itemsize
                )
            ).view(dtype)
            out[...] = np.lib.stride_tricks.as_strided(
                flat, sizes, tuple(st * dtype.itemsize for st in strides)
            )
    finally:
        if allocated:
            _libc_free(allocated)
    return out


def _scalar_result(sig: FunctionSignature, raw: Any) -> Any:
    if sig.result is None:
        return None
    dtype = np.dtype(sig.result.dtype)
    return np.uint16(raw).view(dtype) if is_half_dtype(dtype) else dtype.type(raw)


def _results(
    sig: FunctionSignature, scalar: Any, buffers: tuple[np.ndarray, ...], descriptors: Any
) -> Any:
    """What a call returns: None, the one result, or the tuple of results (see `__call__`)."""
    if not sig.memref_results and not sig.buffer_results:
        return scalar
    by_index = dict(zip(sig.buffer_results, buffers, strict=True))
    taken = iter(descriptors)
    values = [
        by_index[i]
        if i in by_index
        else _take_memref_result(spec, next(taken))
        if isinstance(spec, MemRefArg)
        else scalar
        for i, spec in enumerate(sig.all_results)
    ]
    return values[0] if len(values) == 1 else tuple(values)


_PLANS_KEPT = 64
"""Argument signatures remembered per function (all are forgotten when one more comes)."""

_MISS = object()
"""What a plan's call returns for arguments it does not cover (the caller then checks them in full)."""


def _signature_key(args: tuple[Any, ...], memref: tuple[bool, ...]) -> tuple[Any, ...]:
    """What the full check of memref arguments depends on, besides their data pointers."""
    return tuple(
        [
            (type(v), v.dtype, v.shape, v.strides, v.flags.writeable) if m else None
            for v, m in zip(args, memref)
        ]
    )


def _scalar_fast_type(spec: ScalarArg) -> type | None:
    """The Python type whose values a frame field of `spec` takes as they are (range permitting)."""
    dtype = np.dtype(spec.dtype)
    if dtype.kind == "f" and dtype.itemsize in (4, 8):
        return float
    if dtype.kind in "iu":
        return int
    return None


class _CallPlan:
    """Direct calls of one function with the memref arguments of one signature (`_signature_key`).

    Made after the arguments of a first call passed `NativeFunction.prepare`. What those
    checks found holds for every call with the same signature, except the data pointers'
    alignment and the overlap of written arguments, and the scalars: `call`, Python source
    generated for the signature (`source`), checks that the arguments still have that
    signature, then these, and returns `_MISS` when one fails so that `prepare` reports it.
    Frames come from a free list (a thread calling meanwhile gets its own), filled with the
    signature's sizes and strides; a call writes the data pointers and the scalars.
    """

    def __init__(self, fn: NativeFunction, args: tuple[Any, ...], layout: FrameLayout) -> None:
        sig = fn.signature
        self.layout = layout
        template = layout.frame()
        word = ctypes.sizeof(ctypes.c_size_t)
        env: dict[str, Any] = {
            "MISS": _MISS,
            "memory": MEMORY,
            "data_pointer": data_pointer,
            "frames": [],
            "new_frame": self._new_frame,
            "native": fn._frame_call,
            "scalar_arg": _scalar_arg,
            "sig": sig,
            "results": _results,
            "scalar_result": _scalar_result,
            "empty": np.empty,
        }
        unpack = ", ".join(f"a{i}" for i in range(len(args))) + ","
        guards: list[str] = []
        body: list[str] = []
        fills: list[str] = []
        extents: dict[int, tuple[int, int, bool]] = {}

        def pointer(var: str) -> str:
            return (
                f"memory[id({var}) // {word} + {DATA_WORD}]"
                if MEMORY is not None
                else f"data_pointer({var})"
            )

        def fill_sizes(names: tuple[str, ...], value: np.ndarray) -> None:
            itemsize = value.itemsize
            for name, w in zip(
                names[1:], [*value.shape, *(st // itemsize for st in value.strides)]
            ):
                setattr(template, name, w)

        for i, (spec, value, names) in enumerate(zip(sig.args, args, layout.args)):
            if isinstance(spec, MemRefArg):
                env.update(
                    {
                        f"T{i}": type(value),
                        f"D{i}": value.dtype,
                        f"S{i}": value.shape,
                        f"R{i}": value.strides,
                    }
                )
                guard = (
                    f"type(a{i}) is not T{i} or (a{i}.dtype is not D{i} and a{i}.dtype != D{i}) "
                    f"or a{i}.shape != S{i} or a{i}.strides != R{i}"
                )
                if spec.written and value.size:
                    guard += f" or not a{i}.flags.writeable"
                guards.append(guard)
                body.append(f"p{i} = {pointer(f'a{i}')}")
                if value.itemsize > 1:
                    body.append(f"if p{i} % {value.itemsize}: return MISS")
                fills.append(f"words[{layout.offset(names[0]) // word}] = p{i}")
                fill_sizes(names, value)
                if value.size:
                    lo, hi = _extent(value, 0)
                    extents[i] = (lo, hi, spec.written)
            else:
                env[f"SPEC{i}"] = spec
                fast = _scalar_fast_type(spec)
                convert = f"scalar_arg({i}, SPEC{i}, a{i}, sig.name)"
                if fast is int:
                    info = np.iinfo(np.dtype(spec.dtype))
                    body.append(
                        f"v{i} = a{i} if type(a{i}) is int and {info.min} <= a{i} <= {info.max} else {convert}"
                    )
                elif fast is float:
                    body.append(f"v{i} = a{i} if type(a{i}) is float else {convert}")
                else:
                    body.append(f"v{i} = {convert}")
                fills.append(f"frame.{names[0]} = v{i}")
        # Non-empty arguments one of which the kernel writes: overlapping bounds go to
        # `check_no_overlap` (through `prepare`), which decides with `numpy.shares_memory`.
        keys = list(extents)
        for a, i in enumerate(keys):
            for j in keys[a + 1 :]:
                (lo_i, hi_i, w_i), (lo_j, hi_j, w_j) = extents[i], extents[j]
                if w_i or w_j:
                    body.append(
                        f"if p{i} + {lo_i} < p{j} + {hi_j} and p{j} + {lo_j} < p{i} + {hi_i}: return MISS"
                    )
        buffers: list[str] = []
        for k, (spec, names) in enumerate(zip(sig.result_buffers, layout.args[len(sig.args) :])):
            env[f"BS{k}"] = tuple(d for d in spec.shape if d is not None)
            env[f"BD{k}"] = np.dtype(spec.dtype)
            fill_sizes(names, np.empty(env[f"BS{k}"], env[f"BD{k}"]))
            fills += [
                f"b{k} = empty(BS{k}, BD{k})",
                f"words[{layout.offset(names[0]) // word}] = {pointer(f'b{k}')}",
            ]
            buffers.append(f"b{k}")
        scalar = "None" if layout.ret is None else f"scalar_result(sig, frame.{layout.ret})"
        if not sig.memref_results and not sig.buffer_results:
            result = scalar
        else:
            descriptors = ", ".join(f"frame.{r}" for r in layout.results)
            result = f"results(sig, {scalar}, ({''.join(b + ', ' for b in buffers)}), ({descriptors}{',' if descriptors else ''}))"
        self.template = bytes(template)
        lines = [
            "def call(args):",
            f"    {unpack} = args" if args else "    pass",
            *(f"    if {g}: return MISS" for g in guards),
            *(f"    {line}" for line in body),
            "    try:",
            "        frame, words, address = frames.pop()",
            "    except IndexError:",
            "        frame, words, address = new_frame()",
            "    try:",
            *(f"        {line}" for line in fills),
            "        native(address)",
            f"        return {result}",
            "    finally:",
            "        frames.append((frame, words, address))",
        ]
        self.source = "\n".join(lines)
        exec(compile(self.source, f"<call plan of '{sig.name}'>", "exec"), env)
        self.call = env["call"]

    def _new_frame(self) -> tuple[ctypes.Structure, Any, int]:
        frame = self.layout.frame.from_buffer_copy(self.template)
        words = (
            ctypes.c_size_t * (ctypes.sizeof(frame) // ctypes.sizeof(ctypes.c_size_t))
        ).from_buffer(frame)
        return frame, words, ctypes.addressof(frame)


class NativeFunction:
    """One compiled function: call it with NumPy arrays and scalars per its signature."""

    signature: FunctionSignature

    def __init__(
        self,
        signature: FunctionSignature,
        address: int,
        repeat_address: int,
        owner: object,
        frame_address: int | None = None,
    ) -> None:
        self.signature = signature
        # Keeps the JIT engine (and so the machine code) alive.
        self._owner = owner
        argtypes = ctypes_param_types(signature)
        restype = ctypes_return_type(signature)
        self._cfunc = ctypes.CFUNCTYPE(restype, *argtypes)(address)
        self._repeat = ctypes.CFUNCTYPE(None, *argtypes, ctypes.c_int64)(repeat_address)
        # Direct calls through call frames (`frame.py`), one plan per argument signature;
        # without a frame wrapper every call is checked in full by `prepare`.
        self._frame_call = (
            None
            if frame_address is None
            else ctypes.CFUNCTYPE(None, ctypes.c_void_p)(frame_address)
        )
        self._layout = None if frame_address is None else frame_layout(signature)
        self._memref = tuple(isinstance(a, MemRefArg) for a in signature.args)
        self._plans: dict[tuple[Any, ...], _CallPlan] = {}
        self._fast: Any = None  # the call of the last plan used

    @property
    def name(self) -> str:
        return self.signature.name

    def prepare(self, *args: Any) -> PreparedArgs:
        """Check `args` against the signature and flatten them to the native parameters.

        The result refers to the arrays' memory: keep the arrays alive while using it.
        """
        sig = self.signature
        if len(args) != len(sig.args):
            raise BackendError(f"'{sig.name}' takes {len(sig.args)} arguments, got {len(args)}")
        flat: list[Any] = []
        arrays: list[tuple[int, np.ndarray, int, bool]] = []
        for i, (spec, value) in enumerate(zip(sig.args, args)):
            if isinstance(spec, MemRefArg):
                words = _memref_args(i, spec, value, sig.name)
                if value.size:
                    arrays.append((i, value, words[0], spec.written))
                flat.extend(words)
            else:
                flat.append(_scalar_arg(i, spec, value, sig.name))
        check_no_overlap(sig.name, arrays)
        # New arrays for the result buffers, storage for the descriptors of the other
        # memref results (see `abi.py`).
        buffers: list[np.ndarray] = []
        for i, spec in enumerate(sig.result_buffers):
            shape = tuple(d for d in spec.shape if d is not None)
            buffers.append(np.empty(shape, np.dtype(spec.dtype)))
            flat.extend(_memref_args(len(args) + i, spec, buffers[-1], sig.name))
        flat.extend((ctypes.c_int64 * (3 + 2 * len(spec.shape)))() for spec in sig.memref_results)
        prepared = PreparedArgs(flat)
        prepared.buffers = tuple(buffers)
        return prepared

    def call_prepared(self, prepared: PreparedArgs) -> Any:
        result = self._cfunc(*prepared)
        sig = self.signature
        descriptors = prepared[len(prepared) - len(sig.memref_results) :]
        return _results(
            sig, _scalar_result(sig, result), getattr(prepared, "buffers", ()), descriptors
        )

    def repeat_prepared(self, prepared: PreparedArgs, n: int) -> None:
        """Run the kernel n times in native code (results are discarded)."""
        self._repeat(*prepared, n)

    def __call__(self, *args: Any) -> Any:
        """Call once; memref arguments are written in place.

        Returns None, the result, or a tuple of the results (memref results as new arrays)."""
        fast = self._fast
        if fast is not None and len(args) == len(self._memref):
            result = fast(args)
            if result is not _MISS:
                return result
        return self._call_checked(args)

    def _call_checked(self, args: tuple[Any, ...]) -> Any:
        """A call whose arguments the last plan did not cover: find or make the plan of their
        signature; arguments that no plan covers get the full check (and its error)."""
        if self._layout is not None and len(args) == len(self._memref):
            try:
                key = _signature_key(args, self._memref)
                plan = self._plans.get(key)
            except AttributeError:  # not an array where one is due: `prepare` says so
                plan = key = None
            if plan is None and key is not None:
                self.prepare(*args)  # the full check: raises for bad arguments
                if len(self._plans) >= _PLANS_KEPT:
                    self._plans.clear()
                plan = self._plans[key] = _CallPlan(self, args, self._layout)
            if plan is not None:
                self._fast = plan.call
                result = plan.call(args)
                if result is not _MISS:
                    return result
        return self.call_prepared(self.prepare(*args))

    def repeat(self, n: int, *args: Any) -> None:
        """Call the kernel n times in a native loop on the same arguments."""
        self.repeat_prepared(self.prepare(*args), n)

    def __repr__(self) -> str:
        return f"NativeFunction({self.signature.name!r})"
