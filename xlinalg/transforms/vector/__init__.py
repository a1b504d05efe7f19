"""Rewrites of vector ops: the vector lowerings (contraction, outer product, transfers,
masks, multi-reduction, transpose, broadcast, shape_cast), transfer splitting and
hoisting of redundant transfers.
"""
