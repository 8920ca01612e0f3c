import type { Request, RequestHandler, Response } from 'express';

/**
 * Runs body-reading middleware (express's parsers, `jsonBody`) inside a handler whose endpoint
 * reads its own body (`bodyKind: 'own'`), so it can check something first; rejects with what they throw.
 */
export async function readBody(req: Request, res: Response, readers: RequestHandler[]): Promise<void> {
  for (const reader of readers) {
    await new Promise<void>((resolve, reject) => {
      try {
        void reader(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
      } catch (err) {
        reject(err);
      }
    });
  }
}
