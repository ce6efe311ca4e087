# The benchmark image: ioscore-suite and ioscore-find as `make install` lays them out, on the
# MPI chosen at build time (--build-arg MPI=openmpi, the default, or mpich). Two stages: the
# build stage compiles and installs into a staging root; the runtime stage is that root copied
# onto a slim base with the MPI's runtime only (no compiler). Convert it for Apptainer or
# Singularity and pick the bind or hybrid model: docs/INSTALL.md, "Containers".
#
# By default it runs a short, non-compliant demo on 2 ranks (every output says INVALID); mount
# a file system at /data and give your own INI for real runs:
#   docker run -v /scratch:/data ioscore-suite mpiexec -n 8 ioscore-suite /data/site.ini
# The image has no .git: pass the version every result records, e.g.
#   docker build --build-arg IOSCORE_VERSION=$(git describe --always --dirty) ...
ARG MPI=openmpi
ARG IOSCORE_VERSION=unknown

FROM debian:bookworm-slim AS build
ARG MPI
ARG IOSCORE_VERSION
RUN case "$MPI" in \
      openmpi) dev="openmpi-bin libopenmpi-dev" ;; \
      mpich) dev="mpich libmpich-dev" ;; \
      *) echo "MPI=$MPI: expected openmpi or mpich" >&2; exit 1 ;; \
    esac \
    && apt-get update \
    && apt-get install -y --no-install-recommends $dev zlib1g-dev liburing-dev pkg-config gcc make \
       python3 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY suite/ suite/
RUN make -C suite CC=mpicc.$MPI VERSION=$IOSCORE_VERSION install PREFIX=/opt/ioscore DESTDIR=/staging

FROM debian:bookworm-slim AS runtime
ARG MPI
RUN case "$MPI" in \
      openmpi) run="openmpi-bin libopenmpi3" ;; \
      mpich) run="mpich libmpich12" ;; \
      *) echo "MPI=$MPI: expected openmpi or mpich" >&2; exit 1 ;; \
    esac \
    && apt-get update \
    && apt-get install -y --no-install-recommends $run zlib1g liburing2 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /staging/ /
COPY examples/docker-demo.ini /opt/ioscore/share/ioscore/examples/docker-demo.ini
# the demo's 2 ranks start on a container with one core too (hydra always allows that)
ENV PATH=/opt/ioscore/bin:$PATH MANPATH=/opt/ioscore/share/man: \
    OMPI_MCA_rmaps_base_oversubscribe=1
RUN useradd --create-home bench && mkdir -p /data /results && chown bench /data /results
USER bench
CMD ["mpiexec", "-n", "2", "/opt/ioscore/bin/ioscore-suite", "/opt/ioscore/share/ioscore/examples/docker-demo.ini"]
