# Herald's API and worker share one image; docker-compose.yml picks the process with `command`.
FROM node:20-slim

ENV NODE_ENV=production \
    DATA_DIR=/data

WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY . .

# The start commands run the build in dist/app; the worker runs this prebuilt workflow bundle instead of bundling at every start.
RUN npm run build && npm run build:workflows
ENV WORKFLOW_BUNDLE=prebuilt

# DATA_DIR keeps the generated secrets when none are configured; the named volume over it inherits this owner.
RUN mkdir -p /data && chown node:node /data
USER node

EXPOSE 3000
# The SMTP relay, when SMTP_RELAY_PORT is set (the development default).
EXPOSE 2587
CMD ["npm", "run", "start:api"]
