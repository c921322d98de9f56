import { type SafeHtml, html } from '../html.js';
import { amountOf, exactDuration, roundedDuration } from './units.js';

const minutes = (count: number) => amountOf('en', 'minute', count);
const s = (count: number) => (count === 1 ? '' : 's');

/**
 * The English texts of the pages and mails: the catalogue the others follow key by key
 * (`Messages` is its type, so a text missing in another language does not compile). A text
 * that holds markup takes its variable parts as escaped markup and is built with `html`.
 */
export const en = {
  /** The `<html lang>` of a page in this language. */
  lang: 'en',

  page: {
    /** Beside the title of the sign-in and consent pages: the application the person is signing in to. */
    forClient: (client: SafeHtml) => html`to continue to ${client}`,
    /** The button after a password field that shows what was typed, and hides it again (src/pages/assets/browser/page.ts). */
    showPassword: 'Show',
    hidePassword: 'Hide',
  },

  /** The language picker every page carries (CONTRACT.md §16). */
  languages: {
    label: 'Language',
  },

  /** `GET /`: the landing page of a fresh server, for whoever opens its address in a browser. */
  landing: {
    title: 'realmgate is running',
    lead: 'This is an OAuth 2.0 and OpenID Connect authorization server. Applications sign people in through it; there is nothing to do on this page.',
    console: 'Admin console',
    consoleHint: 'Realms, clients and people. It asks for the admin token.',
    discovery: 'Discovery document of the root realm',
    discoveryHint: 'What a client library needs to use this server.',
    docs: 'Documentation',
    docsHint: (readme: SafeHtml, docs: SafeHtml) => html`In the realmgate package: ${readme} and the ${docs} folder.`,
  },

  actions: {
    allow: 'Allow',
    deny: 'Deny',
    continue: 'Continue',
    confirm: 'Confirm',
    signIn: 'Sign in',
    backToSignIn: 'Back to sign-in',
    goToAccount: 'Go to your account',
    backToAccount: 'Back to your account',
  },

  errors: {
    invalidRequest: 'Invalid request',
    fromApplication: (detail: string) => `The application sent an invalid request: ${detail}.`,
    notHandled: (detail: string) => `The request could not be handled: ${detail}.`,
    requestExpired: 'Request expired',
    requestExpiredMessage: 'This sign-in request has expired or was already completed. Return to the application and try again.',
    formExpired: 'Form expired',
    formExpiredMessage: 'The form could not be accepted. Return to the application and try again.',
    tooManyAttempts: 'Too many attempts',
    tooManyAttemptsMessage: 'Too many attempts came from your network. Wait a minute, then try again.',
    somethingWentWrong: 'Something went wrong',
    somethingWentWrongMessage: 'The service could not complete your request. Try again later.',
    notFound: 'Page not found',
    notFoundMessage: 'This page does not exist.',
    notAvailable: 'Not available',
    notAvailableMessage: 'This page is not available.',
    cannotSignIn: 'Cannot sign in',
    signInRefused: 'This sign-in was refused.',
    signInUnavailable: 'This sign-in is not available. Ask the application\u2019s administrator.',
    accountDisabled: 'This account is disabled. Ask the administrator of this service.',
    passwordChangedDuringSignIn: 'The password of this account changed while you were signing in. Go back to the application and sign in with the new password.',
    /** On an error page: the reference the server's log holds for the request, for the person to quote to support. */
    reference: (id: SafeHtml) => html`Reference for support: ${id}`,
    /** The way back to the application that sent the person here, when it and its redirect URI are registered. */
    backToApplication: (client: string) => `Back to ${client}`,
  },

  signIn: {
    titles: {
      password: 'Sign in',
      otp: 'One-time code',
      otp_enrolment: 'One-time code',
      passkey: 'Passkey',
      choice: 'Sign in',
      identity_provider: 'Sign in',
      register: 'Create an account',
      email_verification: 'Confirm your email address',
      enrolment_code: 'Check your mail',
    },
    username: 'Username',
    password: 'Password',
    forgotPassword: 'Forgot your password?',
    createAccount: 'Create an account',
    codeFromAuthenticator: 'Code from your authenticator app',
    useRecoveryCode: 'Use a recovery code',
    recoveryCode: 'Recovery code',
    verify: 'Verify',
    otpEnrolmentLead: html`<strong>Set up an authenticator app</strong>: this sign-in asks for a one-time code.`,
    chooseHow: 'How do you want to sign in?',
    providerLead: (provider: string) => `Sign in with your account at ${provider}.`,
    withProvider: (provider: string) => `Sign in with ${provider}`,
    enterUsernameAndPassword: 'Enter your username and password.',
    wrongCredentials: 'The username or password is incorrect.',
    signInFirst: 'Sign in first.',
    enterCode: 'Enter the code your authenticator app shows.',
    wrongCode: 'The code is incorrect or was already used.',
    lockedOut: (wait: number) => `Too many failed sign-in attempts. Try again in ${minutes(wait)}.`,
  },

  passkey: {
    registerLead: html`<strong>Register a passkey</strong>: this sign-in asks for one, and your account has none yet. Create it on this device, your phone or a security key.`,
    register: 'Register a passkey',
    registerNoscript: 'Registering a passkey needs JavaScript, which is turned off in this browser: this sign-in cannot go on without it.',
    secondFactorLead: 'Confirm that it is you with your passkey.',
    useYours: 'Use your passkey',
    secondFactorNoscript: 'This sign-in asks for a passkey, which needs JavaScript: it is turned off in this browser, so the sign-in cannot go on.',
    passwordlessLead: 'Sign in with a passkey saved on this device, your phone or a security key.',
    signIn: 'Sign in with a passkey',
    passwordlessNoscript: 'Signing in with a passkey needs JavaScript, which is turned off in this browser: this sign-in cannot go on without it.',
    alternativeNoscript: 'Signing in with a passkey needs JavaScript, which is turned off in this browser. Sign in with your password instead.',
    noPasskey: 'I have no passkey',
    nameLabel: 'Name of the passkey',
    namePlaceholder: 'e.g. Work laptop',
    /** Why a ceremony at the sign-in failed. */
    failures: {
      missing: 'Passkeys need JavaScript, which is turned off or not supported in this browser.',
      malformed: 'The passkey was not accepted.',
      expired: 'The passkey request expired. Try again.',
      refused: 'The passkey was not accepted.',
      duplicate: 'This passkey is registered already.',
      limit: 'You have too many passkeys.',
    },
    /** What the page's script says in the browser (src/pages/assets/browser/passkey.ts). */
    browser: {
      alreadyRegistered: 'This authenticator already holds a passkey for your account.',
      notAllowed: 'The passkey was not used: the request was cancelled or timed out. Try again.',
      failed: 'The passkey could not be used. Try again.',
      unsupported: 'This browser does not support passkeys.',
    },
  },

  oneTimeCode: {
    code: 'Code',
    enrolmentLead: 'Scan this QR code with an authenticator app, or type the secret into it, then enter the code it shows.',
    qrLabel: 'QR code of the secret',
    secret: 'Secret:',
    codeFromApp: 'Code from the app',
  },

  /** Before a first second factor is set up during a sign-in: a code mailed to the verified address (src/authn/enrolment-code.ts). */
  enrolmentCode: {
    lead: 'Before you set up a second factor, enter the code we mailed to your email address. It works only for this sign-in.',
    codeFromMail: 'Code from the mail',
    resend: 'Send a new code',
    resent: 'We mailed you a new code. Earlier codes no longer work.',
    enterCode: 'Enter the code from the mail we sent you.',
    wrongCode: 'The code is incorrect.',
    expired: 'The code no longer works: it expired or was mistyped too often. Have a new one sent.',
    tooMany: 'Too many mails were sent to you. Wait a few minutes, then try again.',
    notSent: 'The mail could not be sent. Try again later.',
  },

  emailVerification: {
    lead: 'Before you sign in, confirm your email address: open the link in the mail we sent you, then continue here.',
    resend: 'Send the mail again',
    notYet: 'Your email address is not confirmed yet: open the link in the mail we sent you, then continue.',
    resent: 'We sent you a new mail. Open its link, then continue here.',
    tooMany: 'Too many mails were sent to you. Wait a few minutes, then try again.',
    notSent: 'The mail could not be sent. Try again later.',
  },

  consent: {
    title: 'Allow access?',
    checkDeviceCode: (code: SafeHtml) => html`Check that your device shows the code ${code}.`,
    asksTo: (client: SafeHtml) => html`${client} asks to:`,
    knowSignedIn: 'Know that you signed in.',
    /** Before the resources (APIs) the access is for, each by its name (RFC 8707). */
    forResources: 'This access is for:',
    /** Before the authorization servers of other organisations for which the client may obtain ID-JAGs (CONTRACT.md §15), each by its host. */
    mayAssert: 'It may also present your sign-in to these services, to act for you there:',
    /** A client described by the metadata document at its client_id URL (draft-ietf-oauth-client-id-metadata-document §6.4): the URL's host. */
    describedAt: (host: SafeHtml) => html`This application is not registered here: it describes itself at ${host}. Allow access only if you trust ${host}.`,
    /** RFC 9396: before the entries of `authorization_details`, each its type's title and the fields a person must see. */
    inDetail: 'In detail, it asks for:',
    /** A yes-or-no value of such an entry. */
    yes: 'yes',
    no: 'no',
  },

  /** The descriptions of the built-in scopes, while a realm keeps them as they came. */
  scopes: {
    openid: 'Sign you in with your account',
    profile: 'See your name and basic profile',
    email: 'See your email address',
  },

  signOut: {
    title: 'Sign out',
    question: 'Do you want to sign out?',
    confirm: 'Sign out',
    stay: 'Stay signed in',
    stayedTitle: 'Signed in',
    stayed: 'You are still signed in.',
    doneTitle: 'Signed out',
    done: 'You are signed out.',
  },

  formPost: {
    title: 'Returning to the application',
    noScript: 'Press Continue to return to the application.',
  },

  device: {
    title: 'Connect a device',
    codeLabel: 'Enter the code shown on your device',
    tooManyWrongCodes: (wait: number) => `Too many wrong codes. Try again in ${minutes(wait)}.`,
    unknownCode: 'That code is not valid or has expired. Check the code on your device.',
    connectedTitle: 'Device connected',
    connected: 'You may now return to your device.',
    deniedTitle: 'Access denied',
    denied: 'The device was not given access. You may close this page.',
  },

  ciba: {
    title: 'Requests waiting for you',
    signedInAs: (username: SafeHtml) => html`Signed in as ${username}.`,
    none: 'No requests are waiting for you.',
    approved: 'You allowed the request. The application can now continue.',
    denied: 'You denied the request.',
    gone: 'That request has expired or was already answered.',
    /** Above the binding message, which the page shows first and large. */
    bindingLead: 'Check that the application shows exactly this:',
  },

  account: {
    title: 'Your account',
    signedInAs: (username: SafeHtml) => html`Signed in as ${username}.`,
    signInAgainFirst: (seconds: number) =>
      `You signed in more than ${exactDuration('en', seconds)} ago: to change how you sign in, you will be asked to sign in again first.`,
    sections: {
      password: 'Password',
      oneTimeCode: 'One-time code',
      passkeys: 'Passkeys',
      recoveryCodes: 'Recovery codes',
      identities: 'Linked accounts',
      applications: 'Applications',
      sessions: 'Sessions',
      profile: 'Name and email',
    },
    password: {
      current: 'Current password',
      new: 'New password',
      change: 'Change the password',
      none: 'Your account has no password: you sign in another way.',
      signsOutElsewhere: 'Changing it signs you out everywhere else.',
      changeTitle: 'Change your password',
      enterCurrent: 'Enter your current password.',
      lockedOut: (wait: number) => `Too many failed attempts. Try again in ${minutes(wait)}.`,
      wrongCurrent: 'The current password is incorrect.',
      changed: 'Your password is changed. You are signed out everywhere else.',
    },
    /** Before a first second factor is set up here: a code mailed to the verified address (src/account/enrolment-code.ts). */
    enrolmentCode: {
      lead: 'Before you set up a first second factor, enter the code we mail to your email address.',
      send: 'Mail me a code',
      confirm: 'Confirm the code',
      mailed: 'We mailed you a code. Enter it below to set up a second factor.',
      passed: 'Code confirmed: you can now set up a second factor.',
    },
    oneTimeCode: {
      setUp: (day: string) => `An authenticator app gives you one-time codes (set up on ${day}).`,
      remove: 'Remove the authenticator app',
      none: 'No authenticator app is set up.',
      enrol: 'Set up an authenticator app',
      enrolTitle: 'Set up an authenticator app',
      alreadySetUp: 'An authenticator app is already set up: remove it first to set up another.',
      nothingToConfirm: 'There is no authenticator app waiting to be confirmed.',
      confirmed: 'Your authenticator app is set up.',
      removed: 'The authenticator app was removed.',
    },
    passkeys: {
      synced: ' (synced)',
      added: (when: string) => `added ${when}`,
      lastUsed: (when: string) => `last used ${when}`,
      neverUsed: 'never used',
      delete: (name: string) => `Delete ${name}`,
      none: 'You have no passkeys.',
      signInAgainToAdd: 'Sign in again to add a passkey',
      add: 'Add a passkey',
      addNoscript: 'Adding a passkey needs JavaScript, which is turned off in this browser.',
      /** Why a passkey was not added. */
      failures: {
        missing: 'Adding a passkey needs JavaScript, which is turned off or not supported in this browser.',
        malformed: 'The passkey could not be registered.',
        expired: 'The passkey request expired. Try again.',
        refused: 'The passkey could not be registered.',
        duplicate: 'This passkey is registered already.',
        limit: (most: number) => `You have ${most} passkeys: delete one to add another.`,
      },
      addedNotice: (name: string) => `The passkey "${name}" was added.`,
      notFound: 'That passkey was not found.',
      deleted: 'The passkey was deleted.',
      onlyWay: 'The passkey was not deleted: it is your only way to sign in, as you have no password, other passkey or linked account.',
    },
    recoveryCodes: {
      noneLeft: 'You have no recovery codes left.',
      left: (count: number) => `You have ${count} unused recovery code${s(count)}. Each works once, instead of a one-time code.`,
      generate: 'Generate new codes',
      title: 'Your recovery codes',
      created: 'New recovery codes created.',
      keepSafe:
        'Keep these codes somewhere safe: they are shown only this once. Each works once, where a one-time code is asked for. Your previous codes no longer work.',
      /** To someone who never had recovery codes (or whose codes an admin removed). */
      never: 'You have no recovery codes. They let you sign in when your authenticator app is not at hand.',
      generateFirst: 'Generate recovery codes',
    },
    identities: {
      none: 'No account at another provider is linked to yours.',
      linked: (when: string) => `linked ${when}`,
      /** Told apart by the upstream's identifier when the person has two accounts at one provider. */
      account: (subject: string) => `account ${subject}`,
      unlink: (provider: string) => `Unlink ${provider}`,
      onlyWay: 'It cannot be unlinked: it is your only way to sign in, as you have no password, passkey or other linked account.',
      unlinked: (provider: string) => `${provider} is unlinked from your account: you no longer sign in with it.`,
      refusedOnlyWay: (provider: string) => `${provider} cannot be unlinked: it is your only way to sign in.`,
      notLinked: 'That linked account was not found.',
      link: (provider: string) => `Link an account at ${provider}`,
      linkedNotice: (provider: string) => `Your account at ${provider} is linked: you can sign in with it now.`,
      alreadyLinked: (provider: string) => `That account at ${provider} is linked to yours already.`,
      otherPerson: (provider: string) => `That account at ${provider} belongs to another person of this service: it was not linked to yours.`,
      linkExpired: 'The account was not linked: the request expired or was made in another session. Try again.',
    },
    applications: {
      none: 'You have not allowed any application to use your account.',
      allowed: (what: string) => `Allowed: ${what}`,
      signInOnly: 'to know that you signed in',
      revoke: 'Revoke',
      revoked: (client: string) => `${client} no longer has access to your account.`,
      nothingToRevoke: 'That application has no access to revoke.',
    },
    sessions: {
      methods: { pwd: 'password', otp: 'one-time code', hwk: 'passkey', swk: 'passkey', mfa: 'multi-factor', fed: 'another provider' } as Readonly<Record<string, string>>,
      signedIn: (when: string, methods: string, ends: string) => `Signed in ${when} with ${methods}; ends ${ends}`,
      thisBrowser: '(this browser)',
      signOut: 'Sign out',
      signedOutTitle: 'Signed out',
      signedOut: 'You are signed out of this browser.',
      ended: 'The session is signed out.',
      alreadyEnded: 'That session had already ended.',
      signOutEverywhere: 'Sign out everywhere',
      signOutEverywhereHint: 'Ends every session listed here, this browser\u2019s too.',
      signedOutEverywhere: 'You are signed out everywhere.',
    },
    /** The person's name and email address (CONTRACT.md §16). */
    profile: {
      givenName: 'First name',
      familyName: 'Last name',
      saveNames: 'Save the name',
      email: 'Email address',
      changeEmail: 'Change the email address',
      noEmail: 'No email address is set.',
      unconfirmed: 'Not confirmed yet: open the link we mailed to this address.',
      confirmed: 'Confirmed.',
      emailHint: 'A new address is used at once. It counts as confirmed only once you open the link we mail to it.',
      namesSaved: 'Your name is saved.',
      emailInvalid: 'Enter a valid email address.',
      emailUnchanged: 'That is your address already.',
      emailUnavailable: 'That email address cannot be used for your account.',
      emailChanged: 'Your email address is changed.',
      emailChangedConfirm: (address: string) => `Your email address is changed. We mailed a link to ${address}: open it to confirm the address.`,
      emailChangedNotMailed: 'Your email address is changed, but the mail that confirms it could not be sent. Try again later from the sign-in.',
      changeEmailTitle: 'Change your email address',
    },
  },

  register: {
    title: 'Create an account',
    email: 'Email address',
    givenName: 'First name (optional)',
    familyName: 'Last name (optional)',
    submit: 'Create account',
    createdTitle: 'Account created',
    created: 'Your account is created. You can now sign in.',
    createdMailSent: (email: string) => `Your account is created. We sent a mail to ${email}: open its link to confirm your email address.`,
    createdMailFailed: 'Your account is created, but the mail that confirms your email address could not be sent. When you sign in, you can have it sent again.',
    usernameInvalid: 'Choose a username of at most 255 letters, digits or . _ @ + -.',
    usernameTaken: 'This username is taken: choose another.',
    addressMailed: (email: string) => `We sent a mail to ${email}: follow it to go on.`,
    emailInvalid: 'Enter a valid email address.',
    givenNameInvalid: (most: number) => `Enter a first name of at most ${most} visible characters.`,
    familyNameInvalid: (most: number) => `Enter a last name of at most ${most} visible characters.`,
  },

  /** Why the realm's policy refuses a new password (src/authn/password-policy.ts). */
  passwordPolicy: {
    too_short: (least: number) => `The password must be at least ${least} character${s(least)}.`,
    too_long: (most: number) => `The password must be at most ${most} characters.`,
    common: 'The password is one of the most common passwords: choose another.',
    username: 'The password must not be the username.',
    email: 'The password must not be the email address.',
  },

  reset: {
    title: 'Reset your password',
    lead: 'Enter your username or email address. If it belongs to an account, we will mail a link to choose a new password.',
    nameLabel: 'Username or email address',
    send: 'Send the link',
    enterName: 'Enter your username or email address.',
    checkMailTitle: 'Check your mail',
    checkMail: (wait: number) =>
      `If this is the username or email address of an account, we sent a link to its email address. The link works once, within ${minutes(wait)}.`,
    formTitle: 'Choose a new password',
    formLead: (username: SafeHtml) => html`Choose a new password for ${username}. You will be signed out everywhere else.`,
    newPassword: 'New password',
    setPassword: 'Set the password',
    changedTitle: 'Password changed',
    changed: 'Your password is changed, and you are signed out everywhere. Sign in with your new password.',
    linkGoneTitle: 'Link not valid',
    linkGone: 'This link does not work: it was used already, or it expired. Ask for a new one.',
    askAgain: 'Reset your password',
  },

  verify: {
    confirmedTitle: 'Email address confirmed',
    confirmed: 'Your email address is confirmed. If you were signing in, return to that page and continue.',
    linkGoneTitle: 'Link not valid',
    linkGone: 'This link does not work: it was used already, or it expired. Sign in to have a new mail sent.',
  },

  /** Why a sign-in through another provider did not go on (src/identity-providers/failures.ts). */
  upstream: {
    unreachable: (provider: string) => `${provider} cannot be reached right now. Try again later, or sign in another way.`,
    denied: (provider: string) => `Signing in with ${provider} was cancelled or refused. Return to the application to try again.`,
    invalid_answer: (provider: string) =>
      `${provider} sent an answer that could not be verified, so you were not signed in. Try again later, or sign in another way.`,
    unknown_state: (_provider: string) => 'This sign-in has expired or was already completed. Return to the application and try again.',
    unknown_provider: (_provider: string) => 'This way of signing in is not available. Return to the application and try again.',
  },

  mail: {
    /** Without a username: a mail to an address not yet confirmed names none, since whoever typed the address chose it. */
    hello: (username: string | undefined) => (username === undefined ? 'Hello,' : `Hello ${username},`),
    /** The plain text part's line before the link. */
    beforeLink: (action: string) => `${action}:`,
    copyLink: 'Or copy this link into your browser:',
    expiry: (seconds: number) => `The link works once, within ${roundedDuration('en', seconds)}.`,
    codeExpiry: (seconds: number) => `The code works once, within ${roundedDuration('en', seconds)}, and only on the page that asked for it.`,
    verification: {
      subject: (realm: string) => `Confirm your email address for ${realm}`,
      lead: (realm: string) => `Please confirm that this is your email address for your new ${realm} account.`,
      action: 'Confirm your email address',
      ignore: 'If you did not create this account, ignore this mail.',
    },
    enrolmentCode: {
      subject: (realm: string) => `Your code to set up a second factor for ${realm}`,
      lead: (realm: string, username: string) => `Someone who signed in to your ${realm} account "${username}" is setting up a second factor. Enter this code on that page:`,
      ignore: 'If it was not you, do not give this code to anyone, and change your password: whoever signed in knows it.',
    },
    passwordReset: {
      subject: (realm: string) => `Reset your ${realm} password`,
      lead: (realm: string, username: string | undefined) =>
        `Someone asked to reset the password of your ${realm} account${username === undefined ? '' : ` "${username}"`}.`,
      action: 'Choose a new password',
      ignore: 'If it was not you, ignore this mail: your password stays as it is.',
    },
    addressTaken: {
      subject: (realm: string) => `Someone tried to create a ${realm} account with your email address`,
      lead: (realm: string, username: string | undefined) =>
        `Someone tried to create a new ${realm} account with this email address. It belongs to your account${username === undefined ? '' : ` "${username}"`} already, so no account was created.`,
      action: 'Go to your account',
      ignore: 'If it was you, sign in with your account (or reset its password if you forgot it). If it was not you, ignore this mail.',
    },
  },
};
