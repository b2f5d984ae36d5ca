"""Tests of the manifest publish skill."""
