"""Map `scf.forall` loops to GPU blocks and threads (upstream's GPU transform ops).

`map_forall_to_blocks(target, grid_dims, generate_gpu_launch)`: the unique top-level
`scf.forall` under `target` (a `gpu.launch`, or any op when `generate_gpu_launch`: the
forall is first moved into a new `gpu.launch`) becomes the launch body with its induction
variables replaced by `gpu.block_id`s; the launch's grid sizes become `grid_dims`
(default: the forall's trip counts).

`map_nested_forall_to_threads(launch, block_dims, sync_after_distribute)`: every
`scf.forall` nested in the launch (mapped to `#gpu.thread<...>`) is replaced by its body
with `gpu.thread_id`s for its induction variables, followed by a `gpu.barrier` when
`sync_after_distribute`; the launch's block sizes become `block_dims`.

Dimension `d` of a forall maps to the id its mapping attribute names (`#gpu.thread<x>`:
x). With fewer iterations than ids along a dimension, the body runs under
`scf.if (id_x < n_x && id_y < n_y ...)` (only the dimensions that need it, x first).
Linear mappings (`linear_dim_0` ...) use the linearized id `x + y*Bx + z*Bx*By`,
delinearized over the forall's sizes (`linear_dim_0` varies fastest) and predicated with
`linear < total`. `#gpu.warp` / `#gpu.warpgroup` ids count `warp_size` / 4 x `warp_size`
threads (x id = thread x floordiv that; linear: linear floordiv that); `#gpu.lane` ids
are `linear mod warp_size`, delinearized. This reproduces what `iree-opt
--transform-interpreter` (MLIR 22) produces; the messages are upstream's.

Failure modes (`MappingFailure.silenceable` as upstream):
- silenceable: target not a `gpu.launch` (without `generate_gpu_launch`), no unique
  top-level forall, launch sizes over the CUDA limits;
- definite: missing/mixed/duplicate/wrong-kind mapping attributes, linear mixed with
  non-linear ids, forall on tensors, dynamic or non-normalized bounds, more iterations
  than ids, `block_dims`/`grid_dims` not of size 3, a warp mapping whose block x size is
  not a multiple of the threads per warp(group), more lanes than a warp has (upstream
  accepts that case and never runs the extra lanes).

Spec vs upstream: the spec (LLVM 17) says ops other than `gpu.launch` are ignored and
dropped from the result and foralls with other mappings are ignored; current upstream
(and iree-opt) report both, as done here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.gpu import (
    BarrierOp,
    BlockIdOp,
    BlockMappingAttr,
    LaneMappingAttr,
    LaunchOp,
    MappingAttr,
    TerminatorOp,
    ThreadIdOp,
    ThreadMappingAttr,
    WarpgroupMappingAttr,
    WarpMappingAttr,
)
from xlinalg.dialects.scf import ForallOp
from xlinalg.ir.affine_utils import IndexBuilder, fold_constant

MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID_DIMS = (2**31 - 1, 65535, 65535)


class MappingFailure(Exception):
    def __init__(self, message: str, *, silenceable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.silenceable = silenceable


def _definite(message: str) -> MappingFailure:
    return MappingFailure(message, silenceable=False)


def check_launch_limits(grid: Sequence[int], block: Sequence[int]) -> None:
    """Silenceable failure when the launch exceeds the CUDA limits (upstream's)."""
    too_big = (
        prod(block) > MAX_THREADS_PER_BLOCK
        or any(b > m for b, m in zip(block, MAX_BLOCK_DIMS))
        or any(g > m for g, m in zip(grid, MAX_GRID_DIMS))
    )
    if too_big:
        raise MappingFailure(
            f"Trying to launch a GPU kernel with grid_dims = ({', '.join(map(str, grid))}) "
            f"block_dims = ({', '.join(map(str, block))}). It is larger than the limits.",
            silenceable=True,
        )


# ------------------------------------------------------------------ forall checks


THREAD_KINDS: tuple[type[MappingAttr], ...] = (
    ThreadMappingAttr,
    WarpMappingAttr,
    WarpgroupMappingAttr,
    LaneMappingAttr,
)
WARPS_PER_GROUP = 4


def _mapping_of(forall: ForallOp, kind: type[MappingAttr]) -> list[MappingAttr]:
    """The forall's mapping attributes, checked as upstream does (definite failures).
    `kind` ThreadMappingAttr accepts the thread-level kinds (thread, warp, warpgroup, lane)."""
    mapping = forall.mapping
    if mapping is None or not mapping.data:
        raise _definite("scf.forall op requires a mapping attribute")
    attrs = [a for a in mapping.data if isinstance(a, MappingAttr)]
    if len(attrs) != len(mapping.data):
        raise _definite(f"scf.forall op requires a mapping attribute of kind '{kind.KIND}'")
    if len({type(a) for a in attrs}) > 1:
        raise _definite("cannot mix different mapping types, use nesting")
    accepted = THREAD_KINDS if kind is ThreadMappingAttr else (kind,)
    if not isinstance(attrs[0], accepted):
        expected = "'thread' or 'warp'" if kind is ThreadMappingAttr else f"'{kind.KIND}'"
        raise _definite(f"scf.forall op requires a mapping attribute of kind {expected}")
    ids = [a.mapping_id for a in attrs]
    if len(set(ids)) != len(ids):
        raise _definite("duplicate attribute, cannot map different loops to the same mapping id")
    if len({a.is_linear for a in attrs}) > 1:
        raise _definite("cannot mix linear and non-linear mapping modes")
    if forall.outputs:
        raise _definite("only bufferized scf.forall can be mapped")
    return attrs


def static_trip_counts(forall: ForallOp) -> list[int]:
    """Trip counts of a normalized forall with constant bounds (definite failure otherwise)."""
    lbs = [fold_constant(v) for v in forall.lower_bounds()]
    steps = [fold_constant(v) for v in forall.steps()]
    if any(v != 0 for v in lbs) or any(v != 1 for v in steps):
        raise _definite("unsupported non-normalized loops")
    ubs = [fold_constant(v) for v in forall.upper_bounds()]
    counts = [v for v in ubs if isinstance(v, int)]
    if len(counts) != len(ubs):
        raise _definite("requires statically sized, normalized forall op")
    return [max(0, v) for v in counts]


@dataclass
class _Plan:
    """How one forall maps: its trip count per mapping id and its attributes."""

    attrs: list[MappingAttr]
    counts: list[int]

    @property
    def linear(self) -> bool:
        return self.attrs[0].is_linear

    def sizes(self) -> list[int]:
        """Iterations per id: x, y, z (non-linear) or linear_dim_0.. (linear), 1 if unmapped."""
        if self.linear:
            out = [1] * (1 + max(a.mapping_id - 3 for a in self.attrs))
            offset = 3
        else:
            out = [1, 1, 1]
            offset = 0
        for attr, count in zip(self.attrs, self.counts):
            out[attr.mapping_id - offset] = count
        return out


def _plan(forall: ForallOp, kind: type[MappingAttr]) -> _Plan:
    attrs = _mapping_of(forall, kind)
    return _Plan(attrs, static_trip_counts(forall))


def _check_resources(
    plan: _Plan, available: Sequence[int], total_first: bool, warp_size: int = 32
) -> None:
    """More iterations than ids is a definite failure. Upstream checks the total first for
    threads and only per dimension for blocks (their messages differ)."""
    multiplicity = _multiplicity(plan, warp_size)
    sizes = plan.sizes()
    if isinstance(plan.attrs[0], LaneMappingAttr):
        # Upstream (iree-opt 3.13) accepts more lanes than a warp has and predicates with
        # `lane < n`, which never runs the lanes past the warp: we refuse instead.
        if prod(sizes) > warp_size:
            raise _definite(
                f"the number of required parallel resources (lanes) {prod(sizes)} overflows "
                f"the warp size {warp_size}"
            )
        return
    sizes = [sizes[0] * multiplicity, *sizes[1:]] if not plan.linear else sizes
    total = prod(sizes) * (multiplicity if plan.linear else 1)
    if (total_first or plan.linear) and total > prod(available):
        raise _definite(
            f"the number of required parallel resources (blocks or threads) {total} "
            f"overflows the number of available resources {prod(available)}"
        )
    if not plan.linear and any(s > a for s, a in zip(sizes, available)):
        raise _definite(
            "Trying to map to fewer GPU threads than loop iterations but overprovisioning is "
            "not yet supported. Try additional tiling before mapping or map to more threads."
        )


# ------------------------------------------------------------------ rewriting one forall


def _multiplicity(plan: _Plan, warp_size: int) -> int:
    """Threads per id: 1 (thread, block, lane), warp_size (warp), 4 warps (warpgroup)."""
    if isinstance(plan.attrs[0], WarpMappingAttr):
        return warp_size
    if isinstance(plan.attrs[0], WarpgroupMappingAttr):
        return WARPS_PER_GROUP * warp_size
    return 1


def _delinearize(
    build: IndexBuilder, linear: SSAValue | int, sizes: Sequence[int]
) -> list[SSAValue | int]:
    """Ids of `linear` in the basis `sizes`, the first varying fastest."""
    out: list[SSAValue | int] = []
    stride = 1
    d0 = AffineExpr.dimension(0)
    for position, size in enumerate(sizes):
        expr = d0 // stride if stride > 1 else d0
        if position < len(sizes) - 1:
            expr = expr % size
        out.append(build.apply(expr, [linear]))
        stride *= size
    return out


def _distribute(
    forall: ForallOp,
    plan: _Plan,
    id_op: type[ThreadIdOp | BlockIdOp],
    available: Sequence[int],
    barrier: bool,
    warp_size: int = 32,
) -> None:
    """Replace `forall` by its body on GPU ids (see the module docstring)."""
    build = IndexBuilder(InsertPoint.before(forall))
    ids: list[SSAValue] = [build.insert(id_op(d)).results[0] for d in ("x", "y", "z")]
    for value, d in zip(ids, "xyz"):
        value.name_hint = f"{'thread' if id_op is ThreadIdOp else 'block'}_id_{d}"
    sizes = plan.sizes()
    multiplicity = _multiplicity(plan, warp_size)
    d0 = AffineExpr.dimension(0)
    conditions: list[SSAValue] = []
    lanes = isinstance(plan.attrs[0], LaneMappingAttr)
    if plan.linear or lanes:
        x, y, z = (AffineExpr.dimension(i) for i in range(3))
        bx, by, _ = available
        linear = build.apply(x + y * bx + z * (bx * by), ids)
        if lanes:  # the lane within the warp, delinearized over the forall's sizes
            active = build.apply(d0 % warp_size, [linear])
            needed = prod(sizes)
        else:  # the linear warp(group)/thread/block id
            active = linear
            needed = prod(sizes) * multiplicity
        replacements = _delinearize(
            build, build.apply(d0 // multiplicity, [linear]) if multiplicity > 1 else active, sizes
        )
        if needed < prod(available):
            conditions.append(_less_than(build, build.value(active), needed))
        offset = 3 if plan.linear else 0
        by_id: dict[int, SSAValue | int] = {offset + i: v for i, v in enumerate(replacements)}
    else:
        scaled: list[SSAValue | int] = list(ids)
        if multiplicity > 1:  # warp(group) x id: thread x / threads per warp(group)
            scaled[0] = build.apply(d0 // multiplicity, [ids[0]])
        scaled_sizes = [sizes[0] * multiplicity, *sizes[1:]]
        for value, size, limit in zip(ids, scaled_sizes, available):
            if size < limit:
                conditions.append(_less_than(build, value, size))
        by_id = dict(enumerate(scaled))
    for iv, attr in zip(forall.induction_vars, plan.attrs):
        iv.replace_all_uses_with(build.value(by_id[attr.mapping_id]))
    body = forall.body
    moved = [op for op in body.ops if op is not forall.terminator]
    for op in moved:
        op.detach()
    if conditions:
        condition = conditions[0]
        for other in conditions[1:]:
            condition = build.insert(arith.AndIOp(condition, other)).results[0]
        build.insert(scf.IfOp(condition, [], Region(Block([*moved, scf.YieldOp()]))))
    else:
        for op in moved:
            build.insert(op)
    if barrier:
        build.insert(BarrierOp())
    Rewriter.erase_op(forall, safe_erase=False)


def _less_than(build: IndexBuilder, value: SSAValue, bound: int) -> SSAValue:
    return build.insert(arith.CmpiOp(value, build.constant(bound), "ult")).results[0]


def _set_sizes(launch: LaunchOp, first: int, values: Sequence[int]) -> None:
    """Set the launch's grid (`first` = 0) or block (`first` = 3) sizes to constants."""
    build = IndexBuilder(InsertPoint.before(launch))
    offset = len(launch.asyncDependencies) + first
    for index, value in enumerate(values):
        launch.operands[offset + index] = build.constant(value)


def _static(values: Sequence[SSAValue], what: str) -> list[int]:
    folded = [fold_constant(v) for v in values]
    out = [v for v in folded if isinstance(v, int)]
    if len(out) != len(folded):
        raise _definite(f"unsupported dynamic {what} size")
    return out


# ------------------------------------------------------------------ threads


def map_nested_forall_to_threads(
    target: Operation,
    block_dims: Sequence[int],
    sync_after_distribute: bool = True,
    warp_size: int = 32,
) -> LaunchOp:
    if not isinstance(target, LaunchOp):
        raise MappingFailure("Given target is not a gpu.launch", silenceable=True)
    if len(block_dims) != 3:
        raise _definite("requires size-3 thread mapping")
    grid = _static(target.grid_sizes, "griddim")
    check_launch_limits(grid, block_dims)
    foralls = [op for op in target.walk() if isinstance(op, ForallOp)]
    plans = [(f, _plan(f, ThreadMappingAttr)) for f in foralls]
    for _, plan in plans:
        if _multiplicity(plan, warp_size) > 1 and not plan.linear and block_dims[0] % warp_size:
            raise _definite(
                "3-D mapping: size of threadIdx.x must be a multiple of "
                f"{_multiplicity(plan, warp_size)}"
            )
        _check_resources(plan, block_dims, total_first=True, warp_size=warp_size)
    # innermost first, so an outer forall moves bodies that are already distributed
    for forall, plan in reversed(plans):
        _distribute(forall, plan, ThreadIdOp, block_dims, sync_after_distribute, warp_size)
    _set_sizes(target, 3, block_dims)
    return target


# ------------------------------------------------------------------ blocks


def _top_level_foralls(target: Operation) -> list[ForallOp]:
    found: list[ForallOp] = []

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if isinstance(child, ForallOp):
                        found.append(child)
                    else:
                        visit(child)

    visit(target)
    return found


def map_forall_to_blocks(
    target: Operation, grid_dims: Sequence[int] = (), generate_gpu_launch: bool = False
) -> LaunchOp:
    if not isinstance(target, LaunchOp) and not generate_gpu_launch:
        raise MappingFailure(
            "Given target is not gpu.launch, set `generate_gpu_launch` attribute", silenceable=True
        )
    if grid_dims and len(grid_dims) != 3:
        raise _definite("transform requires empty or size-3 grid_dims")
    foralls = _top_level_foralls(target)
    if len(foralls) != 1:
        raise MappingFailure("could not find a unique topLevel scf.forall", silenceable=True)
    forall = foralls[0]
    plan = _plan(forall, BlockMappingAttr)
    if isinstance(target, LaunchOp):
        if not grid_dims:
            raise _definite("transform require size-3 mapping")
        launch = target
        block = _static(launch.block_sizes, "blockdim")
    else:
        block = [1, 1, 1]
    if not grid_dims:
        sizes = plan.sizes()
        grid_dims = sizes if not plan.linear else [prod(sizes), 1, 1]
    grid_dims = list(grid_dims)
    check_launch_limits(grid_dims, block)
    _check_resources(plan, grid_dims, total_first=False)
    if not isinstance(target, LaunchOp):
        build = IndexBuilder(InsertPoint.before(forall))
        one = build.constant(1)
        grid = [build.constant(g) for g in grid_dims]
        launch = LaunchOp(grid, [one, one, one])
        Rewriter.insert_op(launch, InsertPoint.before(forall))
        forall.detach()
        terminator = launch.body.blocks[0].last_op
        assert isinstance(terminator, TerminatorOp)
        Rewriter.insert_op(forall, InsertPoint.before(terminator))
    else:
        _set_sizes(launch, 0, grid_dims)
    _distribute(forall, plan, BlockIdOp, grid_dims, barrier=False)
    return launch


__all__ = [
    "MappingFailure",
    "check_launch_limits",
    "map_forall_to_blocks",
    "map_nested_forall_to_threads",
    "static_trip_counts",
]
