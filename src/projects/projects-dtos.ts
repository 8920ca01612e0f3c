import { Equals, IsBoolean, IsEmail, IsIn, IsString, IsUUID, Length, Matches, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { MEMBER_ROLES, type MemberRole } from '../entities/project-member';
import { IsDateTime, Nullable, Optional } from '../http/validate';
import { SETUP_STEPS } from './setup-state';

const roleProse = 'OWNER and ADMIN manage members and keys; only an OWNER deletes the project. A project always keeps an OWNER.';

/** `POST /users/@me/projects` and `PATCH /users/@me/projects/{id}`: the project's name (stored trimmed). */
export class ProjectNameBody {
  @IsString() @Length(1, 100) name!: string;
}

/** `POST /projects/{id}/members`: who to add or invite, and as what. */
export class AddMemberBody {
  @IsEmail({}, { message: 'email must be a valid email address' }) email!: string;
  @Optional() @IsIn(MEMBER_ROLES) @JSONSchema({ description: roleProse, default: 'MEMBER' }) role?: MemberRole;
}

/** `PATCH /projects/{id}/members/{userId}`: the member's new role. */
export class ChangeMemberRoleBody {
  @IsIn(MEMBER_ROLES) @JSONSchema({ description: roleProse }) role!: MemberRole;
}

/** A project as its members see it. */
export class Project {
  @IsUUID() id!: string;
  @IsString() @Length(1, 100) name!: string;
  @IsString() @JSONSchema({ description: 'The start of the public key, for recognising it.' }) publicKeyPrefix!: string;
  @IsString() @JSONSchema({ description: 'The start of the secret key, for recognising it.' }) secretKeyPrefix!: string;
  @IsIn(MEMBER_ROLES) @JSONSchema({ description: "The signed-in user's role in the project." }) role!: MemberRole;
  @IsBoolean() @JSONSchema({ description: 'A disabled project is refused on every API endpoint (403 `PROJECT_DISABLED`).' })
  disabled!: boolean;
  @Nullable() @IsString() disabledReason!: string | null;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

/** A project with its two API keys in full. Herald stores only their hashes: this is the one time they are shown. */
@JSONSchema({ description: 'A project with its two API keys in full. Herald stores only their hashes: this is the one time they are shown.' })
export class ProjectWithKeys extends Project {
  @Matches(/^pk_[A-Za-z0-9]{32,}$/) @JSONSchema({ description: 'Allowed only on `POST /v1/track`.' }) publicKey!: string;
  @Matches(/^sk_[A-Za-z0-9]{32,}$/) @JSONSchema({ description: 'Allowed on every API endpoint.' }) secretKey!: string;
}

/** A member of a project. */
export class Member {
  @IsUUID() userId!: string;
  @IsEmail() email!: string;
  @IsIn(MEMBER_ROLES) role!: MemberRole;
  @IsDateTime() createdAt!: Date;
}

/** A pending invitation. */
@JSONSchema({
  description:
    'A pending invitation. It becomes a membership when an account verifies this email address (by the emailed link, a ' +
    'password reset or a GitHub/Google sign-in); until then the account sees nothing of the project.',
})
export class Invite {
  @IsUUID() id!: string;
  @IsEmail() email!: string;
  @IsIn(MEMBER_ROLES) role!: MemberRole;
  @IsDateTime() createdAt!: Date;
  @IsIn(['SIGNUP', 'VERIFICATION'])
  @JSONSchema({ description: '`SIGNUP`: no account has this email yet; `VERIFICATION`: an account has it, but has not verified it.' })
  waitingFor!: 'SIGNUP' | 'VERIFICATION';
}

/** A project's members and pending invites. */
export class ProjectMembers {
  @ValidateNested({ each: true }) @Type(() => Member) members!: Member[];
  @ValidateNested({ each: true }) @Type(() => Invite) invites!: Invite[];
}

class SetupStep {
  @IsIn(SETUP_STEPS.map((step) => step.id)) id!: string;
  @IsString() title!: string;
  @IsBoolean() done!: boolean;
}

/** A project's onboarding checklist. */
export class SetupState {
  @ValidateNested({ each: true }) @Type(() => SetupStep)
  @JSONSchema({
    description:
      'Every onboarding step, in order, each read from the stored records: a VERIFIED domain, any contact, an email ' +
      'actually sent (`sentAt` set, not merely queued), a campaign SENDING or SENT, a member or pending invite besides the owner.',
  })
  steps!: SetupStep[];

  @IsBoolean() @JSONSchema({ description: 'True when every step is done.' }) completed!: boolean;
}

class ApiKeyProject {
  @IsUUID() projectId!: string;
  @IsString() projectName!: string;
  @IsIn(['secret']) keyKind!: string;
}

/** `GET /v1/api-key`: the project the secret key belongs to. */
export class ApiKeyCheck {
  @Equals(true) success!: true;
  @ValidateNested() @Type(() => ApiKeyProject) data!: ApiKeyProject;
}
