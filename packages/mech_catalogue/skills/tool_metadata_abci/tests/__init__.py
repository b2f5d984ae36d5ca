"""Tests of the tool metadata skill."""
