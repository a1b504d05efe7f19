"""The transform interpreter state: what each handle points to, and invalidation.

Handles are the SSA values of the transform IR. An op handle maps to a list of
payload ops, a value handle to a list of payload values, a param to a list of
attributes. Consuming a handle invalidates every handle that may point into the
payload subtree it designates (spec: "Handle Invalidation"); using an
invalidated handle afterwards is a definite failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.transform import (
    OperationType,
    TransformParamHandleType,
    TransformValueHandleType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from xlinalg.interpreter.diagnostics import (
    describe_handle,
    describe_payload,
    describe_transform,
    failure,
)
from xlinalg.ir.diagnostics import location_of


@dataclass
class Invalidation:
    consumer: Operation
    consumed: SSAValue
    payload: str | None = None
    """With expensive checks: the consumed payload op (described before it ran)."""


@dataclass
class TransformState:
    knobs: Mapping[str, object] = field(default_factory=dict)
    ops: dict[SSAValue, list[Operation]] = field(default_factory=dict)
    values: dict[SSAValue, list[SSAValue]] = field(default_factory=dict)
    params: dict[SSAValue, list[Attribute]] = field(default_factory=dict)
    invalidated: dict[SSAValue, Invalidation] = field(default_factory=dict)
    expensive_checks: bool = True
    """Spec: invalidation checking is opt-in because it is expensive. With it
    (the default here), consuming a handle invalidates every handle into the
    consumed payload subtree and a later use names the consuming op, the
    consumed handle and the payload op; without it, only the consumed handle
    itself is invalidated."""

    # ---- reading handles ----

    def check_valid(self, handle: SSAValue, user: Operation) -> None:
        inv = self.invalidated.get(handle)
        if inv is not None:
            how = "consumed" if inv.consumed is handle else "invalidated"
            what = ""
            if inv.payload is not None:
                what = f" (the consumed payload: {inv.payload})"
            raise failure(
                user,
                f"uses {describe_handle(handle)}, a handle that was {how} by "
                f"{describe_transform(inv.consumer)} (it consumed "
                f"{describe_handle(inv.consumed)}); the payload it pointed to may "
                f"have been erased{what}",
                silenceable=False,
            )

    def get_ops(self, handle: SSAValue, user: Operation) -> list[Operation]:
        self.check_valid(handle, user)
        if handle not in self.ops:
            raise failure(
                user,
                f"{describe_handle(handle)} is not an operation handle (or is not bound)",
                silenceable=False,
            )
        return list(self.ops[handle])

    def get_values(self, handle: SSAValue, user: Operation) -> list[SSAValue]:
        self.check_valid(handle, user)
        if handle not in self.values:
            raise failure(
                user, f"{describe_handle(handle)} is not a value handle", silenceable=False
            )
        return list(self.values[handle])

    def get_params(self, handle: SSAValue, user: Operation) -> list[Attribute]:
        if handle not in self.params:
            raise failure(user, f"{describe_handle(handle)} is not a param", silenceable=False)
        return list(self.params[handle])

    # ---- binding ----

    def bind(self, handle: SSAValue, payload: Sequence[Operation | SSAValue | Attribute]) -> None:
        """Bind `handle` according to its type (op / value / param handle)."""
        self.invalidated.pop(handle, None)
        typ = handle.type
        if isinstance(typ, TransformParamHandleType):
            self.params[handle] = [p for p in payload if isinstance(p, Attribute)]
        elif isinstance(typ, TransformValueHandleType):
            self.values[handle] = [p for p in payload if isinstance(p, SSAValue)]
        else:  # op handles (TransformOpHandleType and unknown handle types)
            self.ops[handle] = [p for p in payload if isinstance(p, Operation)]

    def unbind(self, handle: SSAValue) -> None:
        self.ops.pop(handle, None)
        self.values.pop(handle, None)
        self.params.pop(handle, None)

    def is_bound(self, handle: SSAValue) -> bool:
        return handle in self.ops or handle in self.values or handle in self.params

    def bind_like(self, handle: SSAValue, source: SSAValue, user: Operation) -> None:
        """Bind `handle` to the same payload as `source` (for yields / block args)."""
        if source in self.params:
            self.bind(handle, self.get_params(source, user))
        elif source in self.values:
            self.bind(handle, self.get_values(source, user))
        else:
            self.bind(handle, self.get_ops(source, user))
            self.check_payload_type(handle, user)

    def payload_of(
        self, handle: SSAValue, user: Operation
    ) -> list[Operation | SSAValue | Attribute]:
        if handle in self.params:
            return list(self.get_params(handle, user))
        if handle in self.values:
            return list(self.get_values(handle, user))
        return list(self.get_ops(handle, user))

    # ---- consumption ----

    def handles_invalidated_by(self, consumed: SSAValue) -> list[SSAValue]:
        """Every handle that consuming `consumed` invalidates (including itself)."""
        if consumed in self.params:
            return []
        roots: list[Operation] = []
        blocks: list[Block] = []
        extra_values: set[SSAValue] = set()
        if consumed in self.values:
            for value in self.values[consumed]:
                extra_values.add(value)
                if isinstance(value, OpResult):
                    roots.append(value.op)
                elif isinstance(value, BlockArgument):
                    blocks.append(value.block)
        else:
            roots.extend(self.ops.get(consumed, []))
        root_set = set(roots)
        block_set = set(blocks)

        def op_affected(op: Operation) -> bool:
            current: Operation | None = op
            while current is not None:
                if current in root_set:
                    return True
                parent_block = current.parent_block()
                if parent_block is not None and parent_block in block_set:
                    return True
                current = current.parent_op()
            return False

        def value_affected(value: SSAValue) -> bool:
            if value in extra_values:
                return True
            if isinstance(value, OpResult):
                return op_affected(value.op)
            if isinstance(value, BlockArgument):
                if value.block in block_set:
                    return True
                owner = value.block.parent_op()
                return owner is not None and op_affected(owner)
            return False

        affected = [consumed]
        if not self.expensive_checks:
            return affected
        for handle, ops in self.ops.items():
            if handle is not consumed and any(op_affected(op) for op in ops):
                affected.append(handle)
        for handle, values in self.values.items():
            if handle is not consumed and any(value_affected(v) for v in values):
                affected.append(handle)
        return affected

    def check_repeated_consumption(self, op: Operation, consumed: Sequence[SSAValue]) -> None:
        """Upstream's `checkRepeatedConsumptionInOperand` (expensive checks): a consumed op
        or value handle pointing to the same payload entity twice is a silenceable failure
        naming the first such operand (params are not checked)."""
        for number, operand in enumerate(op.operands):
            if operand not in consumed or operand in self.params:
                continue
            payload: Sequence[Operation | SSAValue] = self.values.get(operand) or self.ops.get(
                operand, []
            )
            seen: set[int] = set()
            for entity in payload:
                if id(entity) in seen:
                    raise failure(
                        op,
                        f"a handle passed as operand #{number} and consumed by this operation "
                        "points to a payload entity more than once (repeated target "
                        f"{_describe_entity(entity)})",
                        silenceable=True,
                    )
                seen.add(id(entity))

    def describe_consumed(self, consumed: SSAValue) -> str | None:
        """What consuming `consumed` is about to free (call before the op runs)."""
        roots = self.ops.get(consumed) or []
        if not roots or not self.expensive_checks:
            return None
        more = f" and {len(roots) - 1} more" if len(roots) > 1 else ""
        loc = location_of(roots[0])
        # cheap on purpose (this runs before every consuming op): no printing
        where = f" at {loc}" if loc else ""
        return f"payload op '{roots[0].name}'{where}{more}"

    def invalidate(
        self,
        handles: Iterable[SSAValue],
        consumer: Operation,
        consumed: SSAValue,
        payload: str | None = None,
    ) -> None:
        for handle in handles:
            self.invalidated.setdefault(handle, Invalidation(consumer, consumed, payload))

    def invalidate_nested(self, roots: Sequence[Operation], consumer: Operation) -> None:
        """Invalidate every op/value handle pointing into the payload under `roots`
        (used when an op replaces or rolls back a whole payload subtree)."""
        root_set = set(roots)

        def inside(op: Operation) -> bool:
            current: Operation | None = op
            while current is not None:
                if current in root_set:
                    return True
                current = current.parent_op()
            return False

        for handle, ops in self.ops.items():
            if any(inside(op) for op in ops):
                self.invalidated.setdefault(handle, Invalidation(consumer, handle))
        for handle, values in self.values.items():
            owners = [v.op if isinstance(v, OpResult) else v.owner.parent_op() for v in values]
            if any(o is not None and inside(o) for o in owners):
                self.invalidated.setdefault(handle, Invalidation(consumer, handle))

    def replace_payload_op(self, old: Operation, new: Operation) -> None:
        """Point every valid handle to `old` at `new` instead (payload replacement)."""
        for handle, ops in self.ops.items():
            if handle not in self.invalidated and old in ops:
                self.ops[handle] = [new if op is old else op for op in ops]

    def check_payload_type(self, handle: SSAValue, user: Operation) -> None:
        """Spec `checkPayload`: ops bound to a `!transform.op<"name">` handle must
        be `name` ops; a mismatch is a silenceable failure."""
        typ = handle.type
        if not isinstance(typ, OperationType):
            return
        expected = typ.operation.data
        for op in self.ops.get(handle, []):
            if op.name != expected:
                raise failure(
                    user,
                    f"incompatible payload operation name: {describe_handle(handle)} has type "
                    f"{typ} but is associated with {describe_payload(op)}",
                    silenceable=True,
                )


def _describe_entity(entity: Operation | SSAValue) -> str:
    if isinstance(entity, Operation):
        return f"op: {describe_payload(entity)}"
    if isinstance(entity, OpResult):
        return f"value: result #{entity.index} of {describe_payload(entity.op)}"
    assert isinstance(entity, BlockArgument)
    owner = entity.block.parent_op()
    where = f" in {describe_payload(owner)}" if owner is not None else ""
    return f"value: block argument #{entity.index}{where}"
