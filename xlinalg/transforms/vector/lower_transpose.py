"""`vector.transpose` → element/row moves or shuffles (upstream's transpose lowerings).

Strategies (`lowering_strategy`, upstream's VectorTransposeLowering):
- `eltwise`: result = inserts of extracts. Trailing dims the permutation keeps
  in place move as whole sub-vectors (one extract/insert per leading index);
  otherwise element by element.
- `shuffle_1d` (2-D transposes): shape_cast to 1-D, one `vector.shuffle` with
  the transposed index order, shape_cast back.
- `flat_transpose`: upstream emits `vector.flat_transpose` (LLVM's
  `llvm.matrix.transpose`), which LLVM itself lowers to shuffles; we emit the
  same data movement as `shuffle_1d` (chosen reading: same result, no
  matrix intrinsic in our LLVM lowering).
- `shuffle_16x16` (2-D 16×16 of 32-bit elements, the AVX-512 case) and
  `avx2_lowering_strategy = true` (2-D 8×8 of 32-bit elements): a network of
  log2(n) stages of two-row shuffles. Stage with block b pairs rows i and
  i + b (bit b of i clear); in every group of 2b columns, row i takes the low
  halves [row_i[0:b], row_{i+b}[0:b]] and row i + b the high halves — the
  block-recursive transpose, the same network shape as upstream's
  unpack/shuffle/permute sequence (not the same instruction sequence).
  Other shapes fall back to `eltwise`, as upstream does.
"""

from __future__ import annotations

import itertools

from xdsl.dialects import vector
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, VectorType, i64
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.vector import ShapeCastOp, TransposeOp, vector_shape
from xlinalg.transforms.vector.builders import extract, insert
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op

TRANSPOSE_STRATEGIES = ("eltwise", "flat_transpose", "shuffle_1d", "shuffle_16x16")


def shuffle(b: VectorBuilder, v1: SSAValue, v2: SSAValue, mask: list[int]) -> SSAValue:
    """`vector.shuffle %v1, %v2 [mask]` of 1-D vectors (indices ≥ len(v1) pick from v2)."""
    t = v1.type
    assert isinstance(t, VectorType)
    return b.add(
        vector.ShuffleOp.create(
            operands=[v1, v2],
            result_types=[VectorType(t.element_type, [len(mask)])],
            properties={"mask": DenseArrayBase.from_list(i64, mask)},
        )
    )


def _eltwise(b: VectorBuilder, op: TransposeOp) -> SSAValue:
    perm = op.get_permutation()
    res_t = op.result.type
    assert isinstance(res_t, VectorType)
    shape = vector_shape(res_t)
    keep = len(perm)
    while keep > 0 and perm[keep - 1] == keep - 1:
        keep -= 1  # dims keep.. stay in place: move sub-vectors of that rank
    lead = max(keep, 1) if keep < len(perm) else len(perm)
    result = b.zeros(res_t)
    for pos in itertools.product(*(range(s) for s in shape[:lead])):
        src_pos = [0] * lead
        for i, p in enumerate(perm[:lead]):
            src_pos[p] = pos[i]
        part = b.add(extract(op.vector, src_pos))
        result = b.add(insert(part, result, list(pos)))
    return result


def _shuffle_1d(b: VectorBuilder, op: TransposeOp) -> SSAValue:
    src_t = op.vector.type
    assert isinstance(src_t, VectorType)
    m, n = vector_shape(src_t)
    flat_t = VectorType(src_t.element_type, [m * n])
    flat = b.add(ShapeCastOp(op.vector, flat_t))
    moved = shuffle(b, flat, flat, [i * n + j for j in range(n) for i in range(m)])
    return b.add(ShapeCastOp(moved, op.result.type))


def _shuffle_network(b: VectorBuilder, op: TransposeOp) -> SSAValue:
    src_t = op.vector.type
    assert isinstance(src_t, VectorType)
    n = vector_shape(src_t)[0]
    rows = [b.add(extract(op.vector, [i])) for i in range(n)]
    block = n // 2
    while block >= 1:
        low = [
            j
            for g in range(0, n, 2 * block)
            for j in (*range(g, g + block), *range(n + g, n + g + block))
        ]
        high = [j + block for j in low]
        for i in range(n):
            if i & block:
                continue
            rows[i], rows[i + block] = (
                shuffle(b, rows[i], rows[i + block], low),
                shuffle(b, rows[i], rows[i + block], high),
            )
        block //= 2
    result = b.zeros(op.result.type)
    for i, row in enumerate(rows):
        result = b.add(insert(row, result, [i]))
    return result


def _is_2d(op: TransposeOp) -> bool:
    return len(vector_shape(op.vector.type)) == 2 and op.get_permutation() == [1, 0]


def _square_32bit(op: TransposeOp, n: int) -> bool:
    t = op.vector.type
    assert isinstance(t, VectorType)
    et = t.element_type
    width = et.width.data if isinstance(et, IntegerType) else getattr(et, "bitwidth", None)
    return _is_2d(op) and vector_shape(t) == (n, n) and width == 32


def lower_transpose(op: TransposeOp, strategy: str = "eltwise", avx2: bool = False) -> None:
    b = VectorBuilder.before(op)
    perm = op.get_permutation()
    if perm == sorted(perm):
        replace_op(op, [op.vector])
        return
    if (avx2 and _square_32bit(op, 8)) or (strategy == "shuffle_16x16" and _square_32bit(op, 16)):
        value = _shuffle_network(b, op)
    elif strategy in ("shuffle_1d", "flat_transpose") and _is_2d(op):
        value = _shuffle_1d(b, op)
    else:
        value = _eltwise(b, op)
    replace_op(op, [value])


def lower_transposes(root: Operation, strategy: str = "eltwise", avx2: bool = False) -> int:
    return apply_to_all(root, TransposeOp, lambda op: lower_transpose(op, strategy, avx2))


__all__ = ["TRANSPOSE_STRATEGIES", "lower_transpose", "lower_transposes", "shuffle"]
