import type { FastifyPluginAsync } from 'fastify';
import { type OpenApiDocument, buildOpenApiDocument } from './document.js';
import { REFERENCE_PAGE_HEADERS, renderReferencePage } from './reference-page.js';

/** Where the document and its page are, below `/admin`. */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';
export const REFERENCE_PAGE_PATH = '/reference';

/**
 * `GET /admin/openapi.json` and `GET /admin/reference`: the admin API described, behind the
 * admin token like every `/admin` route (CONTRACT.md §5). Built at the first call, then kept:
 * nothing in them changes while the server runs.
 */
export function openApiRoutes({ baseUrl }: { baseUrl: string }): FastifyPluginAsync {
  let built: { document: OpenApiDocument; json: string; page: string } | undefined;
  const described = () => {
    if (!built) {
      const document = buildOpenApiDocument(baseUrl);
      built = { document, json: JSON.stringify(document), page: renderReferencePage(document).value };
    }
    return built;
  };

  return async (app) => {
    app.get(OPENAPI_DOCUMENT_PATH, async (_request, reply) =>
      reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(described().json),
    );
    app.get(REFERENCE_PAGE_PATH, async (_request, reply) => reply.headers(REFERENCE_PAGE_HEADERS).send(described().page));
  };
}

export { buildOpenApiDocument, type OpenApiDocument } from './document.js';
export { renderReferencePage } from './reference-page.js';
