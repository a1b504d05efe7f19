"""one_shot_bufferize {test_analysis_only = true} with `print_conflicts`,
`dump_alias_sets` and `bufferize_function_boundaries`: upstream's conflict markers,
alias sets, `bufferization.access` and `__equivalent_func_args__`, checked on their
own and against iree-opt's on the same payloads."""

from __future__ import annotations

import re

import pytest

import xlinalg
from xlinalg.transforms.bufferization.markers import (
    ACCESS_ATTR,
    BBARG_ALIASES_ATTR,
    EQUIVALENT_ARGS_ATTR,
    INPLACE_ATTR,
    RESULT_ALIASES_ATTR,
)

from support import needs_iree
from support.tensors import ANALYSIS_PAYLOAD
from support.transform import schedule, upstream_output

TESTED_OPS = ["transform.bufferization.one_shot_bufferize"]

ANY = "!transform.any_op"

# fill -> a generic overwrites the filled tensor -> the filled tensor is read again:
# the generic must write a copy (upstream and xlinalg blame the same three operands)
READ_AFTER_WRITE = """
func.func @raw(%a: tensor<8xf32>, %i: index) -> (tensor<8xf32>, f32) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.fill ins(%c : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = tensor.extract %0[%i] : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, f32
}
"""
# a tile loop writing a writable argument in place, another argument only read through
# slices, one never used, one returned as it is
BOUNDARIES = """
func.func @b(%a: tensor<8x16xf32>, %o: tensor<8x16xf32> {bufferization.writable = true}, %u: tensor<4xf32>, %r: tensor<4xf32>) -> (tensor<8x16xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %res = scf.for %i = %c0 to %c8 step %c4 iter_args(%acc = %o) -> (tensor<8x16xf32>) {
    %s = tensor.extract_slice %a[%i, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
    %d = tensor.extract_slice %acc[%i, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x16xf32>) outs(%d : tensor<4x16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %v = math.exp %x : f32
      linalg.yield %v : f32
    } -> tensor<4x16xf32>
    %ins = tensor.insert_slice %t into %acc[%i, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<8x16xf32>
    scf.yield %ins : tensor<8x16xf32>
  }
  return %res, %r : tensor<8x16xf32>, tensor<4xf32>
}
"""

