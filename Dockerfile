# The worker (and, with another command, the control plane) as a container image.
# Build: docker build -t agent-flows .   Run: see docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm install --no-save tsx@4
COPY contracts ./contracts
COPY backends ./backends
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY client ./client
COPY server ./server
COPY standin ./standin
COPY data ./data
COPY tsconfig.json ./
# Secrets (GEMINI_API_KEY, service-account credentials) come from the environment at run time, never from the image.
USER node
CMD ["npx", "tsx", "workers/worker.ts"]
