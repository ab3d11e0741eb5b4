"""Sample applications written as an adopter would write them.

See docs/architecture.md "What you write".
"""
