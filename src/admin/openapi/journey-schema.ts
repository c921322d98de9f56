import { z } from 'zod';
import { END_NODE_TYPES, type Journey } from '../../records/journey.js';
import { isJourneyName } from '../../authn/journeys/validate.js';
import { ALIAS } from '../../records/identity-provider.js';

/**
 * A journey's shape as the document shows it (CONTRACT.md §8). The route checks a journey
 * with the engine's own validator (src/authn/journeys/validate.ts), which also judges what a
 * schema cannot say: every target a node, `done` reachable, no loop without a step of the
 * person, nobody asked for a code before they are known.
 */

const NAME_RULE = '1 to 64 letters, digits, ".", "_" or "-"';
const nodeName = z.string().refine(isJourneyName, `must be a node name: ${NAME_RULE}`).describe(`A node name: ${NAME_RULE}`);
const target = z.string().describe('The node an outcome leads to: one of the journey\'s nodes, or the ends `done` and `deny`');

const JourneyNodeSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('password'),
    next: z.strictObject({ success: target }),
    passkey: nodeName.optional().describe('A passkey node whose passwordless sign-in the page offers beside the password; passing it follows that node\'s `success`'),
  }),
  z.strictObject({
    type: z.literal('otp').describe('A person without an authenticator app enrols one first'),
    next: z.strictObject({ success: target }),
  }),
  z.strictObject({
    type: z.literal('passkey'),
    next: z.strictObject({ success: target, unavailable: target.describe('Where a person without a passkey goes') }),
    enrol: z.boolean().optional().describe('true: a person without a passkey registers one here instead of taking `unavailable`'),
  }),
  z.strictObject({
    type: z.literal('choice'),
    options: z.array(z.strictObject({ label: z.string().min(1).max(100), next: target })).min(1).max(10).describe('What the person picks from'),
  }),
  z.strictObject({
    type: z.literal('identity_provider').describe('Sign-in at an upstream OpenID provider of the realm; it tells who signs in, as a password does'),
    provider: z.string().regex(ALIAS).describe('The identity provider\'s alias'),
    next: z.strictObject({ success: target }),
  }),
  z.strictObject({
    type: z.literal('register').describe('A new person creates their account (username, email address, password); it tells who signs in, as a password does'),
    next: z.strictObject({ success: target }),
  }),
  z.strictObject({
    type: z.literal('email_verification').describe('The person confirms their email address by the link of a mail; passes at once when it is confirmed'),
    next: z.strictObject({ success: target }),
  }),
  z.strictObject({
    type: z.literal('risk'),
    next: z.strictObject({ low: target, high: target.describe('The address or the browser has not completed a sign-in of this person before') }),
  }),
  z.strictObject({
    type: z.literal('condition'),
    if: z.union([z.enum(['has_passkey', 'has_otp', 'email_verified']), z.strictObject({ client_in: z.array(z.string().min(1)).min(1).max(100) })]),
    next: z.strictObject({ true: target, false: target }),
  }),
  z.strictObject({ type: z.enum(END_NODE_TYPES).describe('`done`: signed in; `deny`: refused') }),
]);

export const JourneySchema = z.strictObject({
  start: nodeName.describe('The node the person starts at'),
  nodes: z.record(nodeName, JourneyNodeSchema).describe('The nodes by name, 1 to 100; `done` and `deny` may be named without being declared'),
});

export const JourneyListResponse = z.strictObject({
  journeys: z
    .array(z.strictObject({ name: nodeName.describe(`The journey's name: ${NAME_RULE}`), journey: JourneySchema }))
    .describe('`default` first (stored, or made from the realm\'s `authentication` list), then the stored ones by name'),
});

// What the document shows is a journey the engine's types know: a node type or field the
// schema has and the engine has not fails the type check.
const documented: Journey = {} as z.output<typeof JourneySchema>;
void documented;
