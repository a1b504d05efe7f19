"""Tiling on memrefs, shared by the tests of tile_using_for, interchange and unroll: a tiny
interpreter for loop nests whose linalg bodies the tiler rewrote (`run_func`: the NumPy
reference does not evaluate affine ops inside linalg bodies), running a function before and
after a rewrite on the same inputs (`check_same_result`), iree-opt accepting the printed IR,
and the payloads; the spec's payload of `tile_reduction_using_forall`; and the loop / slice
structure of tiled IR (`skeleton`), to compare with what upstream's tiling builds."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith, builtin, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from xlinalg.dialects.linalg import GenericOp, IndexOp, YieldOp
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.reference.function import run_function
from xlinalg.reference.generic import evaluate_scalar_op

from support import IREE_OPT, run_iree_opt
from support import parse_module as parse


def reparse(module: ModuleOp) -> ModuleOp:
    """Print and parse back (the printed IR must be valid and verify)."""
    return parse(str(module))


_INDEX_BINOPS = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b,
    "arith.divsi": lambda a, b: int(a / b),
    "arith.remsi": lambda a, b: int(np.fmod(a, b)),
    "arith.remui": lambda a, b: a % b,
}


class MiniInterpreter:
    """Runs scalar loop nests over NumPy memrefs, linalg bodies with affine ops included."""

    def __init__(self) -> None:
        self.env: dict[SSAValue, Any] = {}
        self.trace: list[tuple[str, Any]] = []

    def run_block(self, block: Block) -> list[Any]:
        for op in block.ops:
            if op.name in ("scf.yield", "func.return"):
                return [self.env[v] for v in op.operands]
            self.run_op(op)
        return []

    def run_op(self, op: Operation) -> None:
        env = self.env
        if isinstance(op, arith.ConstantOp):
            value = op.value
            assert isinstance(value, (IntegerAttr, builtin.FloatAttr))
            env[op.result] = value.value.data
        elif op.name in _INDEX_BINOPS and isinstance(op.results[0].type, builtin.IndexType):
            a, b = (env[v] for v in op.operands)
            env[op.results[0]] = _INDEX_BINOPS[op.name](a, b)
        elif isinstance(op, affine.ApplyOp):
            m = op.map.data
            args = [env[v] for v in op.mapOperands]
            env[op.result] = m.eval(args[: m.num_dims], args[m.num_dims :])[0]
        elif isinstance(op, affine.MinOp):
            m = op.map.data
            args = [env[v] for v in op.arguments]
            env[op.result] = min(m.eval(args[: m.num_dims], args[m.num_dims :]))
        elif isinstance(op, memref.DimOp):
            env[op.result] = env[op.source].shape[env[op.index]]
        elif isinstance(op, memref.SubviewOp):
            self.trace.append(("subview", op))
            offsets = _mixed(op.static_offsets.get_values(), op.offsets, env)
            sizes = _mixed(op.static_sizes.get_values(), op.sizes, env)
            strides = _mixed(op.static_strides.get_values(), op.strides, env)
            source = env[op.source]
            for o, s, st, n in zip(offsets, sizes, strides, source.shape):
                assert (o >= 0 and s >= 0 and o + (s - 1) * st < n) or s == 0, (offsets, sizes)
            view = source[
                tuple(slice(o, o + s * st, st) for o, s, st in zip(offsets, sizes, strides))
            ]
            assert view.shape == tuple(sizes)
            env[op.result] = view
        elif isinstance(op, memref.LoadOp):
            env[op.res] = env[op.memref][tuple(env[i] for i in op.indices)]
        elif isinstance(op, memref.StoreOp):
            env[op.memref][tuple(env[i] for i in op.indices)] = env[op.value]
        elif isinstance(op, scf.ForOp):
            lb, ub, step = env[op.lb], env[op.ub], env[op.step]
            assert step > 0
            self.trace.append(("for", (lb, ub, step)))
            carried = [env[v] for v in op.iter_args]
            block = op.body.block
            for iv in range(lb, ub, step):
                env[block.args[0]] = iv
                for arg, value in zip(block.args[1:], carried):
                    env[arg] = value
                carried = self.run_block(block)
            for result, value in zip(op.res, carried):
                env[result] = value
        elif isinstance(op, StructuredOpInterface):
            self.trace.append(("linalg", op))
            self.run_structured(op)
        else:
            results = evaluate_scalar_op(op, [env[v] for v in op.operands])
            for r, v in zip(op.results, results):
                env[r] = v

    def run_structured(self, op: StructuredOpInterface) -> None:
        generic = op if isinstance(op, GenericOp) else op.to_generic()  # type: ignore[union-attr]
        operands = [self.env[v] for v in op.get_operands_in_order()]
        maps = op.get_indexing_maps()
        ranges: list[int] = [0] * op.get_num_loops()
        for value, amap in zip(operands, maps):
            if isinstance(value, np.ndarray):
                for r, expr in enumerate(amap.results):
                    if isinstance(expr, AffineDimExpr):
                        ranges[expr.position] = value.shape[r]
        block = generic.body.block
        n_in = len(op.get_inputs())
        outputs = operands[n_in:]
        for point in itertools.product(*(range(r) for r in ranges)):
            local = MiniInterpreter()
            local.env = self.env  # body may use values defined above (e.g. ivs)
            for arg, value, amap in zip(block.args, operands, maps):
                if isinstance(value, np.ndarray):
                    self.env[arg] = value[amap.eval(point, [])]
                else:
                    self.env[arg] = value
            for inner in block.ops:
                if isinstance(inner, YieldOp):
                    for out, amap, y in zip(outputs, maps[n_in:], inner.values):
                        out[amap.eval(point, [])] = self.env[y]
                elif isinstance(inner, IndexOp):
                    self.env[inner.result] = point[inner.dim.value.data]
                else:
                    local.run_op(inner)


def _mixed(
    static: Sequence[int], dynamic: Sequence[SSAValue], env: dict[SSAValue, Any]
) -> list[int]:
    it = iter(dynamic)
    return [env[next(it)] if s == builtin.DYNAMIC_INDEX else s for s in static]


def run_func(module: ModuleOp, name: str, args: Sequence[Any]) -> MiniInterpreter:
    """Run `func.func @name` on NumPy arrays (memrefs written in place)."""
    fn = next(
        op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    interp = MiniInterpreter()
    for arg, value in zip(fn.body.block.args, args):
        interp.env[arg] = value
    interp.run_block(fn.body.block)
    return interp


def the_op(module: ModuleOp, kind: type = GenericOp) -> Operation:
    """The one op of `kind` in `module`."""
    ops = [op for op in module.walk() if isinstance(op, kind)]
    assert len(ops) == 1, ops
    return ops[0]


def count(module: ModuleOp, kind: type) -> int:
    """How many ops of `module` are instances of `kind`."""
    return sum(1 for op in module.walk() if isinstance(op, kind))


MATMUL_MAPS = """
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
"""


def matmul_generic(ta: str, tb: str, tc: str) -> str:
    """`func.func @mm`: C += A * B as one `linalg.generic` on the given memref types."""
    return (
        MATMUL_MAPS
        + f"""
