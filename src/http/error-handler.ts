import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { OAuthError, StoreUnavailableError, UnstorableTextError } from '../errors.js';
import { printable } from './input-limits.js';

/** Fastify's own request errors, answered in the contract's shape without echoing input. */
const FRAMEWORK_ERRORS: Record<string, { status: number; description: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, description: 'the request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, description: 'unsupported content type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, description: 'the content length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, description: 'the JSON body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, description: 'the body is not valid JSON' },
};

/** Maps anything thrown to the error a client may see; internal detail stays in the log. */
export function toClientError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof UnstorableTextError) return new OAuthError('invalid_request', 'the request holds a NUL character');
  if (error instanceof StoreUnavailableError) {
    return new OAuthError('temporarily_unavailable', 'the service is temporarily unavailable', { headers: { 'retry-after': '1' } });
  }
  const fastifyError = error as Partial<FastifyError>;
  const known = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (known) return new OAuthError('invalid_request', known.description, { status: known.status });
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new OAuthError('invalid_request', 'the body is not valid JSON');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new OAuthError('invalid_request', 'the request is malformed', { status: fastifyError.statusCode });
  }
  return new OAuthError('server_error', 'an internal error occurred');
}

/** The longest error description sent: descriptions name what is wrong, they never carry the input. */
const MAX_DESCRIPTION_LENGTH = 500;

/** The JSON body of an error, its description made printable and short whatever it was built from. */
export function errorBody(error: OAuthError): { error: string; error_description?: string } {
  const body = error.toJSON();
  return body.error_description === undefined ? body : { ...body, error_description: printable(body.error_description, MAX_DESCRIPTION_LENGTH) };
}

const jsonError = (description: string): string => JSON.stringify({ error: 'invalid_request', error_description: description });

/**
 * For Fastify's `clientErrorHandler` option: a request Node's HTTP parser refuses before any
 * route sees it (a malformed request line or header, invalid bytes, a conflicting
 * Content-Length; headers and URL over Node's 16 KiB limit; a request too slow to arrive),
 * answered in the contract's shape instead of Fastify's `{error, message, statusCode}`.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, description]: [number, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request took too long to arrive']
        : [400, 'the request is malformed'];
  const body = jsonError(description);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * For Fastify's `frameworkErrors` option: a path the router refuses (a segment that is not
 * percent-encoded UTF-8; a parameter longer than `maxParamLength`), answered in the contract's
 * shape instead of Fastify's, which echoes the path.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const [status, description]: [number, string] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, 'a path segment is too long']
      : error.code === 'FST_ERR_BAD_URL'
        ? [400, 'the path is not valid percent-encoded UTF-8']
        : [400, 'the request is malformed'];
  void reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(jsonError(description));
}

/**
 * A server fault is logged with its stack; an outage of the store (503) in one line, since
 * every request says it while it lasts.
 */
export function logFailure(request: FastifyRequest, error: unknown, status: number): void {
  if (error instanceof StoreUnavailableError) {
    request.log.warn({ cause: (error.cause as Error | undefined)?.message ?? error.message }, 'store unavailable');
  } else if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
  }
}

export const errorHandling = fp(
  async (app) => {
    app.setErrorHandler(async (error, request, reply) => {
      const clientError = toClientError(error);
      logFailure(request, error, clientError.status);
      return reply
        .code(clientError.status)
        .headers({ ...clientError.headers, 'cache-control': 'no-store' })
        .send(errorBody(clientError));
    });
    app.setNotFoundHandler(async (_request, reply) =>
      reply.code(404).header('cache-control', 'no-store').send(new OAuthError('not_found', 'no such resource').toJSON()),
    );
  },
  { name: 'realmgate-errors' },
);
