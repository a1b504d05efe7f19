"""Rewrites of scf loops: canonicalize, peel, unroll, coalesce, outline, software
pipelining, prefetch of the next iteration, and mapping foralls to GPU ids.
"""
