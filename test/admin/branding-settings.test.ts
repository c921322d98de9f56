import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { expectAdminError } from './helpers.js';

/**
 * The admin API's realm settings of branding and languages (CONTRACT.md §10): `display_name`,
 * `logo_uri` (https only), `primary_color` (#rrggbb), `locales` (of the languages the pages
 * ship in). A refused value is 400 naming the setting, and changes nothing.
 */
describe('admin API: branding and language settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('brand');
  });
  afterAll(() => t.close());

  const settings = async () => (await t.admin.request('GET', '/realms/brand')).json().settings;
  const patch = (values: Record<string, unknown>) => t.admin.request('PATCH', '/realms/brand', { settings: values });

  it('defaults to no display name, logo or colour, and every language in the order en, de, fr', async () => {
    expect(await settings()).toMatchObject({ display_name: null, logo_uri: null, primary_color: null, locales: ['en', 'de', 'fr'] });
  });

  it('takes a display name (trimmed), an https logo, a #rrggbb colour and a subset of the languages in any order; null clears them', async () => {
    const changed = await patch({
      display_name: '  Acme Corp  ',
      logo_uri: 'https://cdn.acme.example/logo.svg',
      primary_color: '#0A7F3C',
      locales: ['fr', 'en'],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(await settings()).toMatchObject({
      display_name: 'Acme Corp',
      logo_uri: 'https://cdn.acme.example/logo.svg',
      primary_color: '#0A7F3C',
      locales: ['fr', 'en'],
    });
    expect((await patch({ display_name: null, logo_uri: null, primary_color: null })).statusCode).toBe(200);
    expect(await settings()).toMatchObject({ display_name: null, logo_uri: null, primary_color: null, locales: ['fr', 'en'] });
    expect((await patch({ locales: ['en', 'de', 'fr'] })).statusCode).toBe(200);
  });

  it.each([
    ['locales', ['es']],
    ['locales', ['en', 'en-GB']],
    ['locales', ['EN']],
    ['locales', []],
    ['locales', ['en', 'en']],
    ['locales', 'en'],
    ['logo_uri', 'http://cdn.acme.example/logo.svg'],
    ['logo_uri', 'javascript:alert(1)'],
    ['logo_uri', 'data:image/png;base64,AAAA'],
    ['logo_uri', 'not a url'],
    ['primary_color', 'red'],
    ['primary_color', '#fff'],
    ['primary_color', '#12345g'],
    ['primary_color', '#1234567'],
    ['primary_color', 'rgb(0, 0, 0)'],
    ['display_name', ''],
    ['display_name', '   '],
    ['display_name', 'x'.repeat(101)],
    ['display_name', 'Acme\nCorp'],
    ['display_name', 42],
  ])('refuses %s %j, naming the setting, and changes nothing', async (name, value) => {
    const before = await settings();
    const response = await patch({ [name]: value, ticket_lifetime: 60 });
    expectAdminError(response, 400, 'invalid_request');
    expect(response.json().error_description).toContain(`settings.${name}`);
    expect(await settings()).toEqual(before);
  });

  it('names the languages a realm may have when it refuses one', async () => {
    const response = await patch({ locales: ['en', 'es'] });
    expectAdminError(response, 400, 'invalid_request');
    expect(response.json().error_description).toContain('en, de, fr');
  });

  it('takes them when the realm is created too', async () => {
    const created = await t.admin.request('POST', '/realms', { name: 'branded', settings: { display_name: 'Branded', locales: ['de'] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().settings).toMatchObject({ display_name: 'Branded', locales: ['de'] });
    expectAdminError(await t.admin.request('POST', '/realms', { name: 'unbranded', settings: { locales: ['xx'] } }), 400, 'invalid_request');
    expectAdminError(await t.admin.request('GET', '/realms/unbranded'), 404, 'not_found');
  });
});
