"""The IR-in/IR-out corpus: every `*.mlir` under `tests/filecheck/` is one test.

A file says how it is checked in its `// RUN:` lines, as llvm-lit runs upstream's tests
(`%s` is the file; a line ending in `\\` continues on the next `// RUN:` line):

    // RUN: xlinalg opt %s ARGS | filecheck %s [--check-prefix P]
    // RUN: xlinalg opt %s ARGS --verify-diagnostics
    // RUN: not xlinalg opt %s ARGS [2>&1 | filecheck %s ...]   (the command must fail)
    // XFAIL: why           (a known bug: the file must fail; passing is an error)

`xlinalg opt` runs in this process (its main function, with stdout and stderr captured:
a new interpreter per file would pay seconds of imports), `filecheck` (the PyPI port of
LLVM's FileCheck) as a child process reading that output. See README.md beside this file.
"""

from __future__ import annotations

import contextlib
import io
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from xlinalg.cli import main

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.rglob("*.mlir"))


@dataclass(frozen=True)
class Run:
    """One `// RUN:` line: `xlinalg opt` arguments, whether it must fail, the filecheck
    arguments after `|` (None: no filecheck) and whether stderr goes into the pipe."""

    opt_args: list[str]
    must_fail: bool
    filecheck_args: list[str] | None
    stderr_to_pipe: bool


def run_lines(path: Path) -> list[str]:
    """The commands of the `// RUN:` lines of `path` (continuations joined)."""
    commands: list[str] = []
    pending = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text.startswith("// RUN:"):
            continue
        text = text.removeprefix("// RUN:").strip()
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        commands.append(pending + text)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


def xfail_reason(path: Path) -> str | None:
    """The reason of the file's `// XFAIL:` line (a known bug), if it has one."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("// XFAIL:"):
            return line.strip().removeprefix("// XFAIL:").strip() or "known failure"
    return None


def parse_run(command: str, path: Path) -> Run:
    words = shlex.split(command.replace("%s", shlex.quote(str(path))))
    if "|" in words:
        bar = words.index("|")
        left, right = words[:bar], words[bar + 1 :]
        if not right or right[0] != "filecheck":
            pytest.fail(f"{path}: RUN: only `| filecheck ...` may follow the pipe: {command}")
        filecheck_args: list[str] | None = right[1:]
    else:
        left, filecheck_args = words, None
    must_fail = left[:1] == ["not"]
    left = left[1:] if must_fail else left
    stderr_to_pipe = "2>&1" in left
    left = [word for word in left if word != "2>&1"]
    if left[:2] != ["xlinalg", "opt"]:
        pytest.fail(f"{path}: RUN: expected `[not] xlinalg opt ...`, got: {command}")
    return Run(left[1:], must_fail, filecheck_args, stderr_to_pipe)


def run_opt(argv: list[str]) -> tuple[int, str, str]:
    """`xlinalg ARGV` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code if isinstance(exit_.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def check_run(run: Run, path: Path) -> None:
    code, out, err = run_opt(run.opt_args)
    shown = " ".join(["xlinalg", *run.opt_args])
    if run.must_fail and code == 0:
        pytest.fail(f"`{shown}` succeeded, the RUN line expects it to fail:\n{out}")
    if not run.must_fail and code != 0:
        pytest.fail(f"`{shown}` exited with {code}:\n{err}")
    if run.filecheck_args is None:
        return
    text = err + out if run.stderr_to_pipe else out
    checked = subprocess.run(
        [sys.executable, "-m", "filecheck", *run.filecheck_args],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if checked.returncode != 0:
        pytest.fail(
            f"filecheck {' '.join(run.filecheck_args)} failed on the output of `{shown}`:\n"
            f"{checked.stderr}{checked.stdout}",
            pytrace=False,
        )


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_filecheck(path: Path) -> None:
    commands = run_lines(path)
    if not commands:
        pytest.fail(f"{path.relative_to(HERE)} has no `// RUN:` line")
    reason = xfail_reason(path)
    try:
        for command in commands:
            check_run(parse_run(command, path), path)
    except pytest.fail.Exception:
        if reason is None:
            raise
        pytest.xfail(reason)
    if reason is not None:
        pytest.fail(f"passes although marked `// XFAIL: {reason}`: remove the XFAIL line")
