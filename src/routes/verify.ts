import { IsNotEmpty, IsString } from 'class-validator';
import { Router } from 'express';
import { parseBody } from '../http/validate';
import type { EmailVerifier } from '../verify/verifier';

class VerifyBody {
  @IsString() @IsNotEmpty() email: string;
}

/** `POST /v1/verify`: checks one address; a malformed address is a 200 with `valid: false`, not a 422. */
export function verifyRouter(verifier: EmailVerifier): Router {
  const router = Router();

  router.post('/v1/verify', async (req, res) => {
    const { email } = parseBody(VerifyBody, req.body);
    res.json({ success: true, data: await verifier.verify(email) });
  });

  return router;
}
