"""xlinalg/transforms."""
