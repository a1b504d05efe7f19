"""xlinalg/lowering."""
