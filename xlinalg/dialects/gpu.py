"""Our `gpu` dialect: xDSL's GPU ops, upstream syntax for the ones GPU mapping emits, and
the device mapping attributes of `scf.forall`.

xDSL 0.74 has `gpu.launch`, `gpu.thread_id`, `gpu.block_id`, `gpu.barrier`, ... but only
in the generic form, and no mapping attributes. Here, with upstream MLIR's syntax:

```
%t = gpu.launch async [%dep] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c4, %sz = %c1) {
  %i = gpu.thread_id x
  %b = gpu.block_id y
  gpu.barrier
  gpu.terminator
}
scf.forall (%i, %j) in (7, 9) { ... } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
```

Mapping attributes: `#gpu.block<d>`, `#gpu.thread<d>`, `#gpu.warpgroup<d>`, `#gpu.warp<d>`,
`#gpu.lane<d>` with `d` one of `x`, `y`, `z` or `linear_dim_0` ... `linear_dim_9`
(upstream's `MappingId`). Nothing here runs on a GPU: the GPU mapping transforms
(`xlinalg/transforms/scf/gpu_mapping.py`) produce this IR to match upstream's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, StringAttr, i32
from xdsl.dialects.gpu import GPU as _XDSL_GPU
from xdsl.dialects.gpu import AsyncTokenType, DimensionAttr, DimensionEnum
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import VerifyException

_INDEX = IndexType()

MAPPING_IDS: tuple[str, ...] = ("x", "y", "z", *(f"linear_dim_{i}" for i in range(10)))
"""Upstream's `MappingId` values, in order (x = 0, y = 1, z = 2, linear_dim_i = 3 + i)."""


# ------------------------------------------------------------------ mapping attributes


class MappingAttr(ParametrizedAttribute):
    """`#gpu.<kind><dim>`: how one dimension of an `scf.forall` maps to GPU ids."""

    KIND: ClassVar[str]
    dim: StringAttr

    def __init__(self, dim: str | StringAttr) -> None:
        super().__init__(StringAttr(dim) if isinstance(dim, str) else dim)

    @property
    def mapping_id(self) -> int:
        return MAPPING_IDS.index(self.dim.data)

    @property
    def is_linear(self) -> bool:
        return self.mapping_id >= 3

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.dim.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            name = parser.parse_identifier()
            if name not in MAPPING_IDS:
                parser.raise_error(
                    f"#{cls.name}: unknown mapping id '{name}' (expected x, y, z or linear_dim_0..9)"
                )
        return [StringAttr(name)]

    def verify(self) -> None:
        if self.dim.data not in MAPPING_IDS:
            raise VerifyException(f"#{self.name}: unknown mapping id '{self.dim.data}'")


@irdl_attr_definition
class BlockMappingAttr(MappingAttr):
    name = "gpu.block"
    KIND = "block"


@irdl_attr_definition
class ThreadMappingAttr(MappingAttr):
    name = "gpu.thread"
    KIND = "thread"


@irdl_attr_definition
class WarpgroupMappingAttr(MappingAttr):
    name = "gpu.warpgroup"
    KIND = "warpgroup"


@irdl_attr_definition
class WarpMappingAttr(MappingAttr):
    name = "gpu.warp"
    KIND = "warp"


@irdl_attr_definition
class LaneMappingAttr(MappingAttr):
    name = "gpu.lane"
    KIND = "lane"


MAPPING_ATTRS: tuple[type[MappingAttr], ...] = (
    BlockMappingAttr,
    ThreadMappingAttr,
    WarpgroupMappingAttr,
    WarpMappingAttr,
    LaneMappingAttr,
)


# ------------------------------------------------------------------ id ops (`gpu.thread_id x`)


