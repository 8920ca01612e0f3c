import { IsBoolean, IsIn, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';

const UP_OR_DOWN = ['up', 'down'];

/** What `GET /health` answers. */
export class Health {
  @IsIn(['ok', 'degraded']) @JSONSchema({ description: '`ok` when the database answers, else `degraded`.' })
  status!: string;

  @IsIn(UP_OR_DOWN) database!: string;

  @IsIn(UP_OR_DOWN) @JSONSchema({ description: 'Temporal being down does not fail the check: the API still accepts work.' })
  temporal!: string;
}

class PublicOAuthProviders {
  @IsBoolean() github!: boolean;
  @IsBoolean() google!: boolean;
}

class PublicFeatures {
  @IsBoolean() @JSONSchema({ description: 'False when the deployment sets `DISABLE_SIGNUPS`.' })
  signups!: boolean;

  @IsBoolean() @JSONSchema({ description: 'True when Stripe billing is configured.' })
  billing!: boolean;

  @ValidateNested() @Type(() => PublicOAuthProviders)
  @JSONSchema({ description: 'True for a provider whose client id and secret are set (see GET /auth/oauth-config).' })
  oauth!: PublicOAuthProviders;

  @IsIn(['ses', 'smtp', 'outbox'])
  @JSONSchema({ description: '`outbox` keeps every message on this server (see `GET /outbox`) instead of delivering it.' })
  transport!: string;
}

/** What `GET /config` answers: the version and the enabled features. */
export class PublicConfig {
  @IsString() @JSONSchema({ description: 'The running Herald version.' })
  version!: string;

  @ValidateNested() @Type(() => PublicFeatures)
  features!: PublicFeatures;
}
