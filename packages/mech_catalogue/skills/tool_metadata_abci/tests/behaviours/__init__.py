"""Tests of the tool metadata behaviours, one module per behaviour."""
