"""The NumPy reference for a whole `func.func`: the oracle of `run --check` and of tuning trials.

`run_function(module, entry, args)` interprets the body of `@entry` on NumPy
values: memrefs are NumPy arrays (views for subviews, so writes land in the
caller's arrays), tensors are NumPy arrays that are never mutated (every op
that "updates" a tensor works on a copy), scalars are NumPy scalars (`index`
is int64).  `linalg.generic` runs through `evaluate_generic`; every other
structured linalg op through `xlinalg.reference.named.evaluate_named`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    MemRefType,
    ModuleOp,
    ShapedType,
    SymbolRefAttr,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from xlinalg.dialects.linalg import GenericOp
from xlinalg.errors import XlinalgError
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.reassociation import reassociation_groups
from xlinalg.reference.compare import reduction_length
from xlinalg.reference.generic import (
    _finish,
    eval_affine_expr,
    evaluate_generic,
    evaluate_scalar_op,
    numpy_dtype,
)
from xlinalg.reference.linalg_ext import evaluate_linalg_ext
from xlinalg.reference.linalg_misc import MISC_EVALUATORS
from xlinalg.reference.named import evaluate_named

#: Called for every structured op the interpreter runs, with the op and its operands
#: (before the op runs).  Used e.g. to find the reduction lengths of a function.
StructuredObserver = Callable[[Operation, list[Any]], None]


def _is_dynamic(size: int) -> bool:
    return size < 0


def _shape_from_type(type_: ShapedType, dynamic: Sequence[Any], where: str) -> tuple[int, ...]:
    sizes = list(dynamic)
    shape: list[int] = []
    for s in type_.get_shape():
        if _is_dynamic(s):
            if not sizes:
                raise XlinalgError(f"{where}: missing a dynamic size")
            shape.append(int(sizes.pop(0)))
        else:
            shape.append(int(s))
    if any(s < 0 for s in shape):
        raise XlinalgError(f"{where}: negative size in {tuple(shape)}")
    return tuple(shape)


def _match_reduced(sizes: Sequence[int], result_shape: Sequence[int]) -> list[int] | None:
    """Which source dims survive a rank-reducing slice: indices into `sizes`, or None.

    Only unit dims may be dropped; dynamic result dims (negative) match any size.
    """

    def go(i: int, j: int) -> list[int] | None:
        if j == len(result_shape):
            return [] if all(s == 1 for s in sizes[i:]) else None
        if i == len(sizes):
            return None
        if _is_dynamic(result_shape[j]) or result_shape[j] == sizes[i]:
            rest = go(i + 1, j + 1)
            if rest is not None:
                return [i, *rest]
        if sizes[i] == 1:
            return go(i + 1, j)
        return None

    return go(0, 0)


class _Interpreter:
    def __init__(self, module: ModuleOp, observer: StructuredObserver | None = None) -> None:
        self.module = module
        self.observer = observer
        self.funcs: dict[str, FuncOp] = {}
        for op in module.walk():
            if isinstance(op, FuncOp):
                self.funcs[op.sym_name.data] = op
        self.depth = 0

    # ---- calls ----
    def call(self, name: str, args: Sequence[Any]) -> list[Any]:
        func = self.funcs.get(name)
        if func is None:
            raise XlinalgError(f"no function @{name} in the module")
        if not func.body.blocks:
            raise XlinalgError(f"@{name} is only declared; the reference cannot run it")
        block = func.body.block
        if len(args) != len(block.args):
            raise XlinalgError(f"@{name} takes {len(block.args)} argument(s), got {len(args)}")
        self.depth += 1
        if self.depth > 200:
            raise XlinalgError(f"@{name}: call depth exceeds 200")
        try:
            env: dict[SSAValue, Any] = {}
            for i, (arg, x) in enumerate(zip(block.args, args)):
                env[arg] = self._argument(arg.type, x, f"@{name} argument #{i}")
            kind, values = self.run_block(block, env)
            if kind != "func.return":
                raise XlinalgError(f"@{name}: body does not end with func.return")
            return values
        finally:
            self.depth -= 1

    @staticmethod
    def _argument(type_: Any, x: Any, where: str) -> Any:
        if isinstance(type_, ShapedType):
            dtype = numpy_dtype(type_)
            if isinstance(type_, MemRefType):
                if not isinstance(x, np.ndarray):
                    raise XlinalgError(f"{where}: a memref argument must be a NumPy array")
                if x.dtype != dtype:
                    raise XlinalgError(
                        f"{where}: expected dtype {dtype} for {type_}, got {x.dtype}"
                    )
                arr = x
            else:
                arr = np.asarray(x)
                if arr.dtype != dtype:
                    arr = arr.astype(dtype)
            shape = type_.get_shape()
            if arr.ndim != len(shape) or any(
                not _is_dynamic(s) and s != a for s, a in zip(shape, arr.shape)
            ):
                raise XlinalgError(f"{where}: expected {type_}, got an array of shape {arr.shape}")
            return arr
        return _finish(np.asarray(x), numpy_dtype(type_))

    # ---- blocks ----
    def run_block(self, block: Block, env: dict[SSAValue, Any]) -> tuple[str, list[Any]]:
        for op in block.ops:
            if op.name in ("func.return", "scf.yield"):
                return op.name, [self.get(env, v) for v in op.operands]
            self.run_op(op, env)
        raise XlinalgError("block without terminator")

    @staticmethod
    def get(env: dict[SSAValue, Any], v: SSAValue) -> Any:
        try:
            return env[v]
        except KeyError:
            raise XlinalgError(f"the reference has no value for {v}") from None

    def run_op(self, op: Operation, env: dict[SSAValue, Any]) -> None:
        args = [self.get(env, v) for v in op.operands]
        handler = _HANDLERS.get(op.name)
        try:
            if handler is not None:
                results = handler(self, op, args, env)
            elif op.name in MISC_EVALUATORS:  # map, reduce, softmax, pack, unpack, winograd
                if self.observer is not None and isinstance(op, StructuredOpInterface):
                    self.observer(op, args)
                results = MISC_EVALUATORS[op.name](op, args, env)
            elif isinstance(op, StructuredOpInterface):
                results = self._structured(op, args, env)
            elif op.name.startswith("iree_linalg_ext."):
                results = evaluate_linalg_ext(op, args)
            elif op.name.startswith(("arith.", "math.")):
                results = evaluate_scalar_op(op, args)
            else:
                raise XlinalgError(f"the NumPy reference does not support '{op.name}'")
        except (ValueError, IndexError, TypeError, OverflowError) as err:
            # e.g. a read-only array or shapes NumPy cannot broadcast: one clear message
            raise XlinalgError(f"the NumPy reference failed on '{op.name}': {err}") from err
        if len(results) != len(op.results):
            raise XlinalgError(f"'{op.name}': expected {len(op.results)} result(s)")
        env.update(zip(op.results, results))

    def _structured(self, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
        assert isinstance(op, StructuredOpInterface)
        if self.observer is not None:
            self.observer(op, args)
        if isinstance(op, GenericOp):
            outs = evaluate_generic(op, args, env)
        else:
            outs = evaluate_named(op, args)
        outputs = list(op.get_outputs())
        return [np.asarray(o) for o, v in zip(outs, outputs) if isinstance(v.type, TensorType)]


# ---------------------------------------------------------------------------
# op handlers
# ---------------------------------------------------------------------------

_Handler = Callable[[_Interpreter, Operation, list[Any], dict[SSAValue, Any]], list[Any]]
_HANDLERS: dict[str, _Handler] = {}


def _handles(*names: str) -> Callable[[_Handler], _Handler]:
    def register(fn: _Handler) -> _Handler:
        for n in names:
            _HANDLERS[n] = fn
        return fn

    return register


@_handles("func.call")
def _call(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    callee = op.properties.get("callee")
    if callee is None:
        callee = op.attributes.get("callee")
    if not isinstance(callee, SymbolRefAttr) or callee.nested_references.data:
        raise XlinalgError(f"'func.call': unsupported callee {callee}")
    return it.call(callee.root_reference.data, args)


@_handles("memref.alloc", "memref.alloca", "tensor.empty")
def _alloc(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    type_ = op.results[0].type
    assert isinstance(type_, ShapedType)
    dyn = [int(a) for a in args[: sum(1 for s in type_.get_shape() if _is_dynamic(s))]]
    shape = _shape_from_type(type_, dyn, f"'{op.name}'")
    return [np.zeros(shape, dtype=numpy_dtype(type_))]


@_handles("memref.dealloc")
def _dealloc(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    return []


@_handles("memref.dim", "tensor.dim")
def _dim(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    arr, index = args
    if not 0 <= int(index) < np.ndim(arr):
        raise XlinalgError(
            f"'{op.name}': dimension {int(index)} out of range for rank {np.ndim(arr)}"
        )
    return [np.int64(np.shape(arr)[int(index)])]


@_handles("memref.load", "tensor.extract")
def _load(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    arr = args[0]
    index = tuple(int(i) for i in args[1:])
    _check_point(op, arr, index)
    return [arr[index]]


@_handles("memref.store")
def _store(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    value, arr = args[0], args[1]
    index = tuple(int(i) for i in args[2:])
    _check_point(op, arr, index)
    arr[index] = value
    return []


@_handles("tensor.insert")
def _insert(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    value, dest = args[0], args[1]
    index = tuple(int(i) for i in args[2:])
    _check_point(op, dest, index)
    out = np.array(dest, copy=True)
    out[index] = value
    return [out]


def _check_point(op: Operation, arr: np.ndarray, index: tuple[int, ...]) -> None:
    if len(index) != arr.ndim or any(not 0 <= i < s for i, s in zip(index, arr.shape)):
        raise XlinalgError(f"'{op.name}': index {list(index)} out of bounds for shape {arr.shape}")


@_handles("memref.copy")
def _copy(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    src, dst = args
    if src.shape != dst.shape:
        raise XlinalgError(f"'memref.copy': shapes {src.shape} and {dst.shape} differ")
    dst[...] = src
    return []


@_handles("memref.cast", "tensor.cast")
def _cast(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    return [args[0]]


def _slice_params(
    op: Operation, args: list[Any], first: int
) -> tuple[list[int], list[int], list[int]]:
    """Offsets, sizes and strides of a subview/extract_slice/insert_slice."""
    dynamic = iter(int(a) for a in args[first:])

    def fill(static: Sequence[int]) -> list[int]:
        return [next(dynamic) if s == -(2**63) else int(s) for s in static]

    assert isinstance(op, memref.SubviewOp | tensor.ExtractSliceOp | tensor.InsertSliceOp)
    offsets = fill(op.static_offsets.get_values())
    sizes = fill(op.static_sizes.get_values())
    strides = fill(op.static_strides.get_values())
    return offsets, sizes, strides


def _full_rank_view(
    op: Operation, arr: np.ndarray, offsets: list[int], sizes: list[int], strides: list[int]
) -> np.ndarray:
    if not len(offsets) == len(sizes) == len(strides) == arr.ndim:
        raise XlinalgError(f"'{op.name}': expected {arr.ndim} offsets, sizes and strides")
    index: list[slice] = []
    for axis, (o, n, s) in enumerate(zip(offsets, sizes, strides)):
        if n < 0 or s <= 0 or o < 0 or (n > 0 and o + (n - 1) * s >= arr.shape[axis]):
            raise XlinalgError(
                f"'{op.name}': slice offset {o}, size {n}, stride {s} out of bounds for "
                f"dimension {axis} of size {arr.shape[axis]}"
            )
        index.append(slice(o, o + n * s, s) if n > 0 else slice(o, o))
    return arr[tuple(index)]


def _reduce_rank(op: Operation, view: np.ndarray, sizes: list[int], result_type: Any) -> np.ndarray:
    result_shape = list(result_type.get_shape())
    if len(result_shape) == len(sizes):
        return view
    kept = _match_reduced(sizes, result_shape)
    if kept is None:
        raise XlinalgError(f"'{op.name}': sizes {sizes} do not rank-reduce to {result_type}")
    return view.reshape([sizes[i] for i in kept])


@_handles("memref.subview")
def _subview(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    offsets, sizes, strides = _slice_params(op, args, 1)
    view = _full_rank_view(op, args[0], offsets, sizes, strides)
    return [_reduce_rank(op, view, sizes, op.results[0].type)]


@_handles("tensor.extract_slice")
def _extract_slice(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    offsets, sizes, strides = _slice_params(op, args, 1)
    view = _full_rank_view(op, args[0], offsets, sizes, strides)
    return [np.array(_reduce_rank(op, view, sizes, op.results[0].type), copy=True)]


@_handles("tensor.insert_slice")
def _insert_slice(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    source, dest = args[0], args[1]
    offsets, sizes, strides = _slice_params(op, args, 2)
    out = np.array(dest, copy=True)
    target = _full_rank_view(op, out, offsets, sizes, strides)
    if int(np.prod(sizes)) != np.size(source):
        raise XlinalgError(
            f"'tensor.insert_slice': source shape {np.shape(source)} does not fill {sizes}"
        )
    target[...] = np.reshape(source, target.shape)
    return [out]


@_handles("tensor.pad")
def _pad(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    """Constant padding only: the yielded value must not depend on the indices."""
    assert isinstance(op, tensor.PadOp)
    source = np.asarray(args[0])
    dynamic = iter(int(a) for a in args[1:])

    def fill(static: Sequence[int]) -> list[int]:
        return [next(dynamic) if s == -(2**63) else int(s) for s in static]

    low = fill(op.static_low.get_values())
    high = fill(op.static_high.get_values())
    block = op.regions[0].block
    if any(arg.uses for arg in block.args):
        raise XlinalgError("'tensor.pad': the reference supports constant padding only")
    *body, terminator = list(block.ops)
    for inner in body:
        it.run_op(inner, env)
    value = it.get(env, terminator.operands[0])
    out = np.full([n + lo + hi for n, lo, hi in zip(source.shape, low, high)], value, source.dtype)
    out[tuple(slice(lo, lo + n) for lo, n in zip(low, source.shape))] = source
    return [out]


@_handles("tensor.expand_shape", "tensor.collapse_shape")
def _reshape(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    assert isinstance(op, tensor.ExpandShapeOp | tensor.CollapseShapeOp)
    source = np.asarray(args[0])
    groups = reassociation_groups(op.reassociation)
    if isinstance(op, tensor.CollapseShapeOp):
        shape = [int(np.prod([source.shape[d] for d in group], dtype=np.int64)) for group in groups]
    else:
        dynamic = iter(int(a) for a in args[1:])
        shape = [
            next(dynamic) if s == -(2**63) else int(s) for s in op.static_output_shape.get_values()
        ]
    if int(np.prod(shape, dtype=np.int64)) != source.size:
        raise XlinalgError(f"'{op.name}': cannot reshape {source.shape} to {tuple(shape)}")
    return [np.array(source.reshape(shape), copy=True)]


@_handles("scf.for")
def _for(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    lb, ub, step = (int(a) for a in args[:3])
    carried = list(args[3:])
    if step <= 0:
        raise XlinalgError(f"'scf.for': step must be positive, got {step}")
    block = op.regions[0].block
    iv_dtype = numpy_dtype(block.args[0].type)
    # SSA values are defined once per iteration, so the body can run in `env` itself.
    for iv in range(lb, ub, step):
        env[block.args[0]] = _finish(np.asarray(iv), iv_dtype)
        env.update(zip(block.args[1:], carried))
        _, carried = it.run_block(block, env)
    return carried


@_handles("scf.if")
def _if(it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
    region = op.regions[0] if bool(args[0]) else op.regions[1]
    if not region.blocks:
        return []
    _, values = it.run_block(region.block, env)
    return values


@_handles("affine.apply", "affine.min", "affine.max")
def _affine(
    it: _Interpreter, op: Operation, args: list[Any], env: dict[SSAValue, Any]
) -> list[Any]:
    map_attr = op.properties["map"]
    assert isinstance(map_attr, AffineMapAttr)
    amap = map_attr.data
    dims = [int(a) for a in args[: amap.num_dims]]
    syms = [int(a) for a in args[amap.num_dims :]]
    values = [int(eval_affine_expr(e, dims, syms)) for e in amap.results]
    if op.name == "affine.min":
        return [np.int64(min(values))]
    if op.name == "affine.max":
        return [np.int64(max(values))]
    return [np.int64(values[0])]


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------


def run_function(
    module: ModuleOp, entry: str, args: Sequence[Any], observer: StructuredObserver | None = None
) -> list[Any]:
    """Evaluate `func.func @entry` of `module` on NumPy `args`; return its results.

    Memref arguments must be NumPy arrays of the memref's dtype; they are
    modified in place.  Tensor and scalar arguments are converted as needed.
    `observer`, if given, is called with every structured op and its operands.
    """
    entry = entry.lstrip("@")
    with np.errstate(all="ignore"):
        return _Interpreter(module, observer).call(entry, list(args))


def max_reduction_length(module: ModuleOp, entry: str, args: Sequence[Any]) -> int:
    """Largest reduction length of the structured ops `@entry` runs (1 if none).

    Runs the reference on copies of `args` to see the actual (possibly dynamic) shapes.
    """
    longest = 1

    def observe(op: Operation, operands: list[Any]) -> None:
        nonlocal longest
        assert isinstance(op, StructuredOpInterface)
        longest = max(longest, reduction_length(op, operands))

    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    run_function(module, entry, copies, observer=observe)
    return longest
