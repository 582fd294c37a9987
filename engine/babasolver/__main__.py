"""``python -m babasolver``: the same as the ``baba`` command."""

import sys

from babasolver._entry import main

if __name__ == "__main__":
    sys.exit(main())
