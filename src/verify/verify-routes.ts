import { IsNotEmpty, IsString } from 'class-validator';
import { Router } from 'express';
import { validationError } from '../http/errors';
import { parseBody } from '../http/validate';
import { parseAddress } from './syntax';
import type { EmailVerifier } from './verifier';

class VerifyBody {
  @IsString() @IsNotEmpty() email: string;
}

/** `POST /v1/verify`: checks one address; a string that is not an address is a 422 `invalid_string` saying why. */
export function verifyRouter(verifier: EmailVerifier): Router {
  const router = Router();

  router.post('/v1/verify', async (req, res) => {
    const { email } = parseBody(VerifyBody, req.body);
    const syntax = parseAddress(email.trim());
    if (!syntax.valid) throw validationError([{ field: 'email', code: 'invalid_string', message: syntax.reason, received: email }]);
    res.json({ success: true, data: await verifier.verify(email) });
  });

  return router;
}
