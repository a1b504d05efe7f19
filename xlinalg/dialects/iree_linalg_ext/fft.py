"""`iree_linalg_ext.fft`: one stage of an iterative radix-2 FFT along the innermost dim.

```
iree_linalg_ext.fft ins(%stage[, %coef_re, %coef_im] : index[, memref<?xf32>, memref<?xf32>])
    outs(%re, %im : memref<4x16xf32>, memref<4x16xf32>)
```
Stage `s` (1-based, `m = 2^s`, `h = m / 2`) runs the butterflies of every group
of `m` consecutive elements: for `k < h`, `t = w_k * x[j+k+h]`,
`x[j+k] = u + t`, `x[j+k+h] = u - t` (`u = x[j+k]`), with the twiddle factor
`w_k = exp(-2*pi*i*k/m)` or, when given, `coef_re[k] + i*coef_im[k]` (the
2nd and 3rd inputs). The input is assumed bit-reversed already, so stages
1..log2(n) in order compute the DFT (`np.fft.fft` of the un-reversed input).
The innermost size must be a power of two.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, i64
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp, elem, shape
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.tiling_utils import domain_tile_of_result, insert_tile
from xlinalg.dialects.linalg.assembly import parse_operand_group, print_operand_group
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface, parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import dim_of, domain_of, slice_of


@irdl_op_definition
class FftOp(LinalgExtOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.fft"

    def verify_(self) -> None:
        self.verify_destination_style()
        if len(self.inputs) not in (1, 3):
            raise self.fail("expected the stage and optionally two coefficient inputs (real, imag)")
        if len(self.outputs) != 2:
            raise self.fail("expected two outputs (real, imag)")
        if not isinstance(self.inputs[0].type, (IndexType, IntegerType)):
            raise self.fail(
                f"expected the stage to be an index or integer scalar, got {self.inputs[0].type}"
            )
        re, im = self.outputs
        if shape(re) != shape(im) or elem(re) != elem(im):
            raise self.fail("expected the real and imaginary outputs to have the same type")
        if not isinstance(elem(re), AnyFloat):
            raise self.fail(f"expected floating-point outputs, got {elem(re)}")
        n = shape(re)[-1] if shape(re) else -1
        if not shape(re):
            raise self.fail("expected outputs of rank >= 1")
        if n >= 0 and (n == 0 or n & (n - 1)):
            raise self.fail(f"expected the innermost dim ({n}) to be a power of 2")
        if len(self.inputs) == 3:
            for coef in self.inputs[1:]:
                if len(shape(coef)) != 1 or elem(coef) != elem(re):
                    raise self.fail(f"expected 1-D {elem(re)} coefficients, got {coef.type}")

    def print(self, printer: Printer) -> None:
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        if self.results_:
            printer.print_string(" : ")
            printer.print_list(self.results_.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> FftOp:
        attrs = parser.parse_optional_attr_dict()
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        result_types = []
        if parser.parse_optional_punctuation(":"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        op = cls.build(operands=[inputs, outputs], result_types=[result_types])
        op.attributes.update(attrs)
        return op

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        re, im = self.outputs
        ftype = elem(re)
        assert isinstance(ftype, AnyFloat), "verified: floating-point outputs"
        sizes = em.dims(re)
        zero, one = em.index(0), em.index(1)
        stage = em.to_index(self.inputs[0])
        m = em.value(arith.ShLIOp(one, stage))
        half = em.value(arith.ShRUIOp(m, one))
        coefs = list(self.inputs[1:])
        if not coefs:
            m_float = em.value(arith.SIToFPOp(em.index_to(m, i64), ftype))
            step_angle = em.value(arith.DivfOp(em.const(-2 * pymath.pi, ftype), m_float))

        def body(e: Emitter, ivs: list[SSAValue]) -> None:
            def group(e2: Emitter, j: SSAValue) -> None:
                def butterfly(e3: Emitter, k: SSAValue) -> None:
                    if coefs:
                        w_re, w_im = e3.load(coefs[0], [k]), e3.load(coefs[1], [k])
                    else:
                        angle = e3.value(
                            arith.MulfOp(
                                e3.value(arith.SIToFPOp(e3.index_to(k, i64), ftype)), step_angle
                            )
                        )
                        w_re = e3.value(math.CosOp(angle))
                        w_im = e3.value(math.SinOp(angle))
                    lo = [*ivs, e3.addi(j, k)]
                    hi = [*ivs, e3.addi(lo[-1], half)]
                    u_re, u_im = e3.load(re, lo), e3.load(im, lo)
                    v_re, v_im = e3.load(re, hi), e3.load(im, hi)
                    t_re = e3.value(
                        arith.SubfOp(
                            e3.value(arith.MulfOp(w_re, v_re)), e3.value(arith.MulfOp(w_im, v_im))
                        )
                    )
                    t_im = e3.value(
                        arith.AddfOp(
                            e3.value(arith.MulfOp(w_re, v_im)), e3.value(arith.MulfOp(w_im, v_re))
                        )
                    )
                    e3.store(e3.value(arith.AddfOp(u_re, t_re)), re, lo)
                    e3.store(e3.value(arith.AddfOp(u_im, t_im)), im, lo)
                    e3.store(e3.value(arith.SubfOp(u_re, t_re)), re, hi)
                    e3.store(e3.value(arith.SubfOp(u_im, t_im)), im, hi)

                e2.loop(zero, half, one, butterfly)

            e.loop(zero, sizes[-1], m, group)

        em.nest(sizes[:-1], body)
        rewriter.erase_op(self)

    # ---- TilingInterface: the batch (outer) dims ----
    def get_loop_iterator_types(self) -> list[IteratorType]:
        return parallel_except(len(shape(self.outputs[0])) - 1, set())

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.outputs[0])[:-1]

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        dims = list(range(len(offsets) - 1))
        return domain_tile_of_result(
            self, builder, self.results[result_index], offsets, sizes, dims
        )

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        last = len(offsets)
        n = dim_of(builder, self.outputs[0], last)
        outputs = [slice_of(builder, v, [*offsets, 0], [*sizes, n]) for v in self.outputs]
        return insert_tile(self, builder, list(self.inputs), outputs)
