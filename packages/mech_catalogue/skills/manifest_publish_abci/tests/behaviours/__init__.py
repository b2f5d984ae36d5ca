"""Tests of the manifest publish behaviours, one module per behaviour."""
