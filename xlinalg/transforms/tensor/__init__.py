"""Rewrites of tensor slices and pads: slice helpers, bubbling slices through reshapes,
hoisting pads and subset extract/insert pairs out of loops.
"""
