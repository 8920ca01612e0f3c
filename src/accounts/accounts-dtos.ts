import { IsBoolean, IsEmail, IsNotEmpty, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsDateTime } from '../http/validate';

const emailMessage = { message: 'email must be a valid email address' };
const passwordProse = { description: '8 to 256 characters.' };

/** `POST /auth/signup`: a valid address and a password of 8 to 256 characters. */
export class SignupBody {
  @IsEmail({}, emailMessage) email!: string;
  @IsString() @MinLength(8) @MaxLength(256) @JSONSchema(passwordProse) password!: string;
}

/** `POST /auth/login`: any non-empty email and password (a wrong pair is a 401, not a 422). */
export class LoginBody {
  @IsString() @IsNotEmpty() email!: string;
  @IsString() @IsNotEmpty() password!: string;
}

/** `POST /auth/request-verification` and `/auth/request-password-reset`: the address to mail. */
export class AccountEmailBody {
  @IsEmail({}, emailMessage) email!: string;
}

/** `POST /auth/verify-email`: the token from the verification email. */
export class VerifyEmailBody {
  @IsString() @IsNotEmpty() token!: string;
}

/** `POST /auth/reset-password`: the token from the reset email and the new password. */
export class ResetPasswordBody extends VerifyEmailBody {
  @IsString() @MinLength(8) @MaxLength(256) @JSONSchema(passwordProse) password!: string;
}

/** A dashboard account, as the auth and users endpoints answer it. */
export class User {
  @IsUUID() id!: string;
  @IsEmail() email!: string;
  @IsBoolean() emailVerified!: boolean;
  @IsDateTime() createdAt!: Date;
}
