"""Entry point: ``python -m mech_catalogue_cli``."""

from mech_catalogue_cli.app import main

if __name__ == "__main__":  # pragma: no cover
    main()
