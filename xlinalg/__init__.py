"""xlinalg."""
