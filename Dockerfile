# syntax=docker/dockerfile:1
# Chargeport images (docs/operations.md, "Containers"). Two targets from one build:
#   app    the standalone Next.js server (`node server.js`): web traffic only, jobs off
#   tools  the sources and node_modules, no build: `npm run worker`, `npm run db:migrate`, `npm run admin -- …`
# Migrations are a separate command (compose.yaml's `migrate` service), never run by the web containers.
# Node 22 LTS: the floor `engines` declares. The suite runs on the exact 22.x pinned as the `node`
# devDependency, which `npm install` also puts in node_modules/.bin, so the tools image's `npm run …` use it.
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# patch-package applies these at `npm install` (postinstall): patches/README.md says why each exists.
COPY patches ./patches
# `npm install` honours the lockfile; `npm ci` refuses the platform packages the lockfile leaves out.
RUN npm install --no-audit --no-fund

FROM deps AS build
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN node_modules/.bin/next build

# From deps, not build: the worker, migrations and the admin CLI run the sources through tsx and never read `.next`
# (413 MB). The sources are copied owned by the user; node_modules stays root's, read-only to it (a recursive chown
# after the fact would store the whole tree a second time). /app itself is the user's home (npm's cache and logs).
FROM deps AS tools
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
RUN groupadd --system chargeport && useradd --system --gid chargeport --home-dir /app chargeport \
  && chown chargeport:chargeport /app
COPY --chown=chargeport:chargeport . .
USER chargeport
CMD ["npm", "run", "worker"]

FROM node:${NODE_VERSION}-bookworm-slim AS app
WORKDIR /app
# KEEP_ALIVE_TIMEOUT: idle connections outlive the load balancer's (60 s), so it never reuses one we are closing.
# NODE_OPTIONS: a 64 MB young generation, as the launcher gives the server (scripts/stack/next-server.ts).
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0 RUN_JOBS_IN_WEB=false KEEP_ALIVE_TIMEOUT=65000 NODE_OPTIONS=--max-semi-space-size=64
RUN groupadd --system chargeport && useradd --system --gid chargeport --no-create-home chargeport
COPY --from=build --chown=chargeport:chargeport /app/.next/standalone ./
COPY --from=build --chown=chargeport:chargeport /app/.next/static ./.next/static
# Static files served as they are (the icon, Redoc's bundle copied there by the build): the standalone output leaves them out.
COPY --from=build --chown=chargeport:chargeport /app/public ./public
USER chargeport
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:3000/api/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server.js"]
