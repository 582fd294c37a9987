"""The ``baba`` console script.

Importing the command line loads the compiled core and the whole package,
which takes a moment; a Ctrl-C then must end the program with one line,
like a Ctrl-C at any other time, not with a traceback. So the import
happens here, inside the handler, and ``babasolver/__init__`` imports
nothing until an attribute is asked for.
"""
import sys

EXIT_INTERRUPTED = 130


def main() -> int:
    try:
        from babasolver.cli import main as run
    except KeyboardInterrupt:
        print("baba: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return run()
