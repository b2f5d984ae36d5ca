"""Tests of the framework-free domain code."""
