"""Tests of the devnet and of the real contract behaviour the project depends on."""
