# The agent-flows image: every process compiled to plain JavaScript (`npm run build`), run by
# node as the unprivileged `node` user (uid 1000). One image, one command per process:
#   node --heap-growing-percent=15 --max-semi-space-size=4 dist/workers/worker.js
#                                                the worker (default command; the flags and
#                                                MALLOC_MMAP_THRESHOLD_ below bound its memory
#                                                under load, see bench/RESULTS.md)
#   node --optimize-for-size --max-semi-space-size=1 dist/server/main.js
#                                                the control plane (memory flags: < 100 MB RSS)
#   node dist/standin/main.js                    the offline model stand-in
#   node dist/server/codec-main.js               the codec endpoint for the Web UI
#   node dist/client/mcp/main.js --http          MCP over Streamable HTTP
# Build: docker build -t agent-flows .   Run: docker-compose.yml, deploy/k8s/ (docs/deployment.md).
# Secrets (GEMINI_API_KEY, service-account keys, AGENT_FLOWS_PAYLOAD_KEY) come from the environment
# at run time, never from the image.

FROM node:22-bookworm-slim AS build
WORKDIR /src
# `npm install`, not `npm ci`: some registry mirrors lack other platforms' optional native
# packages, which makes `npm ci` reject a lockfile that `npm install` still honours exactly.
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY plumbing ./plumbing
COPY contracts ./contracts
COPY domain ./domain
COPY codec ./codec
COPY backends ./backends
COPY flows ./flows
COPY access ./access
COPY workers ./workers
COPY client ./client
COPY server ./server
COPY standin ./standin
COPY data ./data
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY data ./data
COPY --from=build /src/dist ./dist
# Writable by the process: PDFs and result files (ARTIFACT_DIR) and the control plane's
# registration journal (CONTROL_PLANE_STORE). Named volumes mounted here inherit this ownership.
RUN mkdir -p /app/out /app/.temporal && chown -R 1000:1000 /app/out /app/.temporal
# MALLOC_MMAP_THRESHOLD_ (glibc only; musl and macOS ignore it): blocks of 1 MB and more go back
# to the system when freed. By default glibc raises that threshold (up to 32 MB) each time such a
# block is freed, and keeps ever larger freed blocks in its heaps: −30 to −60 MB of a busy
# worker's RSS, no measurable cost at 1 MB (128 KB cost ~7 % of the throughput; bench/RESULTS.md).
# The npm scripts of the worker, the stack and the control plane set it too; the Python solver
# worker is started without it.
ENV ARTIFACT_DIR=/app/out \
    CONTROL_PLANE_STORE=/app/.temporal/control-plane-agents.jsonl \
    MALLOC_MMAP_THRESHOLD_=1048576
USER 1000:1000
EXPOSE 8080 8234 8765 8787 9464
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=4 \
  CMD ["node", "dist/workers/healthcheck.js", "worker"]
CMD ["node", "--heap-growing-percent=15", "--max-semi-space-size=4", "dist/workers/worker.js"]
