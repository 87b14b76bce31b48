# The Djambi correspondence server. Build: docker build -t djambi .
# Run:   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e DJAMBI_JWT_SECRET=... djambi
# Without DATABASE_URL it serves from an SQLite file in the /data volume (development mode).
# compose.yaml runs it with PostgreSQL and a mail catcher. The server runs as uid 10001, not
# root; /data belongs to it. `docker stop` sends SIGTERM: requests in flight finish within
# DJAMBI_SHUTDOWN_GRACE (30 s; give `docker stop -t` more than that).

FROM rust:1.95-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libpq-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The release profile keeps line tables (backtraces, profiling). The image gets the
# binaries without them (symbols kept, so backtraces still name functions); the debug
# info stays in this build stage, linked by .gnu_debuglink: export it with
# `docker build --target build` and `docker cp` if you need it.
RUN cargo build --release --locked -p api -p djambi-cli \
    && mkdir -p /usr/local/lib/debug \
    && for b in djambi-server djambi; do \
         objcopy --only-keep-debug target/release/$b /usr/local/lib/debug/$b.debug \
         && objcopy --strip-debug --add-gnu-debuglink=/usr/local/lib/debug/$b.debug \
              target/release/$b /usr/local/bin/$b; \
       done

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 djambi \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin djambi \
    && mkdir -p /data && chown 10001:10001 /data && chmod 0700 /data
COPY --from=build /usr/local/bin/djambi-server /usr/local/bin/djambi /usr/local/bin/
USER 10001:10001
WORKDIR /data
VOLUME /data
ENV DJAMBI_LISTEN=0.0.0.0:8080
EXPOSE 8080
# Healthy = GET /readyz answers 200 (the process runs and reaches its database).
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
    CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /readyz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n1 <&3 | grep -q ' 200 '"]
CMD ["djambi-server"]
