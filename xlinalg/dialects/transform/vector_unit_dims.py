"""`transform.apply_patterns.vector.cast_away_vector_leading_one_dim` (current
upstream's pattern descriptor; here the contraction pattern of the set:
`xlinalg/transforms/vector/cast_away_unit_dim.py`)."""

from __future__ import annotations

from xdsl.ir import Dialect

from xlinalg.dialects.transform.vector_lowering_ops import _descriptor


def _cast_away(target) -> None:  # type: ignore[no-untyped-def]
    from xlinalg.transforms.vector.cast_away_unit_dim import cast_away_leading_one_dims

    cast_away_leading_one_dims(target)


CastAwayVectorLeadingOneDimPatternsOp = _descriptor(
    "transform.apply_patterns.vector.cast_away_vector_leading_one_dim", _cast_away,
    doc="leading unit dims of vector.contract → extract [0], lower-rank contract, broadcast back.",
)

TransformVectorUnitDims = Dialect("transform.vector_unit_dims", [CastAwayVectorLeadingOneDimPatternsOp])

__all__ = ["CastAwayVectorLeadingOneDimPatternsOp", "TransformVectorUnitDims"]
