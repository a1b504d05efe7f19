"""The tensor matmul of upstream's transform-op-pad.mlir (24x12 * 12x25, tiles do not divide
it) and the schedule pieces the pad / hoist_pad tests build their schedules from."""

from __future__ import annotations

ANY = "!transform.any_op"
THREE = f"({ANY}) -> ({ANY}, {ANY}, {ANY})"
MATCH = (
    f'    %0 = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}\n'
)
VALUES = "padding_values=[0.0 : f32, 0.0 : f32, 0.0 : f32]"

MATMUL = """
func.func @f(%arg0: tensor<24x12xf32>, %arg1: tensor<12x25xf32>, %arg2: tensor<24x25xf32>) -> tensor<24x25xf32> {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<24x12xf32>, tensor<12x25xf32>) outs(%arg2 : tensor<24x25xf32>) -> tensor<24x25xf32>
  func.return %0 : tensor<24x25xf32>
}
"""
MATMUL_SHAPES = [(24, 12), (12, 25), (24, 25)]
