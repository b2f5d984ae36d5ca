"""AEA packages: ours under mech_catalogue/, third-party ones synced by scripts/sync_packages.py."""
