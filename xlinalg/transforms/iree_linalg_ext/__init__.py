"""xlinalg.transforms.iree_linalg_ext."""
