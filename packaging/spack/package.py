# ruff: noqa: F403, F405  (spack.package provides the whole recipe vocabulary)
# Spack recipe for ioscore's native suite: `spack repo add` a repository holding this file as
# packages/ioscore/package.py, then `spack install ioscore ^mpich` (or any other MPI).
# tests/suite/test_spack_recipe.py keeps it consistent with suite/Makefile.
from spack.package import *


class Ioscore(MakefilePackage):
    """IO500-style storage benchmark suite (ioscore-suite, ioscore-find) built against any MPI."""

    homepage = "https://github.com/ioscore/ioscore"
    git = "https://github.com/ioscore/ioscore.git"

    version("main", branch="main")

    variant("zlib", default=True, description="gzip the full per-rank files (--rank-detail-full)")
    variant("io_uring", default=True, description="the io_uring backend (-a IOURING)")

    depends_on("mpi")
    depends_on("gmake", type="build")
    depends_on("python@3:", type="build")  # the man pages (suite/scripts/manpage.py)
    depends_on("zlib-api", when="+zlib")
    depends_on("liburing", when="+io_uring")

    build_directory = "suite"

    def _make_args(self):
        return [
            f"CC={self.spec['mpi'].mpicc}",
            f"ZLIB={'yes' if self.spec.satisfies('+zlib') else 'no'}",
            f"IOURING={'yes' if self.spec.satisfies('+io_uring') else 'no'}",
        ]

    def build(self, spec, prefix):
        with working_dir(self.build_directory):
            make(*self._make_args())

    def install(self, spec, prefix):
        with working_dir(self.build_directory):
            make("install", f"PREFIX={prefix}", *self._make_args())
