"""Upstream's repeated-consumption check (`checkRepeatedConsumptionInOperand`, run by the
interpreter for every op under expensive checks): a consumed handle pointing to the same
payload op (or value) twice is a silenceable failure of the consuming op, reported before
the op touches the payload; ops that allow repeated handle operands are exempt. Each case
is checked against iree-opt on the same schedule."""

from __future__ import annotations

import pytest

from xlinalg.errors import TransformFailure
from xlinalg.interpreter import apply_schedule, parse_module

from support import needs_iree, run_iree_opt

PAYLOAD = """func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  func.return %0 : tensor<16x16xf32>
}
"""

MATCH = (
    '      %op = transform.structured.match ops{["linalg.matmul"]} in %r'
    " : (!transform.any_op) -> !transform.any_op\n"
)
TWICE = "      %m = transform.merge_handles %op, %op : !transform.any_op\n"
FUNC_TWICE = (
    '      %fn = transform.structured.match ops{["func.func"]} in %r'
    " : (!transform.any_op) -> !transform.any_op\n"
    "      %m = transform.merge_handles %fn, %fn : !transform.any_op\n"
)
ANY = "!transform.any_op"

CONSUMING = {
    "tile_using_for": "%t, %l = transform.structured.tile_using_for %m tile_sizes [4]"
    f" : ({ANY}) -> ({ANY}, {ANY})",
    "tile_using_forall": "%t, %l = transform.structured.tile_using_forall %m tile_sizes [4]"
    f" : ({ANY}) -> ({ANY}, {ANY})",
    "generalize": f"%t = transform.structured.generalize %m : ({ANY}) -> {ANY}",
    "interchange": "%t = transform.structured.interchange %m iterator_interchange = [1, 0, 2]"
    f" : ({ANY}) -> {ANY}",
    "vectorize": f"transform.structured.vectorize %m : {ANY}",
    "decompose": f"%t = transform.structured.decompose %m : ({ANY}) -> {ANY}",
    "pad": "%t, %p, %c = transform.structured.pad %m <padding_values = [0.0 : f32, 0.0 : f32,"
    f" 0.0 : f32], padding_dimensions = [0, 1, 2]> : ({ANY}) -> ({ANY}, {ANY}, {ANY})",
    "split_reduction": "%i, %f, %s, %c = transform.structured.split_reduction %m"
    f" <split_factor = 4> : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})",
    "pack": f"%t = transform.structured.pack %m packed_sizes = [2, 2, 2] : ({ANY}) -> {ANY}",
    "foreach": f"transform.foreach %m : {ANY} {{\n      ^bb1(%x: {ANY}):\n"
    f"        %g = transform.structured.generalize %x : ({ANY}) -> {ANY}\n      }}",
    "include": f"transform.include @consume failures(propagate) (%m) : ({ANY}) -> ()",
}

CALLEES = f"""  transform.named_sequence @consume(%x: {ANY} {{transform.consumed}}) {{
    %g = transform.structured.generalize %x : ({ANY}) -> {ANY}
    transform.yield
  }}
  transform.named_sequence @consume_value(%x: !transform.any_value {{transform.consumed}}) {{
    transform.yield
  }}
  transform.named_sequence @matcher(%x: {ANY} {{transform.readonly}}) -> {ANY} {{
    transform.yield %x : {ANY}
  }}
  transform.named_sequence @action(%x: {ANY} {{transform.readonly}}) {{
    transform.yield
  }}
"""

MESSAGE = (
    "a handle passed as operand #{} and consumed by this operation points to a payload "
    "entity more than once"
)


