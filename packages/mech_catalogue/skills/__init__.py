"""Skills of the mech_catalogue author."""
