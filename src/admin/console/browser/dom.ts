/**
 * The admin console's dom module: building elements (text always as text nodes or
 * textContent: the page's Trusted Types policy refuses any HTML string), the message line,
 * and the box that shows a secret once.
 */
import { consoleLocale, t } from './i18n.js';
import { refusalOf } from './permissions.js';

/** An attribute's value: absent when undefined, null or false; present and empty when true. */
export type PropValue = string | number | boolean | null | undefined;
/** Attributes, and listeners under on… names. */
export type Props = Record<string, PropValue | EventListener | ((event: Event) => unknown)>;
/** A child: a node or text; nothing when empty; lists of them at any depth. */
export type Child = Node | string | null | undefined | false | readonly Child[];

/**
 * An element: props set attributes (on… adds a listener; value and checked are properties);
 * children are nodes or text. A control with `data-operation` is disabled, with the reason as
 * its title, when the person may not make that operation (permissions.ts).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value as EventListener);
    else if (name === 'value' || name === 'checked') (node as unknown as Record<string, unknown>)[name] = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of (children as unknown[]).flat(Infinity) as (Node | string | null | undefined | false)[]) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  const operation = props['data-operation'];
  const refusal = typeof operation === 'string' ? refusalOf(operation) : undefined;
  if (refusal !== undefined) {
    node.setAttribute('disabled', '');
    node.setAttribute('title', t('Not allowed: {reason}.', { reason: refusal }));
  }
  return node;
}

/**
 * A translated sentence whose `{name}` placeholders are nodes (a <time>, a <code>), each in the
 * place the language puts it: `sentence(t('retired {when}'), { when: localTime(at) })`.
 */
export function sentence(text: string, parts: Readonly<Record<string, Child>>): Child[] {
  return text.split(/(\{\w+\})/).map((piece) => {
    const name = /^\{(\w+)\}$/.exec(piece)?.[1];
    return name !== undefined && Object.hasOwn(parts, name) ? parts[name] : piece;
  });
}

/** A named control of a form: a text field, a text area, a select or a checkbox. */
export type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** The form's control of that name; a missing one is a mistake of the console. */
export function control(form: HTMLFormElement, name: string): Control {
  const found = form.elements.namedItem(name);
  if (found instanceof HTMLInputElement || found instanceof HTMLTextAreaElement || found instanceof HTMLSelectElement) return found;
  throw new Error(t('The form has no control {name}.', { name }));
}

/** The text of the form's control of that name. */
export const valueOf = (form: HTMLFormElement, name: string): string => control(form, name).value;

/** Whether the form's checkbox of that name is ticked. */
export const isChecked = (form: HTMLFormElement, name: string): boolean => (control(form, name) as HTMLInputElement).checked;

/** Sets the form's control of that name. */
export function setValue(form: HTMLFormElement, name: string, value: string): void {
  control(form, name).value = value;
}

export function setChecked(form: HTMLFormElement, name: string, checked: boolean): void {
  (control(form, name) as HTMLInputElement).checked = checked;
}

/** A labelled control; the label's text names it for assistive technology (and for tests). */
export const field = (label: string, input: HTMLElement, hint?: string | null) =>
  h('label', { class: 'field' }, h('span', {}, label), input, hint ? h('small', {}, hint) : null);

export const checkbox = (label: string, name: string, checked: boolean | undefined, hint?: string | null) =>
  h('label', { class: 'check' }, h('input', { type: 'checkbox', name, checked }), h('span', {}, label), hint ? h('small', {}, hint) : null);

export const link = (hash: string, text: string) => h('a', { href: hash }, text);

/** A table of rows of cells (nodes or text); an empty one says so. */
export function table(caption: string, headings: readonly string[], rows: readonly (readonly Child[])[]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, t('None yet.'));
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headings.map((heading) => h('th', { scope: 'col' }, heading)))),
    // Each cell names its column: on a phone the rows are shown as cards (style.ts), without the head.
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell, index) => h('td', { 'data-label': headings[index] }, cell))))),
  );
}

/**
 * A table shown a page at a time in results: fetchPage(query) answers {rows, next}; while there
 * is a next page, a button appends it (the query with cursorParam set to next). Answers the
 * function that shows the first page of a query in place of what results held.
 */
export interface Paged {
  readonly rows: readonly (readonly Child[])[];
  readonly next?: string | null;
}

export function pagedTable(
  results: HTMLElement,
  { caption, headings, fetchPage, cursorParam, more }: { caption: string; headings: readonly string[]; fetchPage: (query: URLSearchParams) => Promise<Paged>; cursorParam: string; more: string },
): (query: URLSearchParams) => Promise<void> {
  async function load(query: URLSearchParams, replace: boolean): Promise<void> {
    const { rows, next } = await fetchPage(query);
    const page = table(caption, headings, rows);
    const button = next
      ? h('button', {
          type: 'button',
          onclick: guarded(async (event) => {
            (event.currentTarget as HTMLElement).remove();
            const after = new URLSearchParams(query);
            after.set(cursorParam, next);
            await load(after, false);
          }),
        }, more)
      : null;
    if (replace) results.replaceChildren(page, button ?? '');
    else results.append(page, button ?? '');
  }
  return (query: URLSearchParams) => load(query, true);
}

