"""Tests of the manifest publish rounds, one module per round."""
