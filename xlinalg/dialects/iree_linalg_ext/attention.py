"""`iree_linalg_ext.attention`: `softmax(Q @ K^T * scale) @ V` (or `@ V^T` with `transpose_v`).

```
iree_linalg_ext.attention ins(%q, %k, %v, %scale : memref<2x37x16xf32>, memref<2x53x16xf32>,
                                                   memref<2x53x16xf32>, f32)
    outs(%o : memref<2x37x16xf32>)
```
(IREE 3.13 spells the plain op with indexing maps and a score region: both spellings
parse, the plain op prints IREE's: `attention_syntax.py`.)
Q is B×N×d, K is B×L×d, V is B×L×e (B×e×L with `{transpose_v = true}`), the
output B×N×e. With the optional running-max and running-sum outputs
(`outs(%o, %max, %sum)`, both B×N) the op is one step of FlashAttention-2's
online softmax: it folds its K/V block into the un-normalised accumulator
`o`, i.e. `m' = max(m, rowmax(S))`, `o = o * exp(m - m') + exp(S - m') @ V`,
`l = l * exp(m - m') + rowsum(exp(S - m'))` with `S = Q K^T * scale`; the
final `o / l` is left to the caller. This is the form tiling produces.

Tiling: the iteration domain is (batch, query, key) = (parallel, parallel,
reduction). Tiling the key loop of the plain form first rewrites it into the
online form (running max/sum buffers initialised to -inf/0, the accumulator to
0, and a final division by the sum), so the key/value tiles are folded in one
after another, as FlashAttention-2 does.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, math, memref
from xdsl.dialects.builtin import AnyFloat, BoolAttr, IntegerAttr, MemRefType, TensorType, i1
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.attention_syntax import (
    parse_indexing_maps,
    parse_score_region,
    print_indexing_maps,
    print_score_region,
)
from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp, compatible, elem, shape
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.tiling_utils import domain_tile_of_result, insert_tile
from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.dialects.linalg.generic import GenericOp, YieldOp
from xlinalg.dialects.linalg.named import FillOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface, parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import dim_of, empty_like, slice_of


@irdl_op_definition
class AttentionOp(LinalgExtOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.attention"

    transpose_v = opt_prop_def(BoolAttr)

    @property
    def is_transpose_v(self) -> bool:
        return self.transpose_v is not None and bool(self.transpose_v.value.data)

    @property
    def is_online(self) -> bool:
        return len(self.outputs) == 3

    def verify_(self) -> None:
        self.verify_destination_style()
        if len(self.inputs) != 4:
            raise self.fail("expected four inputs (query, key, value, scale)")
        if len(self.outputs) not in (1, 3):
            raise self.fail("expected one output, or three (output, running max, running sum)")
        q, k, v, scale = self.inputs
        out = self.outputs[0]
        for name, value in (("query", q), ("key", k), ("value", v), ("output", out)):
            if len(shape(value)) != 3:
                raise self.fail(
                    f"expected the {name} to be 3-D (batch, sequence, head dim), got {value.type}"
                )
        t = elem(q)
        if not isinstance(t, AnyFloat):
            raise self.fail(f"expected a floating-point query, got {t}")
        if not (elem(k) == elem(v) == elem(out) == t) or scale.type != t:
            raise self.fail(
                f"expected the key, value, output and scale to have the element type {t}"
            )
        (b, n, d), (bk, seq, dk) = shape(q), shape(k)
        vb, v1, v2 = shape(v)
        v_seq, v_e = (v2, v1) if self.is_transpose_v else (v1, v2)
        ob, on, oe = shape(out)
        checks = [
            (compatible(b, bk) and compatible(b, vb) and compatible(b, ob), "batch sizes"),
            (compatible(d, dk), "query and key head dims"),
            (compatible(seq, v_seq), "key and value sequence lengths"),
            (compatible(n, on), "query and output sequence lengths"),
            (compatible(v_e, oe), "value and output head dims"),
        ]
        for ok, what in checks:
            if not ok:
                raise self.fail(f"mismatched {what}: {q.type}, {k.type}, {v.type} -> {out.type}")
        if self.is_online:
            for value in self.outputs[1:]:
                s = shape(value)
                if (
                    len(s) != 2
                    or not (compatible(s[0], b) and compatible(s[1], n))
                    or elem(value) != t
                ):
                    raise self.fail(
                        f"expected the running max/sum to be {b}x{n} of {t}, got {value.type}"
                    )

    def print(self, printer: Printer) -> None:
        if self.is_online:  # seed 004's spelling: IREE's attention has no running max/sum
            if self.transpose_v is not None:
                printer.print_string(" {transpose_v = ")
                printer.print_string("true" if self.is_transpose_v else "false")
                printer.print_string("}")
        else:  # IREE 3.13's spelling (attention_syntax.py)
            print_indexing_maps(printer, self.is_transpose_v)
        printer.print_op_attributes(self.attributes)
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        if not self.is_online:
            print_score_region(printer, elem(self.inputs[0]))
        print_result_types(printer, self.results_.types)

    @classmethod
    def parse(cls, parser: Parser) -> AttentionOp:
        """Seed 004's spelling (`{transpose_v = true}`, no region) or IREE 3.13's
        (`<indexing_maps = [...]>` and a score region)."""
        pos = parser.pos
        mapped_transpose_v = parse_indexing_maps(parser)
        attrs = dict(parser.parse_optional_attr_dict())
        transpose_v = attrs.pop("transpose_v", None)
        if transpose_v is not None and not (
            isinstance(transpose_v, IntegerAttr) and transpose_v.type == i1
        ):
            parser.raise_error("expected 'transpose_v' to be a bool", pos, parser.pos)
        if mapped_transpose_v is not None:
            if transpose_v is not None and bool(transpose_v.value.data) != mapped_transpose_v:
                parser.raise_error("'transpose_v' contradicts the indexing maps", pos, parser.pos)
            transpose_v = BoolAttr.from_bool(True) if mapped_transpose_v else None
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        parse_score_region(parser)
        result_types = parse_result_types(parser)
        op = cls.build(
            operands=[inputs, outputs],
            result_types=[result_types],
            properties={"transpose_v": transpose_v} if transpose_v is not None else {},
        )
        op.attributes.update(attrs)
        return op

    # ---- loops ----
    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        q, k, v, scale = self.inputs
        out = self.outputs[0]
        t = elem(q)
        zero, one = em.index(0), em.index(1)
        batch, n, d = em.dims(q)
        seq = em.dim(k, 1)
        e_size = em.dim(out, 2)
        fzero = em.const(0.0, t)
        minus_inf = em.const(float("-inf"), t)
        transpose_v = self.is_transpose_v
        # one row of scores (Q K^T * scale), computed once and read by both passes
        static_seq = shape(k)[1]
        scores = em.value(
            memref.AllocOp.get(
                t, shape=[static_seq], dynamic_sizes=[] if static_seq >= 0 else [seq]
            )
        )

        def value_at(e: Emitter, b: SSAValue, j: SSAValue, c: SSAValue) -> SSAValue:
            return e.load(v, [b, c, j] if transpose_v else [b, j, c])

        # Q·K dot products: with a static head dim that 4 divides, four independent partial
        # sums (not one serial chain; measured best on 1x512x64 against 8 and 16)
        static_d = shape(q)[2]
        lanes = 4 if static_d > 0 and static_d % 4 == 0 else 1
        lane_step = em.index(lanes)
        lane_offsets = [em.index(x) for x in range(lanes)]

        def score(e: Emitter, b: SSAValue, i: SSAValue, j: SSAValue) -> SSAValue:
            def mac(e2: Emitter, c: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                out = []
                for lane, partial in enumerate(acc):
                    cl = c if lane == 0 else e2.addi(c, lane_offsets[lane])
                    prod = e2.value(arith.MulfOp(e2.load(q, [b, i, cl]), e2.load(k, [b, j, cl])))
                    out.append(e2.value(arith.AddfOp(partial, prod)))
                return out

            partials = e.loop_carry(zero, d, lane_step, [fzero] * lanes, mac)
            dot = partials[0]
            for partial in partials[1:]:
                dot = e.value(arith.AddfOp(dot, partial))
            return e.value(arith.MulfOp(dot, scale))

        def row(e: Emitter, ivs: list[SSAValue]) -> None:
            b, i = ivs
            if self.is_online:
                m_old = e.load(self.outputs[1], [b, i])
                l_old = e.load(self.outputs[2], [b, i])
            else:
                m_old, l_old = minus_inf, fzero

            def running_max(e2: Emitter, j: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                value = score(e2, b, i, j)
                e2.store(value, scores, [j])
                return [e2.value(arith.MaximumfOp(acc[0], value))]

            (m_new,) = e.loop_carry(zero, seq, one, [m_old], running_max)
            if self.is_online:
                corr = e.value(math.ExpOp(e.value(arith.SubfOp(m_old, m_new))))

                def rescale(e2: Emitter, c: SSAValue) -> None:
                    e2.store(e2.value(arith.MulfOp(e2.load(out, [b, i, c]), corr)), out, [b, i, c])

                e.loop(zero, e_size, one, rescale)
                l_init = e.value(arith.MulfOp(l_old, corr))
            else:
                e.loop(zero, e_size, one, lambda e2, c: e2.store(fzero, out, [b, i, c]))
                l_init = fzero

            def accumulate(e2: Emitter, j: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                p = e2.value(math.ExpOp(e2.value(arith.SubfOp(e2.load(scores, [j]), m_new))))

                def axpy(e3: Emitter, c: SSAValue) -> None:
                    prod = e3.value(arith.MulfOp(p, value_at(e3, b, j, c)))
                    e3.store(e3.value(arith.AddfOp(e3.load(out, [b, i, c]), prod)), out, [b, i, c])

                e2.loop(zero, e_size, one, axpy)
                return [e2.value(arith.AddfOp(acc[0], p))]

            (l_new,) = e.loop_carry(zero, seq, one, [l_init], accumulate)
            if self.is_online:
                e.store(m_new, self.outputs[1], [b, i])
                e.store(l_new, self.outputs[2], [b, i])
            else:

                def normalize(e2: Emitter, c: SSAValue) -> None:
                    e2.store(e2.value(arith.DivfOp(e2.load(out, [b, i, c]), l_new)), out, [b, i, c])

                e.loop(zero, e_size, one, normalize)

        em.nest([batch, n], row)
        em.add(memref.DeallocOp.get(scores))
        rewriter.erase_op(self)

    # ---- TilingInterface: (batch, query, key) ----
    def get_loop_iterator_types(self) -> list[IteratorType]:
        return parallel_except(3, {2})

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        q, k = self.inputs[0], self.inputs[1]
        return [dim_of(builder, q, 0), dim_of(builder, q, 1), dim_of(builder, k, 1)]

    def prepare_for_tiling(self, tile_sizes: Sequence[int]) -> Operation:
        if tile_sizes[2] == 0 or self.is_online:
            return self
        return self.to_online_form()

    def to_online_form(self) -> AttentionOp:
        """Running max/sum buffers (-inf, 0), a zeroed accumulator, this op in online form,
        then `o /= sum`; returns the online op."""
        out = self.outputs[0]
        out_type = out.type
        if isinstance(out_type, TensorType):
            return self._to_online_form_on_tensors()
        if not isinstance(out_type, MemRefType):
            raise silenceable_failure(f"attention: cannot build the online form on {out_type}")
        t = elem(out)
        em = Emitter(InsertPoint.before(self))
        batch, n, e_size = em.dims(out)
        stats_shape = list(out_type.get_shape()[:2])
        dynamic = [s for s, static in zip((batch, n), stats_shape) if static < 0]
        stats_type = MemRefType(t, stats_shape)
        running_max = em.value(memref.AllocOp.get(t, shape=stats_shape, dynamic_sizes=dynamic))
        running_sum = em.value(memref.AllocOp.get(t, shape=stats_shape, dynamic_sizes=dynamic))
        assert running_max.type == stats_type
        minus_inf, fzero = em.const(float("-inf"), t), em.const(0.0, t)

        def init(e: Emitter, ivs: list[SSAValue]) -> None:
            e.store(minus_inf, running_max, ivs)
            e.store(fzero, running_sum, ivs)
            e.loop(e.index(0), e_size, e.index(1), lambda e2, c: e2.store(fzero, out, [*ivs, c]))

        em.nest([batch, n], init)
        online = self.clone_with(list(self.inputs), [out, running_max, running_sum])
        em.add(online)

        def finish(e: Emitter, ivs: list[SSAValue]) -> None:
            total = e.load(running_sum, ivs[:2])
            e.store(e.value(arith.DivfOp(e.load(out, ivs), total)), out, ivs)

        em.nest([batch, n, e_size], finish)
        em.add(memref.DeallocOp.get(running_max))
        em.add(memref.DeallocOp.get(running_sum))
        Rewriter.erase_op(self)
        assert isinstance(online, AttentionOp)
        return online

    def _to_online_form_on_tensors(self) -> AttentionOp:
        """On tensors: `linalg.fill` -inf/0 into `tensor.empty` running max/sum, 0 into the
        output, the online op, then a `linalg.generic` dividing by the sum."""
        out = self.outputs[0]
        t = elem(out)
        builder = IndexBuilder(InsertPoint.before(self))
        stats_sizes = [dim_of(builder, out, 0), dim_of(builder, out, 1)]
        # one tensor.empty each (a shared one would make bufferization copy it)
        maxes, sums = empty_like(builder, out, stats_sizes), empty_like(builder, out, stats_sizes)
        em = Emitter(InsertPoint.before(self))
        minus_inf, fzero = em.const(float("-inf"), t), em.const(0.0, t)
        fills = [
            FillOp([minus_inf], [maxes], [maxes.type]),
            FillOp([fzero], [sums], [sums.type]),
            FillOp([fzero], [out], [out.type]),
        ]
        for fill in fills:
            em.add(fill)
        online = self.clone_with(
            list(self.inputs), [fills[2].results[0], fills[0].results[0], fills[1].results[0]]
        )
        em.add(online)
        block = Block(arg_types=[t, t, t])
        quotient = arith.DivfOp(block.args[0], block.args[1])
        block.add_ops([quotient, YieldOp(quotient.result)])
        full = AffineMap.identity(3)
        rows = AffineMap.from_callable(lambda b, n, e: (b, n))
        divide = GenericOp(
            [online.results[0], online.results[2]],
            [out],
            Region(block),
            [full, rows, full],
            [IteratorType.PARALLEL] * 3,
            [out.type],
        )
        em.add(divide)
        Rewriter.replace_op(self, [], [divide.results[0]])
        assert isinstance(online, AttentionOp)
        return online

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        if result_index != 0 or self.is_online:
            raise silenceable_failure(
                "'iree_linalg_ext.attention': only the plain form's output has tiles"
            )
        return domain_tile_of_result(self, builder, self.results[0], offsets, sizes, [0, 1, None])

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        q, k, v, scale = self.inputs
        (ob, on, ol), (sb, sn, sl) = offsets, sizes
        head = dim_of(builder, q, 2)
        e_size = dim_of(builder, self.outputs[0], 2)
        tq = slice_of(builder, q, [ob, on, 0], [sb, sn, head])
        tk = slice_of(builder, k, [ob, ol, 0], [sb, sl, head])
        if self.is_transpose_v:
            tv = slice_of(builder, v, [ob, 0, ol], [sb, e_size, sl])
        else:
            tv = slice_of(builder, v, [ob, ol, 0], [sb, sl, e_size])
        outs = [slice_of(builder, self.outputs[0], [ob, on, 0], [sb, sn, e_size])]
        outs += [slice_of(builder, s, [ob, on], [sb, sn]) for s in self.outputs[1:]]
        return insert_tile(self, builder, [tq, tk, tv, scale], outs)
