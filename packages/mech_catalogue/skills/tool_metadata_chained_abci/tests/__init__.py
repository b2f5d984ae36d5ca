"""Tests of the chained tool metadata skill."""
