import { DELETED, type Operation } from '../operation.js';

/** A password, then a one-time code only when the sign-in looks unfamiliar (CONTRACT.md §8). */
const EXAMPLE_JOURNEY = {
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'risk' } },
    risk: { type: 'risk', next: { low: 'done', high: 'otp' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
};

/** A realm's authentication journeys. */
export const journeyOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/journeys', operationId: 'listJourneys', tag: 'Journeys', summary: 'List the realm\'s journeys',
    description: '`default` is always there: the stored one, or, until one is stored, the one made from the realm\'s `authentication` setting.',
    responses: { 200: { description: 'The journeys by name', schema: 'JourneyList' } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/journeys/:journey', operationId: 'getJourney', tag: 'Journeys', summary: 'Read a journey',
    responses: { 200: { description: 'The journey', schema: 'Journey' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/journeys/:journey', operationId: 'putJourney', tag: 'Journeys', summary: 'Store a journey, or replace the one of that name',
    description:
      'A journey that names an unknown node type, leaves an outcome unconnected, cannot reach `done`, loops without a step of the person, ' +
      'or asks for a one-time code (or the risk check) before a password or passkey has told who signs in is refused (400) naming the node. ' +
      'Storing `default` replaces the journey made from the `authentication` setting.',
    body: { schema: 'Journey', example: EXAMPLE_JOURNEY },
    responses: { 200: { description: 'The journey, replaced', schema: 'Journey' }, 201: { description: 'The journey, new', schema: 'Journey' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/journeys/:journey', operationId: 'deleteJourney', tag: 'Journeys', summary: 'Delete a stored journey',
    description:
      'A journey that a client\'s `journey` or the realm\'s `acr_journeys` names cannot be deleted (409). ' +
      'Deleting a stored `default` brings back the one made from the `authentication` setting.',
    responses: DELETED,
    errors: [409],
  },
];
