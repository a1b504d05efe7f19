"""`ConvertScfToCfPass` (xlinalg/lowering/scf_to_cf.py): xDSL's scf-to-cf patterns applied
in one pre-order walk instead of the greedy pattern walker give the same cf-level IR, op for
op and block for block, on the tuned templates' kernels and on nested for/if/index_switch/
while; kernels lowered through it compute what NumPy computes."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

import xlinalg
from xlinalg.dialects.context import make_context
from xlinalg.lowering.forall_to_threads import ConvertForallToThreadsPass
from xlinalg.lowering.pipeline import lower_to_scf
from xlinalg.lowering.scf_to_cf import ConvertScfToCfPass
from xlinalg.lowering.scf_while_to_cf import ConvertScfWhileToCfPass
from xlinalg.warmup import _template_cases

NESTED = """
func.func @f(%x: memref<10xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c10 step %c1 {
    %v = memref.load %x[%i] : memref<10xf32>
    %small = arith.cmpi slt, %i, %c5 : index
    %w = scf.if %small -> (f32) {
      %a = arith.addf %v, %one : f32
      scf.yield %a : f32
    } else {
      %s = scf.index_switch %k -> f32
      case 1 {
        %m = arith.mulf %v, %two : f32
        scf.yield %m : f32
      }
      default {
        scf.yield %v : f32
      }
      scf.yield %s : f32
    }
    memref.store %w, %x[%i] : memref<10xf32>
  }
  %n = scf.while (%j = %c0) : (index) -> index {
    %go = arith.cmpi slt, %j, %c10 : index
    scf.condition(%go) %j : index
  } do {
  ^bb0(%j2: index):
    %u = memref.load %x[%j2] : memref<10xf32>
    %u2 = arith.addf %u, %u : f32
    memref.store %u2, %x[%j2] : memref<10xf32>
    %next = arith.addi %j2, %c1 : index
    scf.yield %next : index
  }
  // dead: a loop without results or effects is erased, not lowered (as the walker does)
  scf.for %d = %c0 to %c10 step %c1 {
    %unused = arith.addi %d, %c1 : index
  }
  return
}
"""


def _scf_level(payload: str, schedule: str | None = None, knobs: dict | None = None) -> ModuleOp:
    module = xlinalg.parse(payload)
    if schedule is not None:
        module = xlinalg.apply_schedule(module, schedule, knobs)
    lower_to_scf(module)
    ConvertForallToThreadsPass().apply(make_context(), module)
    return module


def _both_ways(module: ModuleOp) -> tuple[str, str]:
    """The module lowered by the greedy walker (xDSL's pass) and by ConvertScfToCfPass."""
    ctx = make_context()
    walker, direct = module.clone(), module.clone()
    ConvertScfWhileToCfPass().apply(ctx, walker)
    ConvertScfToCf().apply(ctx, walker)
    ConvertScfToCfPass().apply(ctx, direct)
    return str(walker), str(direct)


def _first_options(schedule: str) -> dict:
    return {knob.name: knob.options[0] for knob in xlinalg.list_knobs(schedule)}


@pytest.mark.parametrize("index", range(len(_template_cases())))
def test_same_cf_ir_as_the_greedy_walker_on_templates(index: int) -> None:
    schedule, payload = _template_cases()[index]
    walker, direct = _both_ways(_scf_level(payload, schedule, _first_options(schedule)))
    assert "scf." not in direct
    assert "cf.cond_br" in direct
    assert direct == walker


def test_same_cf_ir_on_nested_for_if_switch_while() -> None:
    module = xlinalg.parse(
        NESTED
    )  # already at the scf level (the pipeline's DCE would drop the dead loop)
    assert str(module).count("scf.for") == 2
    walker, direct = _both_ways(module)
    assert "cf.switch" in direct
    assert "scf." not in direct
    assert direct.count("cf.cond_br") == 3  # for, if, while: the dead loop is gone
    assert direct == walker


@pytest.mark.parametrize("k", [0, 1])
def test_nested_control_flow_computes_the_reference(k: int) -> None:
    kernel = xlinalg.compile(NESTED)
    x = np.arange(10, dtype=np.float32)
    kernel(x, k)
    expected = np.arange(10, dtype=np.float32)
    expected[:5] += 1
    expected[5:] *= 2 if k == 1 else 1
    np.testing.assert_array_equal(x, 2 * expected)
