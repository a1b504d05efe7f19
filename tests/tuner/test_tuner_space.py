"""Search space extraction (knobs -> Optuna distributions) and constraints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, IntDistribution

from tuner.constraints import parse_constraint, parse_constraints
from tuner.errors import ConstraintError, TunerError
from tuner.space import load_space, space_from_knobs

TEMPLATE = """\
// xlinalg.constraint: tile_m % reg_m == 0
//   xlinalg.constraint:  tile_m >= 2 * reg_m or unroll == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> options = [2, 4, 8] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [1, 4, 8] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> = 8 from options = [4, 8] -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%tm, %tn, 0]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.tune.alternatives<"unroll"> {
      transform.yield
    }, {
      transform.loop.unroll %l#1 {factor = 2} : !transform.any_op
      transform.yield
    }
    transform.yield
  }
}
"""


def test_space_from_template() -> None:
    space = load_space(TEMPLATE, name="t.mlir")
    assert [k.name for k in space.knobs] == ["tile_m", "reg_m", "tile_n", "unroll"]
    assert [k.name for k in space.free] == ["tile_m", "reg_m", "unroll"]
    assert space.fixed_values == {"tile_n": 8}
    assert space.size() == 3 * 3 * 2
    dists = space.distributions()
    assert dists["tile_m"] == CategoricalDistribution([2, 4, 8])
    assert dists["unroll"] == CategoricalDistribution([0, 1])
    assert "tile_n" not in dists
    assert space.distributions(ordinal=True)["reg_m"] == IntDistribution(0, 2)
    assert space.grid() == {"tile_m": [2, 4, 8], "reg_m": [1, 4, 8], "unroll": [0, 1]}
    assert [c.text for c in space.constraints] == [
        "tile_m % reg_m == 0",
        "tile_m >= 2 * reg_m or unroll == 0",
    ]
    assert space.constraints[0].location == "t.mlir:1:23"
    assert space.constraints[1].location == "t.mlir:2:25"


def test_suggest_through_optuna() -> None:
    space = load_space(TEMPLATE)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    seen = set()
    for _ in range(20):
        trial = study.ask()
        values = space.suggest(trial)
        assert set(values) == {"tile_m", "reg_m", "unroll"}
        assert values["tile_m"] in (2, 4, 8)
        assert values["reg_m"] in (1, 4, 8)
        assert space.values_from_params(trial.params) == values
        seen.add(tuple(values.values()))
        study.tell(trial, 1.0)
    assert len(seen) > 3
    trial = optuna.create_study().ask()
    values = space.suggest(trial, ordinal=True)
    assert trial.params["tile_m"] in (0, 1, 2)
    assert values["tile_m"] == (2, 4, 8)[trial.params["tile_m"]]


def test_violated_sees_fixed_knobs() -> None:
    space = load_space(TEMPLATE)
    assert space.violated({"tile_m": 8, "reg_m": 4, "unroll": 1}) is None
    assert space.violated({"tile_m": 2, "reg_m": 4, "unroll": 0}).text == "tile_m % reg_m == 0"
    bad = space.violated({"tile_m": 4, "reg_m": 4, "unroll": 1})
    assert bad is not None
    assert bad.text.startswith("tile_m >= 2 * reg_m")


@dataclass
class _Knob:
    name: str
    options: tuple[Any, ...]
    selected: Any = None
    kind: str = "knob"


def test_space_from_knob_objects() -> None:
    space = space_from_knobs([_Knob("a", (1, 2)), _Knob("v", ((1, 2), (3, 4)))])
    assert space.distributions()["v"] == CategoricalDistribution([0, 1])  # non-primitive: indices
    assert space.values_from_params({"a": 2, "v": 1}) == {"a": 2, "v": (3, 4)}
    with pytest.raises(TunerError, match="two knobs named 'a'"):
        space_from_knobs([_Knob("a", (1,)), _Knob("a", (2,))])
    with pytest.raises(ConstraintError, match="unknown knob"):
        space_from_knobs([_Knob("a", (1,))], parse_constraints("// xlinalg.constraint: b > 1"))


def test_constraint_evaluation() -> None:
    c = parse_constraint("min(a, b) * 2 <= max(a, b) and a in (1, 2, 4) and not b % 3 == 1")
    assert c.names == {"a", "b"}
    assert c.holds({"a": 2, "b": 8})
    assert not c.holds({"a": 2, "b": 3})
    assert not c.holds({"a": 3, "b": 8})
    assert not parse_constraint("a % b == 0").holds({"a": 4, "b": 0})  # ZeroDivision: violated
    assert parse_constraint("a if b else 0").holds({"a": 1, "b": True})


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "a.__class__",
        "(lambda: 1)()",
        "[x for x in (1, 2)]",
        "open('f')",
        "a[0]",
        "a = 1",
        "",
    ],
)
def test_constraint_rejects_unsafe_or_malformed(text: str) -> None:
    with pytest.raises(ConstraintError) as info:
        parse_constraint(text, "s.mlir:3:5")
    assert str(info.value).startswith("s.mlir:3:5: error:")


def test_constraint_lines_only_from_comments() -> None:
    text = 'x // xlinalg.constraint: a > 1\n// xlinalg.constraint: b > 1\n"// not"'
    assert [c.text for c in parse_constraints(text, "f")] == ["b > 1"]
