"""Kernels the thread tests share (`scf.forall` on the pool of `xlinalg/backend/thread_pool.py`):
a forall writing rows, two spinning parts, a forall inside a loop, a parallel matmul from
`search_spaces/matmul_parallel.mlir`, and how many parts the pool's workers ran."""

from __future__ import annotations

import os

import numpy as np
import pytest

import xlinalg
from xlinalg.backend.thread_pool import pool_worker_chunks

from support import REPO

# Each iteration i writes row i with i + 1 (and adds into it, so a row run twice shows).
ROWS = """
func.func @rows(%out: memref<{n}x16xf32>, %ub: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.forall (%i) = (0) to (%ub) step (1) {{
    %i64 = arith.index_cast %i : index to i64
    %f = arith.sitofp %i64 : i64 to f32
    %v = arith.addf %f, %one : f32
    scf.for %j = %c0 to %c16 step %c1 {{
      %old = memref.load %out[%i, %j] : memref<{n}x16xf32>
      %new = arith.addf %old, %v : f32
      memref.store %new, %out[%i, %j] : memref<{n}x16xf32>
    }}
  }}
  return
}}
"""


SPIN = """
func.func @spin(%out: memref<2xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.999999 : f32
  scf.forall (%i) in (2) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (f32) {
      %m = arith.mulf %acc, %half : f32
      %a = arith.addf %m, %one : f32
      scf.yield %a : f32
    }
    memref.store %r, %out[%i] : memref<2xf32>
  }
  return
}
"""


TWO_CPUS = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one usable CPU: one part")


def worker_parts_of_spin_calls(kernel: xlinalg.Kernel, tries: int = 5) -> list[int]:
    """The parts pool workers ran in each of up to `tries` calls of SPIN's two parts (~0.05-0.2
    s each), stopping at the first call where a worker ran any. The caller and the worker each
    take a part nobody has claimed yet, so on a loaded machine a call can run on the calling
    thread alone (the worker not scheduled within one part) or, the caller descheduled, both
    parts on the worker; a few calls tell that from a worker never running. Each call's
    result is checked."""
    parts: list[int] = []
    while len(parts) < tries and not any(parts):
        out = np.zeros(2, np.float32)
        chunks = pool_worker_chunks()
        kernel(out, 20_000_000)
        parts.append(pool_worker_chunks() - chunks)
        assert out[0] == out[1] != 0
    return parts


def parallel_matmul(m: int, n: int, k: int, threads: int, dim: int) -> xlinalg.Kernel:
    payload = f"""
func.func @matmul(%A: memref<{m}x{k}xf32>, %B: memref<{k}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<{m}x{n}xf32>)
  linalg.matmul ins(%A, %B : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%C : memref<{m}x{n}xf32>)
  return
}}
"""
    knobs = {
        "threads": threads,
        "parallel_dim": dim,
        "tile_m": 32,
        "tile_n": 64,
        "tile_k": 64,
        "reg_m": 4,
        "reg_n": 32,
        "reg_k": 2,
        "cache_order": 1,
        "unroll_k": 1,
        "peel": 0,
    }
    return xlinalg.compile(
        payload, schedule=REPO / "search_spaces" / "matmul_parallel.mlir", knobs=knobs
    )


IN_LOOP = """
func.func @in_loop(%out: memref<7x5xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %r = %c0 to %n step %c1 {
    scf.forall (%i, %j) in (7, 5) {
      %old = memref.load %out[%i, %j] : memref<7x5xf32>
      %i64 = arith.index_cast %i : index to i64
      %f = arith.sitofp %i64 : i64 to f32
      %a = arith.addf %old, %f : f32
      %b = arith.addf %a, %one : f32
      memref.store %b, %out[%i, %j] : memref<7x5xf32>
    }
  }
  return
}
"""
