"""`transform.apply_patterns.vector.cast_away_vector_leading_one_dim` (current
upstream's pattern descriptor; here the contraction pattern of the set, applied by
`xlinalg/interpreter/ops/vector_unit_dims.py`)."""

from __future__ import annotations

from xdsl.ir import Dialect

from xlinalg.dialects.transform.vector_lowering_ops import vector_pattern_descriptor

CastAwayVectorLeadingOneDimPatternsOp = vector_pattern_descriptor(
    "transform.apply_patterns.vector.cast_away_vector_leading_one_dim",
    doc="leading unit dims of vector.contract → extract [0], lower-rank contract, broadcast back.",
)

TransformVectorUnitDims = Dialect("transform.vector_unit_dims", [CastAwayVectorLeadingOneDimPatternsOp])

__all__ = ["CastAwayVectorLeadingOneDimPatternsOp", "TransformVectorUnitDims"]
