"""The lowering pipeline end to end: payload → cf-level IR → LLVM IR → llvmlite MCJIT → NumPy.

Kernels are compiled with llvmlite directly and called through ctypes
(`support.LlvmliteModule`), so these tests only depend on the lowering.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xlinalg.coverage.linalg_samples import TABLE_OPS, dtypes_of, sample
from xlinalg.dialects.linalg import NamedStructuredOp
from xlinalg.errors import LoweringError
from xlinalg.lowering.pipeline import (
    CF_LEVEL_DIALECTS,
    lower_to_cf,
    lower_to_llvm,
    lower_to_scf,
)
from xlinalg.lowering.to_llvm import convert_to_llvm_ir
from xlinalg.reference.function import run_function
from xlinalg.reference.named import evaluate_named

from support import needs_iree, run_iree_opt
from support import parse_module as parse
from support.lowering import DOT, MATMUL, LlvmliteModule, assert_dominance


def compile_text(text: str) -> LlvmliteModule:
    module = lower_to_cf(parse(text))
    module.verify()
    assert_dominance(module)
    return LlvmliteModule(convert_to_llvm_ir(module))


rng = np.random.default_rng(7)


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------- kernels


@pytest.mark.parametrize(("m", "n", "k"), [(7, 13, 5), (1, 1, 1), (9, 3, 0), (0, 4, 3)])
def test_generic_matmul_dynamic_odd_shapes(m: int, n: int, k: int) -> None:
    mm = compile_text(MATMUL).function("mm")
    a, b, c = rand(m, k), rand(k, n), rand(m, n)
    expected = c + a @ b
    mm(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_generic_matmul_on_strided_numpy_views() -> None:
    # identity-layout memrefs are contiguous by contract: views need a strided layout
    strided = "memref<?x?xf32, strided<[?, ?], offset: ?>>"
    mm = compile_text(MATMUL.replace("memref<?x?xf32>", strided)).function("mm")
    a = rand(12, 10)[::2, 1:8]  # 6x7, row stride 20 elements
    b = rand(9, 7).T  # 7x9, transposed (column-major)
    c = np.zeros((6, 9), np.float32)
    mm(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


TILED_MATMUL = """
#min4 = affine_map<(d0)[s0] -> (4, s0 - d0)>
#min3 = affine_map<(d0)[s0] -> (-d0 + s0, 3)>
#min5 = affine_map<(d0)[s0] -> (5, s0 - d0)>
#min2 = affine_map<(d0)[s0] -> (2, s0 - d0)>
#add = affine_map<(d0, d1) -> (d0 + d1)>
func.func @tiled(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  %N = memref.dim %B, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %M step %c4 {
    %tm = affine.min #min4(%i)[%M]
    scf.for %j = %c0 to %N step %c3 {
      %tn = affine.min #min3(%j)[%N]
      scf.for %k = %c0 to %K step %c5 {
        %tk = affine.min #min5(%k)[%K]
        scf.for %kk = %c0 to %tk step %c2 {
          %k2 = affine.apply #add(%k, %kk)
          %tk2 = affine.min #min2(%kk)[%tk]
          %a = memref.subview %A[%i, %k2] [%tm, %tk2] [1, 1]
              : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
          %b = memref.subview %B[%k2, %j] [%tk2, %tn] [1, 1]
              : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
          %c = memref.subview %C[%i, %j] [%tm, %tn] [1, 1]
              : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                           affine_map<(d0, d1, d2) -> (d2, d1)>,
                                           affine_map<(d0, d1, d2) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
              ins(%a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                           memref<?x?xf32, strided<[?, 1], offset: ?>>)
              outs(%c : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
          ^bb0(%x: f32, %y: f32, %z: f32):
            %0 = arith.mulf %x, %y : f32
            %1 = arith.addf %z, %0 : f32
            linalg.yield %1 : f32
          }
        }
      }
    }
  }
  return
}
"""


def test_hand_tiled_matmul_with_subviews_and_affine_min() -> None:
    tiled = compile_text(TILED_MATMUL).function("tiled")
    for m, n, k in [(11, 7, 13), (4, 3, 5), (1, 2, 1), (17, 1, 9)]:
        a, b, c = rand(m, k), rand(k, n), rand(m, n)
        expected = c + a @ b
        tiled(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_tiled_matmul_cf_level_ir_has_only_cf_level_dialects() -> None:
    module = lower_to_cf(parse(TILED_MATMUL))
    module.verify()
    assert {op.name.split(".")[0] for op in module.walk()} <= CF_LEVEL_DIALECTS
    names = {op.name for op in module.walk()}
    assert "cf.cond_br" in names
    assert "memref.subview" in names
    assert not {"scf.for", "affine.min", "affine.apply", "linalg.generic"} & names
    # the printed IR re-parses (upstream syntax) and verifies
    parse(str(module))


ELEMENTWISE = """
func.func @ew(%A: memref<3x5xf32>, %s: f32, %C: memref<5x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> ()>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A, %s : memref<3x5xf32>, f32) outs(%C : memref<5x3xf32>) {
  ^bb0(%a: f32, %x: f32, %c: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t = arith.muli %i, %j : index
    %ti = arith.index_cast %t : index to i32
    %tf = arith.sitofp %ti : i32 to f32
    %0 = arith.mulf %a, %x : f32
    %1 = arith.addf %0, %tf : f32
    %2 = math.exp %c : f32
    %3 = arith.addf %1, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
"""


def test_transposed_index_scalar_and_math() -> None:
    ew = compile_text(ELEMENTWISE).function("ew")
    a, c = rand(3, 5), rand(5, 3)
    ii, jj = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
    expected = a.T * np.float32(1.5) + (ii * jj).astype(np.float32) + np.exp(c)
    ew(a, 1.5, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-6)


CONV = """
func.func @conv(%I: memref<?xf32>, %K: memref<3xf32>, %O: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%I, %K : memref<?xf32>, memref<3xf32>) outs(%O : memref<?xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %0 = arith.mulf %i, %k : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
"""


CONV_DOT = CONV + DOT


def test_strided_conv1d_and_rank0_dot() -> None:
    compiled = compile_text(CONV_DOT)
    x, w, out = rand(11), rand(3), np.zeros(5, np.float32)
    compiled.function("conv")(x, w, out)
    expected = np.array([x[2 * i : 2 * i + 3] @ w for i in range(5)], np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    a, b, c = rand(37, dtype=np.float64), rand(37, dtype=np.float64), np.array(2.0)
    compiled.function("dot")(a, b, c)
    np.testing.assert_allclose(c, 2.0 + a @ b, rtol=1e-12)


ALIASING = """
func.func @alias(%A: memref<8x8xf32>) {
  %bot = memref.subview %A[4, 0] [4, 8] [1, 1]
      : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  %col = memref.subview %A[0, 3] [8, 1] [1, 1]
      : memref<8x8xf32> to memref<8xf32, strided<[8], offset: 3>>
  %row = memref.subview %A[4, 0] [1, 4] [1, 1]
      : memref<8x8xf32> to memref<4xf32, strided<[1], offset: 32>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%bot : memref<4x8xf32, strided<[8, 1], offset: 32>>)
      outs(%row : memref<4xf32, strided<[1], offset: 32>>) {
  ^bb0(%a: f32, %c: f32):
    %0 = arith.addf %c, %a : f32
    linalg.yield %0 : f32
  }
  return
}
"""


def test_aliasing_input_and_output_keep_memory_semantics() -> None:
    # row = A[4, 0:4] is both read (through bot = A[4:8, :]) and accumulated into:
    # the loop-by-loop semantics sees every update it made to A[4, d1] in memory.
    alias = compile_text(ALIASING).function("alias")
    a = rand(8, 8)
    expected = a.copy()
    for i in range(4):
        for j in range(8):
            expected[4, i] = expected[4, i] + expected[4 + i, j]
    alias(a)
    np.testing.assert_allclose(a, expected, rtol=1e-5, atol=1e-5)


SCF_CONTROL_FLOW = """
func.func @f(%A: memref<?xf32>, %lo: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %A, %c0 : memref<?xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %A[%i] : memref<?xf32>
    %big = arith.cmpf ogt, %x, %lo : f32
    %v = scf.if %big -> (f32) {
      scf.yield %x : f32
    } else {
      %neg = arith.negf %x : f32
      scf.yield %neg : f32
    }
    %odd = arith.remsi %i, %c1 : index
    %isodd = arith.cmpi ne, %odd, %c0 : index
    scf.if %isodd {
      memref.store %zero, %A[%i] : memref<?xf32>
    }
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %sum : f32
}
"""


def test_scf_for_iter_args_and_if_through_cf() -> None:
    module = lower_to_cf(parse(SCF_CONTROL_FLOW))
    assert not [op for op in module.walk() if op.name.startswith("scf.")]
    f = LlvmliteModule(lower_to_llvm(parse(SCF_CONTROL_FLOW))).function("f")
    a = rand(23)
    expected = np.where(a > 0.25, a, -a).sum(dtype=np.float32)
    assert f(a, 0.25) == pytest.approx(float(expected), rel=1e-5)


# ---------------------------------------------------------------- affine semantics

AFFINE = """
func.func @floordiv(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%a)
  return %r : index
}
func.func @ceildiv(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 ceildiv 3)>(%a)
  return %r : index
}
func.func @mod(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 mod 5)>(%a)
  return %r : index
}
func.func @sym(%a: index, %b: index, %c: index) -> index {
  %r = affine.apply affine_map<(d0, d1)[s0] -> (d0 * 3 - d1 + s0 * 2 + 7)>(%a, %b)[%c]
  return %r : index
}
func.func @min3(%a: index, %b: index, %c: index) -> index {
  %r = affine.min affine_map<(d0, d1)[s0] -> (d0, d1 + 2, s0 - d0)>(%a, %b)[%c]
  return %r : index
}
func.func @max(%a: index, %b: index) -> index {
  %r = "affine.max"(%a, %b) <{map = affine_map<(d0)[s0] -> (d0 floordiv 2, s0 - 3, -d0)>}>
      : (index, index) -> index
  return %r : index
}
"""


def test_affine_apply_min_max_semantics_including_negative_values() -> None:
    # affine.max is not an xDSL op in 0.74: parsed as an unregistered op, lowered by name
    module = parse(AFFINE, allow_unregistered=True)
    compiled = LlvmliteModule(lower_to_llvm(module))
    floordiv, ceildiv, mod = (compiled.function(n) for n in ("floordiv", "ceildiv", "mod"))
    sym, min3, max_ = (compiled.function(n) for n in ("sym", "min3", "max"))
    for a in range(-13, 14):
        assert floordiv(a) == a // 4
        assert ceildiv(a) == -((-a) // 3)
        assert mod(a) == a % 5
        for b in (-4, 0, 9):
            assert sym(a, b, b + 1) == a * 3 - b + (b + 1) * 2 + 7
            assert min3(a, b, 5) == min(a, b + 2, 5 - a)
            assert max_(a, b) == max(a // 2, b - 3, -a)


# ---------------------------------------------------------------- pipeline behaviour


def test_unsupported_op_is_a_lowering_error_naming_the_op() -> None:
    module = parse(
        """
