"""The schedule database: the best schedule of each study, keyed by op signature and CPU.

Layout (`results/schedules/` by default):

    results/schedules/<cpu>/<ops>-<hash>.mlir   the schedule, every knob resolved
    results/schedules/<cpu>/<ops>-<hash>.json   signature, knob values, speed, study

The op signature of a payload lists its Linalg (and `iree_linalg_ext`) ops in order: op name, operand
types (shapes, dtypes) and, for ops whose meaning depends on attributes
(`linalg.generic` maps, iterator types, ...), those attributes and the body's op
names. `<cpu>` is LLVM's name for the host CPU (`znver4`): a schedule tuned on one
CPU is not picked on another.

* `store(...)`  -- called by `xlinalg tune` at the end of every study;
* `lookup(payload)` -- the stored schedule for exactly this payload's signature (or
  None) plus the payload's ops that have no tuned schedule (`xlinalg run/opt
  --schedule-db`);
* `nearest(payload, k)` -- entries with the same ops and dtypes but other shapes,
  nearest first (log-shape distance), for warm-starting a new study.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xlinalg
from tuner.errors import TunerError

DEFAULT_DB = os.path.join("results", "schedules")
_SKIP = ("linalg.yield", "linalg.index", "iree_linalg_ext.yield")


@dataclass(frozen=True)
class OpSignature:
    """One Linalg op of a payload: name, operand types, shape-free extra key."""

    name: str
    types: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    extra: str

    def text(self) -> str:
        return f"{self.name}({', '.join(self.types)})"


def _shape_dtype(type_: Any) -> tuple[tuple[int, ...], str]:
    if callable(getattr(type_, "get_shape", None)) and callable(
        getattr(type_, "get_element_type", None)
    ):
        return tuple(int(d) for d in type_.get_shape()), str(type_.get_element_type())
    return (), str(type_)


def op_signature(payload: str | Path) -> list[OpSignature]:
    """The Linalg ops of a payload (text or file), in program order."""
    module = xlinalg.parse(payload, "payload")
    ops: list[OpSignature] = []
    for op in module.walk():
        if not op.name.startswith(("linalg.", "iree_linalg_ext.")) or op.name in _SKIP:
            continue
        types = tuple(str(operand.type) for operand in op.operands)
        pairs = [_shape_dtype(operand.type) for operand in op.operands]
        attrs = sorted(
            f"{k}={v}"
            for k, v in [*op.attributes.items(), *op.properties.items()]
            if k not in ("operandSegmentSizes", "operand_segment_sizes")
        )
        body = [
            inner.name for region in op.regions for block in region.blocks for inner in block.ops
        ]
        ops.append(
            OpSignature(
                op.name,
                types,
                tuple(p[0] for p in pairs),
                tuple(p[1] for p in pairs),
                ";".join(attrs + body),
            )
        )
    return ops


def host_cpu() -> str:
    info = xlinalg.host_info()
    return str(info.get("llvm_cpu") or info.get("cpu_model") or "unknown-cpu")


def _key(ops: list[OpSignature], shapes: bool = True) -> str:
    parts = [f"{o.name}|{'|'.join(o.types if shapes else o.dtypes)}|{o.extra}" for o in ops]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def entry_path(db: str, ops: list[OpSignature], cpu: str) -> Path:
    names = (
        "+".join(o.name.removeprefix("linalg.").replace("iree_linalg_ext.", "ext.") for o in ops)[
            :60
        ]
        or "empty"
    )
    return Path(db) / _safe(cpu) / f"{_safe(names)}-{_key(ops)}.mlir"


def store(
    db: str,
    payload: str,
    schedule_text: str,
    *,
    knobs: dict[str, Any],
    study: str,
    storage: str,
    median_s: float | None,
    gflops: float | None,
    cpu: str | None = None,
) -> Path:
    """Write (replace) the entry for this payload's signature on `cpu` (default: here)."""
    ops = op_signature(payload)
    cpu = cpu or host_cpu()
    path = entry_path(db, ops, cpu)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        schedule_text if schedule_text.endswith("\n") else schedule_text + "\n", encoding="utf-8"
    )
    meta = {
        "signature": [o.text() for o in ops],
        "ops": [o.name for o in ops],
        "shapes": [[list(s) for s in o.shapes] for o in ops],
        "dtype_key": _key(ops, shapes=False),
        "cpu": cpu,
        "knobs": knobs,
        "study": study,
        "storage": storage,
        "median_s": median_s,
        "gflops": gflops,
    }
    path.with_suffix(".json").write_text(
        json.dumps(meta, indent=1, default=repr) + "\n", encoding="utf-8"
    )
    return path


@dataclass(frozen=True)
class Lookup:
    """A lookup's answer: the schedule file (or None) and the payload ops it leaves untuned."""

    schedule: Path | None
    untuned: list[str]
    meta: dict[str, Any]


def lookup(db: str, payload: str | Path, cpu: str | None = None) -> Lookup:
    ops = op_signature(payload)
    if not os.path.isdir(db):
        raise TunerError(f"schedule database '{db}' does not exist (xlinalg tune fills it)")
    path = entry_path(db, ops, cpu or host_cpu())
    if path.exists():
        meta = (
            json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            if path.with_suffix(".json").exists()
            else {}
        )
        return Lookup(path, [], meta)
    return Lookup(None, [o.text() for o in ops], {})


def _entries(db: str, cpu: str) -> list[dict[str, Any]]:
    folder = Path(db) / _safe(cpu)
    entries = []
    for meta_path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        meta["path"] = str(meta_path.with_suffix(".mlir"))
        entries.append(meta)
    return entries


def _distance(a: list[list[list[int]]], b: list[list[list[int]]]) -> float:
    """Sum of |log x - log y| over every dimension of every operand of every op (shapes
    as op -> operand -> dims); infinite when the ranks differ."""
    ranks = [[len(operand) for operand in op] for op in a]
    if ranks != [[len(operand) for operand in op] for op in b]:
        return math.inf
    return sum(
        abs(math.log(max(x, 1)) - math.log(max(y, 1)))
        for op_a, op_b in zip(a, b)
        for sa, sb in zip(op_a, op_b)
        for x, y in zip(sa, sb)
    )


def nearest(
    db: str, payload: str | Path, k: int = 3, cpu: str | None = None
) -> list[dict[str, Any]]:
    """Entries for the same ops and dtypes (other shapes allowed), nearest shapes first."""
    ops = op_signature(payload)
    shapes = [[list(s) for s in o.shapes] for o in ops]
    same = [
        e for e in _entries(db, cpu or host_cpu()) if e.get("dtype_key") == _key(ops, shapes=False)
    ]
    ranked = sorted(
        (
            (d, e["path"], e)
            for e in same
            if (d := _distance(shapes, e.get("shapes", []))) < math.inf
        ),
        key=lambda item: (item[0], item[1]),
    )
    return [entry for _, _, entry in ranked[:k]]
