# Image for the API and the worker (docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY libs ./libs
COPY apps ./apps
RUN npm ci --no-audit --no-fund && npm run build
EXPOSE 3000
CMD ["node", "--enable-source-maps", "apps/api/dist/main.js"]
