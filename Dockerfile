# The service image used by docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm install --no-save tsx
COPY src ./src
COPY cypher ./cypher
COPY tsconfig.json ./
EXPOSE 3000 3030
CMD ["npx", "tsx", "src/main.ts"]
