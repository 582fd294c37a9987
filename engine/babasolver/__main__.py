"""``python -m babasolver``: the same as the ``baba`` command."""

import sys

from babasolver.cli import main

if __name__ == "__main__":
    sys.exit(main())
