"""`cse`: xDSL 0.74's common-subexpression elimination with each op's key hashed once.

The algorithm, and so the IR it leaves, is exactly xDSL's
`xdsl.transforms.common_subexpression_elimination.cse` (MLIR's): a scoped table of
known ops per single-block region (a fresh one under `IsolatedFromAbove` ops),
terminators and ops with multi-block regions left alone, trivially dead ops erased,
pure ops replaced by an equal known one, read-only ops too when they are in the same
block and no op between the two may write.

What differs is the cost. xDSL's table key re-hashes the op (its name, every
attribute and property, result types and operands, each attribute hashed
recursively) on every lookup, insertion and equality test: four to five times per
op. Here an op's key is hashed once when the op is visited, attribute hashes are
memoised per attribute object for the run (attributes are immutable), and
equality compares the cached hashes before the fields. Memory effects are
memoised per op too: xDSL recomputes those of a loop from its whole body up to
three times per loop (dead? pure? read-only?), and again for each enclosing loop;
CSE erases nothing before its end and changes no op's effects. Two ops are equal keys
under the same condition as xDSL's (equal name, attributes, properties, operands,
result types and structurally equivalent regions), so the same ops are merged.
Keys of known ops stay valid: CSE only rewrites the operands of ops not visited
yet (xDSL's `wasVisited` rule, kept here).

`LoweringCleanupPass` and the transfer hoisting run it on every tuning candidate
(≈8 % of the compile time of conv 7x7x512 went to xDSL's CSE).
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.rewriter import Rewriter
from xdsl.traits import IsolatedFromAbove, IsTerminator
from xdsl.transforms.common_subexpression_elimination import (
    has_other_side_effecting_op_in_between,
)

from xlinalg.ir.effects import MemoizedEffects


def _name(op: Operation) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


class _OpKey:
    """An op as a key of the known-ops table: equal to another key exactly when
    xDSL's `OperationInfo` of the two ops are equal. `hash` is computed by the driver
    from the same fields (see `_CSEDriver._key`)."""

    __slots__ = ("hash", "op")

    def __init__(self, op: Operation, hash: int) -> None:
        self.op = op
        self.hash = hash

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _OpKey):
            return NotImplemented
        if self.hash != other.hash:
            return False
        a, b = self.op, other.op
        return a is b or (
            _name(a) == _name(b)
            and a.attributes == b.attributes
            and a.properties == b.properties
            and a.operands == b.operands
            and a.result_types == b.result_types
            and all(
                s.is_structurally_equivalent(o) for s, o in zip(a.regions, b.regions, strict=True)
            )
        )


class _CSEDriver:
    def __init__(self, effects: MemoizedEffects | None = None) -> None:
        # hash(attribute) by object: attributes are immutable and stay alive in the IR
        # for the run (the object is kept with its hash so that its id is not reused)
        self._attr_hashes: dict[int, tuple[Attribute, int]] = {}
        self._effects = effects if effects is not None else MemoizedEffects()
        self._known: dict[_OpKey, Operation] = {}
        self._to_erase: dict[Operation, None] = {}  # insertion-ordered set

    def _attr_hash(self, attr: Attribute) -> int:
        entry = self._attr_hashes.get(id(attr))
        if entry is None:
            entry = self._attr_hashes[id(attr)] = (attr, hash(attr))
        return entry[1]

    def _key(self, op: Operation) -> _OpKey:
        """The op's table key, hashed from the fields `_OpKey.__eq__` compares (the name
        of an unregistered op is left out of the hash: it is compared)."""
        attr_hash = self._attr_hash
        attrs = 0
        for k, v in op.attributes.items():
            attrs += hash(k) ^ attr_hash(v)
        props = 0
        for k, v in op.properties.items():
            props += hash(k) ^ attr_hash(v)
        types = tuple(attr_hash(r.type) for r in op.results)
        return _OpKey(op, hash((op.name, attrs, props, types, hash(op.operands))))

    def _replace_and_delete(self, op: Operation, existing: Operation) -> None:
        for old, new in zip(op.results, existing.results, strict=True):
            # uses by ops that are (equal to) known ops are not rewritten, as in xDSL
            if all(self._key(use.operation) not in self._known for use in old.uses):
                old.replace_all_uses_with(new)
        if all(not r.uses for r in op.results):
            self._to_erase[op] = None

    def _simplify_operation(self, op: Operation) -> None:
        if op.has_trait(IsTerminator):
            return
        if self._effects.is_trivially_dead(op):
            self._to_erase[op] = None
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        key = self._key(op)
        if not self._effects.is_side_effect_free(op):
            if not self._effects.only_reads(op):
                return
            existing = self._known.get(key)
            if (
                existing is not None
                and op.parent_block() is existing.parent_block()
                and not has_other_side_effecting_op_in_between(existing, op)
            ):
                self._replace_and_delete(op, existing)
                return
            self._known[key] = op
            return
        existing = self._known.get(key)
        if existing is not None:
            self._replace_and_delete(op, existing)
            return
        self._known[key] = op

    def _simplify_block(self, block: Block) -> None:
        for op in block.ops:
            if op.regions:
                if op.has_trait(IsolatedFromAbove, value_if_unregistered=True):
                    outer = self._known
                    self._known = {}
                    for region in op.regions:
                        self._simplify_region(region)
                    self._known = outer
                else:
                    for region in op.regions:
                        self._simplify_region(region)
            self._simplify_operation(op)

    def _simplify_region(self, region: Region) -> None:
        if len(region.blocks) != 1:
            return
        outer = self._known
        self._known = dict(outer)
        self._simplify_block(region.block)
        self._known = outer

    def run(self, thing: Operation | Block | Region) -> None:
        if isinstance(thing, Operation):
            for region in thing.regions:
                self._simplify_region(region)
        elif isinstance(thing, Block):
            self._simplify_block(thing)
        else:
            self._simplify_region(thing)
        for op in self._to_erase:
            if op.parent is not None:
                Rewriter.erase_op(op)


def cse(thing: Operation | Block | Region, effects: MemoizedEffects | None = None) -> None:
    """Common-subexpression elimination of everything under `thing` (as xDSL's `cse`);
    `effects`, when given, are memoised effects still valid for the IR (e.g. LICM's)."""
    _CSEDriver(effects).run(thing)


__all__ = ["cse"]
