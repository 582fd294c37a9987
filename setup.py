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

extensions = [
    Extension(
        "babasolver._core",
        ["engine/babasolver/_core.pyx"],
        include_dirs=["engine/babasolver"],
        depends=["engine/babasolver/_judge.pxi", "engine/babasolver/_store.pxi",
                 "engine/babasolver/_bestfirst.pxi",
                 "engine/babasolver/_core.pxd"],
        extra_compile_args=["-O3"],
    ),
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, include_path=["engine"]))
