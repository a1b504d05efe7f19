"""Re-ranking: two candidates, one truly 3x faster; injected noise swaps their single
measurements (the slow one is recorded 10x faster than measured, the fast one 10x
slower). The paired, interleaved re-timing at the end picks the truly faster one and
stores it as the study's best, which export then uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuner import study as tuner_study
from tuner.export import best_schedule
from tuner.rerank import paired_ratios, rerank
from tuner.worker import NOISE_ENV, noise_for_trial

from support import matmul_payload, needs_pipeline

pytestmark = needs_pipeline

PAYLOAD = matmul_payload(64)

# tile_n = 64 keeps the n loop innermost and vectorizable; tile_n = 1 makes every
# innermost loop a single k-iteration chain: about 3x slower on x86
SPACE = """\
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tn = transform.tune.knob<"tile_n"> options = [1, 64] -> !transform.param<i64>
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [1, %tn, 1]
      : (!transform.any_op, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def test_noise_spec() -> None:
    assert noise_for_trial(0, "") == 1.0
    assert noise_for_trial(1, "0=10,1=0.1") == 0.1
    assert noise_for_trial(2, "0=10,1=0.1") == 1.0


def test_paired_ratios() -> None:
    # candidate 1 is slower in every round although its rounds overlap candidate 0's
    times = [[1.0, 2.0, 1.5], [1.2, 2.4, 1.8]]
    assert paired_ratios(times) == [1.0, pytest.approx(1.2)]


def test_rerank_picks_the_truly_faster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NOISE_ENV, "0=10,1=0.1")
    storage = f"sqlite:///{tmp_path}/r.db"
    study, space = tuner_study.setup(
        storage,
        "noisy",
        PAYLOAD,
        SPACE,
        "mm64.mlir",
        "tile_n.mlir",
        sampler="random",
        n_trials=2,
        timing={"max_total_s": 0.05},
    )
    study.enqueue_trial({"tile_n": 64})  # trial 0: truly fast, recorded 10x slower
    study.enqueue_trial({"tile_n": 1})  # trial 1: truly slow, recorded 10x faster
    tuner_study.run(study, space, tuner_study.StudyInfo.of(study), n_trials=2)
    assert tuner_study.fastest_trial(study).number == 1  # the noise fooled the single runs

    ranking = rerank(study, top_k=2, rounds=5, sample_s=0.03)
    assert ranking is not None
    assert ranking.trials == [1, 0]
    assert ranking.winner == 0
    assert ranking.ratios[1] < 0.7  # trial 0 takes well under 0.7x trial 1's time
    stored = tuner_study.load(storage, "noisy").user_attrs["best"]
    assert stored["trial"] == 0
    assert stored["method"] == "paired-interleaved"
    assert tuner_study.best_trial(study).number == 0
    assert 'transform.tune.knob<"tile_n"> = 64' in best_schedule(storage, "noisy")
