import { readFileSync } from 'node:fs';
import { ADMIN_BODY_LIMIT } from '../body-limit.js';
import { COMPONENT_SCHEMAS, type JsonSchema, componentSchemas, jsonSchemaOf } from './json-schema.js';
import type { ErrorStatus, Operation, Response } from './operation.js';
import { OPERATIONS, PATH_PARAMETERS, TAGS, openApiPath, pathParameterNames } from './operations.js';
import { ErrorResponse } from './responses.js';
import { DEFINITION_TITLES, NAMED_SCHEMAS } from './schemas.js';

/** The parts of an OpenAPI 3.1 document this one uses. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  security: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  schema: JsonSchema;
  example?: string;
  style?: 'form';
  explode?: boolean;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface OperationObject {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters?: ParameterObject[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema; example: unknown }> };
  responses: Record<string, ResponseObject | { $ref: string }>;
}

const JSON_TYPE = 'application/json';
const ref = (name: string) => ({ $ref: `${COMPONENT_SCHEMAS}${name}` });

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: '`invalid_request`: the body, a path parameter or the query is not valid; the description names the problems' },
  401: { name: 'Unauthorized', description: '`invalid_token`: the admin token is missing or wrong' },
  404: { name: 'NotFound', description: '`not_found`: no such realm, or no such resource in it' },
  409: { name: 'Conflict', description: '`conflict`: the call contradicts what exists (a duplicate, a built-in or used resource)' },
  413: { name: 'PayloadTooLarge', description: '`invalid_request`: the body is too large' },
  415: { name: 'UnsupportedMediaType', description: '`invalid_request`: the body is not `application/json`' },
};

function packageVersion(): string {
  // src/admin/openapi/ and dist/admin/openapi/ are both three levels below package.json.
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

function parameters(operation: Operation): ParameterObject[] {
  const inPath = pathParameterNames(operation.path).map((name): ParameterObject => {
    const parameter = PATH_PARAMETERS[name];
    if (!parameter) throw new Error(`the path parameter ${name} of ${operation.path} is not described`);
    return { name, in: 'path', required: true, description: parameter.description, schema: jsonSchemaOf(parameter.schema, 'input'), example: parameter.example };
  });
  const query = operation.query;
  const inQuery = Object.entries(query?.schema.shape ?? {}).map(([name, schema]): ParameterObject => {
    const described = query?.parameters[name];
    if (!described) throw new Error(`the query parameter ${name} of ${operation.path} is not described`);
    return {
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      description: described.description,
      schema: jsonSchemaOf(schema, 'input'),
      ...(described.example === undefined ? {} : { example: described.example }),
      style: 'form',
      explode: true,
    };
  });
  return [...inPath, ...inQuery];
}

function successResponse(response: Response): ResponseObject {
  const headers = Object.entries(response.headers ?? {}).map(([name, value]) => [name, { description: `Always \`${value}\``, schema: { type: 'string', const: value } }]);
  return {
    description: response.description,
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
    ...(response.schema ? { content: { [JSON_TYPE]: { schema: response.list ? { type: 'array', items: ref(response.schema) } : ref(response.schema) } } } : {}),
  };
}

/** The refusals an operation may answer: the admin token always; validation, size and type with a body; 404 below a resource. */
export function errorStatuses(operation: Operation): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>([401, ...(operation.errors ?? [])]);
  if (operation.body || operation.query) statuses.add(400);
  if (pathParameterNames(operation.path).length > 0) statuses.add(404);
  if (operation.body) statuses.add(413).add(415);
  return [...statuses].sort((a, b) => a - b);
}

function operationObject(operation: Operation): OperationObject {
  const params = parameters(operation);
  const body = operation.body;
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body
      ? {
          requestBody: {
            // parseInput reads a missing body as {}: the body is needed only when {} is refused.
            required: !NAMED_SCHEMAS[body.schema].schema.safeParse({}).success,
            content: { [JSON_TYPE]: { schema: ref(body.schema), example: body.example } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, successResponse(response)])),
      ...Object.fromEntries(errorStatuses(operation).map((status) => [String(status), { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` }])),
    },
  };
}

/** The admin API as an OpenAPI 3.1 document, built from the operations table and the schemas the routes validate with. */
export function buildOpenApiDocument(baseUrl: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of OPERATIONS) {
    (paths[openApiPath(operation.path)] ??= {})[operation.method.toLowerCase()] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'realmgate admin API',
      version: packageVersion(),
      description: [
        'Realms, clients, users, scopes, signing keys, trusted issuers, authentication journeys and audit events of a realmgate server.',
        'Every call carries `Authorization: Bearer <admin token>`.',
        'Bodies and answers are JSON. `PATCH` merges: only the fields sent change. Every refusal is `{error, error_description}`.',
      ].join('\n\n'),
    },
    servers: [{ url: baseUrl }],
    tags: TAGS.map((tag) => ({ ...tag })),
    security: [{ adminToken: [] }],
    paths,
    components: {
      schemas: componentSchemas({ ...NAMED_SCHEMAS, Error: { schema: ErrorResponse, io: 'output' } }, DEFINITION_TITLES),
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, { name, description }]) => [
          name,
          {
            description: status === '413' ? `${description}: over ${ADMIN_BODY_LIMIT / 1024} KiB` : description,
            ...(status === '401'
              ? { headers: { 'WWW-Authenticate': { description: 'The Bearer challenge: `Bearer realm="admin"`', schema: { type: 'string' } } } }
              : {}),
            content: { [JSON_TYPE]: { schema: ref('Error') } },
          },
        ]),
      ),
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token: `ADMIN_TOKEN`, or, when it is not set, the token printed once at the first start' },
      },
    },
  };
}
