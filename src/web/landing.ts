import type { FastifyPluginAsync } from 'fastify';
import { landingPage } from '../pages/landing.js';
import { messagesOf } from './locale.js';
import { sendPage } from './send-page.js';

/** `GET /` (CONTRACT.md §16): the landing page, in the visitor's language. */
export function landingRoute(options: { consoleUrl: string | undefined }): FastifyPluginAsync {
  return async (app) => {
    app.get('/', async (request, reply) => {
      const page = landingPage(messagesOf(request), options);
      return sendPage(reply, page.options, page.body);
    });
  };
}
