"""Shortest solutions of Baba Is You levels under the Keke competition rules."""

__version__ = "0.1.0"
