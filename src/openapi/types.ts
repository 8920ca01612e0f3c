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

/** What one file under `paths/` contributes: its tag, the schemas it owns and its paths. */
export interface PathModule {
  tag: Tag;
  schemas?: Record<string, Schema>;
  paths: Record<string, PathItem>;
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
