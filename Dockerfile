# The service image used by docker-compose.yml: compiled in a build stage, run as plain JavaScript.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY cypher ./cypher
COPY proto ./proto
EXPOSE 3000 3001 3030 55152
CMD ["node", "dist/src/main.js"]
