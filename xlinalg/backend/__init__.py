"""xlinalg/backend."""