func.func @mm(%A: {ta}, %B: {tb}, %C: {tc}) {{
  linalg.generic {{indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%A, %B : {ta}, {tb}) outs(%C : {tc}) {{
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }}
  return
}}
"""
    )


def random_inputs(shapes: Sequence[tuple[int, ...]], seed: int = 0) -> list[np.ndarray]:
    """Standard normal f32 arrays of `shapes`."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def check_same_result(
    untiled: ModuleOp,
    tiled: ModuleOp,
    shapes: Sequence[tuple[int, ...]],
    name: str = "mm",
    out: int = -1,
    *,
    local: bool = False,
) -> None:
    """Run both functions on the same random inputs; the output arrays must agree."""
    a = random_inputs(shapes)
    b = [x.copy() for x in a]
    if local:
        run_func(untiled, name, a)
        run_func(tiled, name, b)
    else:
        run_function(untiled, name, a)
        run_function(tiled, name, b)
    assert not np.array_equal(b[out], random_inputs(shapes)[out])  # the kernel did write
    np.testing.assert_allclose(b[out], a[out], rtol=2e-5, atol=2e-5)


def check_upstream_syntax(module: ModuleOp) -> None:
    """When IREE's `iree-opt` is installed, it must parse and verify our printed IR."""
    if IREE_OPT is None:
        return
    done = run_iree_opt(str(module))
    assert done.returncode == 0, done.stderr


STATIC_MM = matmul_generic("memref<37x23xf32>", "memref<23x29xf32>", "memref<37x29xf32>")


DYNAMIC_MM = matmul_generic("memref<?x?xf32>", "memref<?x?xf32>", "memref<?x?xf32>")


MM_SHAPES = [(37, 23), (23, 29), (37, 29)]


IOTA = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @iota(%A: memref<11x?xf32>, %O: memref<11x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<11x?xf32>) outs(%O : memref<11x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.constant 100 : index
    %ic = arith.muli %i, %c : index
    %ij = arith.addi %ic, %j : index
    %w = arith.index_cast %ij : index to i64
    %f = arith.sitofp %w : i64 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  }
  return
}
"""


# ------------------------------------------------------------------ tile_reduction_using_forall

# The spec's payload: a row sum of a dynamic 2-D tensor.
SPEC_PAYLOAD = """
func.func @f(%arg0: tensor<?x?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
  %red = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
    ins(%arg0 : tensor<?x?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%arg7: f32, %arg9: f32):
    %1 = arith.addf %arg7, %arg9 : f32
    linalg.yield %1 : f32
  } -> tensor<?xf32>
  return %red : tensor<?xf32>
}
"""


MATCH = '    %0 = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op\n'


# ------------------------------------------------------------------ structure vs upstream


_SKELETON = re.compile(
    r"\b(scf\.for|scf\.yield|tensor\.extract_slice|tensor\.insert_slice|tensor\.empty|"
    r"linalg\.[a-z_]+)\b[^\n]*?(?::\s*([^\n]*))?$",
    re.MULTILINE,
)


def skeleton(text: str) -> list[tuple[str, str]]:
    """(op, types) of the loop/slice/linalg ops in order: the structure the tiling built."""
    body = text.split("transform.with_named_sequence")[0]
    out = []
    for name, types in _SKELETON.findall(body):
        if name in ("linalg.yield", "linalg.index"):
            continue
        unnamed = re.sub(r"%[\w.#]+", "%", types or "")  # value names differ
        out.append((name, re.sub(r"\s+", " ", unnamed).strip()))
    return out


def same_types(mine: str, theirs: str) -> bool:
    """Equal types, except that a size we know statically may be dynamic ('?') upstream
    (upstream builds the fresh unpack tile before folding its sizes)."""
    a, b = re.split(r"(\d+|\?)", mine), re.split(r"(\d+|\?)", theirs)
    return len(a) == len(b) and all(x == y or (y == "?" and x.isdigit()) for x, y in zip(a, b))
