"""xlinalg.transforms.tiling."""
