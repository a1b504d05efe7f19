"""Materialize `#iree_linalg_ext.encoding`s into pack / `linalg.mmt4d` / unpack (data tiling).

For a matmul whose operands went through `set_encoding` (roles LHS, RHS,
RESULT) and whose result goes through `unset_encoding`, with tile sizes
(m0, n0, k0) — the knobs of data tiling:

```
set_encoding  LHS    M×K -> pack inner_dims_pos = [0, 1] inner_tiles = [m0, k0]           -> M1×K1×m0×k0
set_encoding  RHS    K×N -> pack outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
                               inner_tiles = [n0, k0]                                     -> N1×K1×n0×k0
set_encoding  RESULT M×N -> pack inner_dims_pos = [0, 1] inner_tiles = [m0, n0]           -> M1×N1×m0×n0
linalg.matmul on encoded tensors -> linalg.mmt4d on the packed ones
unset_encoding RESULT    -> unpack into a tensor.empty of the original shape
upper_bound_tile_size    -> the constant tiles of the encoding's role
```
Packs pad with zeros (`padding_value`), which a matmul ignores, so any tile
sizes are valid; the unpack drops the padding. Static shapes only.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xlinalg.dialects.iree_linalg_ext.attrs import EncodingRole
from xlinalg.dialects.iree_linalg_ext.encoding import (
    SetEncodingOp,
    UnsetEncodingOp,
    UpperBoundTileSizeOp,
    encoding_of,
)
from xlinalg.dialects.iree_linalg_ext.pack import PackOp, UnPackOp
from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.dialects.linalg.pack_shape import packed_shape
from xlinalg.errors import XlinalgError
from xlinalg.host import host_has_feature
from xlinalg.ir.passes import register_pass
from xlinalg.transforms.linalg.pack import zero_constant

#: Marks the mmt4d ops made by materializing leftover encodings, which get the default
#: schedule (`xlinalg/lowering/default_mmt4d_schedule.py`; removed once it ran).
DEFAULT_SCHEDULE_ATTR = "xlinalg.default_mmt4d_schedule"


def mark_for_default_schedule(op: Operation) -> None:
    op.attributes[DEFAULT_SCHEDULE_ATTR] = UnitAttr()


@dataclass(frozen=True)
class Layout:
    """How one role is packed."""

    outer_dims_perm: tuple[int, ...]
    inner_dims_pos: tuple[int, ...]
    inner_tiles: tuple[int, ...]

    def relayout_properties(self) -> dict[str, Attribute]:
        """The properties of the `iree_linalg_ext.pack`/`unpack` of this layout."""
        properties: dict[str, Attribute] = {
            "inner_dims_pos": DenseArrayBase.from_list(i64, list(self.inner_dims_pos)),
            "static_inner_tiles": DenseArrayBase.from_list(i64, list(self.inner_tiles)),
        }
        if self.outer_dims_perm:
            properties["outer_dims_perm"] = DenseArrayBase.from_list(
                i64, list(self.outer_dims_perm)
            )
        return properties


def role_layout(role: EncodingRole, tile_m: int, tile_n: int, tile_k: int) -> Layout:
    if role == EncodingRole.LHS:
        return Layout((), (0, 1), (tile_m, tile_k))
    if role == EncodingRole.RHS:
        return Layout((1, 0), (1, 0), (tile_n, tile_k))
    return Layout((), (0, 1), (tile_m, tile_n))


def upper_bound_tiles(role: EncodingRole, tile_m: int, tile_n: int, tile_k: int) -> list[int]:
    """Per dim of the (unpacked) tensor: the tile it is padded to."""
    return {
        EncodingRole.LHS: [tile_m, tile_k],
        EncodingRole.RHS: [tile_k, tile_n],
        EncodingRole.RESULT: [tile_m, tile_n],
    }[role]


def _static_2d(type_: Attribute, what: str) -> TensorType:
    if (
        not isinstance(type_, TensorType)
        or type_.get_num_dims() != 2
        or any(s < 0 for s in type_.get_shape())
    ):
        raise XlinalgError(
            f"materialize-encoding: expected a static 2-D tensor for {what}, got {type_}"
        )
    return type_


@register_pass
@dataclass(frozen=True)
class MaterializeEncodingPass(ModulePass):
    """Rewrite encodings into pack / mmt4d / unpack with tiles (tile_m, tile_n, tile_k).

    In a transform script: `transform.apply_registered_pass "iree-codegen-materialize-encoding"
    with options = {"tile-m" = %m, "tile-n" = %n, "tile-k" = %k} to %func`, where the option
    values may be `transform.tune.knob` params (`search_spaces/encoding_matmul.mlir`). IREE's
    materialization passes take the tiles from the target's encoding resolver; ours takes
    them as options so that a knob can choose them."""

    name = "iree-codegen-materialize-encoding"

    tile_m: int = 8
    tile_n: int = 8
    tile_k: int = 4
    #: mark the mmt4d ops for `default_mmt4d_schedule` (compile's leftover encodings)
    mark_default: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if min(self.tile_m, self.tile_n, self.tile_k) <= 0:
            raise XlinalgError("materialize-encoding: tile sizes must be positive")
        unsets = [
            (u, self._layout(u.source.type)) for u in op.walk() if isinstance(u, UnsetEncodingOp)
        ]
        for inner in list(op.walk()):
            if isinstance(inner, UpperBoundTileSizeOp):
                self._upper_bound(inner)
        for inner in list(op.walk()):
            if isinstance(inner, SetEncodingOp):
                self._set(inner)
        for inner in list(op.walk()):
            if inner.name == "linalg.matmul" and any(
                isinstance(v.owner, PackOp) for v in inner.operands
            ):
                self._matmul(inner)
        for unset, layout in unsets:
            self._unset(unset, layout)

    def _layout(self, type_: Attribute) -> Layout:
        encoding = encoding_of(type_)
        assert encoding is not None
        return role_layout(encoding.role.data, self.tile_m, self.tile_n, self.tile_k)

    def _upper_bound(self, op: UpperBoundTileSizeOp) -> None:
        encoding = encoding_of(op.tensorType)
        if encoding is None:
            raise XlinalgError("upper_bound_tile_size: the tensor type carries no encoding")
        tiles = upper_bound_tiles(encoding.role.data, self.tile_m, self.tile_n, self.tile_k)
        constants = [arith.ConstantOp(IntegerAttr(t, IndexType())) for t in tiles]
        Rewriter.replace_op(op, constants, [c.result for c in constants])

    def _set(self, op: SetEncodingOp) -> None:
        source_type = _static_2d(op.source.type, "set_encoding")
        layout = self._layout(op.result.type)
        shape = packed_shape(
            source_type.get_shape(),
            layout.inner_dims_pos,
            layout.inner_tiles,
            layout.outer_dims_perm,
        )
        packed_type = TensorType(source_type.element_type, shape)
        empty = tensor.EmptyOp([], packed_type)
        zero = zero_constant(source_type.element_type)
        pack = PackOp.build(
            operands=[[op.source], [empty.results[0]], [], [zero.result]],
            result_types=[[packed_type]],
            properties=layout.relayout_properties(),
        )
        Rewriter.replace_op(op, [empty, zero, pack], [pack.results[0]])

    def _matmul(self, op: Operation) -> None:
        lhs, rhs, acc = op.operands
        if not all(isinstance(v.owner, PackOp) for v in (lhs, rhs, acc)):
            raise XlinalgError("materialize-encoding: a matmul needs encoded LHS, RHS and RESULT")
        mmt4d = NAMED_OP_CLASSES["linalg.mmt4d"]([lhs, rhs], [acc])
        if self.mark_default:
            mark_for_default_schedule(mmt4d)
        Rewriter.replace_op(op, mmt4d)

    def _unset(self, op: UnsetEncodingOp, layout: Layout) -> None:
        result_type = _static_2d(op.result.type, "unset_encoding")
        packed: SSAValue = op.source
        if encoding_of(packed.type) is not None:
            raise XlinalgError(
                "unset_encoding: its source was not materialized (no matmul produced it)"
            )
        empty = tensor.EmptyOp([], result_type)
        unpack = UnPackOp.build(
            operands=[[packed], [empty.results[0]], []],
            result_types=[[result_type]],
            properties=layout.relayout_properties(),
        )
        Rewriter.replace_op(op, [empty, unpack], [unpack.results[0]])


ENCODING_OPS = (SetEncodingOp, UnsetEncodingOp, UpperBoundTileSizeOp)


def host_tile_sizes() -> tuple[int, int, int]:
    """(tile_m, tile_n, tile_k) IREE's CPU data tiling picks for a matmul on this host: its
    x86-64 f32 ukernel tiles (`iree_uk_query_matmul_tile_sizes_x86_64_f32f32f32`):
    16×16×1 with AVX-512 (one zmm row of the accumulator per LHS element), 8×8×1 with AVX2,
    else 8×4×1 (SSE). Used for every element type: the tiles only change the layout."""

    if host_has_feature("avx512f"):
        return 16, 16, 1
    if host_has_feature("avx2"):
        return 8, 8, 1
    return 8, 4, 1


__all__ = [
    "DEFAULT_SCHEDULE_ATTR",
    "ENCODING_OPS",
    "Layout",
    "MaterializeEncodingPass",
    "host_tile_sizes",
    "mark_for_default_schedule",
    "role_layout",
    "upper_bound_tiles",
]
