"""xlinalg.transforms.scf."""
