# contrib/spack/package.py — a Spack recipe for Plexus.
#
# Copy it into a Spack repository as packages/plexus/package.py (or
# `spack repo add` a repo holding it), then e.g.
#   spack install plexus +ucx +pmix
#   spack install plexus +cuda +nccl cuda_arch=90
# The release tarball is the one `make dist` makes (plexus-X.Y.Z.tar.gz);
# add a version() line with its sha256 for each release.
from spack.package import *


class Plexus(AutotoolsPackage, CudaPackage):
    """Plexus: an MPI-style collective communication library in C (shared
    memory on one node, UCX across nodes, NCCL for GPU buffers), with
    nonblocking collectives, a progress thread and a task-graph executor."""

    homepage = "https://github.com/plexus-hpc/plexus"
    git = "https://github.com/plexus-hpc/plexus.git"

    license("BSD-3-Clause")

    version("main", branch="main")

    variant("ucx", default=True, description="UCX transport between nodes")
    variant("pmix", default=True, description="Start under mpirun/srun through PMIx")
    variant("nccl", default=False, description="Collectives on GPU buffers through NCCL (needs +cuda)")
    variant("debug", default=False, description="-O0 -g3 and internal assertions (--enable-debug)")

    conflicts("+nccl", when="~cuda", msg="NCCL needs CUDA: use +cuda +nccl")

    # building from git runs autoreconf
    depends_on("autoconf", type="build", when="@main")
    depends_on("automake", type="build", when="@main")
    depends_on("libtool", type="build", when="@main")
    depends_on("pkgconfig", type="build")
    depends_on("check", type="test")

    depends_on("ucx", when="+ucx")
    depends_on("pmix", when="+pmix")
    depends_on("nccl", when="+nccl")

    def autoreconf(self, spec, prefix):
        autoreconf("-fi")

    def configure_args(self):
        spec = self.spec
        args = []
        args += self.with_or_without("ucx")
        args += self.with_or_without("pmix")
        if spec.satisfies("+cuda"):
            args.append("--with-cuda={0}".format(spec["cuda"].prefix))
        else:
            args.append("--without-cuda")
        if spec.satisfies("+nccl"):
            args.append("--with-nccl={0}".format(spec["nccl"].prefix))
        else:
            args.append("--without-nccl")
        args += self.enable_or_disable("debug")
        return args

    def check(self):
        # the whole suite takes ~6-16 minutes on 2 cores; the unit tests alone are quick
        make("check", "TESTS=tests/unit/test_reduce tests/unit/test_config")
