import { createHash } from 'node:crypto';
import { SafeHtml, html } from '../../pages/html.js';
import type { OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from './document.js';
import { COMPONENT_SCHEMAS, type JsonSchema } from './json-schema.js';

/**
 * The reference page of the admin API: plain HTML rendered from the OpenAPI document alone,
 * with one inline stylesheet allowed by its hash; it loads nothing and runs no script.
 */

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem 1.5rem 4rem; background: Canvas; color: CanvasText; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; }
h2 { font-size: 1.3rem; margin-top: 2.5rem; border-bottom: 1px solid GrayText; }
h3 { font-size: 1.05rem; margin: 1.75rem 0 .25rem; }
h4 { font-size: .95rem; margin: 1rem 0 .25rem; }
code, pre { font-family: ui-monospace, monospace; font-size: .9em; }
pre { padding: .75rem; border: 1px solid GrayText; border-radius: .4rem; overflow-x: auto; }
code { overflow-wrap: anywhere; }
.method { display: inline-block; min-width: 4.2rem; font-family: ui-monospace, monospace; font-weight: 700; }
.required { color: #b3261e; font-size: .85em; }
.rules { color: GrayText; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid GrayText; }
ul.fields { margin: .25rem 0; padding-left: 1.25rem; }
nav ul { list-style: none; padding-left: 0; }
article { border-top: 1px solid GrayText; }
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The headers the page is sent with: nothing may load, run, frame it or be posted from it. */
export const REFERENCE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** Text of the document, where `backticks` mark code, as paragraphs. */
function prose(text: string | undefined): SafeHtml {
  if (!text) return html``;
  return html`${text.split(/\n{2,}/).map((paragraph) => html`<p>${inline(paragraph)}</p>`)}`;
}

function inline(text: string): SafeHtml {
  return html`${text.split('`').map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : html`${part}`))}`;
}

const anchor = (kind: string, name: string): string => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

function refLink(target: string): SafeHtml {
  if (!target.startsWith(COMPONENT_SCHEMAS)) return html`<code>${target}</code>`;
  const name = target.slice(COMPONENT_SCHEMAS.length);
  return html`<a href="#${anchor('schema', name)}">${name}</a>`;
}

const shown = (value: unknown): string => JSON.stringify(value);

/** `1 to 200 characters`, `at most 50 items`; undefined when nothing bounds the count. */
function range(min: unknown, max: unknown, unit: string): string | undefined {
  const plural = (count: number) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  const low = typeof min === 'number' && min > 0 ? min : undefined;
  const high = typeof max === 'number' ? max : undefined;
  if (low !== undefined && high !== undefined) return low === high ? plural(low) : `${low} to ${plural(high)}`;
  if (low !== undefined) return `at least ${plural(low)}`;
  return high === undefined ? undefined : `at most ${plural(high)}`;
}

/** The rules of a schema in words: format, allowed values, lengths, bounds. */
function rules(schema: JsonSchema): string[] {
  const words: string[] = [];
  if (Array.isArray(schema.enum)) words.push(`one of ${schema.enum.map(shown).join(', ')}`);
  if ('const' in schema) words.push(`always ${shown(schema.const)}`);
  if (typeof schema.format === 'string') words.push(`format ${schema.format}`);
  const length = range(schema.minLength, schema.maxLength, 'character');
  if (length) words.push(length);
  if (typeof schema.minimum === 'number') words.push(`≥ ${schema.minimum}`);
  if (typeof schema.exclusiveMinimum === 'number') words.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.maximum === 'number') words.push(`≤ ${schema.maximum}`);
  if (typeof schema.exclusiveMaximum === 'number') words.push(`< ${schema.exclusiveMaximum}`);
  const items = range(schema.minItems, schema.maxItems, 'item');
  if (items) words.push(items);
  if ('default' in schema) words.push(`default ${shown(schema.default)}`);
  return words;
}

function typeName(schema: JsonSchema): string {
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  if (typeof schema.type === 'string') return schema.type;
  return schema.anyOf || schema.oneOf ? '' : 'any value';
}

