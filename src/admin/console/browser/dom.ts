/**
 * `dom.js` of the admin console: building elements (text always as text nodes or
 * textContent: the page's Trusted Types policy refuses any HTML string), the message line,
 * and the box that shows a secret once.
 */
export const DOM_JS = String.raw`/**
 * An element: props set attributes (on… adds a listener; value and checked are properties);
 * children are nodes or text.
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'value' || name === 'checked') node[name] = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
}

/** A labelled control; the label's text names it for assistive technology (and for tests). */
export const field = (label, control, hint) =>
  h('label', { class: 'field' }, h('span', {}, label), control, hint ? h('small', {}, hint) : null);

export const checkbox = (label, name, checked) =>
  h('label', { class: 'check' }, h('input', { type: 'checkbox', name, checked }), h('span', {}, label));

export const link = (hash, text) => h('a', { href: hash }, text);

/** A table of rows of cells (nodes or text); an empty one says so. */
export function table(caption, headings, rows) {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'None yet.');
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headings.map((heading) => h('th', { scope: 'col' }, heading)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell) => h('td', {}, cell))))),
  );
}

/**
 * A table shown a page at a time in results: fetchPage(query) answers {rows, next}; while there
 * is a next page, a button appends it (the query with cursorParam set to next). Answers the
 * function that shows the first page of a query in place of what results held.
 */
export function pagedTable(results, { caption, headings, fetchPage, cursorParam, more }) {
  async function load(query, replace) {
    const { rows, next } = await fetchPage(query);
    const page = table(caption, headings, rows);
    const button = next
      ? h('button', {
          type: 'button',
          onclick: guarded(async (event) => {
            event.currentTarget.remove();
            const after = new URLSearchParams(query);
            after.set(cursorParam, next);
            await load(after, false);
          }),
        }, more)
      : null;
    if (replace) results.replaceChildren(page, button ?? '');
    else results.append(page, button ?? '');
  }
  return (query) => load(query, true);
}

/** The message line under the header: successes as a status, failures as an alert. */
export function say(text, kind = 'ok') {
  const line = document.getElementById('messages');
  line.replaceChildren(h('p', { class: kind, role: kind === 'error' ? 'alert' : 'status' }, text));
}

export const quiet = () => document.getElementById('messages').replaceChildren();

/**
 * A form submit (or button click) handler: the default action prevented, the controls
 * disabled while the call runs, and a failure shown on the message line.
 */
export function guarded(action) {
  return async (event) => {
    event.preventDefault();
    const form = event.currentTarget.closest('form') ?? event.currentTarget;
    const controls = [...form.querySelectorAll('button, input, select, textarea'), event.currentTarget];
    const enabled = controls.filter((control) => !control.disabled);
    for (const control of enabled) control.disabled = true;
    quiet();
    try {
      await action(event);
    } catch (error) {
      say(error.message || 'Something went wrong.', 'error');
    } finally {
      for (const control of enabled) control.disabled = false;
    }
  };
}

/**
 * A secret, shown this once: the server keeps only its hash. Closing the box (or leaving
 * the view) forgets it.
 */
export function secretBox(title, entries) {
  const box = h(
    'section',
    { class: 'secret', 'aria-label': title },
    h('h3', {}, title),
    h('p', {}, 'Shown only this once: copy it now. The server keeps no readable copy.'),
    h('dl', {}, entries.map(([name, value]) => [h('dt', {}, name), h('dd', {}, h('code', { class: 'secret-value' }, value))])),
    h('button', { type: 'button', onclick: () => box.remove() }, 'Done'),
  );
  return box;
}

/**
 * Asks before what cannot be undone: a modal dialog (the page behind it inert) whose Cancel
 * has the focus, so that Enter or Escape cancels. Answers true once confirmed.
 */
export function confirmed(question, action = 'Delete') {
  return new Promise((resolve) => {
    let answer = false;
    const cancel = h('button', { type: 'button' }, 'Cancel');
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
export const deleteButton = (name, question, action) =>
  h('button', {
    type: 'button',
    'aria-label': 'Delete ' + name,
    onclick: guarded(async () => {
      if (await confirmed(question)) await action();
    }),
  }, 'Delete');

/** A JSON object typed in a textarea; empty: undefined. A problem is named by the field's label. */
export function jsonObject(text, label) {
  if (text.trim() === '') return undefined;
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(label + ': not valid JSON (' + error.message + ').');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(label + ': must be a JSON object.');
  return value;
}

/** Whether two JSON values are the same. */
export const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The lines of a textarea, trimmed, empty ones left out. */
export const lines = (text) => text.split('\n').map((line) => line.trim()).filter(Boolean);

/** Form values by name: text as typed, checkboxes as booleans. */
export function valuesOf(form) {
  const values = {};
  for (const control of form.elements) {
    if (!control.name) continue;
    values[control.name] = control.type === 'checkbox' ? control.checked : control.value;
  }
  return values;
}
`;
