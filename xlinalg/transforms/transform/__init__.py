"""xlinalg.transforms.transform."""
