"""Command line: ``python -m codegen [--check] [--tiles PATH] [--out DIR]``.

Exit status: 0 done (or, with --check, everything up to date); 1 with
--check when a committed output is stale; 2 when tiles.json is invalid.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import DEFAULT_OUT, DEFAULT_TILES, OUTPUTS, TilesError, load_tiles, stale_files, write


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m codegen",
        description="Render tiles.json into " + ", ".join(OUTPUTS) + ".",
    )
    parser.add_argument("--tiles", default=str(DEFAULT_TILES), metavar="PATH",
                        help="tiles file to read (default: %(default)s)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), metavar="DIR",
                        help="directory to write into (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if an output is missing or differs")
    args = parser.parse_args(argv)

    try:
        tiles = load_tiles(args.tiles)
        if args.check:
            stale = stale_files(tiles, args.out)
            if stale:
                print(f"codegen: stale generated files in {args.out}: {', '.join(stale)}; "
                      "run: python -m codegen", file=sys.stderr)
                return 1
            return 0
        changed = write(tiles, args.out)
    except TilesError as err:
        print(f"codegen: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"codegen: cannot write: {err}", file=sys.stderr)
        return 2
    for path in changed:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
