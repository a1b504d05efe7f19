"""End to end through the `xlinalg` command: tune -> report -> export -> run, and a second
worker joining the study. Tiny 16x16 kernels, few trials (resuming: test_cli_resume.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuner.study import budget_trials

from support import (
    load_cli_study,
    needs_pipeline,
    run_cli,
    run_main,
    write_tuner_files,
)

pytestmark = needs_pipeline


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return write_tuner_files(tmp_path)


@pytest.mark.slow
def test_tune_report_export_run(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tune = run_cli(
        work,
        "tune",
        "mm.mlir",
        "--space",
        "space.mlir",
        "--trials",
        "4",
        "--sampler",
        "random",
        "--seed",
        "0",
        "--timing-budget",
        "0.05",
    )
    assert tune.returncode == 0, tune.stderr
    out = tune.stdout
    assert "Traceback" not in tune.stderr
    assert sum(line.startswith("[") and "trial" in line for line in out.splitlines()) == 4
    assert "study:    mm-space" in out
    assert "storage:  sqlite:///results/xlinalg.db" in out
    assert "schedule: results/mm-space.best.mlir" in out
    assert "GFLOP/s" in out.split("best:", 1)[1]
    assert (work / "results" / "mm-space.best.mlir").is_file()

    monkeypatch.chdir(work)
    run_main(capsys, "report", "--study", "mm-space", "--csv", "t.csv", "--top", "2")
    lines = (work / "t.csv").read_text().splitlines()
    assert lines[0].startswith("number,tile_m,reg_m,status,median_s,gflops")
    assert len(lines) == 1 + 4
    assert lines[1].split(",")[3] == "ok"

    run_main(capsys, "export", "--study", "mm-space", "-o", "best.mlir")
    best = (work / "best.mlir").read_text()
    assert 'transform.tune.knob<"tile_m"> = ' in best
    assert "from options = [4, 8]" in best
    run_main(capsys, "export", "--study", "mm-space", "-o", "c.mlir", "--as-constants")
    assert "transform.tune" not in (work / "c.mlir").read_text()

    out = run_main(capsys, "run", "mm.mlir", "--schedule", "best.mlir", "--check", "--repeats", "3")
    assert "check:   ok" in out
    assert "GFLOP/s" in out
    assert "(3 repeats x" in out

    run_main(
        capsys,
        "worker",
        "--storage",
        "sqlite:///results/xlinalg.db",
        "--study",
        "mm-space",
        "--trials",
        "5",
    )
    assert len(budget_trials(load_cli_study(work, "mm-space"))) == 5
