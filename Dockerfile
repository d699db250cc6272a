# syntax=docker/dockerfile:1
# The shop as one image: `storefront serve` by default, `storefront demo` to try it.
#   build:  docker build -t storefront .        (podman: podman build --format docker -t storefront .)
#   try:    docker run --rm -p 8080:8080 storefront storefront demo
#   run:    docker run -p 8080:8080 -v storefront-data:/data --env-file storefront.env storefront
# Several replicas behind a proxy on PostgreSQL: deploy/compose.yaml. README, "Run with Docker or
# Podman", has the whole story; scripts/container-test builds and exercises this file.

FROM docker.io/library/rust:1.95-bookworm AS build
WORKDIR /src
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
# Dependencies first, in their own layer: they change far less often than the code.
COPY Cargo.toml Cargo.lock build.rs ./
COPY crates/domain/Cargo.toml crates/domain/
RUN mkdir -p src crates/domain/src && echo 'fn main() {}' > src/main.rs \
 && touch src/lib.rs crates/domain/src/lib.rs \
 && cargo build --release --locked \
 && rm -rf src crates/domain/src
# Everything the binary compiles in (include_str!/include_bytes!, embed_migrations!, templates,
# the share cards' font).
COPY src src
COPY crates crates
COPY migrations migrations
COPY templates templates
COPY static static
COPY locales locales
COPY assets assets
RUN touch src/main.rs src/lib.rs crates/*/src/lib.rs && cargo build --release --locked \
 && install -m 0755 target/release/storefront /usr/local/bin/storefront

FROM docker.io/library/debian:bookworm-slim
# libpq5 for PostgreSQL, ca-certificates for the supplier, Stripe and SMTP over TLS. No HTTP
# client: the health check is the binary's own `storefront healthcheck`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq5 ca-certificates \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
 && useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin storefront \
 && mkdir -p /data && chown storefront:storefront /data
COPY --from=build /usr/local/bin/storefront /usr/local/bin/storefront
USER 10001:10001
WORKDIR /data
# MALLOC_ARENA_MAX: glibc gives each thread that allocates its own memory arena and returns
# little of it; the database work runs on many short-lived threads. Two arenas kept the
# console's peak at 166 MB instead of 235 MB on a 300k-purchase shop (docs/operations.md).
ENV STOREFRONT_DATABASE_URL=sqlite:///data/storefront.db \
    STOREFRONT_BIND=0.0.0.0:8080 \
    STOREFRONT_LOG_FORMAT=json \
    MALLOC_ARENA_MAX=2
EXPOSE 8080
VOLUME /data
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["storefront", "healthcheck"]
STOPSIGNAL SIGTERM
CMD ["storefront", "serve"]
