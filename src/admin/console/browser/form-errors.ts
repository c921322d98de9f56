/**
 * The admin console's form-errors module: a refusal (the server's, or a check before sending)
 * shown at the end of the form it concerns, as well as on the message line, so that on a long
 * form or a phone it is seen where the operator is. The form names it with aria-describedby.
 */
import { h } from './dom.js';

let forms = 0;

/** `action`, its failure also shown beside `form` (and cleared when it runs again). */
export function shownBeside(form: HTMLFormElement, action: (event: Event) => unknown): (event: Event) => Promise<void> {
  const id = 'form-error-' + ++forms;
  return async (event) => {
    form.querySelector('#' + id)?.remove();
    form.removeAttribute('aria-describedby');
    try {
      await action(event);
    } catch (error) {
      form.append(h('p', { id, class: 'form-error' }, (error as Error).message));
      form.setAttribute('aria-describedby', id);
      throw error;
    }
  };
}
