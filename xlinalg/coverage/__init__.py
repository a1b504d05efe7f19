"""xlinalg.coverage.table."""
