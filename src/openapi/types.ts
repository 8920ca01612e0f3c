/** The slice of OpenAPI 3.1 that Herald's document uses, typed just enough to catch slips. */

/** A JSON Schema (2020-12 dialect, as OpenAPI 3.1 uses it) or a `$ref` to one. */
export type Schema = { [keyword: string]: unknown };

/** A reference to another part of the document. */
export interface Ref {
  $ref: string;
}

export interface MediaType {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface Header {
  description: string;
  schema: Schema;
  required?: boolean;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  description?: string;
  required?: boolean;
  schema: Schema;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, MediaType>;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, MediaType>;
}

/** Each entry names a security scheme; an empty object means "no authentication". */
export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  security?: SecurityRequirement[];
  parameters?: (Parameter | Ref)[];
  requestBody?: RequestBody;
  responses: Record<string, Response | Ref>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItem = Partial<Record<HttpMethod, Operation>> & { parameters?: (Parameter | Ref)[] };

export interface Tag {
  name: string;
  description: string;
}

export interface SecurityScheme {
  type: 'http' | 'apiKey';
  description: string;
  scheme?: string;
  bearerFormat?: string;
  name?: string;
  in?: 'cookie' | 'header' | 'query';
}

export interface Components {
  schemas: Record<string, Schema>;
  responses: Record<string, Response>;
  parameters: Record<string, Parameter>;
  headers: Record<string, Header>;
  securitySchemes: Record<string, SecurityScheme>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description?: string }[];
  security: SecurityRequirement[];
  tags: Tag[];
  paths: Record<string, PathItem>;
  components: Components;
}

/** A success answer as an endpoint states it: the schema comes from a DTO (or a schema built from DTOs). */
export interface SuccessDoc {
  /** 200 unless told. */
  status?: number;
  description: string;
  /** A DTO class (documented by reference) or a schema; none for an answer without a body. */
  shape?: (new () => object) | Schema;
  contentType?: string;
  example?: unknown;
  examples?: MediaType['examples'];
  headers?: Response['headers'];
}

/**
 * The prose and examples of one endpoint. Security, the request body's and query's schemas,
 * path parameters and the usual error answers are generated from the endpoint's definition.
 */
export interface EndpointDoc {
  operationId: string;
  summary: string;
  description?: string;
  /** Prose for path and header parameters; a path parameter without an entry is documented as a string. */
  parameters?: (Parameter | Ref)[];
  /** Prose and examples of the request body; `schema` only for bodies no DTO describes (uploads, forms). */
  requestBody?: { description?: string; required?: boolean; contentType?: string; schema?: Schema; example?: unknown; examples?: MediaType['examples'] };
  response: SuccessDoc;
  /** Answers beyond the success one and the generated errors, or generated errors told more precisely. */
  errors?: Record<string, Response | Ref>;
}
