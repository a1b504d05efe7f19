"""The `transform.vector.*` lowering ops of seed 002 and their current upstream spellings
as `transform.apply_patterns.vector.*` pattern descriptors.

```
%f2 = transform.vector.lower_multi_reduction %f lowering_strategy = "innerreduction"
        : (!transform.any_op) -> !transform.any_op
%f3 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true
        : (!transform.any_op) -> !transform.any_op
transform.apply_patterns to %f {
  transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = innerreduction
  transform.apply_patterns.vector.lower_transpose lowering_strategy = shuffle_1d
  transform.apply_patterns.vector.split_transfer_full_partial split_transfer_strategy = "linalg-copy"
  transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
} : !transform.any_op
```
Both forms run the same payload rewrite (`rewrite(target)`), from
`xlinalg/transforms/vector_lower_*.py` / `vector_transfer_*.py`. Options are
declared once per op (`OPTIONS`) and parsed in any order (upstream's
`oilist`); the seed form prints enum values quoted, the descriptor form bare
(quoted when they contain '-', e.g. `"linalg-copy"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, StringAttr, i1, i64
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.patterns import PatternDescriptorOp
from xlinalg.dialects.transform.vector_ops import FunctionalTransform


@dataclass(frozen=True)
class Option:
    """One `name = value` option: an enum (`choices`), an integer or a bool."""

    name: str
    kind: str  # "enum" | "int" | "bool"
    default: object
    choices: tuple[str, ...] = ()

    def parse(self, parser: Parser) -> Attribute:
        parser.parse_punctuation("=")
        if self.kind == "int":
            return IntegerAttr(parser.parse_integer(), i64)
        if self.kind == "bool":
            return BoolAttr.from_bool(parser.parse_boolean())
        text = parser.parse_optional_str_literal()
        if text is None:
            text = parser.parse_identifier()
        if text not in self.choices:
            parser.raise_error(
                f"unknown {self.name} '{text}', expected one of " + ", ".join(self.choices)
            )
        return StringAttr(text)

    def text(self, value: Attribute, quoted: bool) -> str:
        if isinstance(value, IntegerAttr) and value.type == i1:
            return "true" if value.value.data else "false"
        if isinstance(value, IntegerAttr):
            return str(value.value.data)
        assert isinstance(value, StringAttr)
        return f'"{value.data}"' if quoted or "-" in value.data else value.data

    def value(self, attr: Attribute | None) -> object:
        if attr is None:
            return self.default
        if isinstance(attr, IntegerAttr) and attr.type == i1:
            return bool(attr.value.data)
        if isinstance(attr, IntegerAttr):
            return attr.value.data
        assert isinstance(attr, StringAttr)
        return attr.data


_MULTI_REDUCTION = Option(
    "lowering_strategy", "enum", "innerparallel", ("innerparallel", "innerreduction")
)
_TRANSPOSE = Option(
    "lowering_strategy",
    "enum",
    "eltwise",
    ("eltwise", "flat_transpose", "shuffle_1d", "shuffle_16x16"),
)
_AVX2 = Option("avx2_lowering_strategy", "bool", False)
_MAX_RANK = Option("max_transfer_rank", "int", 1)
_FULL_UNROLL = Option("full_unroll", "bool", False)
_SPLIT = Option(
    "split_transfer_strategy",
    "enum",
    "vector-transfer",
    ("none", "vector-transfer", "linalg-copy", "force-in-bounds"),
)


class VectorRewriteOptions:
    """The options (`OPTIONS`) of one vector lowering op; the interpreter runs its payload
    rewrite with `option_values()` (`xlinalg/interpreter/ops/vector_lowering_ops.py`)."""

    OPTIONS: ClassVar[tuple[Option, ...]] = ()

    if TYPE_CHECKING:  # the subclasses are ops
        properties: dict[str, Attribute]

    @classmethod
    def parse_options(cls, parser: Parser) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {}
        by_name = {o.name: o for o in cls.OPTIONS}
        while True:
            name = next(
                (
                    n
                    for n in by_name
                    if n not in props and parser.parse_optional_keyword(n) is not None
                ),
                None,
            )
            if name is None:
                return props
            props[name] = by_name[name].parse(parser)

    def print_options(self, printer: Printer, quoted: bool) -> None:
        for option in self.OPTIONS:
            value = self.properties.get(option.name)
            if value is not None:
                printer.print_string(f" {option.name} = {option.text(value, quoted)}")

    def option_values(self) -> list[object]:
        return [o.value(self.properties.get(o.name)) for o in self.OPTIONS]

    def verify_options(self) -> None:
        for option in self.OPTIONS:
            value = option.value(self.properties.get(option.name))
            if option.kind == "enum" and value not in option.choices:
                raise VerifyException(f"{option.name} must be one of {', '.join(option.choices)}")
            # (max_transfer_rank is an int option)
            if option.kind == "int" and (
                not isinstance(value, int) or (option.name == "max_transfer_rank" and value < 1)
            ):
                raise VerifyException(f"{option.name} must be a positive integer")


class VectorPatternDescriptor(VectorRewriteOptions, PatternDescriptorOp):
    """`transform.apply_patterns.vector.<name> [options]` inside `transform.apply_patterns`."""

    assembly_format = None

    @classmethod
    def parse(cls, parser: Parser):
        props = cls.parse_options(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        self.print_options(printer, quoted=False)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        self.verify_options()


_CLASS_VARS = {"OPTIONS": "ClassVar[tuple[Option, ...]]"}


def vector_pattern_descriptor(
    name: str, *options: Option, doc: str
) -> type[VectorPatternDescriptor]:
    fields: dict[str, object] = {o.name: opt_prop_def(Attribute) for o in options}
    cls = type(
        name.split(".")[-1].title().replace("_", "") + "PatternsOp",
        (VectorPatternDescriptor,),
        {
            "name": name,
            "OPTIONS": options,
            "__doc__": doc,
            "__module__": __name__,
            "__annotations__": _CLASS_VARS,
            **fields,
        },
    )
    return irdl_op_definition(cls)


#: Current upstream's pattern descriptors for the vector lowerings.
VECTOR_PATTERN_DESCRIPTORS: list[type[VectorPatternDescriptor]] = [
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_multi_reduction",
        _MULTI_REDUCTION,
        doc="vector.multi_reduction → reductions / combines.",
    ),
    # Current upstream splits lower_multi_reduction into these three stages.
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.reorder_multi_reduction_dims",
        _MULTI_REDUCTION,
        doc="multi_reduction: reduced dims transposed innermost/outermost.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.multi_reduction_flattening",
        _MULTI_REDUCTION,
        doc="multi_reduction with grouped dims → 2-D (or 1-D).",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.multi_reduction_unrolling",
        _MULTI_REDUCTION,
        doc="2-D/1-D multi_reduction → vector.reduction per row / combines.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_transpose",
        _TRANSPOSE,
        _AVX2,
        doc="vector.transpose → element moves / shuffles.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_broadcast",
        doc="n-D vector.broadcast → 1-D broadcasts + inserts.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_shape_cast",
        doc="n-D vector.shape_cast → extracts + inserts.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_masks",
        doc="n-D create_mask/constant_mask → 1-D masks.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_masked_transfers",
        doc="vector.mask regions → masked transfers / reductions.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.lower_transfer",
        _MAX_RANK,
        doc="transfers → vector.load/store (rank ≤ max_transfer_rank).",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.transfer_to_scf",
        _MAX_RANK,
        _FULL_UNROLL,
        doc="n-D transfers → transfers of rank max_transfer_rank.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.split_transfer_full_partial",
        _SPLIT,
        doc="out-of-bounds transfers → in-bounds fast path + partial slow path.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.transfer_permutation_patterns",
        doc="transfer permutation maps → minor identity + transpose.",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.cast_away_vector_leading_one_dim",
        doc="leading unit dims of vector.contract → extract [0], lower-rank contract, broadcast back "
        "(here the contraction pattern of upstream's set).",
    ),
    vector_pattern_descriptor(
        "transform.apply_patterns.vector.rank_reducing_subview_patterns",
        doc="unit dims of transfers → rank-reducing subviews.",
    ),
]


def _seed(name: str, *options: Option, doc: str):
    """A seed-002 `transform.vector.<name> %target [options] : (T) -> T` op class."""

    class _Seed(VectorRewriteOptions, FunctionalTransform, ConsumesTarget):
        @classmethod
        def parse_extra(cls, parser: Parser) -> dict[str, Attribute]:
            return cls.parse_options(parser)

        def print_extra(self, printer: Printer) -> None:
            self.print_options(printer, quoted=True)

        def verify_(self) -> None:
            self.verify_options()

    fields: dict[str, object] = {o.name: opt_prop_def(Attribute) for o in options}
    cls = type(
        name.split(".")[-1].title().replace("_", "") + "Op",
        (_Seed,),
        {
            "name": name,
            "OPTIONS": options,
            "__doc__": doc,
            "__module__": __name__,
            "__annotations__": _CLASS_VARS,
            **fields,
        },
    )
    return irdl_op_definition(cls)


#: Seed 002's `transform.vector.*` ops (FunctionalStyle + TransformEach: the result is the
#: target, after the rewrite).
VECTOR_LOWERING_OPS = [
    _seed(
        "transform.vector.apply_rank_reducing_subview_patterns",
        doc="Unit dims of transfers → rank-reducing subviews (+ shape_cast folding).",
    ),
    _seed(
        "transform.vector.apply_transfer_permutation_patterns",
        doc="Transfer permutation maps → minor identity + vector.transpose.",
    ),
    _seed(
        "transform.vector.lower_broadcast",
        doc="n-D vector.broadcast → 1-D broadcasts + inserts (the seed's doc says "
        "'outerproduct': a copy-paste error).",
    ),
    _seed(
        "transform.vector.lower_mask",
        doc="vector.mask regions and n-D mask constructors → masked ops, 1-D masks.",
    ),
    _seed(
        "transform.vector.lower_multi_reduction",
        _MULTI_REDUCTION,
        doc="vector.multi_reduction → 1-D reductions or elementwise combines.",
    ),
    _seed("transform.vector.lower_shape_cast", doc="n-D vector.shape_cast → extracts + inserts."),
    _seed(
        "transform.vector.lower_transfer",
        _MAX_RANK,
        doc="Transfers of rank ≤ max_transfer_rank → vector.load/store.",
    ),
    _seed(
        "transform.vector.lower_transpose",
        _TRANSPOSE,
        _AVX2,
        doc="vector.transpose → element moves or shuffles.",
    ),
    _seed(
        "transform.vector.split_transfer_full_partial",
        _SPLIT,
        doc="Out-of-bounds transfers → in-bounds fast path + partial slow path.",
    ),
    _seed(
        "transform.vector.transfer_to_scf",
        _MAX_RANK,
        _FULL_UNROLL,
        doc="n-D transfers → transfers of rank max_transfer_rank (peeled).",
    ),
]

__all__ = ["VECTOR_LOWERING_OPS", "VECTOR_PATTERN_DESCRIPTORS", "Option", "VectorRewriteOptions"]
