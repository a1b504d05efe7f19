"""Rewrites of linalg ops: generalize, interchange, decompose, pack/pad/promote, split
(reduction), img2col, vectorize, destination-passing style, and convert-linalg-to-loops.
"""
