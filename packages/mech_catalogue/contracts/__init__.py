"""Contract packages of the mech_catalogue author (only calls third-party packages lack)."""