# the accumulator is initialised with %f, which every iteration reads again: the loop
# must not write %f's buffer
LOOP = """
func.func @loop(%a: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %f) -> (tensor<8xf32>) {
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%f, %a : tensor<8xf32>, tensor<8xf32>) outs(%acc : tensor<8xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %o : f32
      %t = arith.addf %s, %y : f32
      linalg.yield %t : f32
    } -> tensor<8xf32>
    scf.yield %g : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""
# a slice written in place of a tensor read later: a copy is needed (upstream copies
# the slice, xlinalg the generic's output)
INSERT = """
func.func @ins(%a: tensor<8xf32>, %v: f32, %i: index, %j: index) -> (tensor<8xf32>, f32) {
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = tensor.extract_slice %f[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : tensor<4xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %x, %o : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %h = tensor.insert_slice %g into %f[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %x = tensor.extract %f[%j] : tensor<8xf32>
  return %h, %x : tensor<8xf32>, f32
}
"""

# a writable argument filled, then read as it was: the definition is a block argument
WRITABLE_ARG = """
func.func @w(%a: tensor<8xf32> {bufferization.writable = true}, %v: f32, %i: index) -> (tensor<8xf32>, f32) {
  %f = linalg.fill ins(%v : f32) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  %x = tensor.extract %a[%i] : tensor<8xf32>
  return %f, %x : tensor<8xf32>, f32
}
"""


def _analysis(options: str) -> str:
    return (
        f"    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries "
        f"= true, test_analysis_only = true{options}> : ({ANY}) -> {ANY}\n"
    )


def ours(payload: str, options: str = "") -> str:
    module = xlinalg.apply_schedule(payload, schedule(_analysis(options)))
    for op in list(module.walk()):  # drop the schedule, as iree's output is compared
        if op.name == "builtin.module" and "transform.with_named_sequence" in op.attributes:
            op.detach()
            op.erase(safe_erase=False)
    return str(module)


def theirs(payload: str, options: str, tmp_path) -> str:

    return upstream_output(payload, _analysis(options).replace("    ", ""), tmp_path)


# ------------------------------------------------------------------ reading the text back

_DEFINITION = re.compile(r'(?<!")(%[\w.$]+)(?=(?::\d+)? = |: )')


def _ordinals(text: str) -> dict[str, int]:
    """SSA name -> the position of its definition in the text (same in every printer)."""
    text = text.split("transform.with_named_sequence")[0]
    names: dict[str, int] = {}
    for name in _DEFINITION.findall(text):
        names.setdefault(name, len(names))
    return names


def _annotated_ops(text: str) -> list:
    module = xlinalg.parse(
        text.split("  module attributes {transform.with_named_sequence}")[0] + "}\n"
        if "transform.with_named_sequence" in text
        else text
    )
    return [op for op in module.walk() if op.name not in ("builtin.module",)]


def conflicts(text: str) -> list[tuple[str, str, str]]:
    """Per conflict id, (reading op, writing op, defining op) with their operand numbers."""
    found: dict[str, dict[str, str]] = {}
    for op in _annotated_ops(text):
        for key in op.attributes:
            if m := re.fullmatch(r"(C_\d+)\[(READ|CONFL-WRITE|DEF): (.*)\]", key):
                found.setdefault(m[1], {})[m[2]] = f"{op.name} {m[3]}"
    return sorted((c["READ"], c["CONFL-WRITE"], c["DEF"]) for c in found.values())


def blamed_writes(text: str) -> list[tuple[str, str]]:
    """Per conflict, (writing op, defining op): the part upstream reports
    deterministically (which of several later reads it names follows the order of a
    hash set of uses, so it varies between iree-opt runs)."""
    return sorted((write, definition) for _, write, definition in conflicts(text))


def alias_sets(text: str) -> dict[tuple[int, str], list]:
    """(op position, attribute) -> the alias sets as sets of definition positions."""
    names = _ordinals(text)

    def sets(attr) -> object:
        if all(hasattr(a, "data") and isinstance(a.data, str) for a in attr.data):
            return frozenset(names[a.data] for a in attr.data)
        return [sets(a) for a in attr.data]

    return {
        (position, key): sets(op.attributes[key])
        for position, op in enumerate(_annotated_ops(text))
        for key in (RESULT_ALIASES_ATTR, BBARG_ALIASES_ATTR)
        if key in op.attributes
    }


def boundaries(text: str) -> tuple[list[list[str]], list[list[int]]]:
    ops = _annotated_ops(text)
    access = [
        [a.data[ACCESS_ATTR].data for a in op.arg_attrs.data if ACCESS_ATTR in a.data]
        for op in ops
        if op.name == "func.func" and op.arg_attrs is not None
    ]
    equivalent = [
        [i.value.data for i in op.attributes[EQUIVALENT_ARGS_ATTR].data]
        for op in ops
        if EQUIVALENT_ARGS_ATTR in op.attributes
    ]
    return access, equivalent


# ------------------------------------------------------------------ tests


def test_print_conflicts_names_the_read_the_write_and_the_definition() -> None:
    text = ours(READ_AFTER_WRITE, ", print_conflicts = true")
    assert conflicts(text) == [("tensor.extract 0", "linalg.generic 1", "linalg.fill result 0")]
    generic = next(op for op in _annotated_ops(text) if op.name == "linalg.generic")
    assert [m.data for m in generic.attributes[INPLACE_ATTR].data] == ["true", "false"]


def test_every_copy_has_a_conflict_on_the_first_payload() -> None:
    """The payload of test_transform_bufferize_analysis: one copy, one conflict,
    blamed on the operand that is copied."""
    text = ours(ANALYSIS_PAYLOAD, ", print_conflicts = true")
    assert conflicts(text) == [("linalg.generic 1", "linalg.generic 1", "linalg.fill result 0")]
    (write,) = [op for op in _annotated_ops(text) if any("CONFL-WRITE" in k for k in op.attributes)]
    assert [m.data for m in write.attributes[INPLACE_ATTR].data] == ["true", "false"]


def test_a_block_argument_definition() -> None:
    text = ours(WRITABLE_ARG, ", print_conflicts = true")
    assert conflicts(text) == [("tensor.extract 0", "linalg.fill 1", "func.func bbArg 0")]
    assert boundaries(text) == ([["read"]], [])  # the fill writes a copy: only read


def test_dump_alias_sets() -> None:
    text = ours(ANALYSIS_PAYLOAD, ", dump_alias_sets = true")
    names = {v: k for k, v in _ordinals(text).items()}
    readable = {
        key: [sorted(names[i] for i in s) for s in sets] if key[1] == RESULT_ALIASES_ATTR else sets
        for key, sets in alias_sets(text).items()
    }
    # the fill writes the empty tensor's buffer, the second generic writes it again in
    # place, the first generic writes a copy (a buffer of its own)
    at = _ordinals(text)
    assert sorted(readable.values(), key=str) == sorted(
        [
            [["%0", "%2", "%e"]],  # tensor.empty
            [["%0", "%2", "%e"]],  # linalg.fill
            [["%1"]],
            [["%0", "%2", "%e"]],
            [[[frozenset({at["%a"]}), frozenset({at["%b"]})]]],  # the function's arguments
        ],
        key=str,
    ), readable


def test_loop_alias_sets_include_the_iteration_argument() -> None:
    text = ours(BOUNDARIES, ", dump_alias_sets = true")
    at = _ordinals(text)
    position = [op.name for op in _annotated_ops(text)].index("scf.for")
    (result_set,) = alias_sets(text)[(position, RESULT_ALIASES_ATTR)]
    [[[iteration_set]]] = alias_sets(text)[(position, BBARG_ALIASES_ATTR)]
    # one buffer, two sets as upstream: the loop's result aliases its init (the writable
    # argument); the iteration argument starts a set with the slice the generic writes
    # in place and the inserted tensor
    assert result_set == {at["%o"], at["%res"]}
    assert iteration_set == {at["%acc"], at["%d"], at["%t"], at["%ins"]}


def test_function_boundaries_access_and_equivalence() -> None:
    access, equivalent = boundaries(ours(BOUNDARIES))
    # %a read through a slice, %o read (insert_slice keeps the rest) and written in place,
    # %u unused, %r only returned (a return reads)
    assert access == [["read", "read-write", "none", "read"]]
    assert equivalent == [[1, 3]]
    access, equivalent = boundaries(ours(ANALYSIS_PAYLOAD))
    assert access == [["read", "none"]]
    assert equivalent == []  # no result is an argument


@needs_iree
@pytest.mark.parametrize(
    "payload",
    [READ_AFTER_WRITE, BOUNDARIES, ANALYSIS_PAYLOAD, LOOP, WRITABLE_ARG],
    ids=["raw", "tile-loop", "two-generics", "reduction-loop", "writable-arg"],
)
def test_same_markers_as_iree_opt(payload: str, tmp_path) -> None:
    """iree-opt's `bufferization.access`, `__equivalent_func_args__` and alias sets are
    ours; its conflicts (written and defining operands: blamed_writes) are ours where
    both analyses copy the same operand (all but ANALYSIS_PAYLOAD)."""
    options = ", print_conflicts = true, dump_alias_sets = true"
    mine, upstream = ours(payload, options), theirs(payload, options, tmp_path)
    assert boundaries(mine) == boundaries(upstream)
    assert alias_sets(mine) == alias_sets(upstream)
    if payload is not ANALYSIS_PAYLOAD:
        assert blamed_writes(mine) == blamed_writes(upstream)
    else:  # upstream decides bottom-up: it blames the later write, the same copy
        assert len(conflicts(mine)) == len(conflicts(upstream)) == 1


@needs_iree
def test_a_slice_written_in_place_same_conflicts_other_copy(tmp_path) -> None:
    """Where upstream copies another operand than we do, the conflicts it reports are still
    ours; the alias sets then differ exactly by that decision: upstream copies the
    `extract_slice` (the slice and the generic writing it form their own set), xlinalg
    keeps the slice a view of the filled tensor and copies the generic's output."""
    options = ", print_conflicts = true, dump_alias_sets = true"
    mine, upstream = ours(INSERT, options), theirs(INSERT, options, tmp_path)
    assert conflicts(mine) == [
        ("tensor.extract 0", "linalg.generic 1", "linalg.fill result 0"),
        ("tensor.extract 0", "tensor.insert_slice 1", "linalg.fill result 0"),
    ]
    assert blamed_writes(mine) == blamed_writes(upstream)
    # upstream names either later read of the filled tensor (varies between runs)
    reads = {read for read, _, _ in conflicts(upstream)}
    assert reads <= {"tensor.extract 0", "tensor.insert_slice 1"}
    assert boundaries(mine) == boundaries(upstream)
    at = _ordinals(mine)
    slice_set = next(
        sets[0]
        for (i, key), sets in alias_sets(mine).items()
        if key == RESULT_ALIASES_ATTR and at["%s"] in sets[0]
    )
    assert slice_set == {at["%e"], at["%f"], at["%s"]}
    theirs_slice = next(
        s for (i, k), sets in alias_sets(upstream).items() for s in sets if at["%s"] in s
    )
    assert theirs_slice == {at["%s"], at["%g"]}
