/** Who may act as one of Herald's operators from a session: an account listed in ADMIN_EMAILS whose email is verified. */
export function isOperator(adminEmails: readonly string[], user: { email: string; emailVerified: boolean }): boolean {
  return user.emailVerified && adminEmails.includes(user.email.toLowerCase());
}
