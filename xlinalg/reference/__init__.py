"""xlinalg/reference."""