func.func @t(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = scf.execute_region -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  }
  return %e : tensor<4xf32>
}
"""
    )
    with pytest.raises(LoweringError, match=r"'scf.execute_region' \(in @t\).*not supported"):
        lower_to_cf(module)


def test_pipeline_works_in_place_and_reports_stage_timings() -> None:
    module = parse(TILED_MATMUL)
    timings: dict[str, float] = {}
    lowered = lower_to_llvm(module, timings)
    assert {"linalg-to-loops", "lower-affine", "scf-to-cf", "to-llvm"} <= set(timings)
    assert all(t >= 0 for t in timings.values())
    assert "define void @tiled(" in lowered.llvm_ir
    assert set(lowered.functions) == {"tiled"}
    # the module given was lowered in place (to the LLVM dialect)
    assert all(op.name.split(".")[0] in {"builtin", "llvm"} for op in module.walk())


def test_licm_hoists_index_arithmetic_out_of_the_reduction_loop() -> None:
    module = lower_to_scf(parse(TILED_MATMUL))
    module.verify()
    assert_dominance(module)
    # every arith op on index inside the innermost loop depends on its induction variable
    loops = [op for op in module.walk() if op.name == "scf.for"]
    innermost = [
        loop for loop in loops if not any(o.name == "scf.for" for o in loop.walk() if o is not loop)
    ]
    for loop in innermost:
        for op in loop.body.block.ops:
            if op.name == "arith.constant":
                pytest.fail("constant left inside the innermost loop")


def test_scf_level_ir_matches_numpy_in_the_reference_interpreter() -> None:
    module = lower_to_scf(parse(MATMUL))
    a, b, c = rand(5, 4), rand(4, 6), rand(5, 6)
    expected = c + a @ b
    run_function(module, "mm", [a, b, c])
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)
    # the hand-tiled kernel after lower-affine (arith select/divsi chains) and LICM
    module = lower_to_scf(parse(TILED_MATMUL))
    a, b, c = rand(9, 7), rand(7, 5), rand(9, 5)
    expected = c + a @ b
    run_function(module, "tiled", [a, b, c])
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)
    module = lower_to_scf(parse(CONV_DOT))
    x, w, out = rand(11), rand(3), np.zeros(5, np.float32)
    run_function(module, "conv", [x, w, out])
    expected = np.array([x[2 * i : 2 * i + 3] @ w for i in range(5)], np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


KMN = """
func.func @kmn(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d1, d2)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
"""


def test_outer_product_order_with_hoisted_input_loads_and_with_aliasing() -> None:
    kmn = compile_text(KMN).function("kmn")
    a, b, c = rand(6, 5), rand(5, 7), rand(6, 7)
    expected = c + a @ b
    kmn(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)
    # C[m, n] += C[m, k] * B[k, n]: the input is the output, every update must be seen
    alias = compile_text(KMN.replace("ins(%A, %B", "ins(%C, %B")).function("kmn")
    c, b = rand(4, 4), rand(4, 4)
    expected = c.copy()
    for k in range(4):
        for m in range(4):
            for n in range(4):
                expected[m, n] += expected[m, k] * b[k, n]
    alias(c.copy(), b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


AFFINE_LOOPS = """
func.func @f(%A: memref<?xf32>, %B: memref<?xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %m = memref.dim %A, %c0 : memref<?xf32>
  affine.for %i = max affine_map<()[s0] -> (0, s0 - 10)>()[%n]
      to min affine_map<(d0)[s0] -> (d0, s0)>(%m)[%n] step 2 {
    %x = affine.load %A[%i + 1] : memref<?xf32>
    affine.store %x, %B[%i floordiv 2] : memref<?xf32>
  }
  %s = affine.for %j = 0 to 4 iter_args(%acc = %n) -> (index) {
    %t = arith.addi %acc, %j : index
    affine.yield %t : index
  }
  return %s : index
}
"""


def test_affine_for_load_store_with_min_max_bounds_and_iter_args() -> None:
    f = compile_text(AFFINE_LOOPS).function("f")
    for n in (0, 7, 13, 40):
        a, b = rand(30), np.zeros(16, np.float32)
        expected = b.copy()
        for i in range(max(0, n - 10), min(29, n), 2):
            expected[i // 2] = a[i + 1]
        assert f(a[:29], b, n) == n + 6
        np.testing.assert_array_equal(b, expected)


NAMED = """
func.func @fill_matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<?x?xf32>)
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}
"""


def test_named_ops_are_generalized_then_lowered() -> None:
    module = lower_to_scf(parse(NAMED))
    assert not [op for op in module.walk() if op.name.startswith("linalg.")]
    f = compile_text(NAMED).function("fill_matmul")
    a, b, c = rand(9, 6), rand(6, 11), rand(9, 11)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@needs_iree
def test_scf_and_cf_level_ir_is_accepted_by_upstream_mlir() -> None:
    for text in (TILED_MATMUL, SCF_CONTROL_FLOW):
        for lower in (lower_to_scf, lower_to_cf):
            printed = str(lower(parse(text)))
            done = run_iree_opt(printed)
            assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- every op of the table

POSITIVE = {"log", "sqrt", "rsqrt", "powf", "div", "div_unsigned"}
NUMPY_TYPES: dict[str, Any] = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def table_instance(name: str, elt: str, dynamic: bool) -> tuple[str, list[tuple[int, ...] | None]]:
    """A function `@k_<name>` applying `linalg.<name>` to its sample operands (strided windows)."""
    s = sample(name, elt)
    # `k_` prefix: a kernel named like a libm function (`powf`, `exp`) would shadow it
    return s.function(f"k_{name}", "dynamic" if dynamic else "memref"), s.shapes


def table_cases(elt: str) -> list[str]:
    """Every table op whose sample takes `elt` and whose operands all have element type `elt`."""
    return [n for n in TABLE_OPS if elt in dtypes_of(n) and set(sample(n, elt).types) == {elt}]


@pytest.mark.slow
@pytest.mark.parametrize(("elt", "dynamic"), [("f32", True), ("f64", False), ("i32", True)])
def test_every_table_op_lowered_and_compiled_matches_the_reference(elt: str, dynamic: bool) -> None:
    rng = np.random.default_rng(11)
    dtype = NUMPY_TYPES[elt]
    names = table_cases(elt)
    instances = {name: table_instance(name, elt, dynamic) for name in names}
    text = "".join(func_text for func_text, _ in instances.values())
    compiled = compile_text(text)
    reference = parse(text)
    named_ops = {
        op.parent_op().sym_name.data[2:]: op  # type: ignore[union-attr]
        for op in reference.walk()
        if isinstance(op, NamedStructuredOp)
    }
    for name, (_, shapes) in instances.items():

        def make(shape: tuple[int, ...] | None, name: str = name) -> np.ndarray:
            size = () if shape is None else shape  # None: a scalar operand
            if elt == "i32":
                value = rng.integers(1 if name in POSITIVE else -9, 10, size=size)
            else:
                value = rng.uniform(0.25 if name in POSITIVE else -2.0, 2.0, size=size)
            return np.asarray(value).astype(dtype)

        operands = [make(s) for s in shapes]
        args = [o.item() if s is None else o for o, s in zip(operands, shapes)]
        expected = evaluate_named(named_ops[name], [np.copy(a) for a in args])[0]
        compiled.function(f"k_{name}")(*args)
        got = operands[-1]
        if elt == "i32":
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            tol = 1e-5 if elt == "f32" else 1e-12
            np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=name)


CONV = """
func.func @conv(%I: memref<?x?x?x?xf32>, %K: memref<?x?x?x?xf32>, %O: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%I, %K : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%O : memref<?x?x?x?xf32>)
  return
}
"""


def test_conv_2d_nhwc_hwcf_with_strides_and_dilations() -> None:
    conv = compile_text(CONV).function("conv")
    n, h, w, c, kh, kw, f = 2, 9, 10, 3, 3, 2, 4
    oh, ow = (h - (kh - 1) * 1 - 1) // 2 + 1, (w - (kw - 1) * 2 - 1) // 1 + 1
    inp, ker, out = rand(n, h, w, c), rand(kh, kw, c, f), rand(n, oh, ow, f)
    expected = out.copy()
    for i in range(kh):
        for j in range(kw):
            window = inp[:, i : i + 2 * (oh - 1) + 1 : 2, 2 * j : 2 * j + ow, :]
            expected += np.einsum("nhwc,cf->nhwf", window, ker[i, j])
    conv(inp, ker, out)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


NESTED_BODY = """
func.func @relu_upper(%A: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<?x?xf32>) outs(%C : memref<?x?xf32>) {
  ^bb0(%a: f32, %c: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %upper = scf.if %a_pos -> (f32) {
      %le = arith.cmpi sle, %i, %j : index
      %v = arith.select %le, %a, %c : f32
      scf.yield %v : f32
    } else {
      scf.yield %zero : f32
    }
    linalg.yield %upper : f32
  }
  return
}
"""


def test_payload_with_a_region_op_using_indices_and_captured_values() -> None:
    text = NESTED_BODY.replace(
        "    %upper = scf.if %a_pos",
        "    %a_pos = arith.cmpf ogt, %a, %zero : f32\n    %upper = scf.if %a_pos",
    )
    f = compile_text(text).function("relu_upper")
    a, c = rand(5, 6), rand(5, 6)
    ii, jj = np.meshgrid(np.arange(5), np.arange(6), indexing="ij")
    expected = np.where(a > 0, np.where(ii <= jj, a, c), 0.0).astype(np.float32)
    f(a, c)
    np.testing.assert_array_equal(c, expected)


WHILE = """
func.func @w(%A: memref<?xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %s = %c0) : (index, index) -> (index, index) {
    %lt = arith.cmpi slt, %i, %n : index
    scf.condition(%lt) %i, %s : index, index
  } do {
  ^bb0(%i2: index, %s2: index):
    %m = memref.dim %A, %c0 : memref<?xf32>
    scf.for %j = %c0 to %m step %c1 {
      %x = memref.load %A[%j] : memref<?xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %A[%j] : memref<?xf32>
    }
    %i3 = arith.addi %i2, %c1 : index
    %s3 = arith.addi %s2, %i2 : index
    scf.yield %i3, %s3 : index, index
  }
  return %r#1 : index
}
"""


def test_scf_while_with_a_nested_for_through_cf() -> None:
    module = lower_to_cf(parse(WHILE))
    assert_dominance(module)
    assert not [op for op in module.walk() if op.name.startswith("scf.")]
    w = compile_text(WHILE).function("w")
    for n in (0, 1, 4):
        a = rand(5)
        expected = a * 2.0**n
        assert w(a, n) == n * (n - 1) // 2
        np.testing.assert_allclose(a, expected, rtol=1e-6)


WHILE_IN_FOR = """
func.func @collatz_steps(%A: memref<?xi64>, %S: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %n = memref.dim %A, %c0 : memref<?xi64>
  scf.for %i = %c0 to %n step %c1 {
    %x0 = memref.load %A[%i] : memref<?xi64>
    %r:2 = scf.while (%x = %x0, %k = %zero) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi sgt, %x, %one : i64
      scf.condition(%more) %x, %k : i64, i64
    } do {
    ^bb0(%x1: i64, %k1: i64):
      %rem = arith.remsi %x1, %two : i64
      %odd = arith.cmpi ne, %rem, %zero : i64
      %next = scf.if %odd -> (i64) {
        %t = arith.muli %x1, %three : i64
        %t1 = arith.addi %t, %one : i64
        scf.yield %t1 : i64
      } else {
        %h = arith.divsi %x1, %two : i64
        scf.yield %h : i64
      }
      %k2 = arith.addi %k1, %one : i64
      scf.yield %next, %k2 : i64, i64
    }
    memref.store %r#1, %S[%i] : memref<?xi64>
  }
  return
}
"""


def test_scf_while_inside_a_for_with_an_if_inside() -> None:
    f = compile_text(WHILE_IN_FOR).function("collatz_steps")
    a = np.array([1, 2, 3, 6, 7, 27], np.int64)
    steps = np.zeros_like(a)

    def collatz(x: int) -> int:
        k = 0
        while x > 1:
            x = 3 * x + 1 if x % 2 else x // 2
            k += 1
        return k

    f(a, steps)
    assert steps.tolist() == [collatz(int(x)) for x in a]
