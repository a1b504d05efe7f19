"""Rewrites of the payload, by the dialect they rewrite (`linalg/`, `tensor/`, `scf/`,
`affine/`, `memref/`, `vector/`, `bufferization/`, `iree_linalg_ext/`, `transform/` for the
schedules themselves) and the tiling and fusion drivers (`tiling/`): the functions the
transform ops call and the passes that run them over a module.
"""
