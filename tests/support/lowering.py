"""Lowering helpers: the dominance check xDSL's verifier does not do, a lowered module
compiled with llvmlite directly and called through ctypes (so the lowering tests do not
depend on `xlinalg.backend`), the input of the cleanup passes, and two generic payloads."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Region, SSAValue

from xlinalg.api import apply_schedule
from xlinalg.dialects.context import make_context
from xlinalg.lowering.abi import LoweredModule, MemRefArg, ScalarArg
from xlinalg.lowering.pipeline import lower_to_loops
from xlinalg.lowering.vector_to_llvm import VectorUnrollTo1DPass
from xlinalg.transforms.affine.lower_affine import LowerAffinePass

from support import REPO, parse_module


def assert_dominance(module: ModuleOp) -> None:
    """Every operand is defined before its use (in its block or an enclosing one).

    xDSL's verifier does not check dominance. Multi-block (cf) regions are
    checked loosely: any value of the region is visible in all its blocks.
    """

    def check(region: Region, visible: frozenset[SSAValue]) -> None:
        if len(region.blocks) > 1:
            everything = {a for b in region.blocks for a in b.args}
            everything |= {r for b in region.blocks for o in b.ops for r in o.results}
            visible = visible | everything
        for block in region.blocks:
            scope = set(visible) | set(block.args)
            for op in block.ops:
                for value in op.operands:
                    assert value in scope, f"'{op.name}' uses a value that does not dominate it"
                for inner in op.regions:
                    check(inner, frozenset(scope))
                scope |= set(op.results)

    check(module.body, frozenset())


_CTYPES: dict[np.dtype[Any], Any] = {
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.bool_): ctypes.c_bool,
}


@functools.cache
def _initialize_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    # libm (`expf`, `powf`, `tanhf`, ... that math ops become) and compiler helpers
    for lib in ("m", "gcc_s"):
        path = ctypes.util.find_library(lib)
        if path is not None:
            llvm.load_library_permanently(path)


def memref_args(array: np.ndarray, base: np.ndarray | None = None) -> list[Any]:
    """Expanded descriptor of `array` (a view into `base`, whose data pointer is passed)."""
    base = array if base is None else base
    item = array.itemsize
    offset = (array.__array_interface__["data"][0] - base.ctypes.data) // item
    ptr = ctypes.c_void_p(base.ctypes.data)
    return [ptr, ptr, offset, *array.shape, *(s // item for s in array.strides)]


class LlvmliteModule:
    """A lowered module compiled with llvmlite directly (host CPU, opt=2, MCJIT) and
    called through ctypes with memref descriptors expanded as in `xlinalg/lowering/abi.py`,
    so the tests using it depend on the lowering only (not on `xlinalg.backend`)."""

    def __init__(self, lowered: LoweredModule) -> None:
        _initialize_llvm()
        module = llvm.parse_assembly(lowered.llvm_ir)
        module.verify()
        target = llvm.Target.from_triple(llvm.get_process_triple())
        # the host CPU, so that f32<->f16 conversions are instructions (F16C), not libgcc calls
        tm = target.create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=2
        )
        self.engine = llvm.create_mcjit_compiler(module, tm)
        self.engine.finalize_object()
        self.lowered = lowered

    def function(self, name: str) -> Callable[..., Any]:
        """`name` as a Python callable: NumPy arrays for memrefs (or `(view, base)` to pass
        a view with an offset into `base`), Python numbers for scalars."""
        sig = self.lowered.functions[name]
        params: list[Any] = []
        for spec in sig.args:
            if isinstance(spec, MemRefArg):
                rank = len(spec.shape)
                params += [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * rank)
            else:
                params.append(_CTYPES[np.dtype(spec.dtype)])
        restype = None if sig.result is None else _CTYPES[np.dtype(sig.result.dtype)]
        cfunc = ctypes.CFUNCTYPE(restype, *params)(self.engine.get_function_address(name))

        def call(*args: Any) -> Any:
            assert self.engine is not None  # the closure keeps the engine (and its code) alive
            flat: list[Any] = []
            for spec, value in zip(sig.args, args, strict=True):
                if isinstance(spec, MemRefArg):
                    if isinstance(value, tuple):  # (view, base)
                        flat += memref_args(value[0], value[1])
                    else:
                        assert isinstance(value, np.ndarray)
                        assert value.dtype == spec.dtype
                        flat += memref_args(value)
                else:
                    assert isinstance(spec, ScalarArg)
                    flat.append(value)
            return cfunc(*flat)

        return call


def matmul_before_cleanup(n: int = 128) -> ModuleOp:
    """examples/matmul_512.mlir at n³ with matmul_vectorize.mlir's schedule, lowered to the
    point where the pipeline runs its cleanup (loops, vector unroll, lower-affine): the
    input on which the cleanup passes are checked against xDSL's."""
    knobs = {
        "tile_m": 32,
        "tile_n": 64,
        "tile_k": 64,
        "reg_m": 4,
        "reg_n": 16,
        "reg_k": 2,
        "cache_order": 0,
        "unroll_k": 1,
        "peel": 0,
    }
    payload = (REPO / "examples" / "matmul_512.mlir").read_text().replace("512", str(n))
    module = apply_schedule(
        parse_module(payload), (REPO / "search_spaces" / "matmul_vectorize.mlir").read_text(), knobs
    )
    lower_to_loops(module)
    VectorUnrollTo1DPass().apply(make_context(), module)
    LowerAffinePass().apply(make_context(), module)
    return module


MATMUL = """
func.func @mm(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
"""


DOT = """
func.func @dot(%A: memref<?xf64>, %B: memref<?xf64>, %C: memref<f64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%A, %B : memref<?xf64>, memref<?xf64>) outs(%C : memref<f64>) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %0 = arith.mulf %a, %b : f64
    %1 = arith.addf %c, %0 : f64
    linalg.yield %1 : f64
  }
  return
}
"""