def schedule(body: str, mode: str = "propagate") -> str:
    return (
        "module attributes {transform.with_named_sequence} {\n"
        f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{\n"
        f"    transform.sequence %root : {ANY} failures({mode}) {{\n"
        f"    ^bb0(%r: {ANY}):\n{body}\n    }}\n    transform.yield\n  }}\n{CALLEES}}}\n"
    )


def run(body: str, mode: str = "propagate", *, expensive_checks: bool = True) -> str:
    payload = parse_module(PAYLOAD)
    apply_schedule(payload, parse_module(schedule(body, mode)), expensive_checks=expensive_checks)
    return str(payload)


@pytest.mark.parametrize("name", sorted(CONSUMING))
def test_repeated_target_is_a_silenceable_failure_before_the_op_runs(name: str) -> None:
    payload = parse_module(PAYLOAD)
    before = str(payload)
    sched = parse_module(schedule(MATCH + TWICE + "      " + CONSUMING[name]))
    with pytest.raises(TransformFailure) as info:
        apply_schedule(payload, sched)
    err = info.value
    assert err.silenceable
    assert MESSAGE.format(0) in err.message
    assert "(repeated target op: payload op 'linalg.matmul'" in err.message
    assert str(payload) == before  # reported before the op touched the payload


def test_suppressed_failure_leaves_the_payload_and_invalidates_the_handle() -> None:
    """Under failures(suppress) the schedule goes on with the payload untouched; the consumed
    handle (and every handle to its payload) is invalidated all the same, as upstream."""
    text = run(MATCH + TWICE + "      " + CONSUMING["generalize"], "suppress")
    assert text == str(parse_module(PAYLOAD))
    for handle in ("%m", "%op"):
        with pytest.raises(TransformFailure, match=f"uses {handle}, a handle that was") as info:
            run(
                MATCH
                + TWICE
                + "      "
                + CONSUMING["generalize"]
                + f'\n      transform.annotate {handle} "x" : {ANY}',
                "suppress",
            )
        assert not info.value.silenceable


def test_results_of_the_failed_op_are_empty() -> None:
    # upstream leaves them unset (iree-opt 3.13 crashes on a later use); we bind them empty
    text = run(
        MATCH
        + TWICE
        + "      "
        + CONSUMING["tile_using_for"]
        + f'\n      transform.annotate %t "tiled" : {ANY}',
        "suppress",
    )
    assert "tiled" not in text


def test_the_operand_number_is_the_consumed_operand() -> None:
    """pack_transpose consumes both operands: the repeated one is #1 here."""
    body = (
        MATCH
        + f"      %pk = transform.structured.pack %op packed_sizes = [2, 2, 2] : ({ANY}) -> {ANY}\n"
        + f"      %pp = transform.get_producer_of_operand %pk[0] : ({ANY}) -> {ANY}\n"
        + f"      %m = transform.merge_handles %pk, %pk : {ANY}\n"
        + "      %a, %b, %c = transform.structured.pack_transpose %pp with_compute_op(%m)"
        f" outer_perm = [1, 0] : ({ANY}, {ANY}) -> ({ANY}, {ANY}, {ANY})"
    )
    with pytest.raises(TransformFailure, match=MESSAGE.format(1)) as info:
        run(body)
    assert info.value.silenceable


EXEMPT = {
    # ops that allow repeated handle operands (upstream `allowsRepeatedHandleOperands`)
    "foreach_match": MATCH
    + TWICE
    + f"      %x = transform.foreach_match in %m @matcher -> @action : ({ANY}) -> {ANY}",
    "fuse_into_containing_op": MATCH
    + '      %fill = transform.structured.match ops{["linalg.fill"]} in %r'
    f" : ({ANY}) -> {ANY}\n"
    "      %t, %forall = transform.structured.tile_using_forall %op tile_sizes [4]"
    f" : ({ANY}) -> ({ANY}, {ANY})\n"
    f"      %m = transform.merge_handles %fill, %fill : {ANY}\n"
    "      %a, %b = transform.structured.fuse_into_containing_op %m into %forall"
    f" : ({ANY}, {ANY}) -> ({ANY}, {ANY})",
    # handle-only ops that consume as the spec says but upstream only reads
    "merge_handles": MATCH + TWICE + f"      %x = transform.merge_handles %m : {ANY}",
    "split_handle": MATCH
    + TWICE
    + f"      %x, %y = transform.split_handle %m : ({ANY}) -> ({ANY}, {ANY})",
    "cast": MATCH
    + TWICE
    + f'      %x = transform.cast %m : {ANY} to !transform.op<"linalg.matmul">',
}


@pytest.mark.parametrize("name", sorted(EXEMPT))
def test_ops_allowing_repeated_handles_are_not_checked(name: str) -> None:
    run(EXEMPT[name])


def test_a_value_handle_is_checked_too() -> None:
    """A consumed value handle listing a value twice (iree-opt: "repeated target value")."""
    value = "!transform.any_value"
    body = (
        MATCH + f"      %v = transform.get_result %op[0] : ({ANY}) -> {value}\n"
        f"      %vv = transform.merge_handles %v, %v : {value}\n"
        f"      transform.include @consume_value failures(propagate) (%vv) : ({value}) -> ()"
    )
    with pytest.raises(TransformFailure, match=MESSAGE.format(0)) as info:
        run(body)
    assert info.value.silenceable
    assert "(repeated target value: result #0 of payload op 'linalg.matmul'" in info.value.message


def test_params_are_not_checked() -> None:
    body = (
        "      %p = transform.param.constant 4 : i64 -> !transform.param<i64>\n"
        "      %pp = transform.merge_handles %p, %p : !transform.param<i64>\n"
        "      %m = transform.merge_handles %pp : !transform.param<i64>"
    )
    run(body)


def test_the_check_is_one_of_the_expensive_checks() -> None:
    """Like upstream, only with expensive checks: without them the pass runs on the
    function twice (harmless for canonicalize)."""
    body = (
        FUNC_TWICE
        + f'      %x = transform.apply_registered_pass "canonicalize" to %m : ({ANY}) -> {ANY}'
    )
    with pytest.raises(TransformFailure, match=MESSAGE.format(0)):
        run(body)
    assert "linalg.matmul" in run(body, expensive_checks=False)


@pytest.mark.slow
@needs_iree
def test_iree_opt_agrees() -> None:
    """One iree-opt run per failure mode over every case: each consuming op fails with the
    same message (and is silenced under suppress), each exempt op passes."""
    cases = [(MATCH + TWICE + "      " + b, True) for b in CONSUMING.values()]
    cases += [(b, False) for b in EXEMPT.values()]
    for mode in ("propagate", "suppress"):
        for body, should_fail in cases:
            done = run_iree_opt(PAYLOAD + schedule(body, mode), "--transform-interpreter")
            failed = MESSAGE.format(0) in done.stderr
            assert failed == (should_fail and mode == "propagate"), (body, done.stderr[:2000])
            assert done.returncode == int(should_fail and mode == "propagate"), done.stderr[:2000]
