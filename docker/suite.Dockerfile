# The benchmark image: Open MPI + the native ioscore-suite. Runs a short, non-compliant demo
# run by default; mount a file system at /data and pass your own INI for real runs.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends openmpi-bin libopenmpi-dev zlib1g-dev pkg-config gcc make git \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/ioscore
COPY suite/ suite/
COPY examples/ examples/
RUN make -C suite
RUN useradd --create-home bench && mkdir -p /data /results && chown bench /data /results
USER bench
ENTRYPOINT ["mpirun", "--oversubscribe", "-np", "2", "/opt/ioscore/suite/build/ioscore-suite"]
CMD ["/opt/ioscore/examples/docker-demo.ini"]
