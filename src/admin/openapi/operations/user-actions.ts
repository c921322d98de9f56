import { DELETED, type Operation } from '../operation.js';

const MAIL_REFUSALS =
  '409 names why it cannot go: mail is not configured (no `SMTP_URL`), the person has no `email` claim or is disabled, ' +
  'or a limit of the self-service mails is reached (links per person and per calling address, mails per recipient address). ' +
  'The mail goes in the person\'s language: their `locale` claim when the realm offers it, else the realm\'s first. An audit event names the operator.';

/** What an operator does for a person (CONTRACT.md §16): mails sent for them, second factors removed, consents withdrawn. */
export const userActionOperations: readonly Operation[] = [
  {
    method: 'POST', path: '/admin/realms/:realm/users/:username/send-reset', operationId: 'sendPasswordReset', tag: 'Users', summary: 'Mail a user a password reset link',
    description: `The link the forgotten-password page sends (\`{issuer}/reset?ticket=…\`), valid for the realm's \`ticket_lifetime\`; only while the realm's \`password_reset\` is on. ${MAIL_REFUSALS} (\`user.password_reset_sent\`)`,
    body: { schema: 'OperatorMail', example: {} },
    responses: { 202: { description: 'The mail server took the mail' } },
    errors: [409],
  },
  {
    method: 'POST', path: '/admin/realms/:realm/users/:username/send-verification', operationId: 'sendEmailVerification', tag: 'Users', summary: 'Mail a user a link that confirms their email address',
    description: `The link that sets \`email_verified\` (\`{issuer}/verify?ticket=…\`), valid for the realm's \`ticket_lifetime\`. ${MAIL_REFUSALS} (\`user.verification_sent\`)`,
    body: { schema: 'OperatorMail', example: {} },
    responses: { 202: { description: 'The mail server took the mail' } },
    errors: [409],
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username/totp', operationId: 'removeUserTotp', tag: 'Users', summary: 'Remove a user\'s TOTP authenticator',
    description: 'Its codes stop working at once; the person may set up another. 404 when they have none. A `user.totp_removed` audit event naming the operator.',
    responses: { 204: { description: 'Removed' } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/users/:username/passkeys', operationId: 'listUserPasskeys', tag: 'Users', summary: 'List a user\'s passkeys',
    responses: { 200: { description: 'The passkeys', schema: 'UserPasskeys' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username/passkeys/:passkey', operationId: 'deleteUserPasskey', tag: 'Users', summary: 'Delete one of a user\'s passkeys',
    description: 'It signs no one in any more. 409 when it is the person\'s only way to sign in (no password, no other passkey, no linked account). ' +
      'A `user.passkey_deleted` audit event naming the operator.',
    responses: DELETED,
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/users/:username/consents', operationId: 'listUserConsents', tag: 'Users', summary: 'List the clients a user allowed',
    responses: { 200: { description: 'The consents', schema: 'UserConsents' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username/consents/:client_id', operationId: 'revokeUserConsent', tag: 'Users', summary: 'Withdraw what a user allowed a client',
    description: 'In one transaction: the consent goes, the person\'s tokens for the client are revoked (JWT access tokens denied on every instance), ' +
      'codes and device or CIBA approvals not yet collected end. The next authorization asks for consent again. A `consent.revoked` audit event naming the operator.',
    responses: { 204: { description: 'Withdrawn' } },
  },
];
