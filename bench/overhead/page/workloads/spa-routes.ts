/**
 * Workload `spa-routes`: a long-lived single-page app moving between many routes. A navigation bar of eight links;
 * a click pushes a history entry (`history.pushState`), "Back" goes back (`history.back()`, handled on `popstate`),
 * and either way the route's view replaces the main content: a catalogue route fetches its JSON (GET /api/items) and
 * renders a list, an article route renders headings and paragraphs (about 150 nodes). The title changes with the
 * route, `console.info` per navigation.
 */
import { element, noise, type StartWorkload } from '../kit';

export const ROUTES = ['home', 'catalogue', 'article', 'deals', 'account', 'orders', 'help', 'about'] as const;

export const startSpaRoutes: StartWorkload = ({ base, track }) => {
  const nav = element('nav', { id: 'nav' });
  const links = Object.fromEntries(
    ROUTES.map((route) => [route, element('a', { href: `${base}${route}`, 'data-route': route }, route)]),
  );
  nav.append(...Object.values(links));
  const back = element('button', { id: 'back', type: 'button' }, 'Back');
  const main = element('main', { id: 'view' });
  document.body.append(nav, back, main);
  let visits = 0;

  const article = (seed: number): HTMLElement[] =>
    Array.from({ length: 12 }, (_, section) => {
      const part = element('section');
      part.append(element('h3', {}, `Section ${section + 1}`));
      for (let p = 0; p < 5; p++)
        part.append(element('p', {}, `Paragraph ${p} of ${seed}: ${noise(seed * 60 + section * 5 + p).toString(36)}`));
      return part;
    });

  const show = (route: string): Promise<void> =>
    track(async () => {
      visits += 1;
      document.title = `Shop: ${route}`;
      console.info('route', { route, visits });
      const heading = element('h1', {}, route);
      if (route === 'catalogue' || route === 'deals') {
        const items = (await (await fetch(`/api/items?page=${visits}`)).json()) as Array<{ id: number; name: string }>;
        const list = element('ul', { class: 'items' });
        list.append(...items.map((item) => element('li', { 'data-id': String(item.id) }, item.name)));
        main.replaceChildren(heading, list);
      } else {
        main.replaceChildren(heading, ...article(visits));
      }
    });

  const routeOf = (path: string): string => path.slice(base.length) || 'home';
  nav.addEventListener('click', (event) => {
    const link = (event.target as HTMLElement).closest('a');
    if (!link) return;
    event.preventDefault();
    history.pushState({ route: link.dataset.route }, '', link.href);
    void show(link.dataset.route!);
  });
  back.addEventListener('click', () => history.back());
  addEventListener('popstate', () => void show(routeOf(location.pathname)));
  void show('home');

  return { ...links, back };
};
