"""xlinalg/interfaces."""
