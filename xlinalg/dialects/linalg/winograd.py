"""The three Winograd conv2d ops, in upstream syntax (both attribute forms).

```
%u = linalg.winograd_filter_transform fmr(F_4_3) ins(%g : tensor<F x 3 x 3 x C>) outs(%o : tensor<6x6xCxF>) -> ...
%v = linalg.winograd_input_transform m(4) r(3) ins(%d : NxHxWxC) outs(%o : 6x6xTHxTWxNxC) -> ...
%y = linalg.winograd_output_transform fmr(F_4_3) ins(%m : 6x6xTHxTWxNxF) outs(%o : NxHxWxF) -> ...
```
`fmr(F_m_r)` is the [003] form (property `fmr`, an i32 enum case 0..2);
`m(..) r(..)` the [000] form (properties `m`, `r`). What was parsed is what is
printed.

Semantics (layouts and shapes as upstream's verifiers and decomposition):
- filter (F, KH, KW, C) → (alphaH, alphaW, C, F): `G g G^T` per (f, c);
- input (N, H, W, C) → (alphaH, alphaW, tileH, tileW, N, C): `B^T d B` on the
  alpha x alpha window at (th*m, tw*m), with H = tileH*m + r - 1;
- output (alphaH, alphaW, tileH, tileW, N, F) → (N, H, W, F): `A^T y A`
  **added** to the output tile at (th*m, tw*m), with H = tileH*m — a conv2d
  accumulates into its init, and upstream's decomposition adds the transformed
  value to the output too (reading chosen; the seed text does not say).
A filter/window of height (width) 1 skips the left (right) transform, as
upstream (alpha is then 1).

The ops take tensors (one result) or memrefs (no result; needed to execute
them before bufferization lands). On memrefs they implement
`LoopLoweringInterface`: loops over the outer dims and, inside, the two small
constant matrix products fully unrolled on scalars (zero coefficients
skipped).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ShapedType,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.dialects.linalg.scalar_loops import index_constant, loop_nest, memref_sizes
from xlinalg.dialects.linalg.winograd_matrices import (
    FMR_CASES,
    FMR_NAMES,
    IDENTITY_1,
    Matrix,
    WinogradMatrices,
    winograd_matrices,
)
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface, parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.shaped_types import Shaped
from xlinalg.ir.slices import domain_of, slice_of


def _shape_str(shape: Sequence[int]) -> str:
    return "x".join("?" if s < 0 else str(s) for s in shape)


class _WinogradOp(
    IRDLOperation, LoopLoweringInterface, DestinationStyleOpInterface, TilingInterface
):
    """Shared parts: the (m, r) attributes, assembly, shape check, lowering scaffold, tiling.

    Tiling as upstream: the filter transform iterates over the filter (F, KH, KW, C),
    the input transform over its output (alphaH, alphaW, tileH, tileW, N, C), the output
    transform over its input (alphaH, alphaW, tileH, tileW, N, F); the kernel/alpha dims
    are not tileable. A tile of image tiles [t, t + s) reads (input transform) or writes
    (output transform) image rows [t * m, t * m + s * m + (alpha - m)) / [t * m, (t + s) * m),
    so non-dividing tile sizes give partial tiles with dynamic sizes."""

    IN_RANK: ClassVar[int] = 4
    OUT_RANK: ClassVar[int] = 4
    #: dims whose sizes the transform needs statically (the others may be dynamic: tiles)
    STATIC_IN_DIMS: ClassVar[tuple[int, ...]] = ()
    STATIC_OUT_DIMS: ClassVar[tuple[int, ...]] = ()

    def __init__(
        self,
        input: SSAValue,
        output: SSAValue,
        *,
        fmr: int | None = None,
        m: int | None = None,
        r: int | None = None,
    ) -> None:
        if (fmr is None) == (m is None or r is None):
            raise ValueError("give either fmr or both m and r")
        props: dict[str, Attribute | None] = {
            "fmr": None if fmr is None else IntegerAttr(fmr, i32),
            "m": None if m is None else IntegerAttr(m, i64),
            "r": None if r is None else IntegerAttr(r, i64),
        }
        super().__init__(
            operands=[input, output],
            result_types=[[output.type] if isinstance(output.type, TensorType) else []],
            properties=props,
        )

    # fields declared by each op class
    def _input(self) -> SSAValue:
        return self.operands[0]

    def _output(self) -> SSAValue:
        return self.operands[1]

    # ---- DestinationStyleOpInterface ----
    def get_dps_inputs(self) -> Sequence[SSAValue]:
        return [self._input()]

    def get_dps_inits(self) -> Sequence[SSAValue]:
        return [self._output()]

    def reads_inits(self) -> bool:
        return isinstance(self, WinogradOutputTransformOp)  # it accumulates into the output

    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> _WinogradOp:
        fmr = self.properties.get("fmr")
        kwargs: dict[str, int] = {}
        if isinstance(fmr, IntegerAttr):
            kwargs["fmr"] = fmr.value.data
        else:
            kwargs["m"], kwargs["r"] = self.get_m_r()
        op = type(self)(
            buffers.get(self._input(), self._input()),
            buffers.get(self._output(), self._output()),
            **kwargs,
        )
        op.attributes.update(self.attributes)
        return op

    def get_m_r(self) -> tuple[int, int]:
        fmr = self.properties.get("fmr")
        if isinstance(fmr, IntegerAttr):
            return FMR_CASES[fmr.value.data]
        m, r = self.properties.get("m"), self.properties.get("r")
        assert isinstance(m, IntegerAttr)
        assert isinstance(r, IntegerAttr)
        return m.value.data, r.value.data

    # ---- TilingInterface ----
    TILED_VALUE: ClassVar[str] = "input"  # which operand's dims are the iteration domain
    UNTILEABLE: ClassVar[frozenset[int]] = frozenset({0, 1})

    def _domain_value(self) -> SSAValue:
        return self._input() if self.TILED_VALUE == "input" else self._output()

    def get_loop_iterator_types(self) -> list[IteratorType]:
        type_ = self._domain_value().type
        assert isinstance(type_, ShapedType)
        return parallel_except(len(type_.get_shape()), set(self.UNTILEABLE))

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self._domain_value())

    def untileable_loops(self) -> set[int]:
        return set(self.UNTILEABLE)

    def tile_operands(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> tuple[SSAValue, SSAValue]:
        raise NotImplementedError

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        source, dest = self.tile_operands(builder, offsets, sizes)
        tiled = self.clone_on_buffers({self._input(): source, self._output(): dest})
        builder.insert(tiled)
        return tiled

    def _image_window(
        self,
        builder: IndexBuilder,
        alpha_h: int,
        alpha_w: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
        halo: bool,
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        """(N, H, W, C) offsets/sizes of the image rows of tiles [t, t + s) in H and W: from
        t * step, s * step + (alpha - step) rows (input transform, `halo`) or
        s * step rows (output transform); step = m, or 1 for an untransformed side."""
        m, _ = self.get_m_r()
        d0 = AffineExpr.dimension(0)
        window_offsets: list[OpFoldResult] = [offsets[4], 0, 0, offsets[5]]
        window_sizes: list[OpFoldResult] = [sizes[4], 0, 0, sizes[5]]
        for k, alpha in ((1, alpha_h), (2, alpha_w)):
            step = m if alpha != 1 else 1
            tail = alpha - step if halo else 0
            window_offsets[k] = builder.apply(d0 * step, [offsets[k + 1]])
            window_sizes[k] = builder.apply(d0 * step + tail, [sizes[k + 1]])
        return window_offsets, window_sizes

    def matrices(self) -> WinogradMatrices:
        return winograd_matrices(*self.get_m_r())

    def _shapes(self) -> tuple[list[int], list[int]]:
        ti, to = self._input().type, self._output().type
        assert isinstance(ti, ShapedType)
        assert isinstance(to, ShapedType)
        return list(ti.get_shape()), list(to.get_shape())

    def expected_output_shape(self, in_shape: list[int], out_shape: list[int]) -> list[int]:
        raise NotImplementedError

    def verify_(self) -> None:
        name = self.name
        fmr = self.properties.get("fmr")
        has_mr = "m" in self.properties or "r" in self.properties
        if fmr is None and not ("m" in self.properties and "r" in self.properties):
            raise VerifyException(f"'{name}' expects either 'fmr' or both 'm' and 'r'")
        if fmr is not None and has_mr:
            raise VerifyException(f"'{name}' expects either 'fmr' or 'm'/'r', not both")
        if isinstance(fmr, IntegerAttr) and not 0 <= fmr.value.data < len(FMR_CASES):
            raise VerifyException(
                f"'{name}' fmr {fmr.value.data} is not one of 0 (F_2_3), 1 (F_4_3), 2 (F_2_5)"
            )
        if fmr is None:
            m, r = self.get_m_r()
            if (m, r) not in FMR_CASES:
                raise VerifyException(
                    f"'{name}' unsupported F(m={m}, r={r}): expected F(2,3), F(4,3) or F(2,5)"
                )
        ti, to = self._input().type, self._output().type
        assert isinstance(ti, Shaped)
        assert isinstance(to, Shaped)
        if isinstance(ti, TensorType) != isinstance(to, TensorType):
            raise VerifyException(
                f"'{name}' expects the input and output to be both tensors or both memrefs"
            )
        if ti.get_element_type() != to.get_element_type() or not isinstance(
            ti.get_element_type(), AnyFloat
        ):
            raise VerifyException(
                f"'{name}' expects the same floating-point element type on both sides"
            )
        in_shape, out_shape = self._shapes()
        if len(in_shape) != self.IN_RANK or len(out_shape) != self.OUT_RANK:
            raise VerifyException(
                f"'{name}' expects a {self.IN_RANK}D input and a {self.OUT_RANK}D output, got "
                f"{len(in_shape)}D and {len(out_shape)}D"
            )
        if any(in_shape[d] < 0 for d in self.STATIC_IN_DIMS) or any(
            out_shape[d] < 0 for d in self.STATIC_OUT_DIMS
        ):
            raise VerifyException(
                f"'{name}' needs static sizes in input dims {list(self.STATIC_IN_DIMS)} and output "
                f"dims {list(self.STATIC_OUT_DIMS)}"
            )
        expected = self.expected_output_shape(in_shape, out_shape)
        if any(e >= 0 and o >= 0 and e != o for e, o in zip(expected, out_shape)):
            raise VerifyException(
                f"'{name}' expected output shape {_shape_str(expected)} for input {_shape_str(in_shape)} "
                f"and F({', '.join(map(str, self.get_m_r()))}), got {_shape_str(out_shape)}"
            )
        if [r.type for r in self.results] != ([to] if isinstance(to, TensorType) else []):
            raise VerifyException(
                f"'{name}' has one result of the output type exactly for a tensor output"
            )

    # ---- assembly ----
    def print(self, printer: Printer) -> None:
        fmr = self.properties.get("fmr")
        if isinstance(fmr, IntegerAttr) and 0 <= fmr.value.data < len(FMR_NAMES):
            printer.print_string(f" fmr({FMR_NAMES[fmr.value.data]})")
        else:
            m, r = self.get_m_r()
            printer.print_string(f" m({m}) r({r})")
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        print_operand_group(printer, "ins", [self._input()])
        print_operand_group(printer, "outs", [self._output()])
        print_result_types(printer, [r.type for r in self.results])

    @classmethod
    def parse(cls, parser: Parser) -> _WinogradOp:
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        kwargs: dict[str, int] = {}
        if parser.parse_optional_keyword("fmr"):
            parser.parse_punctuation("(")
            case_pos = parser.pos
            ident = parser.parse_identifier(" (F_2_3, F_4_3 or F_2_5)")
            if ident not in FMR_NAMES:
                parser.raise_error(
                    f"unknown fmr case '{ident}' (expected F_2_3, F_4_3 or F_2_5)",
                    case_pos,
                    parser.pos,
                )
            parser.parse_punctuation(")")
            kwargs["fmr"] = FMR_NAMES.index(ident)
        else:
            for key in ("m", "r"):
                parser.parse_keyword(key, " (expected 'fmr(F_m_r)' or 'm(..) r(..)')")
                parser.parse_punctuation("(")
                kwargs[key] = parser.parse_integer(allow_negative=False, allow_boolean=False)
                parser.parse_punctuation(")")
        attrs.update(parser.parse_optional_attr_dict())
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        if len(inputs) != 1 or len(outputs) != 1:
            parser.raise_error(f"'{cls.name}' expects one input and one output", pos, parser.pos)
        result_types = parse_result_types(parser)
        op = cls(inputs[0], outputs[0], **kwargs)
        if result_types and [r.type for r in op.results] != result_types:
            parser.raise_error(f"'{cls.name}' result type must be the output type", pos, parser.pos)
        op.attributes.update(attrs)
        return op

    # ---- lowering helpers ----
    def _lowering_builder(self) -> Builder:
        if not isinstance(self._output().type, MemRefType):
            raise lowering_error(
                self, f"'{self.name}' on tensors must be bufferized before lowering to loops"
            )
        return Builder(InsertPoint.before(self))

    def _elem(self) -> AnyFloat:
        t = self._input().type
        assert isinstance(t, Shaped)
        elem = t.get_element_type()
        assert isinstance(elem, AnyFloat), "verified: a floating-point element type"
        return elem


def _left_right(
    mats: WinogradMatrices, which: str, height: int, width: int, full: int
) -> tuple[Matrix, Matrix]:
    """The left/right matrices; the identity 1x1 for a side of extent 1 (transform skipped)."""
    mat: Matrix = getattr(mats, which)
    left = mat if height == full else IDENTITY_1
    right = mat if width == full else IDENTITY_1
    return left, right


def emit_sandwich(
    builder: Builder, x: list[list[SSAValue]], left: Matrix, right: Matrix, elem: AnyFloat
) -> list[list[SSAValue]]:
    """Scalar ops computing `left @ x @ right^T` (constant matrices; zeros skipped, ±1 folded)."""
    constants: dict[Fraction, SSAValue] = {}

    def const(value: Fraction) -> SSAValue:
        if value not in constants:
            constants[value] = builder.insert(
                arith.ConstantOp(FloatAttr(float(value), elem))
            ).result
        return constants[value]

    def combine(coeffs: Sequence[Fraction], values: Sequence[SSAValue]) -> SSAValue:
        acc: SSAValue | None = None
        for c, v in zip(coeffs, values):
            if c == 0:
                continue
            if acc is None:
                acc = v if c == 1 else builder.insert(arith.MulfOp(const(c), v)).result
            elif c == 1:
                acc = builder.insert(arith.AddfOp(acc, v)).result
            elif c == -1:
                acc = builder.insert(arith.SubfOp(acc, v)).result
            else:
                term = builder.insert(arith.MulfOp(const(c), v)).result
                acc = builder.insert(arith.AddfOp(acc, term)).result
        return acc if acc is not None else const(Fraction(0))

    cols = len(x[0])
    tmp = [[combine(row, [x[k][j] for k in range(len(x))]) for j in range(cols)] for row in left]
    return [[combine(rrow, tmp[i]) for rrow in right] for i in range(len(tmp))]


@irdl_op_definition
class WinogradFilterTransformOp(_WinogradOp):
    name = "linalg.winograd_filter_transform"

    filter = operand_def(ShapedType)
    output = operand_def(ShapedType)
    result = var_result_def()
    fmr = opt_prop_def(IntegerAttr)
    m = opt_prop_def(IntegerAttr)
    r = opt_prop_def(IntegerAttr)

    STATIC_IN_DIMS: ClassVar[tuple[int, ...]] = (1, 2)
    STATIC_OUT_DIMS: ClassVar[tuple[int, ...]] = (0, 1)
    UNTILEABLE: ClassVar[frozenset[int]] = frozenset({1, 2})

    def tile_operands(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> tuple[SSAValue, SSAValue]:
        """Filter tile (f, 0, 0, c) of (sf, KH, KW, sc); output (0, 0, c, f) of (aH, aW, sc, sf)."""
        (of, _, _, oc), (sf, kh, kw, sc) = offsets, sizes
        _, out_shape = self._shapes()
        source = slice_of(builder, self.filter, [of, 0, 0, oc], [sf, kh, kw, sc])
        dest = slice_of(builder, self.output, [0, 0, oc, of], [out_shape[0], out_shape[1], sc, sf])
        return source, dest

    def expected_output_shape(self, in_shape: list[int], out_shape: list[int]) -> list[int]:
        m, r = self.get_m_r()
        f, kh, kw, c = in_shape
        if kh not in (r, 1) or kw not in (r, 1):
            raise VerifyException(
                f"'{self.name}' expects the filter height and width to be {r} (or 1), got {kh}x{kw}"
            )
        alpha = m + r - 1
        return [alpha if kh == r else 1, alpha if kw == r else 1, c, f]

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        builder = self._lowering_builder()
        in_shape, _ = self._shapes()
        _, kh, kw, _ = in_shape
        f_size, _, _, c_size = memref_sizes(builder, self.filter)
        left, right = _left_right(self.matrices(), "G", kh, kw, self.get_m_r()[1])
        (f, c), inner = loop_nest(builder, [f_size, c_size])
        x = [
            [
                inner.insert(
                    memref.LoadOp.get(
                        self.filter, [f, index_constant(inner, i), index_constant(inner, j), c]
                    )
                ).res
                for j in range(kw)
            ]
            for i in range(kh)
        ]
        z = emit_sandwich(inner, x, left, right, self._elem())
        for a, row in enumerate(z):
            for b, value in enumerate(row):
                inner.insert(
                    memref.StoreOp.get(
                        value,
                        self.output,
                        [index_constant(inner, a), index_constant(inner, b), c, f],
                    )
                )
        rewriter.erase_op(self)


@irdl_op_definition
class WinogradInputTransformOp(_WinogradOp):
    name = "linalg.winograd_input_transform"
    OUT_RANK: ClassVar[int] = 6

    input = operand_def(ShapedType)
    output = operand_def(ShapedType)
    result = var_result_def()
    fmr = opt_prop_def(IntegerAttr)
    m = opt_prop_def(IntegerAttr)
    r = opt_prop_def(IntegerAttr)

    STATIC_OUT_DIMS: ClassVar[tuple[int, ...]] = (0, 1)
    TILED_VALUE: ClassVar[str] = "output"

    def tile_operands(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> tuple[SSAValue, SSAValue]:
        _, out_shape = self._shapes()
        window = self._image_window(builder, out_shape[0], out_shape[1], offsets, sizes, True)
        return slice_of(builder, self.input, *window), slice_of(
            builder, self.output, offsets, sizes
        )

    def expected_output_shape(self, in_shape: list[int], out_shape: list[int]) -> list[int]:
        # The alpha dims of the output say which sides are transformed (a dynamic image
        # height/width, as in a tile, cannot); a static image must hold whole tiles.
        m, r = self.get_m_r()
        n, h, w, c = in_shape
        alpha = m + r - 1
        left = out_shape[0] != 1 if h < 0 else h != 1
        right = out_shape[1] != 1 if w < 0 else w != 1

        def tiles(size: int, transformed: bool) -> int:
            if size < 0:
                return -1
            if not transformed:
                return size
            if (size - (r - 1)) % m or size - (r - 1) <= 0:
                raise VerifyException(
                    f"'{self.name}' expects the input height and width to be tiles * {m} + {r - 1} "
                    f"(whole F({m},{r}) tiles), got {_shape_str([h, w])}"
                )
            return (size - (r - 1)) // m

        return [alpha if left else 1, alpha if right else 1, tiles(h, left), tiles(w, right), n, c]

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        builder = self._lowering_builder()
        _, out_shape = self._shapes()
        m, r = self.get_m_r()
        ah, aw = out_shape[:2]
        _, _, th_size, tw_size, n_size, c_size = memref_sizes(builder, self.output)
        left, right = _left_right(self.matrices(), "BT", ah, aw, m + r - 1)
        (th, tw, n, c), inner = loop_nest(builder, [th_size, tw_size, n_size, c_size])
        step_h = index_constant(inner, m if ah != 1 else 1)
        step_w = index_constant(inner, m if aw != 1 else 1)
        h0 = inner.insert(arith.MuliOp(th, step_h)).result
        w0 = inner.insert(arith.MuliOp(tw, step_w)).result

        def at(base: SSAValue, offset: int) -> SSAValue:
            return (
                base
                if offset == 0
                else inner.insert(arith.AddiOp(base, index_constant(inner, offset))).result
            )

        x = [
            [
                inner.insert(memref.LoadOp.get(self.input, [n, at(h0, i), at(w0, j), c])).res
                for j in range(aw)
            ]
            for i in range(ah)
        ]
        z = emit_sandwich(inner, x, left, right, self._elem())
        for a, row in enumerate(z):
            for b, value in enumerate(row):
                inner.insert(
                    memref.StoreOp.get(
                        value,
                        self.output,
                        [index_constant(inner, a), index_constant(inner, b), th, tw, n, c],
                    )
                )
        rewriter.erase_op(self)


@irdl_op_definition
class WinogradOutputTransformOp(_WinogradOp):
    name = "linalg.winograd_output_transform"
    IN_RANK: ClassVar[int] = 6

    value = operand_def(ShapedType)
    output = operand_def(ShapedType)
    result = var_result_def()
    fmr = opt_prop_def(IntegerAttr)
    m = opt_prop_def(IntegerAttr)
    r = opt_prop_def(IntegerAttr)

    STATIC_IN_DIMS: ClassVar[tuple[int, ...]] = (0, 1)

    def tile_operands(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> tuple[SSAValue, SSAValue]:
        in_shape, _ = self._shapes()
        window = self._image_window(builder, in_shape[0], in_shape[1], offsets, sizes, False)
        return slice_of(builder, self.value, offsets, sizes), slice_of(
            builder, self.output, *window
        )

    def expected_output_shape(self, in_shape: list[int], out_shape: list[int]) -> list[int]:
        m, r = self.get_m_r()
        ah, aw, th, tw, n, f = in_shape
        alpha = m + r - 1
        if ah not in (alpha, 1) or aw not in (alpha, 1):
            raise VerifyException(
                f"'{self.name}' expects the value's first two dims to be {alpha} (or 1), got {ah}x{aw}"
            )

        def rows(tiles: int, a: int) -> int:
            return -1 if tiles < 0 else tiles * m if a == alpha else tiles

        return [n, rows(th, ah), rows(tw, aw), f]

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        builder = self._lowering_builder()
        in_shape, _ = self._shapes()
        m, r = self.get_m_r()
        ah, aw = in_shape[:2]
        _, _, th_size, tw_size, n_size, f_size = memref_sizes(builder, self.value)
        left, right = _left_right(self.matrices(), "AT", ah, aw, m + r - 1)
        (th, tw, n, f), inner = loop_nest(builder, [th_size, tw_size, n_size, f_size])
        x = [
            [
                inner.insert(
                    memref.LoadOp.get(
                        self.value,
                        [index_constant(inner, a), index_constant(inner, b), th, tw, n, f],
                    )
                ).res
                for b in range(aw)
            ]
            for a in range(ah)
        ]
        z = emit_sandwich(inner, x, left, right, self._elem())
        h0 = inner.insert(arith.MuliOp(th, index_constant(inner, len(z)))).result
        w0 = inner.insert(arith.MuliOp(tw, index_constant(inner, len(z[0])))).result
        for i, row in enumerate(z):
            for j, value in enumerate(row):
                hi = (
                    h0
                    if i == 0
                    else inner.insert(arith.AddiOp(h0, index_constant(inner, i))).result
                )
                wj = (
                    w0
                    if j == 0
                    else inner.insert(arith.AddiOp(w0, index_constant(inner, j))).result
                )
                old = inner.insert(memref.LoadOp.get(self.output, [n, hi, wj, f])).res
                total = inner.insert(arith.AddfOp(value, old)).result
                inner.insert(memref.StoreOp.get(total, self.output, [n, hi, wj, f]))
        rewriter.erase_op(self)
