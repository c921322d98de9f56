import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { after, readDoc, runWithTourFunctions, shellBlocks } from './support.js';

/**
 * docs/authorization-data.md's example holds: its shell blocks, run in order by bash with the
 * tour's shell functions (README.md) against a listening server, answer what their comments say.
 */
const DOC = 'docs/authorization-data.md';

describe(`the example of ${DOC}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(() => t?.close());

  it('runs in order: roles through a group, the claims in each token, the change in the next token, a reserved name refused', async () => {
    const blocks = shellBlocks(readDoc(DOC));
    expect(blocks).toHaveLength(3);
    const run = await runWithTourFunctions(blocks, t.baseUrl);
    expect(run.code, run.output).toBe(0);

    const line = (label: string): Record<string, unknown> => JSON.parse(after(run.output, label)) as Record<string, unknown>;
    expect(run.output).toContain('{"name":"accounting","description":"The accounting team","roles":["ledger:read"]}');
    expect(run.output).toContain("[ 'invoice-approver', 'ledger:read' ]");
    expect(run.output).toMatch(/^204\n204\n/m);
    const access = line('access token: ');
    expect(access).toMatchObject({ roles: ['invoice-approver', 'ledger:read'], department: 'Finance', scope: 'openid books' });
    expect(access).not.toHaveProperty('groups');
    const id = line('ID token: ');
    expect(id).toMatchObject({ roles: ['invoice-approver', 'ledger:read'], groups: ['accounting'] });
    expect(id).not.toHaveProperty('department');
    expect(line('introspection: ')).toMatchObject({ active: true, roles: ['invoice-approver', 'ledger:read'] });
    expect(line('next access token: ')).toMatchObject({ roles: ['invoice-approver'] });
    expect(run.output).toContain('{"error":"invalid_request","error_description":"claims.0.name: is set by the server and cannot be mapped"}');
  });
});
