"""Tests of domain/ipfs."""
