"""Rewrites of memref allocations: multi-buffering."""
