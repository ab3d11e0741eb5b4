"""Sample applications written as an adopter would write them (guide §13)."""
