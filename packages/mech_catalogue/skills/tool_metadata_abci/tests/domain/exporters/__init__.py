"""Tests of domain/exporters."""
