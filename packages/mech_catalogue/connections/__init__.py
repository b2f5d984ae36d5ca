"""Connections of the mech_catalogue author."""
