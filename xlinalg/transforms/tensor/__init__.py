"""xlinalg.transforms.tensor."""
