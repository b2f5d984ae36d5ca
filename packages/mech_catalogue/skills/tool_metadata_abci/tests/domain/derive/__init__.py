"""Tests of domain/derive."""
