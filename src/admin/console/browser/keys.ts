/** The admin console's keys module: a realm's published signing keys, and their rotation. */
import { api } from './api.js';
import { guarded, h, localTime, say, table } from './dom.js';

export async function keysView(realm: string, panel: HTMLElement) {
  const list = h('div');

  async function refresh() {
    const { keys } = await api.keys(realm);
    list.replaceChildren(
      table(
        'Signing keys',
        ['Key ID', 'Algorithm', 'State'],
        keys.map((key) => [h('code', {}, key.kid), key.alg, key.current ? 'current' : ['retired ', localTime(key.retired_at)]]),
      ),
    );
  }

  const rotate = h('button', { 'data-operation': 'rotateKeys', type: 'button', class: 'primary' }, 'Rotate keys');
  rotate.addEventListener('click', guarded(async () => {
    const { keys } = await api.rotateKeys(realm);
    say('New signing keys: ' + keys.map((key) => key.kid + ' (' + key.alg + ')').join(', ') + '. The previous ones verify until the tokens they signed expire.');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'Each realm signs with an RS256 and an ES256 key. Rotation replaces both; the replaced keys stay published while tokens they signed may live.'),
    list,
    rotate,
  );
}
