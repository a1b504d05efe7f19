"""Software pipelining of an `scf.for` (upstream `transform.loop.pipeline`:
`loopScheduling` + `scf::pipelineForLoop` with the epilogue peeled).

Scheduling (as upstream): the body ops are visited in order; an op's cycle is
the latest `cycle(def) + latency(def)` over its operands defined in the body
(0 if none), where reads (`memref.load`, `vector.load`,
`vector.transfer_read`) have latency `read_latency` and every other op 1. Its
stage is `cycle floordiv iteration_interval`; ops are ordered by
`cycle mod iteration_interval`, then by their position.

With S = the largest stage and N the (static) trip count, N > S:
- prologue: for i in [0, S): the ops of stages <= i, for iteration i - stage;
- kernel: a loop over N - S iterations; in kernel iteration j an op of stage s
  works on iteration j + S - s; a value crossing d > 0 stages is carried in d
  loop-carried arguments (a shift register);
- epilogue: the remaining stages of the last S iterations.
Reads of later iterations are thereby issued before the computations of earlier
ones (prefetching). As upstream, the transformation does not check memory
dependences between iterations.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import constant_index_value

READ_OPS = ("memref.load", "vector.load", "vector.transfer_read")


@dataclass(frozen=True)
class Schedule:
    order: list[Operation]
    stage: dict[Operation, int]

    @property
    def max_stage(self) -> int:
        return max(self.stage.values(), default=0)


def schedule_loop(loop: scf.ForOp, iteration_interval: int, read_latency: int) -> Schedule:
    body_ops = [op for op in loop.body.block.ops if not isinstance(op, scf.YieldOp)]
    cycle: dict[Operation, int] = {}
    for op in body_ops:
        early = 0
        for inner in op.walk():
            for operand in inner.operands:
                owner = operand.owner
                if isinstance(owner, Operation) and owner in cycle:
                    latency = read_latency if owner.name in READ_OPS else 1
                    early = max(early, cycle[owner] + latency)
        cycle[op] = early
    position = {op: i for i, op in enumerate(body_ops)}
    order = sorted(body_ops, key=lambda op: (cycle[op] % iteration_interval, position[op]))
    return Schedule(order, {op: cycle[op] // iteration_interval for op in body_ops})


def pipeline_for(
    loop: scf.ForOp, *, iteration_interval: int = 1, read_latency: int = 10
) -> scf.ForOp:
    """Pipeline `loop` in place; returns the kernel loop. Silenceable failure if the
    loop cannot be pipelined (dynamic bounds, loop-carried values, too few iterations,
    or a schedule with a single stage)."""
    lb, ub, step = (constant_index_value(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        raise silenceable_failure("pipelining needs static loop bounds")
    if loop.iter_args:
        raise silenceable_failure("pipelining loops with loop-carried values is not supported")
    trip = max(0, -(-(ub - lb) // step))
    sched = schedule_loop(loop, iteration_interval, read_latency)
    stages = sched.max_stage
    if stages == 0:
        raise silenceable_failure("the schedule has a single stage: nothing to pipeline")
    if trip <= stages:
        raise silenceable_failure(
            f"the loop runs {trip} iterations, not more than its {stages} extra stages"
        )

    iv = loop.body.block.args[0]
    # value v (a result of a body op) -> the most distant stage of its users
    distance: dict[SSAValue, int] = {}
    for op in sched.order:
        for inner in op.walk():
            for operand in inner.operands:
                owner = operand.owner
                if isinstance(owner, Operation) and owner in sched.stage:
                    d = sched.stage[op] - sched.stage[owner]
                    distance[operand] = max(distance.get(operand, 0), d)
    carried = [v for v in distance if distance[v] > 0]

    before = InsertPoint.before(loop)
    constants: dict[int, SSAValue] = {}

    def constant(value: int, at: InsertPoint = before) -> SSAValue:
        if at is before and value in constants:
            return constants[value]
        op = arith.ConstantOp(IntegerAttr(value, IndexType()))
        Rewriter.insert_op(op, at)
        if at is before:
            constants[value] = op.result
        return op.result

    def emit(op: Operation, mapping: dict[SSAValue, SSAValue], at: InsertPoint) -> None:
        clone = op.clone(value_mapper=dict(mapping))
        Rewriter.insert_op(clone, at)
        mapping.update(zip(op.results, clone.results))

    # prologue
    maps: dict[int, dict[SSAValue, SSAValue]] = {}
    for i in range(stages):
        for op in sched.order:
            s = sched.stage[op]
            if s > i:
                continue
            k = i - s
            mapping = maps.setdefault(k, {iv: constant(lb + k * step)})
            emit(op, mapping, before)

    # kernel: iter args = one shift register per carried value
    slots: list[tuple[SSAValue, int]] = [(v, t) for v in carried for t in range(1, distance[v] + 1)]
    inits: list[SSAValue] = []
    for v, t in slots:
        owner = v.owner
        assert isinstance(owner, Operation)
        k = stages - sched.stage[owner] - t
        inits.append(maps[k][v])
    body = Block(arg_types=[IndexType(), *(v.type for v, _ in slots)])
    kernel_ub = constant(lb + (trip - stages) * step)
    kernel = scf.ForOp(loop.lb, kernel_ub, loop.step, inits, Region(body))
    Rewriter.insert_op(kernel, before)
    slot_arg = {slot: body.args[1 + i] for i, slot in enumerate(slots)}
    at = InsertPoint.at_end(body)
    current: dict[SSAValue, SSAValue] = {}
    shifted_iv: dict[int, SSAValue] = {}
    for op in sched.order:
        s = sched.stage[op]
        uses_iv = any(iv in inner.operands for inner in op.walk())
        if uses_iv and s not in shifted_iv:
            shift = (stages - s) * step
            if shift == 0:
                shifted_iv[s] = body.args[0]
            else:
                add = arith.AddiOp(body.args[0], constant(shift, at))
                Rewriter.insert_op(add, at)
                shifted_iv[s] = add.result
        mapping: dict[SSAValue, SSAValue] = {iv: shifted_iv[s]} if uses_iv else {}
        for inner in op.walk():
            for operand in inner.operands:
                owner = operand.owner
                if isinstance(owner, Operation) and owner in sched.stage:
                    d = s - sched.stage[owner]
                    mapping[operand] = current[operand] if d == 0 else slot_arg[(operand, d)]
        clone = op.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, at)
        current.update(zip(op.results, clone.results))
    yielded = [current[v] if t == 1 else slot_arg[(v, t - 1)] for v, t in slots]
    body.add_op(scf.YieldOp(*yielded))
    after_kernel = {slot: kernel.results[i] for i, slot in enumerate(slots)}

    # epilogue (before the original loop, which now follows the kernel)
    epi: dict[int, dict[SSAValue, SSAValue]] = {}
    last_kernel = trip - stages - 1
    for j in range(trip - stages, trip):
        for op in sched.order:
            s = sched.stage[op]
            k = j + stages - s
            if k >= trip:
                continue
            mapping = epi.setdefault(k, {})
            if iv not in mapping:
                mapping[iv] = constant(lb + k * step)
            for inner in op.walk():
                for operand in inner.operands:
                    owner = operand.owner
                    if operand in mapping or not (
                        isinstance(owner, Operation) and owner in sched.stage
                    ):
                        continue
                    producer_kernel_iteration = k - stages + sched.stage[owner]
                    t = last_kernel - producer_kernel_iteration + 1
                    mapping[operand] = after_kernel[(operand, t)]
            emit(op, mapping, before)
    Rewriter.erase_op(loop, safe_erase=False)
    return kernel


__all__ = ["READ_OPS", "Schedule", "pipeline_for", "schedule_loop"]
