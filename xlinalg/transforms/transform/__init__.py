"""Rewrites of transform scripts: listing and resolving knobs, folding constant params into
static sizes.
"""
