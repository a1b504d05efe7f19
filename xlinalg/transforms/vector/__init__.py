"""xlinalg.transforms.vector."""
