"""Tiling and fusion (upstream's `TileUsingInterface`): `tile_using_for`, `tile_using_forall`,
reduction tiling, and fusing producers into tiled loops, for linalg ops on memrefs or
tensors and for `TilingInterface` ops.
"""
