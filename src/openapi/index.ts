import { apiKeyAuth } from './builders';
import { sharedComponents } from './components';
import { overview } from './overview';
import * as activity from './paths/activity';
import * as apiKey from './paths/api-key';
import * as auth from './paths/auth';
import * as billing from './paths/billing';
import * as billingLimits from './paths/billing-limits';
import * as campaigns from './paths/campaigns';
import * as contacts from './paths/contacts';
import * as domains from './paths/domains';
import * as events from './paths/events';
import * as jobs from './paths/jobs';
import * as mailEvents from './paths/mail-events';
import * as outbox from './paths/outbox';
import * as pages from './paths/pages';
import * as projects from './paths/projects';
import * as security from './paths/security';
import * as segments from './paths/segments';
import * as suppressions from './paths/suppressions';
import * as system from './paths/system';
import * as send from './paths/send';
import * as track from './paths/track';
import * as uploads from './paths/uploads';
import * as users from './paths/users';
import * as verify from './paths/verify';
import * as workflows from './paths/workflows';
import { ROUTE_TABLES } from '../route-tables';
import { dtoRef, dtoSchemas, tablePaths } from './operations';
import { HTTP_METHODS, type OpenApiDocument, type PathItem, type PathModule, type Schema } from './types';

/** The documented resources, one module under `paths/` each, in the order the reference shows them. */
const PATH_MODULES: PathModule[] = [
  system,
  apiKey,
  track,
  send,
  verify,
  contacts,
  suppressions,
  jobs,
  events,
  segments,
  campaigns,
  workflows,
  domains,
  activity,
  uploads,
  mailEvents,
  pages,
  auth,
  users,
  projects,
  security,
  billingLimits,
  billing,
  outbox,
].map((module) => module.pathModule);

/** Tags every operation of a path item with its module's tag, unless it names tags itself. */
function tagged(item: PathItem, tag: string): PathItem {
  const result: PathItem = { ...item };
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (operation) result[method] = { tags: [tag], ...operation };
  }
  return result;
}

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

/** Builds Herald's OpenAPI 3.1 document from the shared components and every path module. */
export function buildOpenApiDocument(options: { version: string; serverUrl: string }): OpenApiDocument {
  const modules = PATH_MODULES;
  const components = sharedComponents();
  const paths: Record<string, PathItem> = {};
  for (const table of ROUTE_TABLES) {
    mergeInto(components.schemas, table.schemas ?? {}, 'schema');
    mergeInto(paths, tablePaths(table), 'path');
  }
  for (const resource of modules) {
    mergeInto(components.schemas, resource.schemas ?? {}, 'schema');
    for (const [path, item] of Object.entries(resource.paths)) {
      mergeInto(paths, { [path]: tagged(item, resource.tag.name) }, 'path');
    }
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
    tags: [...ROUTE_TABLES.map((table) => table.tag), ...modules.map((resource) => resource.tag)],
    paths,
    components,
  };
}
