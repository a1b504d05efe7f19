#!/usr/bin/env python3
"""Regenerate the coverage tables in README.md from the code (`xlinalg ops`, `xlinalg ops --transform`).

    python scripts/update_readme_coverage.py          # rewrite README.md
    python scripts/update_readme_coverage.py --check  # exit 1 if README.md is stale

The tables live between `<!-- coverage:NAME -->` and `<!-- /coverage:NAME -->` markers.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from pathlib import Path

from xlinalg.coverage.table import print_coverage
from xlinalg.coverage.transform import format_transform_coverage

README = Path(__file__).resolve().parent.parent / "README.md"


def tables() -> dict[str, str]:
    linalg = io.StringIO()
    print_coverage(file=linalg)
    return {
        "linalg": "```\n" + linalg.getvalue().rstrip() + "\n```",
        "transform": format_transform_coverage().rstrip(),
    }


def render(text: str) -> str:
    for name, body in tables().items():
        pattern = re.compile(
            rf"(<!-- coverage:{name} -->\n)(?:.*?\n)?(<!-- /coverage:{name} -->)", re.DOTALL
        )
        if not pattern.search(text):
            raise SystemExit(f"README.md has no <!-- coverage:{name} --> section")
        text = pattern.sub(lambda m, body=body: m.group(1) + body + "\n" + m.group(2), text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    current = README.read_text()
    fresh = render(current)
    if args.check:
        if fresh != current:
            print("README.md coverage tables are stale: run scripts/update_readme_coverage.py")
            return 1
        return 0
    README.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
