import type { Request, Response } from 'express';
import type { Config } from '../config';
import type { Services } from '../composition';
import type { Cursors } from './cursors';
import type { DataSource } from 'typeorm';
import type { WindowLimiter } from '../rate-limits/window-limiter';
import type { MemberRole } from '../entities/project-member';
import type { KeyProject, SessionUser } from './request-context';
import type { EndpointDoc, Schema, Tag } from '../openapi/types';

/**
 * Who may call an endpoint: `secret` a project's secret key, `key` its secret or public key,
 * `session` a signed-in dashboard user, `member` a signed-in member of the project the path's
 * `{id}` names (404 for anyone else, before the body is validated), `none` anyone. The route table states it per endpoint;
 * the API mounts the matching authentication and the document states the matching security.
 */
export type Credential = 'secret' | 'key' | 'session' | 'member' | 'none';

/** How an endpoint's body is read: JSON (the default), raw bytes, or by the handler itself (forms, uploads). */
export type BodyKind = 'json' | 'raw' | 'own';

/** A class-validator DTO: one class both validates a shape and documents it. */
export type Dto<T = object> = new () => T;

/** What a handler is given: the validated body and query, the caller, and the app's services. */
export interface EndpointContext<B, Q> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
  project: KeyProject;
  user: SessionUser;
  /** The caller's role in the project of `{id}`, on `member` endpoints. */
  role: MemberRole;
  services: Services;
  cursors: Cursors;
  config: Config;
}

/**
 * One endpoint, defined once: its method and path (OpenAPI style, `/templates/{id}`), the
 * credential it takes, the DTOs its body and query are validated with (the same classes
 * generate the document's schemas), its prose and examples, and its handler. A handler's
 * return value is sent as JSON with the documented success status; a handler that answers
 * itself (a redirect, a page) returns nothing.
 */
export interface Endpoint<B = unknown, Q = unknown> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  credential: Credential;
  body?: Dto<B & object>;
  query?: Dto<Q & object>;
  bodyKind?: BodyKind;
  bodyLimit?: string;
  /**
   * A hot endpoint also answered ahead of Express when its request is plain (src/http/lean-endpoint.ts);
   * it must take a key and a JSON body within the default limit, and its handler must read neither `req` nor `res`.
   */
  lean?: boolean;
  /** Runs on the raw body before the DTO, for the SPEC's bare `{ error }` answers to a missing field. */
  precheck?: (body: unknown) => void;
  /** A hot endpoint's fast check: answers the validated body when it certainly passes `body`'s DTO, else undefined (the DTO then decides). */
  quickBody?: (body: unknown) => B | undefined;
  /** Runs after authentication and before validation (with the raw body), e.g. a per-address budget. */
  before?: (context: EndpointContext<unknown, unknown>) => Promise<void>;
  doc: EndpointDoc;
  handle: (context: EndpointContext<B, Q>) => unknown;
}

/** A feature's endpoints under one tag of the document, with the response shapes it documents. */
export interface RouteTable {
  tag: Tag;
  /** Response and shared DTOs to document under `components.schemas` by class name. */
  shapes?: Dto[];
  /** Schemas that no DTO describes (written by hand: prose, unions of DTOs). */
  schemas?: Record<string, Schema>;
  endpoints: Endpoint<any, any>[];
}

/** Types an endpoint's handler by its DTOs. */
export function endpoint<B = undefined, Q = undefined>(definition: Endpoint<B, Q>): Endpoint<B, Q> {
  return definition;
}

/** What mounting needs: the services handlers call and what authentication reads. */
export interface MountDeps {
  config: Config;
  dataSource: DataSource;
  services: Services;
  cursors: Cursors;
  /** The per-project limit of key-authenticated requests, one for every route of the app. */
  projectLimiter: WindowLimiter;
}
