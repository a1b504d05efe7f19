"""The search space of a schedule template: its knobs as Optuna distributions.

Every `transform.tune.knob` / `transform.tune.alternatives` of the template that
has no `selected` value becomes one categorical parameter (named after the knob)
over the knob's options; knobs already selected in the template are fixed and
are not searched. Constraints declared in the template (see `tuner.constraints`)
travel with the space.

The tuner only talks to the compiler through the public API
(`xlinalg.list_knobs`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution

import xlinalg
from tuner.constraints import Constraint, check_names, first_violated, parse_constraints
from tuner.errors import TunerError

_PRIMITIVE = (type(None), bool, int, float, str)


@dataclass(frozen=True)
class KnobSpec:
    """One knob of a template (a plain copy of `xlinalg`'s `Knob`)."""

    name: str
    options: tuple[Any, ...]
    selected: Any = None
    kind: str = "knob"

    @property
    def fixed(self) -> bool:
        return self.selected is not None

    @property
    def choices(self) -> tuple[Any, ...]:
        """Optuna categorical choices: the options themselves when Optuna can store them,
        else their indices."""
        if all(isinstance(option, _PRIMITIVE) for option in self.options):
            return self.options
        return tuple(range(len(self.options)))

    def decode(self, choice: Any) -> Any:
        """Knob value for a stored categorical choice."""
        if self.choices is self.options:
            return choice
        return self.options[int(choice)]


@dataclass(frozen=True)
class SearchSpace:
    """The knobs and constraints of a template."""

    knobs: tuple[KnobSpec, ...]
    constraints: tuple[Constraint, ...] = field(default=())

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for knob in self.knobs:
            if knob.name in seen:
                raise TunerError(f"the template has two knobs named '{knob.name}'")
            seen.add(knob.name)
            if not knob.options:
                raise TunerError(f"knob '{knob.name}' has no options")
        check_names(self.constraints, seen)

    @property
    def free(self) -> tuple[KnobSpec, ...]:
        return tuple(knob for knob in self.knobs if not knob.fixed)

    @property
    def fixed_values(self) -> dict[str, Any]:
        return {knob.name: knob.selected for knob in self.knobs if knob.fixed}

    def size(self) -> int:
        """Number of distinct configurations (product of the free knobs' option counts)."""
        return math.prod(len(knob.options) for knob in self.free)

    def distributions(self, ordinal: bool = False) -> dict[str, BaseDistribution]:
        """Optuna distributions of the free knobs.

        `ordinal=True` gives integer distributions over option indices instead of
        categorical ones (for samplers such as CMA-ES that only model numbers).
        """
        if ordinal:
            return {k.name: IntDistribution(0, len(k.options) - 1) for k in self.free}
        return {k.name: CategoricalDistribution(k.choices) for k in self.free}

    def grid(self) -> dict[str, list[Any]]:
        """The exhaustive grid over the free knobs (for Optuna's GridSampler)."""
        return {knob.name: list(knob.choices) for knob in self.free}

    def suggest(self, trial: optuna.Trial, ordinal: bool = False) -> dict[str, Any]:
        """Ask `trial` for a value of every free knob; returns knob name -> knob value."""
        params: dict[str, Any] = {}
        for knob in self.free:
            if ordinal:
                params[knob.name] = trial.suggest_int(knob.name, 0, len(knob.options) - 1)
            else:
                params[knob.name] = trial.suggest_categorical(knob.name, knob.choices)
        return self.values_from_params(params, ordinal)

    def values_from_params(
        self, params: Mapping[str, Any], ordinal: bool = False
    ) -> dict[str, Any]:
        """Knob values of the free knobs from a trial's stored params."""
        values: dict[str, Any] = {}
        for knob in self.free:
            if knob.name not in params:
                raise TunerError(f"trial has no value for knob '{knob.name}'")
            param = params[knob.name]
            values[knob.name] = knob.options[int(param)] if ordinal else knob.decode(param)
        return values

    def all_values(self, free_values: Mapping[str, Any]) -> dict[str, Any]:
        """Free values plus the template's fixed ones (what constraints see)."""
        return {**self.fixed_values, **free_values}

    def violated(self, free_values: Mapping[str, Any]) -> Constraint | None:
        """The first constraint violated by these knob values, or None."""
        return first_violated(self.constraints, self.all_values(free_values))


def space_from_knobs(knobs: Sequence[Any], constraints: Sequence[Constraint] = ()) -> SearchSpace:
    """Build a space from `xlinalg.Knob`-like objects (name, options, selected, kind)."""
    specs = tuple(
        KnobSpec(
            name=str(knob.name),
            options=tuple(knob.options),
            selected=knob.selected,
            kind=str(getattr(knob, "kind", "knob")),
        )
        for knob in knobs
    )
    return SearchSpace(knobs=specs, constraints=tuple(constraints))


def load_space(template: str, path: str | None = None, name: str | None = None) -> SearchSpace:
    """The search space of a template text.

    `path` (the file the text came from) is what `xlinalg.list_knobs` reads when
    given, so error locations point into the file; `name` names the text in
    constraint error messages when there is no path.
    """

    knobs = xlinalg.list_knobs(Path(path) if path is not None else template)
    constraints = parse_constraints(template, path or name or "<space>")
    return space_from_knobs(knobs, constraints)
