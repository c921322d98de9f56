import { z } from 'zod';

export type JsonSchema = { [keyword: string]: unknown };

/** Which side of a schema to show: what a caller sends (before any transform), or what it receives. */
export type Io = 'input' | 'output';

export interface NamedSchema {
  schema: z.ZodType;
  io: Io;
}

export const COMPONENT_SCHEMAS = '#/components/schemas/';

/**
 * The JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a zod schema. Checks zod cannot
 * express (a refinement, a custom rule) are left out: the schema the server validates with
 * stays the judge, the document shows what can be shown. `titles` names sub-schemas that
 * zod may emit as `$defs` (a recursive JSON value).
 */
export function jsonSchemaOf(schema: z.ZodType, io: Io, titles: ReadonlyMap<unknown, string> = new Map()): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    cycles: 'ref',
    reused: 'inline',
    override: ({ zodSchema, jsonSchema }) => {
      const title = titles.get(zodSchema);
      if (title !== undefined) jsonSchema.title = title;
    },
  });
  const { $schema: _dialect, ...plain } = JSON.parse(JSON.stringify(json)) as JsonSchema;
  return plain;
}

/**
 * `components.schemas` of an OpenAPI document, one entry per named zod schema. The `$defs` zod
 * emits are moved out beside them, since a `#/$defs/…` reference inside an OpenAPI document
 * would resolve against the document's root; a definition with a title is named by it, and
 * identical definitions share one entry.
 */
export function componentSchemas(named: Readonly<Record<string, NamedSchema>>, titles: ReadonlyMap<unknown, string> = new Map()): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  const byContent = new Map<string, string>();
  for (const [name, { schema, io }] of Object.entries(named)) {
    const { $defs, ...root } = jsonSchemaOf(schema, io, titles);
    const renamed = new Map<string, string>();
    const added: Array<[string, JsonSchema]> = [];
    for (const [key, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      const content = JSON.stringify(definition).replaceAll(`"#/$defs/${key}"`, '"#self"');
      let shared = byContent.get(content);
      if (shared === undefined) {
        const wanted = typeof definition.title === 'string' ? definition.title : `${name}_${key.replace(/^_+/, '')}`;
        shared = freeName((candidate) => candidate in components || candidate in named, wanted);
        byContent.set(content, shared);
        components[shared] = {};
        added.push([shared, definition]);
      }
      renamed.set(key, shared);
    }
    for (const [shared, definition] of added) components[shared] = withDefinitionsRenamed(definition, renamed) as JsonSchema;
    components[name] = withDefinitionsRenamed(root, renamed) as JsonSchema;
  }
  return components;
}

function freeName(taken: (name: string) => boolean, wanted: string): string {
  const base = wanted.replace(/[^A-Za-z0-9._-]/g, '_');
  let name = base;
  for (let n = 2; taken(name); n++) name = `${base}${n}`;
  return name;
}

/** `#/$defs/{key}` references, anywhere in `value`, pointed at the components they became. */
function withDefinitionsRenamed(value: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => withDefinitionsRenamed(item, renamed));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [keyword, inner] of Object.entries(value)) {
    const key = keyword === '$ref' && typeof inner === 'string' ? /^#\/\$defs\/(.+)$/.exec(inner)?.[1] : undefined;
    out[keyword] = key !== undefined && renamed.has(key) ? `${COMPONENT_SCHEMAS}${renamed.get(key)}` : withDefinitionsRenamed(inner, renamed);
  }
  return out;
}
