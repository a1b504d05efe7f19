"""Rewrites of affine ops: bound simplification, and lower-affine (affine → arith/scf)."""
