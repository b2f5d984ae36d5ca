"""Tests of domain/publish."""
