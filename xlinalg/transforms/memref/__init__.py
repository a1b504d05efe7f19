"""xlinalg.transforms.memref."""