class _DimensionOp(IRDLOperation):
    dimension = prop_def(DimensionAttr)
    result = result_def(IndexType)

    def __init__(self, dim: str | DimensionAttr) -> None:
        if isinstance(dim, str):
            dim = DimensionAttr(DimensionEnum(dim))
        super().__init__(result_types=[_INDEX], properties={"dimension": dim})

    @property
    def dim(self) -> str:
        return str(self.dimension.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        dim = parser.parse_str_enum(DimensionEnum)
        op = cls(DimensionAttr(dim))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class ThreadIdOp(_DimensionOp):
    name = "gpu.thread_id"


@irdl_op_definition
class BlockIdOp(_DimensionOp):
    name = "gpu.block_id"


@irdl_op_definition
class BlockDimOp(_DimensionOp):
    name = "gpu.block_dim"


@irdl_op_definition
class GridDimOp(_DimensionOp):
    name = "gpu.grid_dim"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`gpu.barrier`: every thread of the block waits here."""

    name = "gpu.barrier"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


# ------------------------------------------------------------------ gpu.launch


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """`gpu.launch`: a kernel body run by a grid of blocks of threads.

    Entry block arguments (upstream's order): block ids x/y/z, thread ids x/y/z, grid
    sizes x/y/z, block sizes x/y/z."""

    name = "gpu.launch"

    asyncDependencies = var_operand_def(AsyncTokenType)
    gridSizeX = operand_def(IndexType)
    gridSizeY = operand_def(IndexType)
    gridSizeZ = operand_def(IndexType)
    blockSizeX = operand_def(IndexType)
    blockSizeY = operand_def(IndexType)
    blockSizeZ = operand_def(IndexType)
    clusterSizeX = opt_operand_def(IndexType)
    clusterSizeY = opt_operand_def(IndexType)
    clusterSizeZ = opt_operand_def(IndexType)
    dynamicSharedMemorySize = opt_operand_def(i32)
    asyncToken = opt_result_def(AsyncTokenType)
    body = region_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        grid_sizes: Sequence[SSAValue | Operation],
        block_sizes: Sequence[SSAValue | Operation],
        body: Region | None = None,
        *,
        async_dependencies: Sequence[SSAValue] = (),
        async_token: bool = False,
        dynamic_shared_memory_size: SSAValue | None = None,
    ) -> None:
        """Without `body`: an entry block with the 12 index arguments ending in `gpu.terminator`."""
        if len(grid_sizes) != 3 or len(block_sizes) != 3:
            raise ValueError("gpu.launch takes three grid sizes and three block sizes")
        if body is None:
            body = Region(Block([TerminatorOp()], arg_types=[_INDEX] * 12))
        super().__init__(
            operands=[
                list(async_dependencies),
                *[SSAValue.get(v) for v in grid_sizes],
                *[SSAValue.get(v) for v in block_sizes],
                [],
                [],
                [],
                [] if dynamic_shared_memory_size is None else [dynamic_shared_memory_size],
            ],
            result_types=[[AsyncTokenType()] if async_token or async_dependencies else []],
            regions=[body],
        )

    @property
    def block_ids(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.blocks[0].args[0:3])

    @property
    def thread_ids(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.blocks[0].args[3:6])

    @property
    def grid_sizes(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return (self.gridSizeX, self.gridSizeY, self.gridSizeZ)

    @property
    def block_sizes(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return (self.blockSizeX, self.blockSizeY, self.blockSizeZ)

    def verify_(self) -> None:
        if self.clusterSizeX is not None:
            raise VerifyException("gpu.launch: clusters are not supported by xlinalg")
        if not self.body.blocks or self.body.blocks[0].first_op is None:
            raise VerifyException("gpu.launch requires a non-empty body")
        types = self.body.blocks[0].arg_types
        if types != (_INDEX,) * 12:
            raise VerifyException(
                "gpu.launch: the body takes 12 index arguments (block ids, thread ids, grid "
                f"sizes, block sizes), got {len(types)}"
            )

    def print(self, printer: Printer) -> None:
        if self.asyncToken is not None:
            printer.print_string(" async")
            if self.asyncDependencies:
                printer.print_string(" [")
                printer.print_list(self.asyncDependencies, printer.print_ssa_value)
                printer.print_string("]")
        args = self.body.blocks[0].args

        def sizes(
            keyword: str,
            ids: Sequence[SSAValue],
            names: Sequence[SSAValue],
            values: Sequence[SSAValue],
        ) -> None:
            printer.print_string(f" {keyword}(")
            printer.print_list(ids, printer.print_ssa_value)
            printer.print_string(") in (")
            for index, (name, value) in enumerate(zip(names, values)):
                if index:
                    printer.print_string(", ")
                printer.print_ssa_value(name)
                printer.print_string(" = ")
                printer.print_ssa_value(value)
            printer.print_string(")")

        sizes("blocks", args[0:3], args[6:9], self.grid_sizes)
        sizes("threads", args[3:6], args[9:12], self.block_sizes)
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_ssa_value(self.dynamicSharedMemorySize)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        is_async = parser.parse_optional_keyword("async") is not None
        deps: list[SSAValue] = []
        if is_async and parser.parse_optional_punctuation("[") is not None:
            deps = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, lambda: parser.parse_operand(AsyncTokenType())
            )
            parser.parse_punctuation("]")
        if parser.parse_optional_keyword("clusters") is not None:
            parser.raise_error("gpu.launch: clusters are not supported by xlinalg")

        def sizes(
            keyword: str,
        ) -> tuple[
            list[Parser.UnresolvedArgument], list[Parser.UnresolvedArgument], list[SSAValue]
        ]:
            parser.parse_keyword(keyword)
            ids = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
            )
            parser.parse_keyword("in")
            parser.parse_punctuation("(")
            names: list[Parser.UnresolvedArgument] = []
            values: list[SSAValue] = []
            for index in range(3):
                if index:
                    parser.parse_punctuation(",")
                names.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                values.append(parser.parse_operand(_INDEX))
            parser.parse_punctuation(")")
            if len(ids) != 3:
                parser.raise_error(f"gpu.launch: expected three {keyword} ids")
            return ids, names, values

        block_ids, grid_names, grid = sizes("blocks")
        thread_ids, block_names, block = sizes("threads")
        shared = None
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            shared = parser.parse_operand(i32)
        arguments = [
            arg.resolve(_INDEX) for arg in (*block_ids, *thread_ids, *grid_names, *block_names)
        ]
        region = parser.parse_region(arguments)
        op = cls(
            grid,
            block,
            region,
            async_dependencies=deps,
            async_token=is_async,
            dynamic_shared_memory_size=shared,
        )
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class TerminatorOp(IRDLOperation):
    """`gpu.terminator`: ends the body of a `gpu.launch`."""

    name = "gpu.terminator"
    assembly_format = "attr-dict"
    traits = traits_def(HasParent(LaunchOp), IsTerminator())

    def __init__(self) -> None:
        super().__init__()


_OURS: tuple[type[IRDLOperation], ...] = (
    LaunchOp,
    TerminatorOp,
    BarrierOp,
    ThreadIdOp,
    BlockIdOp,
    BlockDimOp,
    GridDimOp,
)
_REPLACED = {op.name for op in _OURS}

GPU = Dialect(
    "gpu",
    [*(op for op in _XDSL_GPU.operations if op.name not in _REPLACED), *_OURS],
    [*_XDSL_GPU.attributes, *MAPPING_ATTRS],
)
"""xDSL's GPU dialect with upstream syntax for launch/terminator/barrier/ids and the
mapping attributes."""

__all__ = [
    "GPU",
    "MAPPING_ATTRS",
    "MAPPING_IDS",
    "BarrierOp",
    "BlockDimOp",
    "BlockIdOp",
    "BlockMappingAttr",
    "GridDimOp",
    "LaneMappingAttr",
    "LaunchOp",
    "MappingAttr",
    "TerminatorOp",
    "ThreadIdOp",
    "ThreadMappingAttr",
    "WarpMappingAttr",
    "WarpgroupMappingAttr",
]
