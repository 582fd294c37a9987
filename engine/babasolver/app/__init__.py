"""The application layer: the use cases the command line (and any other
front end) calls. Nothing here prints; progress goes through callbacks.

- :mod:`.tasks`: load one level or a set into tasks, one loader;
- :mod:`.limits`: the limits of a search, read and checked once;
- :mod:`.solving`: solve one level, verify it, write its solution file;
- :mod:`.checking`: find and replay a solution, in the engine and the judge;
- :mod:`.running`: run many levels, here or in worker processes;
- :mod:`.report`: summarize a run, judge it, write its report and replays.
"""
