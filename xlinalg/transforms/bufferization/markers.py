"""`one_shot_bufferize {test_analysis_only = true}`: annotate the analysis' results
instead of bufferizing, with upstream's attributes.

The bufferizer runs on a copy of the target while observers record its analysis:
for every tensor an op writes (its destination), whether the bufferizer reuses that
tensor's buffer ("true") or works on a new one ("false", a copy)
(`one_shot.DESTINATION_OBSERVERS`); the buffer (root) each tensor value lives in
(`analysis.REGISTER_OBSERVERS`); and the read-after-write conflict behind each copy
(`analysis.CONFLICT_OBSERVERS`). The original ops then get upstream's markers:

- always, `__inplace_operands_attr__`: one string per operand, "none" for a
  non-tensor operand, the decision for a destination, "true" for a tensor that is
  only read (reading never needs a copy), e.g.
  `linalg.fill {__inplace_operands_attr__ = ["none", "false"]} ins(%cst : f32) outs(%arg0 : ...)`;
- `print_conflicts`: per conflict `C_<n>`, upstream's three unit attributes
  `"C_<n>[READ: <operand>]"` on the reading op, `"C_<n>[CONFL-WRITE: <operand>]"` on
  the op that would have written in place, `"C_<n>[DEF: result <k>]"` (or
  `bbArg <k>`, on the block's parent op) on the definition whose contents the read
  needs; n counts from 0 in each application (upstream's counter is process-wide);
- `dump_alias_sets`: `__opresult_alias_set_attr__` on ops with tensor results (per
  tensor result, the printed names of every value in the same buffer) and
  `__bbarg_alias_set_attr__` on ops with tensor block arguments (region → block →
  argument → names); a value the bufferizer never gave a buffer (e.g. a
  `tensor.empty` its empty-tensor elimination removed) is alone in its set;
- with `bufferize_function_boundaries`: `bufferization.access` on every tensor
  argument of a function ("none", "read", "write" or "read-write": whether its
  contents are read — through views such as `tensor.extract_slice` — and whether its
  buffer is written in place) and `__equivalent_func_args__` on a `func.return`
  returning an argument's whole buffer (the argument's index per operand, -1
  otherwise), as upstream.

The decisions are xlinalg's own, not upstream's: function arguments, for instance,
are never written in place here unless `bufferization.writable = true` (the caller's
array is not modified), where upstream writes an argument in place when nothing reads
it afterwards; so upstream's conflicts can name other ops than ours (upstream also
decides bottom-up, so it may blame a later write where we blame an earlier one).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.printer import Printer

from xlinalg.transforms.bufferization import analysis
from xlinalg.transforms.bufferization.analysis import (
    AliasInfo,
    Conflict,
    ProgramOrder,
    Root,
    SliceKey,
)
from xlinalg.transforms.bufferization.one_shot import DESTINATION_OBSERVERS

INPLACE_ATTR = "__inplace_operands_attr__"
RESULT_ALIASES_ATTR = "__opresult_alias_set_attr__"
BBARG_ALIASES_ATTR = "__bbarg_alias_set_attr__"
ACCESS_ATTR = "bufferization.access"
EQUIVALENT_ARGS_ATTR = "__equivalent_func_args__"


@dataclass(frozen=True)
class AnalysisMarkers:
    """Which markers beyond `__inplace_operands_attr__` to write."""

    print_conflicts: bool = False
    dump_alias_sets: bool = False
    function_boundaries: bool = False


@dataclass
class _Record:
    """The analysis of the twin, in terms of the target's ops and values."""

    decisions: dict[tuple[Operation, int], bool] = field(
        default_factory=dict[tuple[Operation, int], bool]
    )
    roots: dict[SSAValue, Root] = field(default_factory=dict[SSAValue, Root])
    whole: set[SSAValue] = field(default_factory=set[SSAValue])  # values covering their whole root
    conflicts: list[tuple[tuple[Operation, int], tuple[Operation, int], SSAValue]] = field(
        default_factory=list[tuple[tuple[Operation, int], tuple[Operation, int], SSAValue]]
    )


def _values(op: Operation) -> list[SSAValue]:
    """The results and block arguments `op` defines, in a fixed order."""
    values: list[SSAValue] = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            values.extend(block.args)
    return values


