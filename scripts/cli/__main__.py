"""Entry point: ``python -m scripts.cli``."""

from scripts.cli.app import main

if __name__ == "__main__":  # pragma: no cover
    main()