/** The message line under the header: successes as a status, failures as an alert. */
export function say(text: string, kind: 'ok' | 'error' = 'ok'): void {
  element('messages').replaceChildren(h('p', { class: kind, role: kind === 'error' ? 'alert' : 'status' }, text));
}

export const quiet = (): void => element('messages').replaceChildren();

/** An element of the page (src/admin/console/page.ts) by its id. */
export function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(t('The page has no element {id}.', { id }));
  return found;
}

/**
 * A form submit (or button click) handler: the default action prevented, the controls
 * disabled while the call runs, and a failure shown on the message line.
 */
export function guarded(action: (event: Event) => unknown): (event: Event) => Promise<void> {
  return async (event) => {
    event.preventDefault();
    const target = event.currentTarget as HTMLElement;
    const form = target.closest('form') ?? target;
    const controls = [...form.querySelectorAll<Control | HTMLButtonElement>('button, input, select, textarea'), target as HTMLButtonElement];
    const enabled = controls.filter((control) => !control.disabled);
    for (const control of enabled) control.disabled = true;
    quiet();
    try {
      await action(event);
    } catch (error) {
      say((error as Error).message || t('Something went wrong.'), 'error');
    } finally {
      for (const control of enabled) control.disabled = false;
    }
  };
}

/**
 * A secret, shown this once: the server keeps only its hash. Closing the box (or leaving
 * the view) forgets it.
 */
export function secretBox(title: string, entries: readonly (readonly [string, string])[]): HTMLElement {
  const box: HTMLElement = h(
    'section',
    { class: 'secret', 'aria-label': title },
    h('h3', {}, title),
    h('p', {}, t('Shown only this once: copy it now. The server keeps no readable copy.')),
    h('dl', {}, entries.map(([name, value]) => [h('dt', {}, name), h('dd', {}, h('code', { class: 'secret-value' }, value), ' ', copyButton(value, name))])),
    h('button', { type: 'button', onclick: () => box.remove() }, t('Done')),
  );
  return box;
}

/**
 * Asks before what cannot be undone: a modal dialog (the page behind it inert) whose Cancel
 * has the focus, so that Enter or Escape cancels. Answers true once confirmed.
 */
export function confirmed(question: string, action = t('Delete')): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const cancel = h('button', { type: 'button' }, t('Cancel'));
    const confirm = h('button', { type: 'button', class: 'danger' }, action);
    const dialog = h('dialog', { class: 'confirm', role: 'alertdialog', 'aria-label': question }, h('p', {}, question), confirm, cancel);
    confirm.addEventListener('click', () => {
      answer = true;
      dialog.close();
    });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/** A Delete button (named "Delete {name}") that asks the question first, then runs the action. */
export const deleteButton = (name: string, question: string, action: () => Promise<unknown>, operation?: string) =>
  h('button', {
    type: 'button',
    'data-operation': operation,
    'aria-label': t('Delete {name}', { name }),
    onclick: guarded(async () => {
      if (await confirmed(question)) await action();
    }),
  }, t('Delete'));

/** A JSON object typed in a textarea; empty: undefined. A problem is named by the field's label. */
export function jsonObject(text: string, label: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(t('{label}: not valid JSON ({reason}).', { label, reason: (error as Error).message }));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(t('{label}: must be a JSON object.', { label }));
  return value as Record<string, unknown>;
}

/** A JSON value with every object's keys in order: the database may hand them back in another. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]))
      : value;

/** Whether two JSON values are the same, whatever the order of their objects' keys. */
export const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** The lines of a textarea, trimmed, empty ones left out. */
export const lines = (text: string): string[] => text.split('\n').map((line) => line.trim()).filter(Boolean);

/**
 * A Copy button for a value (an id, an issuer, a secret): named "Copy {what}"; it says Copied
 * for a moment, or asks to select the text when the browser refuses the clipboard.
 */
export function copyButton(value: string, what: string): HTMLButtonElement {
  const button: HTMLButtonElement = h('button', {
    type: 'button',
    class: 'copy',
    'aria-label': t('Copy {what}', { what }),
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(value);
      } catch {
        return say(t('The browser did not let the console copy {what}: select it and copy it.', { what }), 'error');
      }
      button.textContent = t('Copied');
      setTimeout(() => (button.textContent = t('Copy')), 2000);
    },
  }, t('Copy'));
  return button;
}

/** Moments as the console's language writes them, made once per language. */
const LOCAL_TIMES = new Map<string, Intl.DateTimeFormat>();
function localTimeFormat(): Intl.DateTimeFormat {
  const locale = consoleLocale();
  let format = LOCAL_TIMES.get(locale);
  if (format === undefined) LOCAL_TIMES.set(locale, (format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' })));
  return format;
}

/** A number as the console's language writes it (digit grouping). */
export const localNumber = (value: number): string => value.toLocaleString(consoleLocale());

/** A moment in the browser's time zone and the console's language; the exact instant (UTC) as its title. */
export function localTime(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return h('time', { datetime: iso, title: iso }, localTimeFormat().format(date));
}
