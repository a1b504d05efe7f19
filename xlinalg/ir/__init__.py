"""xlinalg.ir."""
