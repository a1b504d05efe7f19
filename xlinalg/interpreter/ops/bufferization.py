"""`transform.bufferization.empty_tensor_to_alloc_tensor` and `one_shot_bufferize`.

`one_shot_bufferize` runs xlinalg's One-Shot Bufferize (`xlinalg.transforms.bufferization`)
on a module or a function. How each option maps onto it:

| option | here |
|---|---|
| `bufferize_function_boundaries` | our pass always converts tensor arguments/results of functions; `false` (upstream's default) is a definite failure when the target has a function with tensors in its signature |
| `function_boundary_type_conversion` | `IdentityLayoutMap` is what the pass produces; unset means the same here (upstream would give arguments fully dynamic layouts — same values, another memref type); `InferLayoutMap`/`FullyDynamicLayoutMap` are definite failures when the target has tensor boundaries |
| `allow_return_allocs` (spec) | `false`: a definite failure if a bufferized function returns a buffer it allocated (dynamic-shaped tensor results; static ones go to caller-allocated buffers) |
| `allow_return_allocs_from_loops` | either value: loop-carried tensors stay in one buffer (yielded values are copied into it), a loop never returns a new allocation |
| `allow_unknown_ops` | accepted; an op the pass cannot bufferize still fails (the message says the option cannot be honoured) |
| `create_deallocs` (spec) | `false`: the `memref.dealloc`s the pass inserted are removed |
| `memcpy_op` | `"memref.copy"` (the pass's) or `"linalg.copy"` (its copies are rewritten to `linalg.copy`) |
| `test_analysis_only` | the payload is not bufferized: its ops get upstream's `__inplace_operands_attr__` with xlinalg's in-place decisions, and with `bufferize_function_boundaries` its functions get `bufferization.access` and `__equivalent_func_args__` (`transforms/bufferization/markers.py`) |
| `print_conflicts` | with `test_analysis_only`: upstream's `"C_<n>[READ: i]"`, `"C_<n>[CONFL-WRITE: i]"`, `"C_<n>[DEF: result k]"` markers for each conflict that made a write go out of place; ignored otherwise (as upstream) |
| `dump_alias_sets` | with `test_analysis_only`: upstream's `__opresult_alias_set_attr__` / `__bbarg_alias_set_attr__` (the printed names of the values sharing each buffer); ignored otherwise (as upstream) |
| `check_parallel_regions` | either value (the pass does not bufferize parallel regions; `scf.forall` on tensors fails as an unsupported op) |
| `target_is_module` (spec) | the target must be a `builtin.module` and the handle is only read |

A target that is neither a module nor a function is a silenceable failure
("expected module or function target"), as upstream (IREE 3.13).

The pass runs first on a copy: when it cannot bufferize the payload the failure is
silenceable ("bufferization failed", as upstream) and the payload is untouched.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.bufferization import AllocTensorOp
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.dialects.tensor import EmptyOp
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from xlinalg.dialects.linalg import CopyOp
from xlinalg.dialects.transform.bufferization import (
    EmptyTensorToAllocTensorOp,
    OneShotBufferizeOp,
)
from xlinalg.errors import LoweringError
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.transforms.bufferization import OneShotBufferizePass, bufferize_function
from xlinalg.transforms.bufferization.markers import AnalysisMarkers, annotate_analysis
from xlinalg.transforms.bufferization.one_shot import OWNED_RESULTS_ATTR

# ------------------------------------------------------------------ empty_tensor_to_alloc_tensor


@register(EmptyTensorToAllocTensorOp)
def apply_empty_tensor_to_alloc_tensor(op: EmptyTensorToAllocTensorOp, interp: Interpreter) -> None:
    allocs: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, EmptyOp):  # the handle type guarantees it; be safe
            raise failure(
                op,
                f"transform applied to the wrong op kind: {describe_payload(target)}",
                silenceable=True,
            )
        alloc = AllocTensorOp(target.tensor.type, list(target.dynamic_sizes))
        Rewriter.replace_op(target, alloc)
        allocs.append(alloc)
    interp.state.bind(op.transformed, allocs)


# ------------------------------------------------------------------ one_shot_bufferize


def _enclosing_module(op: Operation) -> ModuleOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    return parent


def _functions(target: Operation) -> list[func.FuncOp]:
    if isinstance(target, func.FuncOp):
        return [target]
    return [f for f in target.walk() if isinstance(f, func.FuncOp)]


def _has_tensor_boundary(fn: func.FuncOp) -> bool:
    ftype = fn.function_type
    return any(isinstance(t, TensorType) for t in (*ftype.inputs.data, *ftype.outputs.data))


def _check_options(op: OneShotBufferizeOp, target: Operation) -> None:
    """Definite failures for the options the pass cannot honour on this target."""
    if op.flag("target_is_module") and not isinstance(target, ModuleOp):
        raise failure(
            op,
            f"target_is_module is set but the target is {describe_payload(target)}",
            silenceable=False,
        )
    if not isinstance(target, ModuleOp | func.FuncOp):
        raise failure(  # upstream's message and kind
            op,
            f"expected module or function target, got {describe_payload(target)}",
            silenceable=True,
        )
    boundary = [f for f in _functions(target) if f.body.blocks and _has_tensor_boundary(f)]
    if not boundary:
        return
    names = ", ".join(f"@{f.sym_name.data}" for f in boundary)
    if not op.flag("bufferize_function_boundaries"):
        raise failure(
            op,
            f"bufferize_function_boundaries = false cannot be honoured: {names} has tensors in "
            "its signature and xlinalg's one-shot bufferization always converts them to memrefs "
            "(set bufferize_function_boundaries = true)",
            silenceable=False,
        )
    layout = op.function_boundary_type_conversion
    if layout is not None and layout.data != "IdentityLayoutMap":
        raise failure(
            op,
            f"function_boundary_type_conversion = {layout.data} cannot be honoured: function "
            "boundaries are bufferized with the identity layout (IdentityLayoutMap)",
            silenceable=False,
        )


def _bufferize(target: Operation) -> None:

    if isinstance(target, ModuleOp):
        OneShotBufferizePass().apply(Context(), target)
        return
    assert isinstance(target, func.FuncOp)
    module = _enclosing_module(target)
    if module is None:
        raise LoweringError(f"@{target.sym_name.data} is not inside a module")
    bufferize_function(target, module)


def _twin(target: Operation) -> Operation:
    """`target` in a copy of its module (the module itself when it is one)."""
    if isinstance(target, ModuleOp) and target.parent_op() is None:
        return target.clone()
    top = target
    while (parent := top.parent_op()) is not None:
        top = parent
    copy = top.clone()
    return next(twin for original, twin in zip(top.walk(), copy.walk()) if original is target)


def _allocating_results(fn: func.FuncOp) -> bool:
    return OWNED_RESULTS_ATTR in fn.attributes


@register(OneShotBufferizeOp)
def apply_one_shot_bufferize(op: OneShotBufferizeOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    for target in targets:
        _check_options(op, target)
    analysis_only = op.flag("test_analysis_only")
    markers = AnalysisMarkers(
        print_conflicts=op.flag("print_conflicts"),
        dump_alias_sets=op.flag("dump_alias_sets"),
        function_boundaries=op.flag("bufferize_function_boundaries"),
    )
    for target in targets:
        trial = _twin(target)
        try:
            if analysis_only:
                annotate_analysis(target, trial, _bufferize, markers)
            else:
                _bufferize(trial)
        except LoweringError as err:
            note = (
                " (allow_unknown_ops cannot be honoured: every tensor op must bufferize)"
                if op.flag("allow_unknown_ops")
                else ""
            )
            raise failure(
                op,
                f"bufferization failed for {describe_payload(target)}: {err}{note}",
                silenceable=True,
            ) from err
        if op.is_set("allow_return_allocs") and not op.flag("allow_return_allocs"):
            returning = [f for f in _functions(trial) if _allocating_results(f)]
            if returning:
                raise failure(
                    op,
                    "allow_return_allocs = false cannot be honoured: "
                    f"{', '.join('@' + f.sym_name.data for f in returning)} returns a buffer it "
                    "allocates (a tensor result of dynamic shape)",
                    silenceable=False,
                )
    if analysis_only:
        if op.transformed is not None:
            interp.state.bind(op.transformed, targets)
        return
    for target in targets:
        before = {id(o) for o in target.walk()}
        _bufferize(target)
        created = [o for o in target.walk() if id(o) not in before]
        if not op.flag("create_deallocs"):
            for dealloc in [o for o in created if isinstance(o, memref.DeallocOp)]:
                Rewriter.erase_op(dealloc)
        memcpy = op.memcpy_op
        if isinstance(memcpy, StringAttr) and memcpy.data == "linalg.copy":
            for copy in [o for o in created if isinstance(o, memref.CopyOp)]:
                Rewriter.replace_op(copy, CopyOp([copy.source], [copy.destination], []))
    if op.transformed is not None:
        interp.state.bind(op.transformed, targets)


__all__ = ["apply_empty_tensor_to_alloc_tensor", "apply_one_shot_bufferize"]
