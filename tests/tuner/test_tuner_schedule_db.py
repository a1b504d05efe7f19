"""Schedule database: entries keyed by op signature and CPU, `run/opt --schedule-db`
lookup (and the report of untuned ops), nearest shapes for warm start."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

import xlinalg
from tuner.schedule_db import entry_path, host_cpu, lookup, nearest, op_signature, store
from tuner.space import load_space
from tuner.warm_start import warm_start
from xlinalg.cli import main

from support import PAYLOAD, SPACE, needs_pipeline

pytestmark = needs_pipeline


def _resolved(tile_m: int, reg_m: int) -> str:
    return xlinalg.resolve_knobs(SPACE, {"tile_m": tile_m, "reg_m": reg_m})


def _payload(m: int, n: int, dtype: str = "f32") -> str:
    return PAYLOAD.replace("16x16xf32", f"{m}x{n}x{dtype}").replace(": f32", f": {dtype}")


def test_signature_names_ops_shapes_and_dtypes() -> None:
    (op,) = op_signature(PAYLOAD)
    assert op.name == "linalg.generic"
    assert op.shapes == ((16, 16), (16, 16), (16, 16))
    assert op.dtypes == ("f32",) * 3
    assert "iterator_types" in op.extra
    assert "arith.mulf" in op.extra
    other = op_signature(
        PAYLOAD.replace(
            '"parallel", "parallel", "reduction"', '"parallel", "reduction", "parallel"'
        ).replace("(m, k)", "(m, n)")
    )[0]
    assert other.extra != op.extra  # another computation on the same shapes


def test_store_lookup_and_nearest(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    for (m, n), (tm, rm) in {(16, 16): (8, 2), (64, 64): (4, 1)}.items():
        store(
            db,
            _payload(m, n),
            _resolved(tm, rm),
            knobs={"tile_m": tm, "reg_m": rm},
            study=f"s{m}",
            storage="sqlite:///x.db",
            median_s=1e-6,
            gflops=2.0,
            cpu="cpuA",
        )
    found = lookup(db, _payload(16, 16), cpu="cpuA")
    assert found.schedule == entry_path(db, op_signature(_payload(16, 16)), "cpuA")
    assert found.untuned == []
    assert found.meta["study"] == "s16"
    assert lookup(db, _payload(16, 16), cpu="cpuB").schedule is None  # other CPU
    missing = lookup(db, _payload(32, 32), cpu="cpuA")
    assert missing.schedule is None
    memref = "memref<32x32xf32>"
    assert missing.untuned == [f"linalg.generic({memref}, {memref}, {memref})"]
    near = nearest(db, _payload(24, 24), cpu="cpuA")
    assert [e["study"] for e in near] == ["s16", "s64"]  # 24 is nearer 16 than 64 (log)
    assert [e["study"] for e in nearest(db, _payload(48, 48), cpu="cpuA")] == ["s64", "s16"]
    assert nearest(db, _payload(24, 24, "f64"), cpu="cpuA") == []  # other dtype


def test_warm_start_enqueues_nearest_knobs(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    store(
        db,
        _payload(16, 16),
        _resolved(8, 2),
        knobs={"tile_m": 8, "reg_m": 2},
        study="a",
        storage="",
        median_s=None,
        gflops=None,
        cpu=host_cpu(),
    )
    study = optuna.create_study()
    space = load_space(SPACE)
    assert warm_start(study, space, db, _payload(20, 20)) == [{"tile_m": 8, "reg_m": 2}]
    assert study.get_trials()[0].state == optuna.trial.TrialState.WAITING
    assert warm_start(study, space, db, _payload(20, 20)) == []  # not an empty study


def test_run_and_opt_pick_the_stored_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mm.mlir").write_text(PAYLOAD)
    (tmp_path / "mm32.mlir").write_text(_payload(32, 32))
    store(
        "results/schedules",
        PAYLOAD,
        _resolved(8, 2),
        knobs={"tile_m": 8, "reg_m": 2},
        study="mm",
        storage="",
        median_s=1e-6,
        gflops=3.0,
        cpu=host_cpu(),
    )
    assert main(["run", "mm.mlir", "--schedule-db", "--check", "--repeats", "3"]) == 0
    captured = capsys.readouterr()
    assert "schedule-db: using results/schedules/" in captured.err
    assert "check:   ok" in captured.out
    assert main(["opt", "mm.mlir", "--schedule-db", "results/schedules"]) == 0
    assert "scf.for" in capsys.readouterr().out  # tiled by the stored schedule
    assert main(["run", "mm32.mlir", "--schedule-db"]) == 0
    err = capsys.readouterr().err
    assert "no tuned schedule in results/schedules for these payload ops" in err
    assert "memref<32x32xf32>" in err
    assert main(["run", "mm.mlir", "--schedule-db", "nowhere"]) == 1
    assert "schedule database 'nowhere' does not exist" in capsys.readouterr().err
