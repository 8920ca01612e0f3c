import { apiKeyAuth } from './builders';
import { sharedComponents } from './components';
import { overview } from './overview';
import { ROUTE_TABLES } from '../route-tables';
import { dtoRef, dtoSchemas, tablePaths } from './operations';
import type { OpenApiDocument, PathItem, Schema } from './types';

function mergeInto<T>(target: Record<string, T>, additions: Record<string, T>, what: string): void {
  for (const [key, value] of Object.entries(additions)) {
    if (key in target) throw new Error(`OpenAPI: ${what} "${key}" is defined twice`);
    target[key] = value;
  }
}

const SCHEMA_REF = '#/components/schemas/';

/** Adds to `schemas` each DTO schema of `pool` that `roots` reference, and what those reference in turn. */
function addReferenced(schemas: Record<string, Schema>, pool: Record<string, Schema>, roots: unknown[]): void {
  const pending = [...roots];
  while (pending.length > 0) {
    JSON.stringify(pending.pop(), (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!(name in schemas) && name in pool) {
          schemas[name] = pool[name];
          pending.push(pool[name]);
        }
      }
      return value;
    });
  }
}

/** Builds Herald's OpenAPI 3.1 document from the shared components and every feature's route table. */
export function buildOpenApiDocument(options: { version: string; serverUrl: string }): OpenApiDocument {
  const components = sharedComponents();
  const paths: Record<string, PathItem> = {};
  for (const table of ROUTE_TABLES) {
    mergeInto(components.schemas, table.schemas ?? {}, 'schema');
    mergeInto(paths, tablePaths(table), 'path');
  }
  addReferenced(components.schemas, dtoSchemas(), [paths, ...ROUTE_TABLES.map((table) => (table.shapes ?? []).map(dtoRef))]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald API',
      version: options.version,
      description: overview,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl }],
    security: apiKeyAuth,
    tags: ROUTE_TABLES.map((table) => table.tag),
    paths,
    components,
  };
}
