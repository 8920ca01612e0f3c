import { IsIn, IsOptional, IsString, IsUrl, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';

/** `GET /auth/oauth/{provider}`: where to land once signed in. */
export class OAuthStartQuery {
  @IsOptional() @IsString()
  @JSONSchema({
    description:
      'Where to land after signing in: a path on this deployment such as `/projects`. Anything else (an absolute or ' +
      'protocol-relative URL) is ignored in favour of `/`.',
    default: '/',
  })
  redirect?: string;
}

/** `GET /auth/oauth/{provider}/callback`: what the provider sends the browser back with. */
export class OAuthCallbackQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'The authorization code issued by the provider.' })
  code?: string;

  @IsOptional() @IsString() @JSONSchema({ description: 'Must equal the `state` remembered in the `herald_oauth_state` cookie.' })
  state?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: 'Set by the provider instead of `code` when it did not sign the user in, e.g. `access_denied`.' })
  error?: string;
}

class OAuthProviderLink {
  @IsIn(['github', 'google']) id!: string;
  @IsString() @JSONSchema({ description: 'Display name: `GitHub` or `Google`.' }) name!: string;
  @IsUrl()
  @JSONSchema({ description: "Herald's own start URL, `{PUBLIC_URL}/auth/oauth/{id}`, which redirects to the provider." })
  authorizeUrl!: string;
}

/** The configured sign-in providers. */
export class OAuthProviderList {
  @ValidateNested({ each: true }) @Type(() => OAuthProviderLink) providers!: OAuthProviderLink[];
}
