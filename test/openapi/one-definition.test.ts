import { buildOpenApiDocument } from '../../src/openapi';
import { dtoSchema } from '../../src/openapi/operations';
import { ROUTE_TABLES } from '../../src/route-tables';
import operations from './fixtures/operations.json';

type Json = { [key: string]: any };

const document = buildOpenApiDocument({ version: 'test', serverUrl: 'http://localhost' }) as unknown as Json;
const endpoints = ROUTE_TABLES.flatMap((table) => table.endpoints);

describe('one definition per endpoint', () => {
  it('keeps every path and operation the API has documented', () => {
    const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      ['get', 'put', 'post', 'delete', 'patch'].filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path} ${item[method].operationId}`),
    );
    expect(operations.filter((operation) => !documented.includes(operation))).toEqual([]);
  });

  it.each(endpoints.filter((route) => route.body).map((route) => [`${route.method.toUpperCase()} ${route.path}`, route]))(
    '%s documents the body schema of the DTO it validates with',
    (_name, route) => {
      const body = document.paths[route.path][route.method].requestBody.content['application/json'].schema;
      expect(body.allOf[0]).toEqual({ $ref: `#/components/schemas/${route.body!.name}` });
      expect(document.components.schemas[route.body!.name]).toEqual(dtoSchema(route.body!));
    },
  );

  it.each(endpoints.filter((route) => route.query).map((route) => [`${route.method.toUpperCase()} ${route.path}`, route]))(
    '%s documents each query parameter of the DTO it validates with',
    (_name, route) => {
      const properties = dtoSchema(route.query!).properties as Json;
      const documented = (document.paths[route.path][route.method].parameters as Json[]).filter((parameter) => parameter.in === 'query');
      expect(documented.map((parameter) => parameter.name).sort()).toEqual(Object.keys(properties).sort());
      for (const parameter of documented) {
        const { description, ...schema } = properties[parameter.name];
        expect([parameter.name, parameter.schema, parameter.description]).toEqual([parameter.name, schema, description]);
      }
    },
  );
});
