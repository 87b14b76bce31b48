# The Djambi correspondence server. Build: docker build -t djambi .
# Run:   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e DJAMBI_JWT_SECRET=... djambi
# Without DATABASE_URL it serves from an SQLite file in the /data volume (development mode).

FROM rust:1.95-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libpq-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p api -p djambi-domain \
    && cp target/release/djambi-server target/release/djambi /usr/local/bin/

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /data --create-home djambi
COPY --from=build /usr/local/bin/djambi-server /usr/local/bin/djambi /usr/local/bin/
USER djambi
WORKDIR /data
VOLUME /data
ENV DJAMBI_LISTEN=0.0.0.0:8080
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080"]
CMD ["djambi-server"]
