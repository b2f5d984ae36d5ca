"""Tests of the tool metadata rounds, one module per round."""
