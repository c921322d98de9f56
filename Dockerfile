# syntax=docker/dockerfile:1
# Build: compile TypeScript, then keep only production dependencies.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# The resource-server plugin is an npm workspace that the server imports.
COPY packages ./packages
# npm ci runs the prepare script, which compiles src/ into dist/ and keeps there a copy of
# the cluster that PGlite's initdb makes, for a new embedded store to start from.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev && chmod +x dist/cli/main.js

# Run: compiled code, migrations and production dependencies, as the unprivileged node user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=9000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages ./packages
COPY migrations ./migrations
# The realmgate command on the PATH: docker compose exec realmgate realmgate realm list
RUN mkdir -p /data && chown node:node /data && ln -s /app/dist/cli/main.js /usr/local/bin/realmgate
USER node
VOLUME /data
EXPOSE 9000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 9000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server.js"]
