"""Rewrites of `iree_linalg_ext` ops: materializing encodings (data tiling)."""
