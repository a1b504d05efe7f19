"""xlinalg/interpreter."""