def _record(target: Operation, twin: Operation, bufferize: Callable[[Operation], None]) -> _Record:
    original_of = dict(zip(twin.walk(), target.walk(), strict=True))
    value_of: dict[SSAValue, SSAValue] = {}
    for copy, original in original_of.items():
        value_of.update(zip(_values(copy), _values(original), strict=True))
    record = _Record()

    def operand(ref: tuple[Operation, int]) -> tuple[Operation, int] | None:
        original = original_of.get(ref[0])
        return None if original is None else (original, ref[1])

    def observe_destination(op: Operation, dest: SSAValue, in_place: bool) -> None:
        original = original_of.get(op)
        if original is None:
            return
        # the last operand that is `dest` (destinations follow the inputs: an op reading
        # and writing the same tensor has it first as an input)
        for index in reversed(range(len(op.operands))):
            if op.operands[index] is dest and (original, index) not in record.decisions:
                record.decisions[(original, index)] = in_place
                return

    def observe_register(value: SSAValue, root: Root, key: SliceKey | None) -> None:
        original = value_of.get(value)
        if original is not None:
            record.roots[original] = root
            if key is None:
                record.whole.add(original)

    def observe_conflict(conflict: Conflict) -> None:
        read, write = operand(conflict.read), operand(conflict.write)
        definition = value_of.get(conflict.definition)
        if read is not None and write is not None and definition is not None:
            record.conflicts.append((read, write, definition))

    DESTINATION_OBSERVERS.append(observe_destination)
    analysis.REGISTER_OBSERVERS.append(observe_register)
    analysis.CONFLICT_OBSERVERS.append(observe_conflict)
    try:
        bufferize(twin)
    finally:
        DESTINATION_OBSERVERS.remove(observe_destination)
        analysis.REGISTER_OBSERVERS.remove(observe_register)
        analysis.CONFLICT_OBSERVERS.remove(observe_conflict)
    return record


def _annotate_inplace(target: Operation, record: _Record) -> None:
    for op in target.walk():
        if not any(isinstance(v.type, TensorType) for v in op.operands):
            continue
        marks = [
            "none"
            if not isinstance(v.type, TensorType)
            else ("true" if record.decisions.get((op, i), True) else "false")
            for i, v in enumerate(op.operands)
        ]
        op.attributes[INPLACE_ATTR] = ArrayAttr([StringAttr(m) for m in marks])


def _annotate_conflicts(record: _Record) -> None:
    for n, ((reader, read), (writer, write), definition) in enumerate(record.conflicts):
        writer.attributes[f"C_{n}[CONFL-WRITE: {write}]"] = UnitAttr()
        reader.attributes[f"C_{n}[READ: {read}]"] = UnitAttr()
        if isinstance(definition, BlockArgument):
            parent = definition.owner.parent_op()
            assert parent is not None
            parent.attributes[f"C_{n}[DEF: bbArg {definition.index}]"] = UnitAttr()
        else:
            assert isinstance(definition, OpResult)
            definition.owner.attributes[f"C_{n}[DEF: result {definition.index}]"] = UnitAttr()


def _printed_names(target: Operation) -> dict[SSAValue, str]:
    """The names the values of `target` get when its outermost op is printed."""
    top = target
    while (parent := top.parent_op()) is not None:
        top = parent
    printer = Printer(stream=io.StringIO())
    printer.print_op(top)
    # xDSL keeps the names it gave in a private table, with no public accessor
    return {value: f"%{name}" for value, name in printer._ssa_values.items()}


def _alias_groups(target: Operation, record: _Record) -> dict[SSAValue, list[SSAValue]]:
    """Each tensor value's alias set, as upstream builds it: a result aliases the operand
    whose buffer it lives in (same root), a block argument starts a set of its own (a
    loop's iteration argument is not in its init's set, though the bufferizer keeps them
    in one buffer); a value the bufferizer never gave a buffer is alone."""
    origin: dict[SSAValue, SSAValue] = {}
    groups: dict[SSAValue, list[SSAValue]] = {}
    for op in target.walk():  # operands are defined before their users
        for value in _values(op):
            if not isinstance(value.type, TensorType):
                continue
            root = record.roots.get(value)
            source = next(
                (x for x in op.operands if root is not None and record.roots.get(x) is root),
                None,
            )
            origin[value] = (
                origin.get(source, value) if isinstance(value, OpResult) and source else value
            )
            groups.setdefault(origin[value], []).append(value)
    return {value: groups[leader] for value, leader in origin.items()}


