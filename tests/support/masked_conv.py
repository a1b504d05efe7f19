"""A kernel that exercises the register-block lowering on a masked edge: the 7x7 conv layer
of scripts/bench_conv.py at 64 channels with the stored 7x7x512 knobs (a 4x7x16 register
block, reg_c 8), so rows 4..6 of each 7-row output tile are a masked edge block."""

from __future__ import annotations

import xlinalg

from support import REPO

CONV = """func.func @conv(%I: memref<1x9x9x64xf32>, %F: memref<3x3x64x64xf32>, %O: memref<1x7x7x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%I, %F : memref<1x9x9x64xf32>, memref<3x3x64x64xf32>) outs(%O : memref<1x7x7x64xf32>)
  return
}
"""
CONV_KNOBS = {
    "reg_h": 4,
    "reg_w": 7,
    "reg_f": 16,
    "reg_c": 8,
    "cache_c": 64,
    "cache_order": 1,
    "pack_filter": 0,
    "pack_input": 1,
    "reg_order": 1,
}
SCHEDULE = REPO / "search_spaces" / "conv2d_nhwc_hwcf.mlir"


def compile_masked_conv() -> xlinalg.Kernel:
    return xlinalg.compile(CONV, schedule=SCHEDULE.read_text(), knobs=CONV_KNOBS)
