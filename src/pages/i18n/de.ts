import { type SafeHtml, html } from '../html.js';
import type { Messages } from './messages.js';
import { amountOf, exactDuration, roundedDuration } from './units.js';

const minutes = (count: number) => amountOf('de', 'minute', count);

/** The German texts (formal "Sie"), key by key as src/pages/i18n/en.ts. */
export const de: Messages = {
  lang: 'de',

  page: {
    forClient: (client: SafeHtml) => html`weiter zu ${client}`,
  },

  /** The language picker every page carries (CONTRACT.md §16). */
  languages: {
    label: 'Sprache',
  },

  landing: {
    title: 'realmgate läuft',
    lead: 'Dies ist ein OAuth-2.0- und OpenID-Connect-Autorisierungsserver. Anwendungen melden Personen über ihn an; auf dieser Seite ist nichts zu tun.',
    console: 'Admin-Konsole',
    consoleHint: 'Realms, Clients und Personen. Sie fragt nach dem Admin-Token.',
    discovery: 'Discovery-Dokument des Root-Realms',
    discoveryHint: 'Was eine Client-Bibliothek braucht, um diesen Server zu nutzen.',
    docs: 'Dokumentation',
    docsHint: (readme: SafeHtml, docs: SafeHtml) => html`Im realmgate-Paket: ${readme} und der Ordner ${docs}.`,
  },

  actions: {
    allow: 'Erlauben',
    deny: 'Ablehnen',
    continue: 'Weiter',
    confirm: 'Bestätigen',
    signIn: 'Anmelden',
    backToSignIn: 'Zurück zur Anmeldung',
    goToAccount: 'Zu Ihrem Konto',
    backToAccount: 'Zurück zu Ihrem Konto',
  },

  errors: {
    invalidRequest: 'Ungültige Anfrage',
    fromApplication: (detail: string) => `Die Anwendung hat eine ungültige Anfrage gesendet: ${detail}.`,
    notHandled: (detail: string) => `Die Anfrage konnte nicht bearbeitet werden: ${detail}.`,
    requestExpired: 'Anfrage abgelaufen',
    requestExpiredMessage: 'Diese Anmeldeanfrage ist abgelaufen oder wurde bereits abgeschlossen. Kehren Sie zur Anwendung zurück und versuchen Sie es erneut.',
    formExpired: 'Formular abgelaufen',
    formExpiredMessage: 'Das Formular konnte nicht angenommen werden. Kehren Sie zur Anwendung zurück und versuchen Sie es erneut.',
    tooManyAttempts: 'Zu viele Versuche',
    tooManyAttemptsMessage: 'Aus Ihrem Netzwerk kamen zu viele Versuche. Warten Sie eine Minute und versuchen Sie es dann erneut.',
    somethingWentWrong: 'Etwas ist schiefgelaufen',
    somethingWentWrongMessage: 'Der Dienst konnte Ihre Anfrage nicht abschließen. Versuchen Sie es später erneut.',
    notFound: 'Seite nicht gefunden',
    notFoundMessage: 'Diese Seite gibt es nicht.',
    notAvailable: 'Nicht verfügbar',
    notAvailableMessage: 'Diese Seite ist nicht verfügbar.',
    cannotSignIn: 'Anmeldung nicht möglich',
    signInRefused: 'Diese Anmeldung wurde abgelehnt.',
    signInUnavailable: 'Diese Anmeldung ist nicht verfügbar. Wenden Sie sich an die Administration der Anwendung.',
    accountDisabled: 'Dieses Konto ist deaktiviert. Wenden Sie sich an die Administration dieses Dienstes.',
    passwordChangedDuringSignIn: 'Das Passwort dieses Kontos wurde während Ihrer Anmeldung geändert. Kehren Sie zur Anwendung zurück und melden Sie sich mit dem neuen Passwort an.',
  },

  signIn: {
    titles: {
      password: 'Anmelden',
      otp: 'Einmalcode',
      otp_enrolment: 'Einmalcode',
      passkey: 'Passkey',
      choice: 'Anmelden',
      identity_provider: 'Anmelden',
      register: 'Konto erstellen',
      email_verification: 'E-Mail-Adresse bestätigen',
      enrolment_code: 'Prüfen Sie Ihre E-Mails',
    },
    username: 'Benutzername',
    password: 'Passwort',
    forgotPassword: 'Passwort vergessen?',
    createAccount: 'Konto erstellen',
    codeFromAuthenticator: 'Code aus Ihrer Authenticator-App',
    useRecoveryCode: 'Wiederherstellungscode verwenden',
    recoveryCode: 'Wiederherstellungscode',
    verify: 'Prüfen',
    otpEnrolmentLead: html`<strong>Authenticator-App einrichten</strong>: Für diese Anmeldung ist ein Einmalcode erforderlich.`,
    chooseHow: 'Wie möchten Sie sich anmelden?',
    providerLead: (provider: string) => `Melden Sie sich mit Ihrem Konto bei ${provider} an.`,
    withProvider: (provider: string) => `Mit ${provider} anmelden`,
    enterUsernameAndPassword: 'Geben Sie Ihren Benutzernamen und Ihr Passwort ein.',
    wrongCredentials: 'Benutzername oder Passwort ist falsch.',
    signInFirst: 'Melden Sie sich zuerst an.',
    enterCode: 'Geben Sie den Code ein, den Ihre Authenticator-App anzeigt.',
    wrongCode: 'Der Code ist falsch oder wurde bereits verwendet.',
    lockedOut: (wait: number) => `Zu viele fehlgeschlagene Anmeldeversuche. Versuchen Sie es in ${minutes(wait)} erneut.`,
  },

  passkey: {
    registerLead: html`<strong>Passkey registrieren</strong>: Für diese Anmeldung ist ein Passkey erforderlich, und Ihr Konto hat noch keinen. Erstellen Sie ihn auf diesem Gerät, Ihrem Smartphone oder einem Sicherheitsschlüssel.`,
    register: 'Passkey registrieren',
    registerNoscript: 'Zum Registrieren eines Passkeys wird JavaScript benötigt, das in diesem Browser deaktiviert ist. Ohne JavaScript kann diese Anmeldung nicht fortgesetzt werden.',
    secondFactorLead: 'Bestätigen Sie mit Ihrem Passkey, dass Sie es sind.',
    useYours: 'Passkey verwenden',
    secondFactorNoscript: 'Für diese Anmeldung ist ein Passkey erforderlich, der JavaScript benötigt. JavaScript ist in diesem Browser deaktiviert, daher kann die Anmeldung nicht fortgesetzt werden.',
    passwordlessLead: 'Melden Sie sich mit einem Passkey an, der auf diesem Gerät, Ihrem Smartphone oder einem Sicherheitsschlüssel gespeichert ist.',
    signIn: 'Mit Passkey anmelden',
    passwordlessNoscript: 'Die Anmeldung mit einem Passkey benötigt JavaScript, das in diesem Browser deaktiviert ist. Ohne JavaScript kann diese Anmeldung nicht fortgesetzt werden.',
    alternativeNoscript: 'Die Anmeldung mit einem Passkey benötigt JavaScript, das in diesem Browser deaktiviert ist. Melden Sie sich stattdessen mit Ihrem Passwort an.',
    noPasskey: 'Ich habe keinen Passkey',
    nameLabel: 'Name des Passkeys',
    namePlaceholder: 'z. B. Arbeitslaptop',
    failures: {
      missing: 'Passkeys benötigen JavaScript, das in diesem Browser deaktiviert ist oder nicht unterstützt wird.',
      malformed: 'Der Passkey wurde nicht akzeptiert.',
      expired: 'Die Passkey-Anfrage ist abgelaufen. Versuchen Sie es erneut.',
      refused: 'Der Passkey wurde nicht akzeptiert.',
      duplicate: 'Dieser Passkey ist bereits registriert.',
      limit: 'Sie haben zu viele Passkeys.',
    },
    browser: {
      alreadyRegistered: 'Dieser Authenticator enthält bereits einen Passkey für Ihr Konto.',
      notAllowed: 'Der Passkey wurde nicht verwendet: Die Anfrage wurde abgebrochen oder ist abgelaufen. Versuchen Sie es erneut.',
      failed: 'Der Passkey konnte nicht verwendet werden. Versuchen Sie es erneut.',
      unsupported: 'Dieser Browser unterstützt keine Passkeys.',
    },
  },

  oneTimeCode: {
    code: 'Code',
    enrolmentLead: 'Scannen Sie diesen QR-Code mit einer Authenticator-App oder geben Sie den geheimen Schlüssel dort ein. Geben Sie dann den angezeigten Code ein.',
    qrLabel: 'QR-Code des geheimen Schlüssels',
    secret: 'Geheimer Schlüssel:',
    codeFromApp: 'Code aus der App',
  },

  enrolmentCode: {
    lead: 'Bevor Sie einen zweiten Faktor einrichten, geben Sie den Code ein, den wir an Ihre E-Mail-Adresse gesendet haben. Er gilt nur für diese Anmeldung.',
    codeFromMail: 'Code aus der E-Mail',
    resend: 'Neuen Code senden',
    resent: 'Wir haben Ihnen einen neuen Code gesendet. Frühere Codes gelten nicht mehr.',
    enterCode: 'Geben Sie den Code aus der E-Mail ein, die wir Ihnen gesendet haben.',
    wrongCode: 'Der Code ist falsch.',
    expired: 'Der Code gilt nicht mehr: Er ist abgelaufen oder wurde zu oft falsch eingegeben. Lassen Sie sich einen neuen senden.',
    tooMany: 'Es wurden zu viele E-Mails an Sie gesendet. Warten Sie einige Minuten und versuchen Sie es dann erneut.',
    notSent: 'Die E-Mail konnte nicht gesendet werden. Versuchen Sie es später erneut.',
  },

  emailVerification: {
    lead: 'Bestätigen Sie vor der Anmeldung Ihre E-Mail-Adresse: Öffnen Sie den Link in der E-Mail, die wir Ihnen gesendet haben, und fahren Sie dann hier fort.',
    resend: 'E-Mail erneut senden',
    notYet: 'Ihre E-Mail-Adresse ist noch nicht bestätigt: Öffnen Sie den Link in der E-Mail, die wir Ihnen gesendet haben, und fahren Sie dann fort.',
    resent: 'Wir haben Ihnen eine neue E-Mail gesendet. Öffnen Sie den Link darin und fahren Sie dann hier fort.',
    tooMany: 'Es wurden zu viele E-Mails an Sie gesendet. Warten Sie einige Minuten und versuchen Sie es dann erneut.',
    notSent: 'Die E-Mail konnte nicht gesendet werden. Versuchen Sie es später erneut.',
  },

  consent: {
    title: 'Zugriff erlauben?',
    checkDeviceCode: (code: SafeHtml) => html`Prüfen Sie, ob Ihr Gerät den Code ${code} anzeigt.`,
    scope: (name: SafeHtml, description: string) => html`${name}: ${description}`,
    asksTo: (client: SafeHtml) => html`${client} möchte:`,
    knowSignedIn: 'Wissen, dass Sie sich angemeldet haben.',
    forResources: 'Dieser Zugriff gilt für:',
    mayAssert: (client: SafeHtml) => html`${client} darf Ihre Anmeldung außerdem diesen Diensten vorlegen, um dort für Sie zu handeln:`,
    describedAt: (host: SafeHtml) => html`Diese Anwendung ist hier nicht registriert: Sie beschreibt sich selbst unter ${host}. Erlauben Sie den Zugriff nur, wenn Sie ${host} vertrauen.`,
    inDetail: 'Im Einzelnen verlangt sie:',
    yes: 'ja',
    no: 'nein',
  },

  scopes: {
    openid: 'Sie mit Ihrem Konto anmelden',
    profile: 'Ihren Namen und Ihr Basisprofil sehen',
    email: 'Ihre E-Mail-Adresse sehen',
  },

  signOut: {
    title: 'Abmelden',
    question: 'Möchten Sie sich abmelden?',
    confirm: 'Abmelden',
    stay: 'Angemeldet bleiben',
    stayedTitle: 'Angemeldet',
    stayed: 'Sie sind weiterhin angemeldet.',
    doneTitle: 'Abgemeldet',
    done: 'Sie sind abgemeldet.',
  },

  formPost: {
    title: 'Zurück zur Anwendung',
    noScript: 'Klicken Sie auf Weiter, um zur Anwendung zurückzukehren.',
  },

  device: {
    title: 'Gerät verbinden',
    codeLabel: 'Geben Sie den Code ein, den Ihr Gerät anzeigt',
    tooManyWrongCodes: (wait: number) => `Zu viele falsche Codes. Versuchen Sie es in ${minutes(wait)} erneut.`,
    unknownCode: 'Dieser Code ist ungültig oder abgelaufen. Prüfen Sie den Code auf Ihrem Gerät.',
    connectedTitle: 'Gerät verbunden',
    connected: 'Sie können jetzt zu Ihrem Gerät zurückkehren.',
    deniedTitle: 'Zugriff verweigert',
    denied: 'Das Gerät hat keinen Zugriff erhalten. Sie können diese Seite schließen.',
  },

  ciba: {
    title: 'Anfragen, die auf Sie warten',
    signedInAs: (username: SafeHtml) => html`Angemeldet als ${username}.`,
    checkBindingMessage: (message: SafeHtml) => html`Prüfen Sie, ob die Anwendung Folgendes anzeigt: ${message}`,
    none: 'Es warten keine Anfragen auf Sie.',
    approved: 'Sie haben die Anfrage erlaubt. Die Anwendung kann jetzt fortfahren.',
    denied: 'Sie haben die Anfrage abgelehnt.',
    gone: 'Diese Anfrage ist abgelaufen oder wurde bereits beantwortet.',
  },

  account: {
    title: 'Ihr Konto',
    signedInAs: (username: SafeHtml) => html`Angemeldet als ${username}.`,
    signInAgainFirst: (seconds: number) =>
      `Sie haben sich vor mehr als ${exactDuration('de', seconds)} angemeldet: Bevor Sie ändern, wie Sie sich anmelden, werden Sie gebeten, sich erneut anzumelden.`,
    sections: {
      password: 'Passwort',
      oneTimeCode: 'Einmalcode',
      passkeys: 'Passkeys',
      recoveryCodes: 'Wiederherstellungscodes',
      identities: 'Verknüpfte Konten',
      applications: 'Anwendungen',
      sessions: 'Sitzungen',
    },
    password: {
      current: 'Aktuelles Passwort',
      new: 'Neues Passwort',
      change: 'Passwort ändern',
      none: 'Ihr Konto hat kein Passwort: Sie melden sich auf andere Weise an.',
      signsOutElsewhere: 'Wenn Sie es ändern, werden Sie überall sonst abgemeldet.',
      changeTitle: 'Passwort ändern',
      enterCurrent: 'Geben Sie Ihr aktuelles Passwort ein.',
      lockedOut: (wait: number) => `Zu viele fehlgeschlagene Versuche. Versuchen Sie es in ${minutes(wait)} erneut.`,
      wrongCurrent: 'Das aktuelle Passwort ist falsch.',
      changed: 'Ihr Passwort wurde geändert. Sie wurden überall sonst abgemeldet.',
    },
    /** Before a first second factor is set up here: a code mailed to the verified address (src/account/enrolment-code.ts). */
    enrolmentCode: {
      lead: 'Bevor Sie einen ersten zweiten Faktor einrichten, geben Sie den Code ein, den wir an Ihre E-Mail-Adresse senden.',
      send: 'Code per E-Mail senden',
      confirm: 'Code bestätigen',
      mailed: 'Wir haben Ihnen einen Code gesendet. Geben Sie ihn unten ein, um einen zweiten Faktor einzurichten.',
      passed: 'Code bestätigt: Sie können jetzt einen zweiten Faktor einrichten.',
    },
    oneTimeCode: {
      setUp: (day: string) => `Eine Authenticator-App liefert Ihnen Einmalcodes (eingerichtet am ${day}).`,
      remove: 'Authenticator-App entfernen',
      none: 'Es ist keine Authenticator-App eingerichtet.',
      enrol: 'Authenticator-App einrichten',
      enrolTitle: 'Authenticator-App einrichten',
      alreadySetUp: 'Eine Authenticator-App ist bereits eingerichtet: Entfernen Sie sie zuerst, um eine andere einzurichten.',
      nothingToConfirm: 'Es wartet keine Authenticator-App auf Bestätigung.',
      confirmed: 'Ihre Authenticator-App ist eingerichtet.',
      removed: 'Die Authenticator-App wurde entfernt.',
    },
    passkeys: {
      synced: ' (synchronisiert)',
      added: (when: string) => `hinzugefügt am ${when}`,
      lastUsed: (when: string) => `zuletzt verwendet am ${when}`,
      neverUsed: 'nie verwendet',
      delete: (name: string) => `${name} löschen`,
      none: 'Sie haben keine Passkeys.',
      signInAgainToAdd: 'Erneut anmelden, um einen Passkey hinzuzufügen',
      add: 'Passkey hinzufügen',
      addNoscript: 'Zum Hinzufügen eines Passkeys wird JavaScript benötigt, das in diesem Browser deaktiviert ist.',
      failures: {
        missing: 'Zum Hinzufügen eines Passkeys wird JavaScript benötigt, das in diesem Browser deaktiviert ist oder nicht unterstützt wird.',
        malformed: 'Der Passkey konnte nicht registriert werden.',
        expired: 'Die Passkey-Anfrage ist abgelaufen. Versuchen Sie es erneut.',
        refused: 'Der Passkey konnte nicht registriert werden.',
        duplicate: 'Dieser Passkey ist bereits registriert.',
        limit: (most: number) => `Sie haben ${most} Passkeys: Löschen Sie einen, um einen weiteren hinzuzufügen.`,
      },
      addedNotice: (name: string) => `Der Passkey „${name}“ wurde hinzugefügt.`,
      notFound: 'Dieser Passkey wurde nicht gefunden.',
      deleted: 'Der Passkey wurde gelöscht.',
      onlyWay:
        'Der Passkey wurde nicht gelöscht: Er ist Ihre einzige Möglichkeit, sich anzumelden, da Sie kein Passwort, keinen weiteren Passkey und kein verknüpftes Konto haben.',
    },
    recoveryCodes: {
      noneLeft: 'Sie haben keine Wiederherstellungscodes mehr.',
      left: (count: number) =>
        count === 1
          ? 'Sie haben 1 unbenutzten Wiederherstellungscode. Er funktioniert einmal anstelle eines Einmalcodes.'
          : `Sie haben ${count} unbenutzte Wiederherstellungscodes. Jeder funktioniert einmal anstelle eines Einmalcodes.`,
      generate: 'Neue Codes erzeugen',
      title: 'Ihre Wiederherstellungscodes',
      created: 'Neue Wiederherstellungscodes wurden erstellt.',
      keepSafe:
        'Bewahren Sie diese Codes sicher auf: Sie werden nur dieses eine Mal angezeigt. Jeder Code funktioniert einmal, wenn ein Einmalcode verlangt wird. Ihre bisherigen Codes sind nicht mehr gültig.',
    },
    identities: {
      none: 'Mit Ihrem Konto ist kein Konto bei einem anderen Anbieter verknüpft.',
      linked: (when: string) => `verknüpft am ${when}`,
      account: (subject: string) => `Konto ${subject}`,
      unlink: (provider: string) => `Verknüpfung mit ${provider} aufheben`,
      onlyWay:
        'Die Verknüpfung kann nicht aufgehoben werden: Sie ist Ihre einzige Möglichkeit, sich anzumelden, da Sie kein Passwort, keinen Passkey und kein anderes verknüpftes Konto haben.',
      unlinked: (provider: string) => `Die Verknüpfung mit ${provider} wurde aufgehoben: Sie melden sich nicht mehr darüber an.`,
      refusedOnlyWay: (provider: string) => `Die Verknüpfung mit ${provider} kann nicht aufgehoben werden: Sie ist Ihre einzige Möglichkeit, sich anzumelden.`,
      notLinked: 'Dieses verknüpfte Konto wurde nicht gefunden.',
      link: (provider: string) => `Konto bei ${provider} verknüpfen`,
      linkedNotice: (provider: string) => `Ihr Konto bei ${provider} ist verknüpft: Sie können sich jetzt damit anmelden.`,
      alreadyLinked: (provider: string) => `Dieses Konto bei ${provider} ist bereits mit Ihrem verknüpft.`,
      otherPerson: (provider: string) => `Dieses Konto bei ${provider} gehört einer anderen Person dieses Dienstes: Es wurde nicht mit Ihrem verknüpft.`,
      linkExpired: 'Das Konto wurde nicht verknüpft: Die Anfrage ist abgelaufen oder stammt aus einer anderen Sitzung. Versuchen Sie es erneut.',
    },
    applications: {
      none: 'Sie haben keiner Anwendung erlaubt, Ihr Konto zu verwenden.',
      allowed: (what: string) => `Erlaubt: ${what}`,
      signInOnly: 'wissen, dass Sie sich angemeldet haben',
      revoke: 'Widerrufen',
      revoked: (client: string) => `${client} hat keinen Zugriff mehr auf Ihr Konto.`,
      nothingToRevoke: 'Diese Anwendung hat keinen Zugriff, der widerrufen werden könnte.',
    },
    sessions: {
      methods: { pwd: 'Passwort', otp: 'Einmalcode', hwk: 'Passkey', swk: 'Passkey', mfa: 'mehreren Faktoren', fed: 'einem anderen Anbieter' },
      signedIn: (when: string, methods: string, ends: string) => `Angemeldet am ${when} mit ${methods}; endet am ${ends}`,
      thisBrowser: '(dieser Browser)',
      signOut: 'Abmelden',
      signedOutTitle: 'Abgemeldet',
      signedOut: 'Sie sind in diesem Browser abgemeldet.',
      ended: 'Die Sitzung wurde abgemeldet.',
      alreadyEnded: 'Diese Sitzung war bereits beendet.',
    },
  },

  register: {
    title: 'Konto erstellen',
    email: 'E-Mail-Adresse',
    givenName: 'Vorname (optional)',
    familyName: 'Nachname (optional)',
    submit: 'Konto erstellen',
    createdTitle: 'Konto erstellt',
    created: 'Ihr Konto wurde erstellt. Sie können sich jetzt anmelden.',
    createdMailSent: (email: string) =>
      `Ihr Konto wurde erstellt. Wir haben eine E-Mail an ${email} gesendet: Öffnen Sie den Link darin, um Ihre E-Mail-Adresse zu bestätigen.`,
    createdMailFailed:
      'Ihr Konto wurde erstellt, aber die E-Mail zur Bestätigung Ihrer E-Mail-Adresse konnte nicht gesendet werden. Bei der Anmeldung können Sie sie erneut anfordern.',
    usernameInvalid: 'Wählen Sie einen Benutzernamen aus höchstens 255 Buchstaben, Ziffern oder . _ @ + -.',
    addressMailed: (email: string) => `Wir haben eine E-Mail an ${email} gesendet: Folgen Sie ihr, um fortzufahren.`,
    usernameTaken: 'Dieser Benutzername ist vergeben: Wählen Sie einen anderen.',
    emailInvalid: 'Geben Sie eine gültige E-Mail-Adresse ein.',
    givenNameInvalid: (most: number) => `Geben Sie einen Vornamen mit höchstens ${most} sichtbaren Zeichen ein.`,
    familyNameInvalid: (most: number) => `Geben Sie einen Nachnamen mit höchstens ${most} sichtbaren Zeichen ein.`,
  },

  passwordPolicy: {
    too_short: (least: number) => `Das Passwort muss mindestens ${least} Zeichen lang sein.`,
    too_long: (most: number) => `Das Passwort darf höchstens ${most} Zeichen lang sein.`,
    common: 'Das Passwort gehört zu den häufigsten Passwörtern: Wählen Sie ein anderes.',
    username: 'Das Passwort darf nicht der Benutzername sein.',
    email: 'Das Passwort darf nicht die E-Mail-Adresse sein.',
  },

  reset: {
    title: 'Passwort zurücksetzen',
    lead: 'Geben Sie Ihren Benutzernamen oder Ihre E-Mail-Adresse ein. Gehört die Angabe zu einem Konto, senden wir Ihnen per E-Mail einen Link, mit dem Sie ein neues Passwort wählen können.',
    nameLabel: 'Benutzername oder E-Mail-Adresse',
    send: 'Link senden',
    enterName: 'Geben Sie Ihren Benutzernamen oder Ihre E-Mail-Adresse ein.',
    checkMailTitle: 'Prüfen Sie Ihre E-Mails',
    checkMail: (wait: number) =>
      `Wenn dies der Benutzername oder die E-Mail-Adresse eines Kontos ist, haben wir einen Link an dessen E-Mail-Adresse gesendet. Der Link funktioniert einmal innerhalb von ${minutes(wait)}.`,
    formTitle: 'Neues Passwort wählen',
    formLead: (username: SafeHtml) => html`Wählen Sie ein neues Passwort für ${username}. Sie werden überall sonst abgemeldet.`,
    newPassword: 'Neues Passwort',
    setPassword: 'Passwort festlegen',
    changedTitle: 'Passwort geändert',
    changed: 'Ihr Passwort wurde geändert, und Sie wurden überall abgemeldet. Melden Sie sich mit Ihrem neuen Passwort an.',
    linkGoneTitle: 'Link ungültig',
    linkGone: 'Dieser Link funktioniert nicht: Er wurde bereits verwendet oder ist abgelaufen. Fordern Sie einen neuen an.',
    askAgain: 'Passwort zurücksetzen',
  },

  verify: {
    confirmedTitle: 'E-Mail-Adresse bestätigt',
    confirmed: 'Ihre E-Mail-Adresse ist bestätigt. Wenn Sie gerade dabei waren, sich anzumelden, kehren Sie zu dieser Seite zurück und fahren Sie fort.',
    linkGoneTitle: 'Link ungültig',
    linkGone: 'Dieser Link funktioniert nicht: Er wurde bereits verwendet oder ist abgelaufen. Melden Sie sich an, um eine neue E-Mail zu erhalten.',
  },

  upstream: {
    unreachable: (provider: string) => `${provider} ist gerade nicht erreichbar. Versuchen Sie es später erneut oder melden Sie sich auf andere Weise an.`,
    denied: (provider: string) => `Die Anmeldung mit ${provider} wurde abgebrochen oder abgelehnt. Kehren Sie zur Anwendung zurück, um es erneut zu versuchen.`,
    invalid_answer: (provider: string) =>
      `${provider} hat eine Antwort gesendet, die nicht überprüft werden konnte, daher wurden Sie nicht angemeldet. Versuchen Sie es später erneut oder melden Sie sich auf andere Weise an.`,
    unknown_state: (_provider: string) => 'Diese Anmeldung ist abgelaufen oder wurde bereits abgeschlossen. Kehren Sie zur Anwendung zurück und versuchen Sie es erneut.',
    unknown_provider: (_provider: string) => 'Diese Art der Anmeldung ist nicht verfügbar. Kehren Sie zur Anwendung zurück und versuchen Sie es erneut.',
  },

  mail: {
    hello: (username: string | undefined) => (username === undefined ? 'Guten Tag,' : `Guten Tag ${username},`),
    beforeLink: (action: string) => `${action}:`,
    copyLink: 'Oder kopieren Sie diesen Link in Ihren Browser:',
    expiry: (seconds: number) => `Der Link funktioniert einmal innerhalb von ${roundedDuration('de', seconds)}.`,
    codeExpiry: (seconds: number) => `Der Code funktioniert einmal innerhalb von ${roundedDuration('de', seconds)} und nur auf der Seite, die ihn angefordert hat.`,
    verification: {
      subject: (realm: string) => `Bestätigen Sie Ihre E-Mail-Adresse für ${realm}`,
      lead: (realm: string) => `Bitte bestätigen Sie, dass dies die E-Mail-Adresse Ihres neuen Kontos bei ${realm} ist.`,
      action: 'E-Mail-Adresse bestätigen',
      ignore: 'Wenn Sie dieses Konto nicht erstellt haben, ignorieren Sie diese E-Mail.',
    },
    enrolmentCode: {
      subject: (realm: string) => `Ihr Code zum Einrichten eines zweiten Faktors für ${realm}`,
      lead: (realm: string, username: string) => `Jemand, der sich bei Ihrem Konto „${username}“ bei ${realm} angemeldet hat, richtet einen zweiten Faktor ein. Geben Sie diesen Code auf jener Seite ein:`,
      ignore: 'Wenn Sie das nicht waren, geben Sie diesen Code niemandem weiter und ändern Sie Ihr Passwort: Wer sich angemeldet hat, kennt es.',
    },
    passwordReset: {
      subject: (realm: string) => `Setzen Sie Ihr Passwort für ${realm} zurück`,
      lead: (realm: string, username: string | undefined) =>
        `Jemand hat angefordert, das Passwort Ihres Kontos${username === undefined ? '' : ` „${username}“`} bei ${realm} zurückzusetzen.`,
      action: 'Neues Passwort wählen',
      ignore: 'Wenn Sie das nicht waren, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.',
    },
    addressTaken: {
      subject: (realm: string) => `Jemand wollte mit Ihrer E-Mail-Adresse ein Konto bei ${realm} erstellen`,
      lead: (realm: string, username: string | undefined) =>
        `Jemand wollte mit dieser E-Mail-Adresse ein neues Konto bei ${realm} erstellen. Sie gehört bereits zu Ihrem Konto${username === undefined ? '' : ` „${username}“`}, daher wurde kein Konto erstellt.`,
      action: 'Zu Ihrem Konto',
      ignore: 'Wenn Sie das waren, melden Sie sich mit Ihrem Konto an (oder setzen Sie sein Passwort zurück, falls Sie es vergessen haben). Wenn nicht, ignorieren Sie diese E-Mail.',
    },
  },
};
