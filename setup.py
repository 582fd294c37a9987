"""Lists the Cython extensions; everything else is declared in pyproject.toml.

Compiler directives live here and only here. Set BABA_DEBUG=1 at build time
to turn bounds checking and wraparound back on.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("BABA_DEBUG", "") not in ("", "0")

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": True,
    "initializedcheck": DEBUG,
}

SOURCE = "engine/babasolver"
SEAM = [f"{SOURCE}/_ruleset.pxd", f"{SOURCE}/_tiles.pxd", f"{SOURCE}/_tiles.h"]


def extension(name, *includes):
    """One module of the core, rebuilt when its includes or the seam change."""
    return Extension(
        f"babasolver.{name}",
        [f"{SOURCE}/{name}.pyx"],
        include_dirs=[SOURCE],
        depends=SEAM + [f"{SOURCE}/{include}" for include in includes],
        # -O2 was 4% slower on the 12 levels of issue 21. Profile-guided
        # builds were 4-5% faster, but pip would then build twice and play
        # a training run in between (90 s instrumented), and trained only
        # on what a clean clone holds (levels/00 and 01, both rule sets)
        # the build was slower on those 12 levels (median 0.970, 5 paired
        # runs); -march=x86-64-v3 gained 1% and would not run on older
        # CPUs. So neither is used. Added to -O3, no flag was faster by
        # more than a null run's noise (full_biy 42, 43, 53, 59, 107 and
        # 173, 5 paired runs): -fno-tree-vectorize 1.011,
        # -fvect-cost-model=very-cheap 0.995, -funroll-loops 0.968.
        extra_compile_args=["-O3", "-fno-wrapv"],
    )


extensions = [
    # The interface every rule set implements.
    extension("_ruleset"),
    # The Keke judge's rule set.
    extension("_judge", "_judge.pxd", "_judge_turn.pxi", "_judge_record.pxi", "_judge_guide.pxi"),
    # The commercial game's rules.
    extension("_baba", "_baba.pxd"),
    # The store and the searches, over any rule set.
    extension("_core", "_search.pxd", "_store.pxi", "_bestfirst.pxi", "_exchange.pxi"),
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, include_path=["engine"]))
