import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { consoleRoute } from './pages.js';
import { CONSOLE_PREFIX, staticPath } from './paths.js';

interface Asset {
  body: Buffer;
  type: string;
  digest: string;
}

const require = createRequire(import.meta.url);
// `assets/console/` beside `src/` and `dist/` alike (both are one level below the package).
const own = (name: string) => new URL(`../../assets/console/${name}`, import.meta.url);

/** The console's static files: its stylesheet and script, and htmx with its SSE extension from node_modules. */
function loadAssets(): Map<string, Asset> {
  const files: [string, string | URL, string][] = [
    ['console.css', own('console.css'), 'text/css; charset=utf-8'],
    ['console.js', own('console.js'), 'text/javascript; charset=utf-8'],
    ['htmx.min.js', require.resolve('htmx.org/dist/htmx.min.js'), 'text/javascript; charset=utf-8'],
    ['sse.min.js', require.resolve('htmx-ext-sse/dist/sse.min.js'), 'text/javascript; charset=utf-8'],
  ];
  return new Map(
    files.map(([name, at, type]) => {
      const body = readFileSync(at);
      return [name, { body, type, digest: createHash('sha256').update(body).digest('hex').slice(0, 12) }];
    }),
  );
}

/** The URLs the pages link: each with its digest, so a changed file is a new URL. */
export interface AssetUrls {
  css: string;
  scripts: string[];
}

/**
 * Serves the static files at `/console/static/<name>` with a year of caching (the pages link
 * them with `?v=<digest>`), read once at start.
 */
export function registerAssets(app: OpenAPIHono): AssetUrls {
  const assets = loadAssets();
  consoleRoute(
    app,
    {
      method: 'get',
      path: `${CONSOLE_PREFIX}/static/{name}`,
      access: 'public-unmetered',
      summary: "The console's stylesheet and scripts",
      params: z.object({ name: z.string() }),
    },
    (c) => {
      const asset = assets.get(c.req.param('name') ?? '');
      if (!asset) return c.text('No such file', 404);
      return c.body(new Uint8Array(asset.body), 200, {
        'content-type': asset.type,
        'cache-control': 'public, max-age=31536000, immutable',
        etag: `"${asset.digest}"`,
      });
    },
  );
  const url = (name: string) => staticPath(name, assets.get(name)?.digest ?? '');
  return {
    css: url('console.css'),
    scripts: [url('htmx.min.js'), url('sse.min.js'), url('console.js')],
  };
}
