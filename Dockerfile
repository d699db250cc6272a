# syntax=docker/dockerfile:1
# Build: docker build -t storefront .
# Run:   docker run -p 8080:8080 -v storefront-data:/data --env-file storefront.env storefront

FROM rust:1.95-bookworm AS build
WORKDIR /src
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
# Dependencies first, in their own layer: they change far less often than the code.
COPY Cargo.toml Cargo.lock build.rs ./
RUN mkdir src && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
 && cargo build --release --locked \
 && rm -rf src
COPY src src
COPY migrations migrations
COPY templates templates
COPY static static
RUN touch src/main.rs src/lib.rs && cargo build --release --locked \
 && install -m 0755 target/release/storefront /usr/local/bin/storefront

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq5 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin storefront \
 && mkdir -p /data && chown storefront:storefront /data
COPY --from=build /usr/local/bin/storefront /usr/local/bin/storefront
USER storefront
WORKDIR /data
ENV STOREFRONT_DATABASE_URL=sqlite:///data/storefront.db \
    STOREFRONT_BIND=0.0.0.0:8080 \
    STOREFRONT_LOG_FORMAT=json
EXPOSE 8080
VOLUME /data
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
STOPSIGNAL SIGTERM
CMD ["storefront", "serve"]
