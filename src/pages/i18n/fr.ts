import { type SafeHtml, html } from '../html.js';
import type { Messages } from './messages.js';
import { amountOf, exactDuration, roundedDuration } from './units.js';

const minutes = (count: number) => amountOf('fr', 'minute', count);

/**
 * The French texts ("vous"), key by key as src/pages/i18n/en.ts. French typography: a
 * no-break space before ":", ";", "«" and "»", a narrow one before "?" and "!".
 */
export const fr: Messages = {
  lang: 'fr',

  page: {
    forClient: (client: SafeHtml) => html`pour continuer vers ${client}`,
    showPassword: 'Afficher',
    hidePassword: 'Masquer',
  },

  /** The language picker every page carries (CONTRACT.md §16). */
  languages: {
    label: 'Langue',
  },

  landing: {
    title: 'realmgate est en marche',
    lead: 'Ceci est un serveur d’autorisation OAuth 2.0 et OpenID Connect. Les applications y connectent leurs utilisateurs ; il n’y a rien à faire sur cette page.',
    console: 'Console d’administration',
    consoleHint: 'Realms, clients et personnes. Elle demande le jeton d’administration.',
    discovery: 'Document de découverte du realm racine',
    discoveryHint: 'Ce dont une bibliothèque cliente a besoin pour utiliser ce serveur.',
    docs: 'Documentation',
    docsHint: (readme: SafeHtml, docs: SafeHtml) => html`Dans le paquet realmgate : ${readme} et le dossier ${docs}.`,
  },

  actions: {
    allow: 'Autoriser',
    deny: 'Refuser',
    continue: 'Continuer',
    confirm: 'Confirmer',
    signIn: 'Se connecter',
    backToSignIn: 'Retour à la connexion',
    goToAccount: 'Accéder à votre compte',
    backToAccount: 'Retour à votre compte',
  },

  errors: {
    invalidRequest: 'Requête non valide',
    fromApplication: (detail: string) => `L’application a envoyé une requête non valide\u00a0: ${detail}.`,
    notHandled: (detail: string) => `La requête n’a pas pu être traitée\u00a0: ${detail}.`,
    requestExpired: 'Demande expirée',
    requestExpiredMessage: 'Cette demande de connexion a expiré ou a déjà été traitée. Revenez à l’application et réessayez.',
    formExpired: 'Formulaire expiré',
    formExpiredMessage: 'Le formulaire n’a pas pu être accepté. Revenez à l’application et réessayez.',
    tooManyAttempts: 'Trop de tentatives',
    tooManyAttemptsMessage: 'Trop de tentatives proviennent de votre réseau. Patientez une minute, puis réessayez.',
    somethingWentWrong: 'Une erreur est survenue',
    somethingWentWrongMessage: 'Le service n’a pas pu traiter votre demande. Réessayez plus tard.',
    notFound: 'Page introuvable',
    notFoundMessage: 'Cette page n’existe pas.',
    notAvailable: 'Non disponible',
    notAvailableMessage: 'Cette page n’est pas disponible.',
    cannotSignIn: 'Connexion impossible',
    signInRefused: 'Cette connexion a été refusée.',
    signInUnavailable: 'Cette connexion n’est pas disponible. Contactez l’administrateur de l’application.',
    accountDisabled: 'Ce compte est désactivé. Contactez l’administrateur de ce service.',
    passwordChangedDuringSignIn: 'Le mot de passe de ce compte a changé pendant votre connexion. Revenez à l’application et connectez-vous avec le nouveau mot de passe.',
    reference: (id: SafeHtml) => html`Référence pour l’assistance\u00a0: ${id}`,
    backToApplication: (client: string) => `Retour à ${client}`,
  },

  signIn: {
    titles: {
      password: 'Connexion',
      otp: 'Code à usage unique',
      otp_enrolment: 'Code à usage unique',
      passkey: 'Clé d’accès',
      choice: 'Connexion',
      identity_provider: 'Connexion',
      register: 'Créer un compte',
      email_verification: 'Confirmez votre adresse e-mail',
      enrolment_code: 'Consultez vos e-mails',
    },
    username: 'Nom d’utilisateur',
    password: 'Mot de passe',
    forgotPassword: 'Mot de passe oublié\u202f?',
    createAccount: 'Créer un compte',
    codeFromAuthenticator: 'Code de votre application d’authentification',
    useRecoveryCode: 'Utiliser un code de récupération',
    recoveryCode: 'Code de récupération',
    verify: 'Vérifier',
    otpEnrolmentLead: html`<strong>Configurez une application d’authentification</strong>\u00a0: cette connexion demande un code à usage unique.`,
    chooseHow: 'Comment souhaitez-vous vous connecter\u202f?',
    providerLead: (provider: string) => `Connectez-vous avec votre compte ${provider}.`,
    withProvider: (provider: string) => `Se connecter avec ${provider}`,
    enterUsernameAndPassword: 'Saisissez votre nom d’utilisateur et votre mot de passe.',
    wrongCredentials: 'Le nom d’utilisateur ou le mot de passe est incorrect.',
    signInFirst: 'Connectez-vous d’abord.',
    enterCode: 'Saisissez le code affiché par votre application d’authentification.',
    wrongCode: 'Le code est incorrect ou a déjà été utilisé.',
    lockedOut: (wait: number) => `Trop de tentatives de connexion échouées. Réessayez dans ${minutes(wait)}.`,
  },

  passkey: {
    registerLead: html`<strong>Enregistrez une clé d’accès</strong>\u00a0: cette connexion en demande une, et votre compte n’en a pas encore. Créez-la sur cet appareil, votre téléphone ou une clé de sécurité.`,
    register: 'Enregistrer une clé d’accès',
    registerNoscript: 'L’enregistrement d’une clé d’accès nécessite JavaScript, qui est désactivé dans ce navigateur\u00a0: cette connexion ne peut pas continuer sans lui.',
    secondFactorLead: 'Confirmez votre identité avec votre clé d’accès.',
    useYours: 'Utiliser votre clé d’accès',
    secondFactorNoscript: 'Cette connexion demande une clé d’accès, qui nécessite JavaScript\u00a0: il est désactivé dans ce navigateur, la connexion ne peut donc pas continuer.',
    passwordlessLead: 'Connectez-vous avec une clé d’accès enregistrée sur cet appareil, votre téléphone ou une clé de sécurité.',
    signIn: 'Se connecter avec une clé d’accès',
    passwordlessNoscript: 'La connexion avec une clé d’accès nécessite JavaScript, qui est désactivé dans ce navigateur\u00a0: cette connexion ne peut pas continuer sans lui.',
    alternativeNoscript: 'La connexion avec une clé d’accès nécessite JavaScript, qui est désactivé dans ce navigateur. Connectez-vous plutôt avec votre mot de passe.',
    noPasskey: 'Je n’ai pas de clé d’accès',
    nameLabel: 'Nom de la clé d’accès',
    namePlaceholder: 'p. ex. Ordinateur du bureau',
    failures: {
      missing: 'Les clés d’accès nécessitent JavaScript, qui est désactivé ou non pris en charge dans ce navigateur.',
      malformed: 'La clé d’accès n’a pas été acceptée.',
      expired: 'La demande de clé d’accès a expiré. Réessayez.',
      refused: 'La clé d’accès n’a pas été acceptée.',
      duplicate: 'Cette clé d’accès est déjà enregistrée.',
      limit: 'Vous avez trop de clés d’accès.',
    },
    browser: {
      alreadyRegistered: 'Cet authentificateur contient déjà une clé d’accès pour votre compte.',
      notAllowed: 'La clé d’accès n’a pas été utilisée\u00a0: la demande a été annulée ou a expiré. Réessayez.',
      failed: 'La clé d’accès n’a pas pu être utilisée. Réessayez.',
      unsupported: 'Ce navigateur ne prend pas en charge les clés d’accès.',
    },
  },

  oneTimeCode: {
    code: 'Code',
    enrolmentLead: 'Scannez ce code QR avec une application d’authentification, ou saisissez-y la clé secrète, puis entrez le code qu’elle affiche.',
    qrLabel: 'Code QR de la clé secrète',
    secret: 'Clé secrète\u00a0:',
    codeFromApp: 'Code de l’application',
  },

  enrolmentCode: {
    lead: 'Avant de configurer un second facteur, saisissez le code que nous avons envoyé à votre adresse e-mail. Il ne vaut que pour cette connexion.',
    codeFromMail: 'Code reçu par e-mail',
    resend: 'Envoyer un nouveau code',
    resent: 'Nous vous avons envoyé un nouveau code. Les codes précédents ne fonctionnent plus.',
    enterCode: 'Saisissez le code de l’e-mail que nous vous avons envoyé.',
    wrongCode: 'Le code est incorrect.',
    expired: 'Le code ne fonctionne plus\u00a0: il a expiré ou a été mal saisi trop souvent. Demandez-en un nouveau.',
    tooMany: 'Trop d’e-mails vous ont été envoyés. Patientez quelques minutes, puis réessayez.',
    notSent: 'L’e-mail n’a pas pu être envoyé. Réessayez plus tard.',
  },

  emailVerification: {
    lead: 'Avant de vous connecter, confirmez votre adresse e-mail\u00a0: ouvrez le lien de l’e-mail que nous vous avons envoyé, puis revenez ici pour continuer.',
    resend: 'Renvoyer l’e-mail',
    notYet: 'Votre adresse e-mail n’est pas encore confirmée\u00a0: ouvrez le lien de l’e-mail que nous vous avons envoyé, puis continuez.',
    resent: 'Nous vous avons envoyé un nouvel e-mail. Ouvrez son lien, puis revenez ici pour continuer.',
    tooMany: 'Trop d’e-mails vous ont été envoyés. Patientez quelques minutes, puis réessayez.',
    notSent: 'L’e-mail n’a pas pu être envoyé. Réessayez plus tard.',
  },

  consent: {
    title: 'Autoriser l’accès\u202f?',
    checkDeviceCode: (code: SafeHtml) => html`Vérifiez que votre appareil affiche le code ${code}.`,
    asksTo: (client: SafeHtml) => html`${client} souhaite\u00a0:`,
    knowSignedIn: 'savoir que vous vous êtes connecté.',
    forResources: 'Cet accès est destiné à\u00a0:',
    mayAssert: 'L’application peut aussi présenter votre connexion à ces services, pour y agir en votre nom\u00a0:',
    describedAt: (host: SafeHtml) => html`Cette application n’est pas enregistrée ici\u00a0: elle se décrit elle-même sur ${host}. N’autorisez l’accès que si vous faites confiance à ${host}.`,
    inDetail: 'En détail, elle demande\u00a0:',
    yes: 'oui',
    no: 'non',
  },

  scopes: {
    openid: 'vous connecter avec votre compte',
    profile: 'voir votre nom et votre profil de base',
    email: 'voir votre adresse e-mail',
  },

  signOut: {
    title: 'Déconnexion',
    question: 'Voulez-vous vous déconnecter\u202f?',
    confirm: 'Se déconnecter',
    stay: 'Rester connecté',
    stayedTitle: 'Session ouverte',
    stayed: 'Votre session reste ouverte.',
    doneTitle: 'Déconnexion effectuée',
    done: 'Vous êtes déconnecté.',
  },

  formPost: {
    title: 'Retour à l’application',
    noScript: 'Appuyez sur Continuer pour revenir à l’application.',
  },

  device: {
    title: 'Connecter un appareil',
    codeLabel: 'Saisissez le code affiché sur votre appareil',
    tooManyWrongCodes: (wait: number) => `Trop de codes erronés. Réessayez dans ${minutes(wait)}.`,
    unknownCode: 'Ce code n’est pas valide ou a expiré. Vérifiez le code sur votre appareil.',
    connectedTitle: 'Appareil connecté',
    connected: 'Vous pouvez maintenant revenir à votre appareil.',
    deniedTitle: 'Accès refusé',
    denied: 'L’appareil n’a pas obtenu l’accès. Vous pouvez fermer cette page.',
  },

  ciba: {
    title: 'Demandes en attente',
    signedInAs: (username: SafeHtml) => html`Compte utilisé\u00a0: ${username}.`,
    none: 'Aucune demande n’est en attente.',
    approved: 'Vous avez autorisé la demande. L’application peut maintenant continuer.',
    denied: 'Vous avez refusé la demande.',
    gone: 'Cette demande a expiré ou a déjà reçu une réponse.',
    bindingLead: 'Vérifiez que l’application affiche exactement ceci\u00a0:',
  },

  account: {
    title: 'Votre compte',
    signedInAs: (username: SafeHtml) => html`Compte utilisé\u00a0: ${username}.`,
    signInAgainFirst: (seconds: number) =>
      `Votre connexion date de plus de ${exactDuration('fr', seconds)}\u00a0: pour modifier vos moyens de connexion, il vous sera d’abord demandé de vous reconnecter.`,
    sections: {
      password: 'Mot de passe',
      oneTimeCode: 'Code à usage unique',
      passkeys: 'Clés d’accès',
      recoveryCodes: 'Codes de récupération',
      identities: 'Comptes associés',
      applications: 'Applications',
      sessions: 'Sessions',
      profile: 'Nom et adresse e-mail',
    },
    password: {
      current: 'Mot de passe actuel',
      new: 'Nouveau mot de passe',
      change: 'Changer le mot de passe',
      none: 'Votre compte n’a pas de mot de passe\u00a0: vous vous connectez autrement.',
      signsOutElsewhere: 'Le changer ferme toutes vos autres sessions.',
      changeTitle: 'Changer votre mot de passe',
      enterCurrent: 'Saisissez votre mot de passe actuel.',
      lockedOut: (wait: number) => `Trop de tentatives échouées. Réessayez dans ${minutes(wait)}.`,
      wrongCurrent: 'Le mot de passe actuel est incorrect.',
      changed: 'Votre mot de passe a été changé. Toutes vos autres sessions ont été fermées.',
    },
    /** Before a first second factor is set up here: a code mailed to the verified address (src/account/enrolment-code.ts). */
    enrolmentCode: {
      lead: 'Avant de configurer un premier second facteur, saisissez le code que nous envoyons à votre adresse e-mail.',
      send: 'M’envoyer un code',
      confirm: 'Confirmer le code',
      mailed: 'Nous vous avons envoyé un code. Saisissez-le ci-dessous pour configurer un second facteur.',
      passed: 'Code confirmé : vous pouvez maintenant configurer un second facteur.',
    },
    oneTimeCode: {
      setUp: (day: string) => `Une application d’authentification vous fournit des codes à usage unique (configurée le ${day}).`,
      remove: 'Supprimer l’application d’authentification',
      none: 'Aucune application d’authentification n’est configurée.',
      enrol: 'Configurer une application d’authentification',
      enrolTitle: 'Configurer une application d’authentification',
      alreadySetUp: 'Une application d’authentification est déjà configurée\u00a0: supprimez-la d’abord pour en configurer une autre.',
      nothingToConfirm: 'Aucune application d’authentification n’attend de confirmation.',
      confirmed: 'Votre application d’authentification est configurée.',
      removed: 'L’application d’authentification a été supprimée.',
    },
    passkeys: {
      synced: ' (synchronisée)',
      added: (when: string) => `ajoutée le ${when}`,
      lastUsed: (when: string) => `dernière utilisation le ${when}`,
      neverUsed: 'jamais utilisée',
      delete: (name: string) => `Supprimer ${name}`,
      none: 'Vous n’avez aucune clé d’accès.',
      signInAgainToAdd: 'Se reconnecter pour ajouter une clé d’accès',
      add: 'Ajouter une clé d’accès',
      addNoscript: 'L’ajout d’une clé d’accès nécessite JavaScript, qui est désactivé dans ce navigateur.',
      failures: {
        missing: 'L’ajout d’une clé d’accès nécessite JavaScript, qui est désactivé ou non pris en charge dans ce navigateur.',
        malformed: 'La clé d’accès n’a pas pu être enregistrée.',
        expired: 'La demande de clé d’accès a expiré. Réessayez.',
        refused: 'La clé d’accès n’a pas pu être enregistrée.',
        duplicate: 'Cette clé d’accès est déjà enregistrée.',
        limit: (most: number) => `Vous avez ${most} clés d’accès\u00a0: supprimez-en une pour en ajouter une autre.`,
      },
      addedNotice: (name: string) => `La clé d’accès «\u00a0${name}\u00a0» a été ajoutée.`,
      notFound: 'Cette clé d’accès est introuvable.',
      deleted: 'La clé d’accès a été supprimée.',
      onlyWay:
        'La clé d’accès n’a pas été supprimée : c’est votre seul moyen de vous connecter, car vous n’avez ni mot de passe, ni autre clé d’accès, ni compte lié.',
    },
    recoveryCodes: {
      noneLeft: 'Il ne vous reste aucun code de récupération.',
      left: (count: number) =>
        count === 1
          ? 'Il vous reste 1 code de récupération inutilisé. Il fonctionne une seule fois, à la place d’un code à usage unique.'
          : `Il vous reste ${count} codes de récupération inutilisés. Chacun fonctionne une seule fois, à la place d’un code à usage unique.`,
      generate: 'Générer de nouveaux codes',
      title: 'Vos codes de récupération',
      created: 'De nouveaux codes de récupération ont été créés.',
      keepSafe:
        'Conservez ces codes en lieu sûr\u00a0: ils ne sont affichés qu’une seule fois. Chacun fonctionne une seule fois, lorsqu’un code à usage unique est demandé. Vos anciens codes ne fonctionnent plus.',
      never: 'Vous n’avez aucun code de récupération. Ils vous permettent de vous connecter lorsque votre application d’authentification n’est pas à portée de main.',
      generateFirst: 'Générer des codes de récupération',
    },
    identities: {
      none: 'Aucun compte d’un autre fournisseur n’est associé au vôtre.',
      linked: (when: string) => `associé le ${when}`,
      account: (subject: string) => `compte ${subject}`,
      unlink: (provider: string) => `Dissocier ${provider}`,
      onlyWay:
        'Il ne peut pas être dissocié\u00a0: c’est votre seul moyen de connexion, car vous n’avez ni mot de passe, ni clé d’accès, ni autre compte associé.',
      unlinked: (provider: string) => `${provider} est dissocié de votre compte\u00a0: vous ne vous connectez plus avec lui.`,
      refusedOnlyWay: (provider: string) => `${provider} ne peut pas être dissocié\u00a0: c’est votre seul moyen de connexion.`,
      notLinked: 'Ce compte associé est introuvable.',
      link: (provider: string) => `Associer un compte ${provider}`,
      linkedNotice: (provider: string) => `Votre compte ${provider} est associé\u00a0: vous pouvez désormais vous connecter avec lui.`,
      alreadyLinked: (provider: string) => `Ce compte ${provider} est déjà associé au vôtre.`,
      otherPerson: (provider: string) => `Ce compte ${provider} appartient à une autre personne de ce service\u00a0: il n’a pas été associé au vôtre.`,
      linkExpired: 'Le compte n’a pas été associé\u00a0: la demande a expiré ou vient d’une autre session. Réessayez.',
    },
    applications: {
      none: 'Vous n’avez autorisé aucune application à utiliser votre compte.',
      allowed: (what: string) => `Autorisé\u00a0: ${what}`,
      signInOnly: 'savoir que vous vous êtes connecté',
      revoke: 'Révoquer',
      revoked: (client: string) => `${client} n’a plus accès à votre compte.`,
      nothingToRevoke: 'Cette application n’a aucun accès à révoquer.',
    },
    sessions: {
      methods: { pwd: 'mot de passe', otp: 'code à usage unique', hwk: 'clé d’accès', swk: 'clé d’accès', mfa: 'plusieurs facteurs', fed: 'un autre fournisseur' },
      signedIn: (when: string, methods: string, ends: string) => `Connexion le ${when} avec ${methods}\u00a0; fin le ${ends}`,
      thisBrowser: '(ce navigateur)',
      signOut: 'Fermer la session',
      signedOutTitle: 'Session fermée',
      signedOut: 'Votre session est fermée dans ce navigateur.',
      ended: 'La session a été fermée.',
      alreadyEnded: 'Cette session était déjà terminée.',
      signOutEverywhere: 'Fermer toutes les sessions',
      signOutEverywhereHint: 'Ferme chaque session de cette liste, y compris celle de ce navigateur.',
      signedOutEverywhere: 'Toutes vos sessions sont fermées.',
    },
    profile: {
      givenName: 'Prénom',
      familyName: 'Nom',
      saveNames: 'Enregistrer le nom',
      email: 'Adresse e-mail',
      changeEmail: 'Changer l’adresse e-mail',
      noEmail: 'Aucune adresse e-mail n’est enregistrée.',
      unconfirmed: 'Pas encore confirmée\u00a0: ouvrez le lien envoyé à cette adresse.',
      confirmed: 'Confirmée.',
      emailHint: 'Une nouvelle adresse est utilisée aussitôt. Elle n’est considérée comme confirmée qu’une fois ouvert le lien que nous y envoyons.',
      namesSaved: 'Votre nom est enregistré.',
      emailInvalid: 'Saisissez une adresse e-mail valide.',
      emailUnchanged: 'C’est déjà votre adresse.',
      emailUnavailable: 'Cette adresse e-mail ne peut pas être utilisée pour votre compte.',
      emailChanged: 'Votre adresse e-mail est changée.',
      emailChangedConfirm: (address: string) => `Votre adresse e-mail est changée. Nous avons envoyé un lien à ${address}\u00a0: ouvrez-le pour confirmer l’adresse.`,
      emailChangedNotMailed: 'Votre adresse e-mail est changée, mais le message de confirmation n’a pas pu être envoyé. Réessayez plus tard depuis la connexion.',
      changeEmailTitle: 'Changer votre adresse e-mail',
    },
  },

  register: {
    title: 'Créer un compte',
    email: 'Adresse e-mail',
    givenName: 'Prénom (facultatif)',
    familyName: 'Nom (facultatif)',
    submit: 'Créer le compte',
    createdTitle: 'Compte créé',
    created: 'Votre compte a été créé. Vous pouvez maintenant vous connecter.',
    createdMailSent: (email: string) =>
      `Votre compte a été créé. Nous avons envoyé un e-mail à ${email}\u00a0: ouvrez son lien pour confirmer votre adresse e-mail.`,
    createdMailFailed:
      'Votre compte a été créé, mais l’e-mail qui confirme votre adresse n’a pas pu être envoyé. Lors de votre connexion, vous pourrez le demander à nouveau.',
    usernameInvalid: 'Choisissez un nom d’utilisateur d’au plus 255 lettres, chiffres ou . _ @ + -.',
    addressMailed: (email: string) => `Nous avons envoyé un e-mail à ${email}\u00a0: suivez-le pour continuer.`,
    usernameTaken: 'Ce nom d’utilisateur est déjà pris\u00a0: choisissez-en un autre.',
    emailInvalid: 'Saisissez une adresse e-mail valide.',
    givenNameInvalid: (most: number) => `Saisissez un prénom d’au plus ${most} caractères visibles.`,
    familyNameInvalid: (most: number) => `Saisissez un nom d’au plus ${most} caractères visibles.`,
  },

  passwordPolicy: {
    too_short: (least: number) => `Le mot de passe doit comporter au moins ${least} caractère${least > 1 ? 's' : ''}.`,
    too_long: (most: number) => `Le mot de passe doit comporter au plus ${most} caractères.`,
    common: 'Ce mot de passe fait partie des plus courants\u00a0: choisissez-en un autre.',
    username: 'Le mot de passe ne doit pas être le nom d’utilisateur.',
    email: 'Le mot de passe ne doit pas être l’adresse e-mail.',
  },

  reset: {
    title: 'Réinitialiser votre mot de passe',
    lead: 'Saisissez votre nom d’utilisateur ou votre adresse e-mail. S’ils correspondent à un compte, nous vous enverrons par e-mail un lien pour choisir un nouveau mot de passe.',
    nameLabel: 'Nom d’utilisateur ou adresse e-mail',
    send: 'Envoyer le lien',
    enterName: 'Saisissez votre nom d’utilisateur ou votre adresse e-mail.',
    checkMailTitle: 'Consultez vos e-mails',
    checkMail: (wait: number) =>
      `S’il s’agit du nom d’utilisateur ou de l’adresse e-mail d’un compte, nous avons envoyé un lien à son adresse e-mail. Le lien fonctionne une seule fois, pendant ${minutes(wait)}.`,
    formTitle: 'Choisir un nouveau mot de passe',
    formLead: (username: SafeHtml) => html`Choisissez un nouveau mot de passe pour ${username}. Toutes vos autres sessions seront fermées.`,
    newPassword: 'Nouveau mot de passe',
    setPassword: 'Définir le mot de passe',
    changedTitle: 'Mot de passe changé',
    changed: 'Votre mot de passe a été changé et toutes vos sessions ont été fermées. Connectez-vous avec votre nouveau mot de passe.',
    linkGoneTitle: 'Lien non valide',
    linkGone: 'Ce lien ne fonctionne pas\u00a0: il a déjà été utilisé ou a expiré. Demandez-en un nouveau.',
    askAgain: 'Réinitialiser votre mot de passe',
  },

  verify: {
    confirmedTitle: 'Adresse e-mail confirmée',
    confirmed: 'Votre adresse e-mail est confirmée. Si vous étiez en train de vous connecter, revenez à cette page et continuez.',
    linkGoneTitle: 'Lien non valide',
    linkGone: 'Ce lien ne fonctionne pas\u00a0: il a déjà été utilisé ou a expiré. Connectez-vous pour recevoir un nouvel e-mail.',
  },

  upstream: {
    unreachable: (provider: string) => `${provider} est injoignable pour le moment. Réessayez plus tard ou connectez-vous autrement.`,
    denied: (provider: string) => `La connexion avec ${provider} a été annulée ou refusée. Revenez à l’application pour réessayer.`,
    invalid_answer: (provider: string) =>
      `${provider} a envoyé une réponse qui n’a pas pu être vérifiée\u00a0: la connexion n’a donc pas eu lieu. Réessayez plus tard ou connectez-vous autrement.`,
    unknown_state: (_provider: string) => 'Cette connexion a expiré ou a déjà été effectuée. Revenez à l’application et réessayez.',
    unknown_provider: (_provider: string) => 'Ce mode de connexion n’est pas disponible. Revenez à l’application et réessayez.',
  },

  mail: {
    hello: (username: string | undefined) => (username === undefined ? 'Bonjour,' : `Bonjour ${username},`),
    beforeLink: (action: string) => `${action}\u00a0:`,
    copyLink: 'Ou copiez ce lien dans votre navigateur\u00a0:',
    expiry: (seconds: number) => `Le lien fonctionne une seule fois, pendant ${roundedDuration('fr', seconds)}.`,
    codeExpiry: (seconds: number) => `Le code fonctionne une seule fois, pendant ${roundedDuration('fr', seconds)}, et seulement sur la page qui l’a demandé.`,
    verification: {
      subject: (realm: string) => `Confirmez votre adresse e-mail pour ${realm}`,
      lead: (realm: string) => `Veuillez confirmer qu’il s’agit bien de votre adresse e-mail pour votre nouveau compte sur ${realm}.`,
      action: 'Confirmer votre adresse e-mail',
      ignore: 'Si vous n’avez pas créé ce compte, ignorez cet e-mail.',
    },
    enrolmentCode: {
      subject: (realm: string) => `Votre code pour configurer un second facteur sur ${realm}`,
      lead: (realm: string, username: string) =>
        `Quelqu’un qui s’est connecté à votre compte «\u00a0${username}\u00a0» sur ${realm} configure un second facteur. Saisissez ce code sur cette page\u00a0:`,
      ignore: 'Si ce n’était pas vous, ne donnez ce code à personne et changez votre mot de passe\u00a0: la personne qui s’est connectée le connaît.',
    },
    passwordReset: {
      subject: (realm: string) => `Réinitialisez votre mot de passe ${realm}`,
      lead: (realm: string, username: string | undefined) =>
        `Quelqu’un a demandé la réinitialisation du mot de passe de votre compte${username === undefined ? '' : ` «\u00a0${username}\u00a0»`} sur ${realm}.`,
      action: 'Choisir un nouveau mot de passe',
      ignore: 'Si ce n’était pas vous, ignorez cet e-mail\u00a0: votre mot de passe reste inchangé.',
    },
    addressTaken: {
      subject: (realm: string) => `Quelqu’un a tenté de créer un compte ${realm} avec votre adresse e-mail`,
      lead: (realm: string, username: string | undefined) =>
        `Quelqu’un a tenté de créer un nouveau compte sur ${realm} avec cette adresse e-mail. Elle appartient déjà à votre compte${username === undefined ? '' : ` «\u00a0${username}\u00a0»`}\u00a0: aucun compte n’a été créé.`,
      action: 'Accéder à votre compte',
      ignore: 'Si c’était vous, connectez-vous avec votre compte (ou réinitialisez son mot de passe si vous l’avez oublié). Sinon, ignorez cet e-mail.',
    },
  },
};
