"""The ``baba`` console script.

Importing the command line loads the compiled core and the whole package,
which takes a moment; a Ctrl-C then must end the program with one line,
like a Ctrl-C at any other time, not with a traceback. So the import
happens here, inside the handler, and ``babasolver/__init__`` imports
nothing until an attribute is asked for. SIGTERM and SIGHUP stop the
program as a Ctrl-C does (babasolver.stopping).
"""
import sys

EXIT_INTERRUPTED = 130


def _say(message: str) -> None:
    try:
        print(f"baba: {message}", file=sys.stderr)
    except OSError:                     # SIGHUP: the terminal may be gone
        pass


def main() -> int:
    try:
        from babasolver import stopping
    except KeyboardInterrupt:
        _say("interrupted")
        return EXIT_INTERRUPTED
    try:
        stopping.install()
        from babasolver.cli import main as run
        status = run()
    except KeyboardInterrupt:           # outside the commands' own handling: while importing
        _say(stopping.message())
        status = EXIT_INTERRUPTED
    return stopping.exit_status(status)
