"""Tests of domain/model."""
