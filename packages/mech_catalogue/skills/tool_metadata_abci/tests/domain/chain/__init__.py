"""Tests of domain/chain."""
