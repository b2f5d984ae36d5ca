"""Tests of domain/manifest."""
