"""Final re-ranking: paired, interleaved timing of the top-K candidates.

A study's single measurements are taken minutes or hours apart, under whatever
else the machine was doing; one lucky (or unlucky) measurement can put the wrong
candidate first. At the end of a study the K best distinct configurations are
compiled together in ONE isolated child process and timed round-robin for several
rounds (the order rotates every round), so each round measures every candidate
under the same conditions. A candidate's time in a round is the fastest of its
samples there (`Timing.min_s`): on a machine shared with other jobs time slices
only ever add, and a median of a few samples still carries them. Candidate i's
score is the median over rounds of `t_i / t_0` (paired ratios against the first
candidate); the lowest score wins.

Measured at load 8-9 on 2 cores (three 256^3 encoded matmuls whose CPU time per
call is 2.00 / 0.67 / 0.58 ms): the paired ratios of per-round medians were
0.33-0.41 / 0.33-0.37 over three repetitions and once put the 0.67 ms candidate
first; those of per-round minima were 0.32-0.33 / 0.26-0.27, always in the CPU
time's order. (A study's single measurements disagreed by up to 3x there: the
encoding tune's "5.4 over 29.0 GFLOP/s" pick was such noise, not a ranking bug.)

The winner is stored as the study's user attr `best` (`{"trial": N, ...}`), which
`tuner.study.best_trial` -- and so `export`, `report` and the schedule database --
use from then on.
"""

from __future__ import annotations

import statistics
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import optuna

import xlinalg
from tuner.study import BEST_ATTR, StudyInfo, ok_trials, trial_time
from tuner.worker import measure

DEFAULT_TOP_K = 3
DEFAULT_ROUNDS = 7
SAMPLE_S = 0.05  # timing budget of one candidate in one round


@dataclass(frozen=True)
class RerankRequest:
    """What the re-ranking child needs (plain data)."""

    payload: str
    schedule: str
    candidates: list[dict[str, Any]]  # knob values, one dict per candidate
    entry: str | None = None
    seed: int = 0
    sizes: dict[str, int] | None = None
    rounds: int = DEFAULT_ROUNDS
    sample_s: float = SAMPLE_S
    timing: dict[str, float] = field(default_factory=dict)


def rerank_child(conn: Connection, request: dict[str, Any]) -> None:
    """Child process: compile every candidate, time them interleaved, send the times."""
    try:
        result = _time_interleaved(RerankRequest(**request))
    except BaseException as err:  # reported to the parent
        result = {
            "status": "error",
            "error": f"{type(err).__name__}: {err}",
            "traceback": traceback.format_exc(limit=8),
        }
    conn.send(result)
    conn.close()


def _time_interleaved(request: RerankRequest) -> dict[str, Any]:
    kernels = [
        xlinalg.compile(
            request.payload, schedule=request.schedule, entry=request.entry, knobs=dict(knobs)
        )
        for knobs in request.candidates
    ]
    inputs = [k.make_inputs(seed=request.seed, sizes=request.sizes) for k in kernels]
    for index, (kernel, arrays) in enumerate(zip(kernels, inputs)):
        check = kernel.check(*arrays)
        if not check.ok:
            return {"status": "wrong_result", "error": f"candidate {index}: {check.message}"}
    count = len(kernels)
    times: list[list[float]] = [[] for _ in kernels]
    options = {"max_total_s": request.sample_s, "min_repeats": 3, **request.timing}
    for round_ in range(request.rounds):
        for step in range(count):
            index = (round_ + step) % count  # rotate who goes first
            times[index].append(float(kernels[index].time(*inputs[index], **options).min_s))
    return {"status": "ok", "times": times}


@dataclass(frozen=True)
class Ranking:
    """Outcome of a re-ranking: trial numbers, per-round times, paired ratios, winner."""

    trials: list[int]
    times: list[list[float]]
    ratios: list[float]
    winner: int
    after_trial: int

    def as_attr(self) -> dict[str, Any]:
        return {
            "trial": self.winner,
            "after_trial": self.after_trial,
            "method": "paired-interleaved",  # per round: the fastest sample (module doc)
            "rounds": len(self.times[0]) if self.times else 0,
            "candidates": self.trials,
            "median_ratio": {str(n): r for n, r in zip(self.trials, self.ratios)},
            # median over rounds of each round's fastest sample
            "median_s": {str(n): statistics.median(t) for n, t in zip(self.trials, self.times)},
        }


def paired_ratios(times: list[list[float]]) -> list[float]:
    """Median over rounds of t_i / t_0 for every candidate i (1.0 for candidate 0)."""
    return [statistics.median(t / b for t, b in zip(row, times[0])) for row in times]


def top_candidates(study: optuna.Study, k: int) -> list[optuna.trial.FrozenTrial]:
    """The `k` fastest distinct configurations (by their single measurement)."""
    seen: set[str] = set()
    picked = []
    for trial in sorted(ok_trials(study), key=lambda t: (trial_time(t) or 0.0, t.number)):
        key = repr(sorted(trial.params.items()))
        if key in seen or "duplicate_of" in trial.user_attrs:
            continue
        seen.add(key)
        picked.append(trial)
        if len(picked) == k:
            break
    return picked


def rerank(
    study: optuna.Study,
    top_k: int = DEFAULT_TOP_K,
    rounds: int = DEFAULT_ROUNDS,
    sample_s: float = SAMPLE_S,
    time_limit_s: float = 600.0,
) -> Ranking | None:
    """Re-rank the top `top_k` candidates and store the winner as the study's `best`.
    None (nothing stored) with fewer than 2 candidates; a failing re-ranking child
    raises nothing either: the single measurements then stand (returns None)."""
    info = StudyInfo.of(study)
    trials = top_candidates(study, top_k)
    if len(trials) < 2:
        return None
    space = info.load_space()
    ordinal = info.sampler == "cmaes"
    request = RerankRequest(
        payload=info.payload,
        schedule=info.space,
        candidates=[space.values_from_params(t.params, ordinal) for t in trials],
        entry=info.entry,
        seed=info.seed or 0,
        sizes=info.sizes,
        rounds=rounds,
        sample_s=sample_s,
    )
    result = measure(request, time_limit_s, target=rerank_child)
    if result.get("status") != "ok":
        study.set_user_attr("rerank_error", f"{result.get('status')}: {result.get('error')}")
        return None
    times = result["times"]
    ratios = paired_ratios(times)
    best = min(range(len(trials)), key=lambda i: (ratios[i], i))
    last = max(t.number for t in ok_trials(study))
    ranking = Ranking([t.number for t in trials], times, ratios, trials[best].number, last)
    study.set_user_attr(BEST_ATTR, ranking.as_attr())
    return ranking
