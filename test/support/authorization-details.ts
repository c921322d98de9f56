/** A realm's RAR types for tests (RFC 9396 §2): a payment the person must see in words, and a plain one. */
export const PAYMENT_TYPES = {
  payment_initiation: {
    title: 'Payment',
    type: 'object',
    required: ['type', 'instructedAmount', 'creditorName'],
    additionalProperties: false,
    properties: {
      type: { const: 'payment_initiation' },
      instructedAmount: {
        title: 'Amount',
        type: 'object',
        required: ['currency', 'amount'],
        additionalProperties: false,
        properties: {
          currency: { title: 'Currency', type: 'string', pattern: '^[A-Z]{3}$' },
          amount: { title: 'Sum', type: 'number', exclusiveMinimum: 0 },
        },
      },
      creditorName: { title: 'Pay to', type: 'string', maxLength: 70 },
      creditorAccount: { title: 'Account', type: 'object', properties: { iban: { title: 'IBAN', type: 'string', pattern: '^[A-Z]{2}[0-9A-Z]{13,32}$' } } },
      recurring: { title: 'Recurring', type: 'boolean' },
      reference: { type: 'string', maxLength: 140 },
    },
  },
  account_information: {
    type: 'object',
    properties: { type: { const: 'account_information' }, actions: { type: 'array', items: { enum: ['list_accounts', 'read_balances'] } } },
  },
};

/** A payment of 1234.5 EUR to a long account number: what the consent page must show without overflowing. */
export const PAYMENT = {
  type: 'payment_initiation',
  instructedAmount: { currency: 'EUR', amount: 1234.5 },
  creditorName: 'Merchant A',
  creditorAccount: { iban: 'DE02100100109307118603' },
  recurring: false,
  reference: 'hidden-from-people-4711',
};

export const ACCOUNTS = { type: 'account_information', actions: ['list_accounts'] };
