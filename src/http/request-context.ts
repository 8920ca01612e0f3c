import type { ApiKeyKind } from '../entities/api-key';
import type { Logger } from '../logger';

/** The project an API key authenticated, as middleware attaches it to a request. */
export interface KeyProject {
  id: string;
  name: string;
  keyKind: ApiKeyKind;
}

/** The signed-in user, as the session middleware attaches it to a request. */
export interface SessionUser {
  id: string;
  email: string;
  emailVerified: boolean;
  createdAt: Date;
  sessionId: string;
}

declare global {
  namespace Express {
    interface Request {
      /** The request id (`X-Request-Id`), set first by `requestId`. */
      id: string;
      /** The logger bound to the request id (`accessLog`). */
      log: Logger;
      project?: KeyProject;
      user?: SessionUser;
    }
  }
}

export {};
