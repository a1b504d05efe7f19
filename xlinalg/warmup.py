"""Warm a process up for compiling: import every xlinalg module and compile one small kernel.

The tuner compiles each candidate in a child forked from a server process
(`tuner.worker`); without a warm-up every child pays, on its first compile, the
lazy imports of the transforms/bufferizer/LLVM-conversion modules, the first use
of the context and of LLVM's target machine: ≈0.3–0.5 s per candidate, more than
the compile itself. `warm_up()` in the server pays it once.

The small kernel goes through the common path of the templates (tile_using_forall,
tile_using_for, vectorize with sizes, loop.unroll, hoist_redundant_vector_transfers,
lower_contraction to outer products, bufferization of a tensor payload, threads,
llvmlite O3 + MCJIT), so that first-call caches along it are filled as well.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from xlinalg.api import compile as compile_payload
from xlinalg.api import list_knobs
from xlinalg.errors import XlinalgError
from xlinalg.examples import fill_matmul

_PAYLOAD = """
func.func @warm_up(%A: tensor<24x8xf32>, %B: tensor<8x32xf32>, %C: tensor<24x32xf32>) -> tensor<24x32xf32> {
  %zero = arith.constant 0.0 : f32
  %F = linalg.fill ins(%zero : f32) outs(%C : tensor<24x32xf32>) -> tensor<24x32xf32>
  %R = linalg.matmul ins(%A, %B : tensor<24x8xf32>, tensor<8x32xf32>)
                     outs(%F : tensor<24x32xf32>) -> tensor<24x32xf32>
  return %R : tensor<24x32xf32>
}
"""

_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %mm num_threads [2, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
      : (!transform.any_op) -> !transform.any_op
    %mm2 = transform.structured.match ops{["linalg.matmul"]} in %b
      : (!transform.any_op) -> !transform.any_op
    %reg, %l:3 = transform.structured.tile_using_for %mm2 tile_sizes [4, 16, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %reg vector_sizes [4, 16, 2] : !transform.any_op
    transform.loop.unroll %l#2 factor = 2 : !transform.any_op
    %fn = transform.structured.match ops{["func.func"]} in %b
      : (!transform.any_op) -> !transform.any_op
    %fn1 = transform.structured.hoist_redundant_vector_transfers %fn
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %fn1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
"""


def import_all_modules() -> int:
    """Import every module of the `xlinalg` package; returns how many there are."""
    count = 0
    for info in pkgutil.walk_packages([str(Path(__file__).parent)], "xlinalg."):
        importlib.import_module(info.name)
        count += 1
    return count


_MATMUL = fill_matmul(32, 64, 64, kind="memref")

_CONV = """
func.func @conv(%I: memref<1x10x10x32xf32>, %F: memref<3x3x32x32xf32>, %O: memref<1x8x8x32xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%I, %F : memref<1x10x10x32xf32>, memref<3x3x32x32xf32>) outs(%O : memref<1x8x8x32xf32>)
  return
}
"""

_BATCH_MATMUL = """
func.func @batch_matmul(%A: memref<2x32x64xf32>, %B: memref<2x64x64xf32>, %C: memref<2x32x64xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<2x32x64xf32>, memref<2x64x64xf32>) outs(%C : memref<2x32x64xf32>)
  return
}
"""

#: the tuned templates of `search_spaces/` (when xlinalg runs from its repository) and a
#: small payload each, compiled with the first option of every knob
_TEMPLATES = {
    "matmul_vectorize.mlir": _MATMUL,
    "matmul_parallel.mlir": _MATMUL,
    "matmul_mmt4d.mlir": _PAYLOAD.replace("@warm_up", "@matmul"),
    "conv2d_nhwc_hwcf.mlir": _CONV,
    "batch_matmul.mlir": _BATCH_MATMUL,
}


def _template_cases() -> list[tuple[str, str]]:
    spaces = Path(__file__).resolve().parent.parent / "search_spaces"
    return [
        ((spaces / name).read_text(), payload)
        for name, payload in _TEMPLATES.items()
        if (spaces / name).is_file()
    ]


def warm_up(*, compile_kernel: bool = True) -> None:
    """Import all of xlinalg and (with `compile_kernel`) compile and run one small kernel,
    then a small instance of each tuned template found in `search_spaces/` (the first use
    of each op's parser, verifier and transforms costs 10-50 ms in every forked child
    otherwise). A template that does not compile is skipped: warming up never fails."""
    import_all_modules()
    if not compile_kernel:
        return

    kernel = compile_payload(_PAYLOAD, schedule=_SCHEDULE)
    kernel(*kernel.make_inputs())
    for schedule, payload in _template_cases():
        knobs = {knob.name: knob.options[0] for knob in list_knobs(schedule)}
        try:
            compile_payload(payload, schedule=schedule, knobs=knobs)
        except XlinalgError:
            continue


__all__ = ["import_all_modules", "warm_up"]