/** A schema as nested HTML: its type and rules, then its fields, items or alternatives. */
export function schemaView(schema: JsonSchema): SafeHtml {
  if (typeof schema.$ref === 'string') return refLink(schema.$ref);
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  const words = rules(schema);
  // A format says what its (long) pattern does.
  const pattern = typeof schema.pattern === 'string' && schema.format === undefined ? html` <span class="rules">matching</span> <code>${schema.pattern}</code>` : html``;
  const head = html`<span class="type">${typeName(schema)}</span>${words.length > 0 ? html` <span class="rules">(${words.join('; ')})</span>` : html``}${pattern}`;
  const parts: SafeHtml[] = [head];
  if (typeof schema.title === 'string') parts.unshift(html`<strong>${schema.title}</strong> `);
  if (typeof schema.description === 'string') parts.push(html` — ${inline(schema.description)}`);
  if (alternatives) {
    const nullable = alternatives.length === 2 && alternatives.some((item) => item.type === 'null');
    const other = alternatives.find((item) => item.type !== 'null');
    parts.push(
      nullable && other
        ? html`<span class="rules">null or</span> ${schemaView(other)}`
        : html`one of:<ul class="fields">${alternatives.map((item) => html`<li>${schemaView(item)}</li>`)}</ul>`,
    );
  }
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') parts.push(html` of ${schemaView(schema.items as JsonSchema)}`);
  if (schema.properties && typeof schema.properties === 'object') parts.push(fields(schema));
  const extra = schema.additionalProperties;
  if (extra === false) parts.push(html`<span class="rules">No other fields.</span>`);
  else if (extra && typeof extra === 'object' && Object.keys(extra).length > 0) {
    const names = schema.propertyNames as JsonSchema | undefined;
    const nameRules = names ? rules(names) : [];
    const named = nameRules.length > 0 ? html` <span class="rules">(${nameRules.join('; ')})</span>` : html``;
    parts.push(html`<ul class="fields"><li>any name${named}: ${schemaView(extra as JsonSchema)}</li></ul>`);
  }
  return html`${parts}`;
}

function fields(schema: JsonSchema): SafeHtml {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const entries = Object.entries(schema.properties as Record<string, JsonSchema>);
  return html`<ul class="fields">${entries.map(
    ([name, field]) => html`<li><code>${name}</code>${requiredMark(required.has(name))}: ${schemaView(field)}</li>`,
  )}</ul>`;
}

const requiredMark = (required: boolean | undefined): SafeHtml => (required ? html` <span class="required">required</span>` : html``);
const exampleOf = (example: string | undefined): SafeHtml => (example === undefined ? html`` : html` <span class="rules">e.g.</span> <code>${example}</code>`);
const methodAndPath = (method: string, path: string): SafeHtml => html`<span class="method">${method.toUpperCase()}</span> <code>${path}</code>`;

function parametersTable(parameters: readonly ParameterObject[]): SafeHtml {
  if (parameters.length === 0) return html``;
  return html`<h4>Parameters</h4>
<table><thead><tr><th>Name</th><th>In</th><th>Schema</th><th>Description</th></tr></thead><tbody>${parameters.map(
    (parameter) => html`<tr><td><code>${parameter.name}</code>${requiredMark(parameter.required)}</td><td>${parameter.in}</td>
<td>${schemaView(parameter.schema)}</td><td>${inline(parameter.description)}${exampleOf(parameter.example)}</td></tr>`,
  )}</tbody></table>`;
}

/** The fields of a named schema, shown where a body refers to it. */
function expanded(document: OpenApiDocument, schema: JsonSchema): SafeHtml {
  const named = typeof schema.$ref === 'string' && schema.$ref.startsWith(COMPONENT_SCHEMAS);
  const target = named ? document.components.schemas[(schema.$ref as string).slice(COMPONENT_SCHEMAS.length)] : undefined;
  return target ? html`<div>${schemaView(target)}</div>` : html``;
}

