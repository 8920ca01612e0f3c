import type { RouteTable } from './http/endpoint';
import { templatesRoutes } from './templates/templates-routes';

/** Every feature's endpoints, in the order the API reference shows them. */
export const ROUTE_TABLES: RouteTable[] = [templatesRoutes];
