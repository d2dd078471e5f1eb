"""Proof objects (certificates) and their checkers.

Checkers import the rules (game, geometry, position) and never the search code.
"""
