"""`scripts/bench_stats.py`: the one definition of `--stat`, `--timer` and the FMA peak
that every bench script uses."""

from __future__ import annotations

import pytest

from xlinalg.backend.timing import Timing

from support import REPO, load_script

bench_stats = load_script("bench_stats")


#: The bench scripts whose `--stat` is `bench_stats`'s (no definition of their own).
BENCHES = [
    "bench_matmul",
    "bench_mmt4d",
    "bench_conv",
    "bench_templates",
    "bench_encoding",
    "bench_elementwise_fusion",
    "bench_call_overhead",
    "bench_pool_wait",
]


def test_statistic() -> None:
    assert bench_stats.statistic("min")([3.0, 1.0, 2.0]) == 1.0
    assert bench_stats.statistic("median")([3.0, 1.0, 2.0]) == 2.0
    with pytest.raises(ValueError, match="--stat is one of"):
        bench_stats.statistic("mean")


def test_timing_seconds() -> None:
    timing = Timing(
        median_s=2.0, min_s=1.0, cv=0.1, repeats=3, inner_loops=1, samples=(1.0, 2.0, 3.0)
    )
    assert bench_stats.timing_seconds(timing, "min") == 1.0
    assert bench_stats.timing_seconds(timing, "median") == 2.0


def test_call_seconds_times_single_calls_after_a_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call is timed on its own (the clock read before and after it), the warm-up call
    is not; the round is the stat of the calls."""
    durations = iter([5_000, 1_000, 3_000])  # ns of the three timed calls
    # the calls start at 0, 1 ms, 2 ms; each ends its duration later
    starts = iter([0, 10**6, 2 * 10**6])
    state: dict[str, int] = {}

    def fake_clock() -> int:
        if "start" not in state:
            state["start"] = next(starts)
            return state["start"]
        return state.pop("start") + next(durations)

    calls = []
    monkeypatch.setitem(bench_stats.CLOCKS, "wall", fake_clock)
    assert bench_stats.call_seconds(lambda: calls.append(1), 3, "min") == pytest.approx(1e-6)
    assert len(calls) == 4  # warm-up + 3
    durations = iter([5_000, 1_000, 3_000])
    starts = iter([0, 10**6, 2 * 10**6])
    assert bench_stats.call_seconds(lambda: None, 3, "median") == pytest.approx(3e-6)


def test_interleaved_rounds() -> None:
    order: list[str] = []
    values = {"a": iter([3.0, 1.0, 2.0]), "b": iter([6.0, 5.0, 4.0])}

    def runner(key: str):
        def run() -> float:
            order.append(key)
            return next(values[key])

        return run

    result = bench_stats.interleaved({"a": runner("a"), "b": runner("b")}, 3, "min")
    assert result == {"a": 1.0, "b": 4.0}
    assert order == ["a", "b"] * 3


def test_peak_is_the_highest_measurement(monkeypatch: pytest.MonkeyPatch) -> None:
    measured = iter([90.0, 117.0, 100.0, 50.0])
    monkeypatch.setattr(bench_stats, "measure_fma_peak_gflops", lambda: next(measured))
    peak = bench_stats.Peak()
    assert peak.gflops == 117.0
    assert peak.measure() == 117.0  # a low measurement does not lower it
    assert "117.0 GFLOP/s" in str(peak)
    assert "highest of 4" in str(peak)


def test_real_peak_is_positive() -> None:
    assert bench_stats.Peak(measurements=1).gflops > 1.0


@pytest.mark.parametrize("script", BENCHES)
def test_benches_share_the_definitions(script: str) -> None:
    """No bench defines `--stat`, its clock (`--timer`) or the peak itself: they all take
    `bench_stats`'s."""
    text = (REPO / "scripts" / f"{script}.py").read_text()
    assert "add_arguments(parser" in text
    assert '"--stat", choices' not in text
    assert '"--timer"' not in text
    assert '"--clock"' not in text  # (bench_stats defines --timer)
    assert "measure_fma_peak_gflops" not in text
    assert "statistics.median(peaks" not in text
