"""`iree_linalg_ext.winograd.{filter,input,output}_transform` (see `winograd_matrices.py`).

```
iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3)
    kernel_dimensions([0, 1]) ins(%f : memref<3x3xCxF>) outs(%o : memref<8x8xCxF>)
iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3)
    image_dimensions([1, 2]) ins(%img : memref<NxHxWxC>) outs(%o : memref<8x8xNxH'xW'xC>)
iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3)
    image_dimensions([1, 2]) ins(%t : memref<8x8xNxH'xW'xC>) outs(%o : memref<NxHxWxC>)
```
With m = output_tile_size, r = kernel_size, T = m + r - 1:
- filter: (r, r, C, F) (`kernel_dimensions = [0, 1]`, HWCF) or (F, C, r, r) (`[2, 3]`,
  FCHW) -> (T, T, C, F), every (c, f) slice `G g G^T`;
- input: (N, H, W, C) (`image_dimensions = [1, 2]`) or (N, C, H, W) (`[2, 3]`) ->
  (T, T, N, H', W', C) with `H' = ceil((H - r + 1) / m)`: tile (h', w') is the T×T window
  at (h'·m, w'·m), zero beyond the image, transformed `B^T d B`;
- output: (T, T, N, H', W', C) -> (N, m·H', m·W', C) or (N, C, m·H', m·W'): `A^T y A`.
Lowering: per tile, `M X M^T` as two small loop matmuls against the constant
matrix (a private `memref.global`) through a scratch tile. Tiling covers the non-spatial loops (C, F for the filter; N, C for
input/output); the tile loops H', W' are not tileable here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from xlinalg.dialects.iree_linalg_ext.base import (
    LinalgExtOp,
    compatible,
    elem,
    parse_int_list,
    parse_keyword_int,
    print_int_list,
    print_keyword_value,
    shape,
)
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.tiling_utils import CoveringResultTiles, insert_tile
from xlinalg.dialects.iree_linalg_ext.winograd_matrices import MATRICES
from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.dialects.linalg.pack_shape import ceil_div
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface, parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.dense_arrays import int_values
from xlinalg.ir.slices import domain_of, slice_of


def _matrix(em: Emitter, op: Operation, name: str, matrix: np.ndarray, t: AnyFloat) -> SSAValue:
    """`memref.get_global` of `matrix` (a private constant `memref.global` in the module)."""
    rows, cols = matrix.shape
    symbol = f"__iree_linalg_ext_winograd_{name}_{rows}x{cols}_{t}"
    type_ = MemRefType(t, [rows, cols])
    module = op.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    if SymbolTable.lookup_symbol(module, symbol) is None:
        value = DenseIntOrFPElementsAttr.from_list(
            TensorType(t, [rows, cols]), [float(x) for x in matrix.flatten()]
        )
        first = module.body.block.first_op
        assert first is not None  # the module holds `op`
        module.body.block.insert_op_before(
            memref.GlobalOp.get(StringAttr(symbol), type_, value, constant=UnitAttr()), first
        )
    return em.value(memref.GetGlobalOp(symbol, type_))


def _sandwich(
    e: Emitter,
    mat: SSAValue,
    rows: int,
    inner: int,
    tmp: SSAValue,
    load_x: Callable[[Emitter, SSAValue, SSAValue], SSAValue],
    store_y: Callable[[Emitter, SSAValue, SSAValue, SSAValue], None],
    t: Attribute,
) -> None:
    """`Y = M X M^T` for one tile: `tmp = M X` (rows×inner), then `Y[i][j] = sum_b tmp[i][b] M[j][b]`."""
    zero, one = e.index(0), e.index(1)
    n_rows, n_inner = e.index(rows), e.index(inner)
    fzero = e.const(0.0, t)

    def left(e1: Emitter, i: SSAValue) -> None:
        def col(e2: Emitter, b: SSAValue) -> None:
            def mac(e3: Emitter, a: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                prod = e3.value(arith.MulfOp(e3.load(mat, [i, a]), load_x(e3, a, b)))
                return [e3.value(arith.AddfOp(acc[0], prod))]

            (value,) = e2.loop_carry(zero, n_inner, one, [fzero], mac)
            e2.store(value, tmp, [i, b])

        e1.loop(zero, n_inner, one, col)

    def right(e1: Emitter, i: SSAValue) -> None:
        def col(e2: Emitter, j: SSAValue) -> None:
            def mac(e3: Emitter, b: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                prod = e3.value(arith.MulfOp(e3.load(tmp, [i, b]), e3.load(mat, [j, b])))
                return [e3.value(arith.AddfOp(acc[0], prod))]

            (value,) = e2.loop_carry(zero, n_inner, one, [fzero], mac)
            store_y(e2, i, j, value)

        e1.loop(zero, n_rows, one, col)

    e.loop(zero, n_rows, one, left)
    e.loop(zero, n_rows, one, right)


def _lower_tiles(
    op: _WinogradOp,
    name: str,
    matrix: np.ndarray,
    domain: list[SSAValue],
    body: Callable[[Emitter, list[SSAValue], Callable[..., None]], None],
    em: Emitter,
) -> None:
    """Around `body`: the constant matrix, a rows×inner scratch tile, the loop nest over
    `domain`; `body(e, ivs, transform)` calls `transform(load_x, store_y)` for its tile."""
    t = elem(op.outputs[0])
    assert isinstance(t, AnyFloat), "verified: a floating-point element type"
    rows, inner = matrix.shape
    mat = _matrix(em, op, name, matrix, t)
    tmp = em.value(memref.AllocOp.get(t, shape=[rows, inner]))

    def nest_body(e: Emitter, ivs: list[SSAValue]) -> None:
        body(
            e, ivs, lambda load_x, store_y: _sandwich(e, mat, rows, inner, tmp, load_x, store_y, t)
        )

    em.nest(domain, nest_body)
    em.add(memref.DeallocOp.get(tmp))


class _WinogradOp(CoveringResultTiles, LinalgExtOp, LoopLoweringInterface, TilingInterface):
    """Result tiles (`CoveringResultTiles`): every element of a transformed t×t tile
    depends on the whole input tile, so the t×t dims (and the image's h, w) are computed
    whole and the asked window is cut out."""

    output_tile_size = prop_def(IntegerAttr[I64])
    kernel_size = prop_def(IntegerAttr[I64])

    DIMS_KEYWORD: ClassVar[str] = ""
    ALLOWED_DIMS: ClassVar[tuple[tuple[int, int], ...]] = ()

    @property
    def m(self) -> int:
        return self.output_tile_size.value.data

    @property
    def r(self) -> int:
        return self.kernel_size.value.data

    @property
    def tile(self) -> int:
        return self.m + self.r - 1

    def dims(self) -> list[int]:
        attr = self.properties[self.DIMS_KEYWORD]
        assert isinstance(attr, DenseArrayBase)  # as the subclass's prop_def declares
        return int_values(attr)

    def verify_common(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        self.verify_destination_style()
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            raise self.fail("expected one input and one output")
        if (self.m, self.r) not in MATRICES:
            raise self.fail(
                f"unsupported output_tile_size/kernel_size ({self.m}, {self.r}); supported: "
                f"{sorted(MATRICES)}"
            )
        if tuple(self.dims()) not in self.ALLOWED_DIMS:
            raise self.fail(
                f"expected {self.DIMS_KEYWORD} to be one of {[list(d) for d in self.ALLOWED_DIMS]}, "
                f"got {self.dims()}"
            )
        if elem(self.inputs[0]) != elem(self.outputs[0]) or not isinstance(
            elem(self.inputs[0]), AnyFloat
        ):
            raise self.fail("expected floating-point input and output of the same element type")
        return shape(self.inputs[0]), shape(self.outputs[0])

    def check_shape(self, what: str, expected: Sequence[int], got: Sequence[int]) -> None:
        if len(expected) != len(got) or not all(map(compatible, expected, got)):
            raise self.fail(f"expected the {what} shape to be {list(expected)}, got {list(got)}")

    def print(self, printer: Printer) -> None:
        print_keyword_value(printer, "output_tile_size", str(self.m))
        print_keyword_value(printer, "kernel_size", str(self.r))
        print_keyword_value(printer, self.DIMS_KEYWORD, print_int_list(self.dims()))
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        print_result_types(printer, self.results_.types)

    @classmethod
    def parse(cls, parser: Parser) -> _WinogradOp:
        attrs = parser.parse_optional_attr_dict()
        m = parse_keyword_int(parser, "output_tile_size")
        r = parse_keyword_int(parser, "kernel_size")
        parser.parse_keyword(cls.DIMS_KEYWORD)
        parser.parse_punctuation("(")
        dims = parse_int_list(parser)
        parser.parse_punctuation(")")
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        result_types = parse_result_types(parser)
        op = cls.build(
            operands=[inputs, outputs],
            result_types=[result_types],
            properties={
                "output_tile_size": IntegerAttr(m, 64),
                "kernel_size": IntegerAttr(r, 64),
                cls.DIMS_KEYWORD: DenseArrayBase.from_list(i64, dims),
            },
        )
        op.attributes.update(attrs)
        return op


@irdl_op_definition
class WinogradFilterTransformOp(_WinogradOp):
    name = "iree_linalg_ext.winograd.filter_transform"

    kernel_dimensions = prop_def(DenseArrayBase)
    DIMS_KEYWORD: ClassVar[str] = "kernel_dimensions"
    ALLOWED_DIMS: ClassVar[tuple[tuple[int, int], ...]] = ((0, 1), (2, 3))

    def hwcf(self) -> bool:
        return self.dims() == [0, 1]

    def verify_(self) -> None:
        in_shape, out_shape = self.verify_common()
        if len(in_shape) != 4:
            raise self.fail(f"expected a 4-D filter, got {self.inputs[0].type}")
        c, f = (in_shape[2], in_shape[3]) if self.hwcf() else (in_shape[1], in_shape[0])
        kh, kw = (in_shape[0], in_shape[1]) if self.hwcf() else (in_shape[2], in_shape[3])
        self.check_shape("kernel", [self.r, self.r], [kh, kw])
        self.check_shape("output", [self.tile, self.tile, c, f], out_shape)

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        g_matrix, _, _ = MATRICES[(self.m, self.r)]
        em = Emitter(InsertPoint.before(self))
        src, dst = self.inputs[0], self.outputs[0]
        hwcf = self.hwcf()

        def body(e: Emitter, ivs: list[SSAValue], transform: Callable[..., None]) -> None:
            c, f = ivs
            transform(
                lambda e2, a, b: e2.load(src, [a, b, c, f] if hwcf else [f, c, a, b]),
                lambda e2, i, j, v: e2.store(v, dst, [i, j, c, f]),
            )

        _lower_tiles(self, "G", g_matrix, em.dims(dst)[2:], body, em)
        rewriter.erase_op(self)

    def get_loop_iterator_types(self) -> list[IteratorType]:
        return parallel_except(2, set())

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.outputs[0])[2:]

    def result_domain_dims(self) -> list[int | None]:
        return [2, 3]  # (c, f) of the (t, t, c, f) result

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        (oc, of), (sc, sf) = offsets, sizes
        r, tile = self.r, self.tile
        if self.hwcf():
            src = slice_of(builder, self.inputs[0], [0, 0, oc, of], [r, r, sc, sf])
        else:
            src = slice_of(builder, self.inputs[0], [of, oc, 0, 0], [sf, sc, r, r])
        dst = slice_of(builder, self.outputs[0], [0, 0, oc, of], [tile, tile, sc, sf])
        return insert_tile(self, builder, [src], [dst])


class _ImageTransformOp(_WinogradOp):
    """Input/output transforms: an image (NHWC or NCHW) on one side, tiles on the other."""

    DIMS_KEYWORD: ClassVar[str] = "image_dimensions"
    ALLOWED_DIMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 2), (2, 3))

    def nhwc(self) -> bool:
        return self.dims() == [1, 2]

    def image(self) -> SSAValue:
        raise NotImplementedError

    def image_index(self, n: SSAValue, h: SSAValue, w: SSAValue, c: SSAValue) -> list[SSAValue]:
        return [n, h, w, c] if self.nhwc() else [n, c, h, w]

    def tiles_value(self) -> SSAValue:
        raise NotImplementedError

    def get_loop_iterator_types(self) -> list[IteratorType]:
        return parallel_except(4, set())

    def untileable_loops(self) -> set[int]:
        return {1, 2}

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.tiles_value())[2:]

    def result_domain_dims(self) -> list[int | None]:
        """Domain (n, th, tw, c); th and tw are not tileable (taken whole)."""
        if isinstance(self, WinogradInputTransformOp):
            return [2, None, None, 5]  # result (t, t, n, th, tw, c)
        return [0, None, None, 3] if self.nhwc() else [0, None, None, 1]  # the image

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        on, _, _, oc = offsets
        sn, sh, sw, sc = sizes
        image = self.image()
        full = domain_of(builder, image)
        if self.nhwc():
            image_tile = slice_of(builder, image, [on, 0, 0, oc], [sn, full[1], full[2], sc])
        else:
            image_tile = slice_of(builder, image, [on, oc, 0, 0], [sn, sc, full[2], full[3]])
        tiles = slice_of(
            builder,
            self.tiles_value(),
            [0, 0, on, 0, 0, oc],
            [self.tile, self.tile, sn, sh, sw, sc],
        )
        if isinstance(self, WinogradInputTransformOp):
            return insert_tile(self, builder, [image_tile], [tiles])
        return insert_tile(self, builder, [tiles], [image_tile])


@irdl_op_definition
class WinogradInputTransformOp(_ImageTransformOp):
    name = "iree_linalg_ext.winograd.input_transform"

    image_dimensions = prop_def(DenseArrayBase)

    def image(self) -> SSAValue:
        return self.inputs[0]

    def tiles_value(self) -> SSAValue:
        return self.outputs[0]

    def verify_(self) -> None:
        in_shape, out_shape = self.verify_common()
        if len(in_shape) != 4:
            raise self.fail(f"expected a 4-D image, got {self.inputs[0].type}")
        n, h, w, c = (
            in_shape if self.nhwc() else (in_shape[0], in_shape[2], in_shape[3], in_shape[1])
        )

        def tiles(size: int) -> int:
            return -1 if size < 0 else ceil_div(size - self.r + 1, self.m)

        self.check_shape("output", [self.tile, self.tile, n, tiles(h), tiles(w), c], out_shape)

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        _, bt, _ = MATRICES[(self.m, self.r)]
        em = Emitter(InsertPoint.before(self))
        src, dst = self.inputs[0], self.outputs[0]
        image_sizes = em.dims(src)
        height, width = (
            (image_sizes[1], image_sizes[2]) if self.nhwc() else (image_sizes[2], image_sizes[3])
        )
        m, one = em.index(self.m), em.index(1)
        h_last, w_last = em.subi(height, one), em.subi(width, one)
        zero_f = em.const(0.0, elem(src))

        def body(e: Emitter, ivs: list[SSAValue], transform: Callable[..., None]) -> None:
            n, th, tw, c = ivs
            h0, w0 = e.muli(th, m), e.muli(tw, m)

            def load(e2: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
                # the window element, zero beyond the image (clamped load + select)
                h, w = e2.addi(h0, a), e2.addi(w0, b)
                ok = e2.value(arith.AndIOp(e2.cmpi(h, height, "ult"), e2.cmpi(w, width, "ult")))
                hc = e2.value(arith.MinUIOp(h, h_last))
                wc = e2.value(arith.MinUIOp(w, w_last))
                return e2.select(ok, e2.load(src, self.image_index(n, hc, wc, c)), zero_f)

            transform(load, lambda e2, i, j, v: e2.store(v, dst, [i, j, n, th, tw, c]))

        _lower_tiles(self, "BT", bt, em.dims(dst)[2:], body, em)
        rewriter.erase_op(self)


@irdl_op_definition
class WinogradOutputTransformOp(_ImageTransformOp):
    name = "iree_linalg_ext.winograd.output_transform"

    image_dimensions = prop_def(DenseArrayBase)

    def image(self) -> SSAValue:
        return self.outputs[0]

    def tiles_value(self) -> SSAValue:
        return self.inputs[0]

    def verify_(self) -> None:
        in_shape, out_shape = self.verify_common()
        if len(in_shape) != 6:
            raise self.fail(f"expected a 6-D input, got {self.inputs[0].type}")
        self.check_shape("input tile", [self.tile, self.tile], in_shape[:2])
        _, _, n, th, tw, c = in_shape
        h = -1 if th < 0 else th * self.m
        w = -1 if tw < 0 else tw * self.m
        self.check_shape("output", [n, h, w, c] if self.nhwc() else [n, c, h, w], out_shape)

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        _, _, at = MATRICES[(self.m, self.r)]
        em = Emitter(InsertPoint.before(self))
        src, dst = self.inputs[0], self.outputs[0]
        m = em.index(self.m)

        def body(e: Emitter, ivs: list[SSAValue], transform: Callable[..., None]) -> None:
            n, th, tw, c = ivs
            h0, w0 = e.muli(th, m), e.muli(tw, m)
            transform(
                lambda e2, a, b: e2.load(src, [a, b, n, th, tw, c]),
                lambda e2, i, j, v: e2.store(
                    v, dst, self.image_index(n, e2.addi(h0, i), e2.addi(w0, j), c)
                ),
            )

        _lower_tiles(self, "AT", at, em.dims(src)[2:], body, em)
        rewriter.erase_op(self)
