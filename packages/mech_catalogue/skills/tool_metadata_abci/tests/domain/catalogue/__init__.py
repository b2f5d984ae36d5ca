"""Tests of domain/catalogue."""
