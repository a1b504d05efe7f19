"""Definitions only: our Linalg, IREE LinalgExt and Transform dialects, and the fixes to
xDSL's dialects (arith, memref, scf, tensor, vector, gpu, bufferization); `context` loads
them all.
"""
