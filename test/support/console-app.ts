import { createApp } from '../../src/server/app.js';
import { mountConsole } from '../../src/console/index.js';
import type { Store } from '../../src/server/store/store.js';

/** The origin of the in-process app's requests, which the console's posts must come from. */
export const CONSOLE_ORIGIN = 'http://localhost';

/** The app with the web console, on `store`, in this process (no server, no worker pool). */
export function consoleApp(store: Store) {
  return createApp({
    store,
    version: '1',
    now: () => Date.now(),
    startedAt: Date.now(),
    makeReader: () => {
      throw new Error('unused');
    },
    console: mountConsole,
  });
}

/** A browser on `app`: keeps its cookies, sends the console's origin on posts, follows no redirect. */
export function consoleBrowser(app: ReturnType<typeof consoleApp>) {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, ...rest] = pair.split('=');
      const value = rest.join('=');
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '') jar.delete(name.trim());
      else jar.set(name.trim(), value);
    }
    return res;
  };
  const b = {
    jar,
    get: async (path: string) =>
      keep(await app.request(path, { headers: { accept: 'text/html', cookie: cookieHeader() } })),
    /** Posts a form (a field given several values is sent once for each). */
    post: async (path: string, form: Record<string, string | string[]>, origin = CONSOLE_ORIGIN) => {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
      return keep(
        await app.request(path, {
          method: 'POST',
          headers: { origin, cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        }),
      );
    },
    /** The CSRF token of the form on the page at `path`. */
    csrf: async (path = '/console') => /name="_csrf" value="([^"]+)"/.exec(await (await b.get(path)).text())?.[1] ?? '',
  };
  return b;
}