function requestBody(document: OpenApiDocument, operation: OperationObject): SafeHtml {
  const body = operation.requestBody;
  if (!body) return html``;
  return html`<h4>Request body${requiredMark(body.required)}</h4>${Object.entries(body.content).map(
    ([type, media]) => html`<div><code>${type}</code>: ${schemaView(media.schema)}${expanded(document, media.schema)}</div>
${media.example === undefined ? html`` : html`<pre>${JSON.stringify(media.example, null, 2)}</pre>`}`,
  )}`;
}

function responseView(document: OpenApiDocument, status: string, response: ResponseObject | { $ref: string }): SafeHtml {
  const name = '$ref' in response ? response.$ref.replace('#/components/responses/', '') : undefined;
  const resolved = name === undefined ? (response as ResponseObject) : document.components.responses[name];
  const content = Object.entries(resolved?.content ?? {});
  const headers = Object.entries(resolved?.headers ?? {});
  const bodies = content.map(([type, media]) => html`<br><code>${type}</code>: ${schemaView(media.schema)}`);
  return html`<li><strong>${status}</strong> ${inline(resolved?.description ?? '')}${bodies}${headers.map(
    ([header, value]) => html`<br>Header <code>${header}</code>: ${inline(value.description)}`,
  )}</li>`;
}

function operationView(document: OpenApiDocument, method: string, path: string, operation: OperationObject): SafeHtml {
  return html`<article id="${anchor('op', operation.operationId)}">
<h3>${methodAndPath(method, path)}</h3>
<p>${inline(operation.summary)}</p>
${prose(operation.description)}
${parametersTable(operation.parameters ?? [])}
${requestBody(document, operation)}
<h4>Responses</h4>
<ul>${Object.entries(operation.responses).map(([status, response]) => responseView(document, status, response))}</ul>
</article>
`;
}

type Entry = { method: string; path: string; operation: OperationObject };

function operationsOf(document: OpenApiDocument): Entry[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method]! })),
  );
}

/** The whole page, every operation of the document under its tag, then the schemas it names. */
export function renderReferencePage(document: OpenApiDocument): SafeHtml {
  const operations = operationsOf(document);
  const tags = [...document.tags.map((tag) => tag.name), ...operations.flatMap(({ operation }) => operation.tags)].filter(
    (tag, index, all) => all.indexOf(tag) === index,
  );
  const byTag = (tag: string) => operations.filter(({ operation }) => operation.tags.includes(tag));
  const descriptionOf = (tag: string) => document.tags.find((known) => known.name === tag)?.description;
  const schemes = Object.entries(document.components.securitySchemes);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${document.info.title} ${document.info.version}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<header>
<h1>${document.info.title}</h1>
<p class="rules">Version ${document.info.version} · OpenAPI ${document.openapi} · the document: <a href="openapi.json">openapi.json</a>
${document.servers.map((server) => html` · server <code>${server.url}</code>`)}</p>
${prose(document.info.description)}
${schemes.map(([name, scheme]) => html`<p>Authentication <code>${name}</code>: HTTP ${scheme.scheme} — ${inline(scheme.description)}</p>`)}
</header>
<nav>
<h2>Operations</h2>
${tags.map(
  (tag) => html`<h3>${tag}</h3><ul>${byTag(tag).map(
    ({ method, path, operation }) =>
      html`<li><a href="#${anchor('op', operation.operationId)}">${methodAndPath(method, path)}</a> ${inline(operation.summary)}</li>`,
  )}</ul>`,
)}
</nav>
<main>
${tags.map(
  (tag) => html`<section id="${anchor('tag', tag)}">
<h2>${tag}</h2>
${prose(descriptionOf(tag))}
${byTag(tag).map(({ method, path, operation }) => operationView(document, method, path, operation))}</section>
`,
)}
<section id="schemas">
<h2>Schemas</h2>
${Object.entries(document.components.schemas).map(
  ([name, schema]) => html`<article id="${anchor('schema', name)}"><h3>${name}</h3><div>${schemaView(schema)}</div></article>
`,
)}</section>
</main>
</body>
</html>
`;
}
