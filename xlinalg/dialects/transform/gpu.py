"""`transform.gpu.map_forall_to_blocks` and `transform.gpu.map_nested_forall_to_threads`.

Upstream syntax (current; printed) and the spec's (parsed too):

```
%l = transform.gpu.map_forall_to_blocks %f generate_gpu_launch grid_dims = [4, 8, 1]
    : (!transform.any_op) -> !transform.any_op
%l = transform.gpu.map_nested_forall_to_threads %launch block_dims = [12, 9, 1]
    sync_after_distribute = false warp_size = 32 : (!transform.any_op) -> !transform.any_op
%l = transform.gpu.map_forall_to_blocks %f { generate_gpu_launch }          // spec, no type
```
Both consume `target` and return the `gpu.launch` ops (semantics:
`xlinalg/transforms/scf/gpu_mapping.py`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, UnitAttr
from xdsl.dialects.transform import TransformHandleType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.bufferization import resolve_defined_operand
from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.printing import (
    PropKinds,
    parse_functional_or_plain_type,
    parse_struct_props,
    print_functional_type,
    print_struct_props,
)


class _GpuMappingOp(IRDLOperation):
    PROPS: ClassVar[PropKinds]

    target = operand_def(TransformHandleType)
    result = result_def(TransformHandleType)

    @classmethod
    def parse(cls, parser: Parser):
        name = parser.parse_unresolved_operand()
        props, attrs = parse_struct_props(parser, cls.PROPS)
        if parser.parse_optional_punctuation(":") is not None:
            inputs, outputs = parse_functional_or_plain_type(parser, 1, 1)
            target = parser.resolve_operand(name, inputs[0])
        else:  # the spec's form: no types, the result has the operand's type
            target = resolve_defined_operand(parser, name, cls.name)
            outputs = [target.type]
        return cls.create(
            operands=[target], result_types=outputs, properties=props, attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        print_struct_props(printer, self.PROPS, dict(self.properties), dict(self.attributes))
        printer.print_string(" : ")
        print_functional_type(printer, [self.target.type], [self.result.type])

    def ints(self, name: str) -> list[int]:
        value = self.properties.get(name)
        if not isinstance(value, ArrayAttr):
            return []
        return [v.value.data for v in value.data]

    def _verify_ints(self, name: str) -> None:
        value = self.properties.get(name)
        if value is not None and not (
            isinstance(value, ArrayAttr) and all(isinstance(v, IntegerAttr) for v in value.data)
        ):
            raise VerifyException(f"'{self.name}': {name} must be a list of integers")


@irdl_op_definition
class MapForallToBlocksOp(_GpuMappingOp, ConsumesTarget):
    name = "transform.gpu.map_forall_to_blocks"

    PROPS: ClassVar[PropKinds] = (("generate_gpu_launch", "unit"), ("grid_dims", "ints"))
    generate_gpu_launch = opt_prop_def(UnitAttr)
    grid_dims = opt_prop_def(ArrayAttr)

    def verify_(self) -> None:
        self._verify_ints("grid_dims")
        if len(self.ints("grid_dims")) not in (0, 3):
            raise VerifyException(f"'{self.name}' op transform requires empty or size-3 grid_dims")


@irdl_op_definition
class MapNestedForallToThreadsOp(_GpuMappingOp, ConsumesTarget):
    name = "transform.gpu.map_nested_forall_to_threads"

    PROPS: ClassVar[PropKinds] = (
        ("block_dims", "ints"),
        ("sync_after_distribute", "bool=true"),
        ("warp_size", "int=32"),
        ("warp_dims", "ints"),
    )
    block_dims = opt_prop_def(ArrayAttr)
    sync_after_distribute = opt_prop_def(IntegerAttr)
    warp_size = opt_prop_def(IntegerAttr)
    warp_dims = opt_prop_def(ArrayAttr)

    def verify_(self) -> None:
        self._verify_ints("block_dims")
        self._verify_ints("warp_dims")

    @property
    def warp_size_value(self) -> int:
        return 32 if self.warp_size is None else self.warp_size.value.data

    @property
    def sync(self) -> bool:
        value = self.sync_after_distribute
        return True if value is None else bool(value.value.data)


TransformGPU = Dialect("transform.gpu", [MapForallToBlocksOp, MapNestedForallToThreadsOp], [])

__all__ = ["MapForallToBlocksOp", "MapNestedForallToThreadsOp", "TransformGPU"]
