import { SendQueueBell } from '../../src/sending/send-queue-bell';
import type { Router } from 'express';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { EventDispatcher } from '../../src/events/dispatcher';
import { buildOpenApiDocument } from '../../src/openapi';

/** The pages serving the reference itself. */
const SELF = new Set(['GET /docs', 'GET /docs/init.js', 'GET /openapi.json']);
/** Documented operations served as static files, which have no route of their own. */
const STATIC = new Set(['GET /uploads/{}/{}']);

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every `METHOD /path` the app routes, path parameters written `{}`. */
function routesOf(stack: Layer[], found = new Set<string>()): Set<string> {
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) found.add(`${method.toUpperCase()} ${layer.route.path.replace(/:\w+/g, '{}')}`);
    } else if (layer.handle?.stack) {
      routesOf(layer.handle.stack, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('documents every route the API serves, and nothing it does not', () => {
    // Building the app touches neither the database nor Temporal; no request is made.
    const config = loadConfig({ ...process.env, MAIL_EVENTS_SECRET: 'coverage', SESSION_SECRET: 's'.repeat(32), TOKEN_SECRET: 't'.repeat(32) });
    const app = createApp({ config, dataSource: {} as never, mailer: {} as never, temporal: undefined, dispatcher: new EventDispatcher(), sendQueue: new SendQueueBell() });
    const routes = [...routesOf((app as unknown as { router: Router & { stack: Layer[] } }).router.stack)].filter((route) => !SELF.has(route));

    const document = buildOpenApiDocument({ version: 'test', serverUrl: 'http://localhost' });
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`),
    );

    expect(routes.length).toBeGreaterThan(100);
    expect(routes.filter((route) => !documented.includes(route)).sort()).toEqual([]);
    expect(documented.filter((operation) => !routes.includes(operation) && !STATIC.has(operation)).sort()).toEqual([]);
  });
});
