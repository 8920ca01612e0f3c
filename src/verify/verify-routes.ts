import { endpoint, type RouteTable } from '../http/endpoint';
import { validationError } from '../http/errors';
import { parseAddress } from './syntax';
import { VerificationResult, VerifyRequest, VerifyResult } from './verify-dtos';
import * as docs from './verify-docs';

/** The address, refused with a 422 `invalid_string` saying why when it is not an email address. */
function checkedAddress(email: string): string {
  const syntax = parseAddress(email.trim());
  if (!syntax.valid) throw validationError([{ field: 'email', code: 'invalid_string', message: syntax.reason, received: email }]);
  return email;
}

/** `POST /v1/verify`: checks one address; secret key. */
export const verifyRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [VerifyResult, VerificationResult],
  endpoints: [
    endpoint<VerifyRequest>({
      method: 'post',
      path: '/v1/verify',
      credential: 'secret',
      body: VerifyRequest,
      doc: docs.verify,
      handle: async ({ services, body }) => ({ success: true, data: await services.verifier.verify(checkedAddress(body.email)) }),
    }),
  ],
};
