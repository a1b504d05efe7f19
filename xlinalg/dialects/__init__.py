"""xlinalg/dialects."""
