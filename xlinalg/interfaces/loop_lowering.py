"""Interfaces for ops that are not linalg structured ops but still lower to loops.

- `DecomposableOpInterface`: an aggregated op (e.g. `linalg.softmax`) that
  rewrites itself into simpler ops (linalg structured ops, arith, tensor ...);
  the lowering pipeline decomposes these first, and the transform op
  `transform.structured.decompose` uses the same method.
- `LoopLoweringInterface`: an op on memrefs (e.g. `linalg.pack`,
  `iree_linalg_ext.sort`) that replaces itself by `scf` loops with `memref`
  loads/stores and scalar `arith`/`math` ops; the lowering pipeline calls it
  after linalg structured ops are generalized.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from xdsl.ir import Operation
from xdsl.rewriter import Rewriter


class DecomposableOpInterface(ABC):
    @abstractmethod
    def decompose(self, rewriter: Rewriter) -> list[Operation]:
        """Replace this op by an equivalent sequence of simpler ops; return the new ops."""


class LoopLoweringInterface(ABC):
    @abstractmethod
    def lower_to_loops(self, rewriter: Rewriter) -> None:
        """Replace this (memref-semantics) op by scf loops, memref loads/stores and scalar ops."""
