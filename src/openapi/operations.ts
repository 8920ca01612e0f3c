import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
// class-transformer keeps its @Type metadata here; its package types the module at `types/storage`.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as typeof import('class-transformer/types/storage');
import type { Credential, Dto, Endpoint, RouteTable } from '../http/endpoint';
import { apiKeyAuth, commonErrors, cursorPage, jsonResponse, noAuth, offsetPage, rateLimitHeaders, schemaRef, sessionAuth, type CommonErrorStatus } from './builders';
import type { Operation, Parameter, PathItem, Ref, Response, Schema, SecurityRequirement } from './types';

const SCHEMA_OPTIONS = { refPointerPrefix: '#/components/schemas/', classTransformerMetadataStorage: defaultMetadataStorage };

/** The schema of one DTO, as the document states it under `components.schemas`. */
export function dtoSchema(dto: Dto): Schema {
  return targetConstructorToSchema(dto, SCHEMA_OPTIONS) as Schema;
}

/** Every DTO's schema by class name: request bodies, queries, responses and the shapes they nest. */
export function dtoSchemas(): Record<string, Schema> {
  return validationMetadatasToSchemas({ ...SCHEMA_OPTIONS, classValidatorMetadataStorage: getMetadataStorage() }) as Record<string, Schema>;
}

/** A reference to a DTO's schema. */
export const dtoRef = (dto: Dto): Schema => schemaRef(dto.name);

/** An offset-paginated list of a DTO (SPEC conventions, item 4). */
export const offsetPageOf = (dto: Dto): Schema => offsetPage(dtoRef(dto));

/** A cursor-paginated list of a DTO (SPEC conventions, item 3). */
export const cursorPageOf = (dto: Dto): Schema => cursorPage(dtoRef(dto));

const isDto = (shape: unknown): shape is Dto => typeof shape === 'function';

const SECURITY: Record<Credential, SecurityRequirement[]> = { secret: apiKeyAuth, key: apiKeyAuth, session: sessionAuth, member: sessionAuth, none: noAuth };

/** The error answers every endpoint of this kind can give: authentication, body, validation, an unknown id. */
function generatedErrors(route: Endpoint): CommonErrorStatus[] {
  const statuses: CommonErrorStatus[] = [];
  if (route.credential === 'secret' || route.credential === 'key') statuses.push(401, 403, 429);
  if (route.credential === 'session') statuses.push(401);
  if (route.credential === 'member') statuses.push(401, 404);
  if (route.query) statuses.push(400);
  if (route.body) statuses.push(400, 413, 422);
  if (/\{[^}]+\}/.test(route.path)) statuses.push(404);
  return [...new Set(statuses)];
}

/** Path parameters from the path, with the endpoint's prose where it gives some. */
function pathParameters(route: Endpoint): (Parameter | Ref)[] {
  const given = route.doc.parameters ?? [];
  const named = new Set(given.map((parameter) => ('name' in parameter ? parameter.name : '')));
  const generated: Parameter[] = [...route.path.matchAll(/\{([^}]+)\}/g)]
    .filter(([, name]) => !named.has(name))
    .map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  return [...generated, ...given];
}

/** Query parameters, one per property of the endpoint's query DTO. */
function queryParameters(route: Endpoint): Parameter[] {
  if (!route.query) return [];
  const schema = dtoSchema(route.query) as { properties?: Record<string, Schema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as { description?: string };
    return {
      name,
      in: 'query',
      ...(description ? { description } : {}),
      ...(schema.required?.includes(name) ? { required: true } : {}),
      schema: rest,
    };
  });
}

/** The success answer: the DTO or schema it names, its examples, and the rate-limit headers of key requests. */
function successResponse(route: Endpoint): Response {
  const { description, shape, contentType, example, examples, headers } = route.doc.response;
  const keyed = route.credential === 'secret' || route.credential === 'key';
  const allHeaders = { ...(keyed ? rateLimitHeaders : {}), ...headers };
  if (!shape) return { description, headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...allHeaders } };
  const schema = isDto(shape) ? dtoRef(shape) : shape;
  const response = jsonResponse(description, schema, {
    headers: allHeaders,
    ...(example !== undefined ? { example } : {}),
    ...(examples ? { examples } : {}),
  });
  if (contentType && response.content) response.content = { [contentType]: response.content['application/json'] };
  return response;
}

/** One endpoint as an OpenAPI operation. */
export function operation(route: Endpoint, table: RouteTable): Operation {
  const { operationId, summary, description, requestBody } = route.doc;
  const result: Operation = {
    operationId,
    summary,
    ...(description ? { description } : {}),
    tags: [table.tag.name],
    security: SECURITY[route.credential],
    responses: {
      [String(route.doc.response.status ?? 200)]: successResponse(route),
      ...commonErrors(...generatedErrors(route)),
      ...route.doc.errors,
    },
  };
  const parameters = [...pathParameters(route), ...queryParameters(route)];
  if (parameters.length > 0) result.parameters = parameters;
  if (route.body || requestBody?.schema) {
    const schema = route.body ? { allOf: [dtoRef(route.body), schemaRef('StorableJson')] } : requestBody!.schema!;
    const { description: bodyDescription, required = true, contentType = 'application/json', example, examples } = requestBody ?? {};
    result.requestBody = {
      ...(bodyDescription ? { description: bodyDescription } : {}),
      required,
      content: { [contentType]: { schema, ...(example !== undefined ? { example } : {}), ...(examples ? { examples } : {}) } },
    };
  }
  return result;
}

/** The paths of a route table. */
export function tablePaths(table: RouteTable): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const route of table.endpoints) {
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`OpenAPI: ${route.method.toUpperCase()} ${route.path} is defined twice`);
    item[route.method] = operation(route, table);
  }
  return paths;
}
