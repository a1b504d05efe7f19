"""xlinalg.transforms.affine."""