def _annotate_alias_sets(target: Operation, record: _Record) -> None:
    names = _printed_names(target)
    groups = _alias_groups(target, record)

    def alias_set(value: SSAValue) -> ArrayAttr[StringAttr]:
        return ArrayAttr([StringAttr(names[v]) for v in groups[value] if v in names])

    for op in target.walk():
        results = [alias_set(r) for r in op.results if isinstance(r.type, TensorType)]
        if results:
            op.attributes[RESULT_ALIASES_ATTR] = ArrayAttr(results)
        if any(
            isinstance(a.type, TensorType) for r in op.regions for b in r.blocks for a in b.args
        ):
            op.attributes[BBARG_ALIASES_ATTR] = ArrayAttr(
                [
                    ArrayAttr(
                        [
                            ArrayAttr(
                                [alias_set(a) for a in block.args if isinstance(a.type, TensorType)]
                            )
                            for block in region.blocks
                        ]
                    )
                    for region in op.regions
                ]
            )


def _argument_read(arg: SSAValue, info: AliasInfo) -> bool:
    """Whether the contents of `arg` are read, looking through the views taken of it
    and into the loops it initialises (upstream's isValueRead; a loop reads its init
    when the body reads the iteration argument)."""
    views = (tensor.ExtractSliceOp, tensor.CollapseShapeOp, tensor.ExpandShapeOp, tensor.CastOp)
    pending = list(arg.uses)
    while pending:
        use = pending.pop()
        user = use.operation
        if isinstance(user, views) and use.index == 0:
            pending.extend(u for r in user.results for u in r.uses)
        elif isinstance(user, scf.ForOp) and use.index >= 3:
            pending.extend(user.body.block.args[use.index - 2].uses)
        elif info.reads_contents(use):
            return True
    return False


def _annotate_function_boundaries(target: Operation, record: _Record) -> None:
    functions = (
        [target]
        if isinstance(target, func.FuncOp)
        else [f for f in target.walk() if isinstance(f, func.FuncOp)]
    )
    for fn in functions:
        if not fn.body.blocks:
            continue
        args = fn.body.blocks[0].args
        info = AliasInfo(ProgramOrder(fn))
        written_roots = {
            record.roots.get(op.operands[index])
            for (op, index), in_place in record.decisions.items()
            if in_place and ProgramOrder.is_inside(op, fn)
        }
        attrs = list(fn.arg_attrs.data) if fn.arg_attrs is not None else []
        attrs += [DictionaryAttr({})] * (len(args) - len(attrs))
        for arg in args:
            if not isinstance(arg.type, TensorType):
                continue
            read = _argument_read(arg, info)
            written = record.roots.get(arg) in written_roots
            access = {(False, False): "none", (True, False): "read", (False, True): "write"}.get(
                (read, written), "read-write"
            )
            attrs[arg.index] = DictionaryAttr(
                {**attrs[arg.index].data, ACCESS_ATTR: StringAttr(access)}
            )
        fn.arg_attrs = ArrayAttr(attrs)
        for ret in [op for op in fn.walk() if isinstance(op, func.ReturnOp)]:
            equivalent = [
                next(
                    (
                        arg.index
                        for arg in args
                        if value in record.whole
                        and arg in record.roots
                        and record.roots.get(value) is record.roots[arg]
                    ),
                    -1,
                )
                for value in ret.operands
            ]
            if any(index >= 0 for index in equivalent):
                ret.attributes[EQUIVALENT_ARGS_ATTR] = ArrayAttr(
                    [IntegerAttr(i, i64) for i in equivalent]
                )


def annotate_analysis(
    target: Operation,
    twin: Operation,
    bufferize: Callable[[Operation], None],
    markers: AnalysisMarkers = AnalysisMarkers(),
) -> None:
    """Bufferize `twin` (a clone of `target`) with `bufferize` while recording the
    analysis, then annotate the ops of `target` (module docstring). Errors of
    `bufferize` propagate (target untouched)."""
    record = _record(target, twin, bufferize)
    _annotate_inplace(target, record)
    if markers.print_conflicts:
        _annotate_conflicts(record)
    if markers.dump_alias_sets:
        _annotate_alias_sets(target, record)
    if markers.function_boundaries:
        _annotate_function_boundaries(target, record)


__all__ = [
    "ACCESS_ATTR",
    "BBARG_ALIASES_ATTR",
    "EQUIVALENT_ARGS_ATTR",
    "INPLACE_ATTR",
    "RESULT_ALIASES_ATTR",
    "AnalysisMarkers",
    "annotate_analysis",
]
