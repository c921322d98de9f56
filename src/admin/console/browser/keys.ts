/** The admin console's keys module: a realm's published signing keys, and their rotation. */
import { api } from './api.js';
import { guarded, h, localTime, say, sentence, table } from './dom.js';
import { t } from './i18n.js';

export async function keysView(realm: string, panel: HTMLElement) {
  const list = h('div');

  async function refresh() {
    const { keys } = await api.keys(realm);
    list.replaceChildren(
      table(
        t('Signing keys'),
        [t('Key ID'), t('Algorithm'), t('State')],
        keys.map((key) => [h('code', {}, key.kid), key.alg, key.current ? t('current') : sentence(t('retired {when}'), { when: localTime(key.retired_at) })]),
      ),
    );
  }

  const rotate = h('button', { 'data-operation': 'rotateKeys', type: 'button', class: 'primary' }, t('Rotate keys'));
  rotate.addEventListener('click', guarded(async () => {
    const { keys } = await api.rotateKeys(realm);
    say(t('New signing keys: {keys}. The previous ones verify until the tokens they signed expire.', { keys: keys.map((key) => key.kid + ' (' + key.alg + ')').join(', ') }));
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, t('Each realm signs with an RS256 and an ES256 key. Rotation replaces both; the replaced keys stay published while tokens they signed may live.')),
    list,
    rotate,
  );
}
