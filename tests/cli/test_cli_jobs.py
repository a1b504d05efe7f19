"""Job files (many kernels, a global --timeout split between them), bad input (one clear
message, exit 1, nothing written) and Ctrl-C (the trial being measured is abandoned,
everything else saved, exit 130)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner.errors import TunerError
from tuner.jobs import parse_duration, split_budget
from xlinalg.cli import main

from support import PAYLOAD, SPACE, cli_command, cli_env, load_cli_study, needs_pipeline

JOB = """\
storage = "sqlite:///results/job.db"

[defaults]
space = "space.mlir"
trials = 2
sampler = "random"

[[kernel]]
payload = "mm.mlir"
study = "mm-fixed"
knobs = { tile_m = 8 }

[[kernel]]
payload = "mm32.mlir"
time = "10m"
trials = 2
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "mm.mlir").write_text(PAYLOAD)
    (tmp_path / "mm32.mlir").write_text(PAYLOAD.replace("16x16", "32x16"))
    (tmp_path / "space.mlir").write_text(SPACE)
    (tmp_path / "job.toml").write_text(JOB)
    return tmp_path


def test_durations_and_budget_split() -> None:
    assert parse_duration("8h") == 8 * 3600
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45s") == 45
    assert parse_duration("90") == 90
    assert parse_duration(2.5) == 2.5
    for bad in ("soon", "5x", "-3", "0"):
        with pytest.raises(TunerError, match="duration"):
            parse_duration(bad)
    assert split_budget(3600, 3, None) == 1200
    assert split_budget(3600, 3, 600) == 600  # the kernel's own limit is smaller
    assert split_budget(None, 3, 60) == 60
    assert split_budget(None, 2, None) is None


@pytest.mark.slow
@needs_pipeline
def test_job_file_tunes_every_kernel(work: Path) -> None:
    done = subprocess.run(
        cli_command(
            "tune", "job.toml", "--timeout", "10m", "--timing-budget", "0.02", "--rerank", "0"
        ),
        cwd=work,
        capture_output=True,
        text=True,
        timeout=180,
        env=cli_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "== kernel 1/2: mm-fixed (time budget 4m5" in done.stdout  # half of 10m
    assert "== kernel 2/2: mm32-space" in done.stdout
    storage = f"sqlite:///{work}/results/job.db"
    fixed = optuna.load_study(study_name="mm-fixed", storage=storage)
    assert len(fixed.trials) == 2
    assert all(t.params.keys() == {"reg_m"} for t in fixed.trials)  # tile_m is fixed
    assert all('"tile_m": 8' not in str(t.params) for t in fixed.trials)
    assert 'transform.tune.knob<"tile_m"> = 8' in (work / "results/mm-fixed.best.mlir").read_text()
    other = optuna.load_study(study_name="mm32-space", storage=storage)
    assert len(other.trials) == 2
    # warm start: the 32x16 study first measured the 16x16 study's best knobs
    assert "warm start: 1 schedule(s) of the nearest shapes enqueued first" in done.stdout
    assert other.trials[0].params == {"tile_m": 8, "reg_m": fixed.best_trial.params["reg_m"]}
    assert len(list((work / "results" / "schedules").rglob("*.mlir"))) == 2


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace('payload = "mm32.mlir"', 'payload = "missing.mlir"'),
            "payload file 'missing.mlir' does not exist",
        ),
        (lambda t: t.replace("tile_m = 8", "tile_m = 7"), "value 7 is not among its options"),
        (lambda t: t.replace("tile_m = 8", "tile_x = 8"), "unknown knob 'tile_x'"),
        (lambda t: t.replace('sampler = "random"', 'sampler = "magic"'), "unknown sampler 'magic'"),
        (lambda t: t.replace("[[kernel]]", "[[kernel]]\nspeed = 3", 1), "unknown key(s) speed"),
        (lambda t: t + "\n[[kernel\n", "invalid TOML"),
    ],
)
def test_bad_job_file_writes_nothing(
    work: Path,
    edit,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (work / "job.toml").write_text(edit(JOB))
    monkeypatch.chdir(work)
    assert main(["tune", "job.toml"]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert not (work / "results").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report", "--storage", "sqlite:///results/x.db", "--study", "s"], "does not exist"),
        (["worker", "--storage", "nonsense://", "--study", "s"], "cannot open storage"),
        (["worker", "--storage", "results/x.db", "--study", "s"], "is not a URL"),
        (["tune", "mm.mlir", "--space", "space.mlir", "--timeout", "soon"], "bad duration"),
        (
            ["tune", "mm.mlir", "--space", "space.mlir", "--storage", "mysql+nodriver://h/d"],
            "cannot open storage",
        ),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    work: Path,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(work)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1, err
    assert not (work / "results").exists()


@needs_pipeline
def test_unknown_study_names_the_known_ones(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(work)
    optuna.create_study(study_name="real", storage=f"sqlite:///{work}/s.db")
    before = (work / "s.db").read_bytes()
    assert main(["worker", "--storage", "sqlite:///s.db", "--study", "nope"]) == 1
    err = capsys.readouterr().err
    assert "no study named 'nope'" in err
    assert "real" in err
    assert (work / "s.db").read_bytes() == before


def _running(work: Path, number: int) -> bool:
    """Trial `number` of the tune run's study in `work` is RUNNING (False while the study or
    its database is not there yet or busy)."""
    try:
        trials = load_cli_study(work, "mm-space").get_trials(deepcopy=False)
    except Exception:  # not created yet, or the database is busy
        return False
    return len(trials) > number and trials[number].state == TrialState.RUNNING


@pytest.mark.slow
@needs_pipeline
def test_ctrl_c_abandons_the_running_trial_and_saves(work: Path) -> None:
    log = work / "log.txt"
    with log.open("w") as handle:
        proc = subprocess.Popen(
            cli_command(
                "tune",
                "mm.mlir",
                "--space",
                "space.mlir",
                "--trials",
                "4",
                "--sampler",
                "random",
                "--timing-budget",
                "0.02",
                "--time-limit",
                "100",
                "--rerank",
                "0",
            ),
            cwd=work,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=cli_env(XLINALG_TUNER_TEST_FAULT="hang@1"),
        )
        # Interrupt once trial 1 (the hang) is RUNNING: a fixed pause after trial 0's line
        # could end before a loaded machine starts trial 1 (no second trial to assert on).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not _running(work, 1):
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    text = log.read_text()
    assert proc.returncode == 130, text
    assert "interrupted: the trial being measured was abandoned" in text
    assert "Traceback" not in text
    assert (work / "results" / "mm-space.best.mlir").is_file()  # the best so far is saved
    study = optuna.load_study(study_name="mm-space", storage=f"sqlite:///{work}/results/xlinalg.db")
    first, second = study.get_trials()
    assert first.state == TrialState.COMPLETE
    assert second.state == TrialState.FAIL
    assert "status" not in second.user_attrs  # not counted
