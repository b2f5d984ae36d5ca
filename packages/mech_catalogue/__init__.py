"""Packages of the mech_catalogue author: tool metadata for Olas mechs."""
