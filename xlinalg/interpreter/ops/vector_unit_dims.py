"""`transform.apply_patterns.vector.cast_away_vector_leading_one_dim`: the contraction
pattern of upstream's set (`xlinalg/transforms/vector/cast_away_unit_dim.py`)."""

from __future__ import annotations

from xdsl.ir import Operation

from xlinalg.dialects.transform.vector_unit_dims import CastAwayVectorLeadingOneDimPatternsOp
from xlinalg.interpreter.registry import PatternSet, register_patterns
from xlinalg.transforms.vector.cast_away_unit_dim import cast_away_leading_one_dims


def _cast_away(descriptor: Operation, target: Operation) -> None:
    cast_away_leading_one_dims(target)


register_patterns(CastAwayVectorLeadingOneDimPatternsOp, PatternSet(rewrite=_cast_away))
