"""xlinalg.transforms.linalg."""
