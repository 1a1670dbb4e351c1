/**
 * GET /docs's page (lib/http/docs-page.ts): the HTML, its start-up script and its
 * Content-Security-Policy. The page loads nothing from another site and works under any base
 * path; it runs under its own policy (no inline script); the start-up script, run here in a
 * context of its own with the browser parts it uses standing in, fetches the document beside
 * the page, points its servers at the page's own deployment and renders it, or says why not.
 * test/e2e/local-stack/docs-browser.ts opens the page in a real browser.
 */
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  DOCS_ASSET_NAMES,
  DOCS_CONTENT_SECURITY_POLICY,
  docsInitScript,
  docsPageHtml,
} from '../../../../lib/http/docs-page.ts';

/** The policy as directives: name -> sources. */
const policy = new Map(
  DOCS_CONTENT_SECURITY_POLICY.split(';').map((directive) => {
    const [name = '', ...sources] = directive.trim().split(/\s+/);
    return [name, sources] as const;
  }),
);

/** Every URL the page names (href, src). */
const urlsOf = (html: string) =>
  [...html.matchAll(/\b(?:href|src)="([^"]*)"/g)].map(([, url]) => url ?? '');

describe('the page', () => {
  const html = docsPageHtml();

  it('names no other site: every link is relative to the page', () => {
    const urls = urlsOf(html);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url, url).toMatch(/^[a-z][a-z0-9./-]*$/);
    expect(html).not.toMatch(/https?:|\/\//);
  });

  it('works under any base path: its files and the document are found beside it', () => {
    for (const page of [
      'https://abc123.execute-api.us-east-1.amazonaws.com/docs',
      'https://api.example.com/gateway/v1/docs',
    ]) {
      const base = page.slice(0, page.lastIndexOf('/') + 1);
      for (const url of urlsOf(html)) expect(new URL(url, page).href.startsWith(base)).toBe(true);
    }
  });

  it('loads the files GET /docs/{asset} serves, and only those', () => {
    const files = urlsOf(html)
      .filter((url) => url.startsWith('docs/'))
      .map((url) => url.slice('docs/'.length));
    expect(files.sort()).toEqual([...DOCS_ASSET_NAMES].sort());
  });

  it('runs under its own policy: no inline script, no inline handler', () => {
    for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attributes).toMatch(/\bsrc="/);
      expect(body).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('points a browser without JavaScript at the document', () => {
    expect(html).toMatch(/<noscript>[^<]*<a href="openapi\.json">/);
  });
});

describe('its Content-Security-Policy', () => {
  it('allows nothing by default, and its own origin only for what the page needs', () => {
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    for (const [directive, sources] of policy) {
      for (const source of sources) {
        expect(source, directive).toMatch(/^('self'|'none'|'unsafe-inline'|data:|blob:)$/);
      }
    }
  });

  it('lets no script be inlined or evaluated: only styles may be inline (Swagger UI sets them)', () => {
    const inline = [...policy].filter(([, sources]) => sources.includes("'unsafe-inline'"));
    expect(inline.map(([directive]) => directive)).toEqual(['style-src']);
    expect(DOCS_CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
  });

  it('lets no frame hold the page, no form post away, no base URL move it', () => {
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
  });
});

interface Fetched {
  readonly url: string;
  readonly accept: string | undefined;
}

/**
 * Runs the start-up script as a page at `location` would, with the document's answer given:
 * what it fetched, what it rendered, and what it showed instead.
 */
async function startUp(location: string, answer: { status: number; body?: unknown }) {
  const fetched: Fetched[] = [];
  const rendered: Record<string, unknown>[] = [];
  const box = { textContent: '', attributes: {} as Record<string, string> };
  let settle: () => void = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const context = {
    URL,
    window: { location: { href: location } } as Record<string, unknown>,
    document: {
      getElementById: (id: string) => {
        if (id !== 'swagger-ui') throw new Error(`no element ${id}`);
        return {
          set textContent(text: string) {
            box.textContent = text;
          },
          setAttribute: (name: string, value: string) => {
            box.attributes[name] = value;
            settle();
          },
        };
      },
    },
    fetch: async (url: string, init?: { headers?: Record<string, string> }) => {
      fetched.push({ url, accept: init?.headers?.accept });
      return {
        status: answer.status,
        ok: answer.status >= 200 && answer.status < 300,
        json: async () => structuredClone(answer.body),
      };
    },
    SwaggerUIBundle: (options: Record<string, unknown>) => {
      rendered.push(options);
      settle();
      return { rendered: true };
    },
  };
  vm.runInNewContext(docsInitScript(), context, { filename: 'init.js' });
  await settled;
  return { fetched, rendered, box, window: context.window };
}

const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Platform gateway', version: '1' },
  servers: [{ url: 'https://{apiId}.execute-api.{region}.amazonaws.com' }],
  paths: {},
};

describe('its start-up script', () => {
  it('fetches the document beside the page, and renders it against this very deployment', async () => {
    const { fetched, rendered, window } = await startUp('https://api.example.com/gateway/docs', {
      status: 200,
      body: DOCUMENT,
    });
    expect(fetched).toEqual([
      { url: 'https://api.example.com/gateway/openapi.json', accept: 'application/json' },
    ]);
    expect(rendered).toHaveLength(1);
    const options = rendered[0] ?? {};
    expect((options.spec as typeof DOCUMENT).servers).toEqual([
      { url: 'https://api.example.com/gateway', description: expect.any(String) },
    ]);
    expect((options.spec as typeof DOCUMENT).paths).toEqual({});
    expect(options.dom_id).toBe('#swagger-ui');
    expect(window.ui).toEqual({ rendered: true });
  });

  it('calls nothing off its origin: no online validator, and a pasted token is not kept', async () => {
    const { rendered } = await startUp('https://abc123.execute-api.us-east-1.amazonaws.com/docs', {
      status: 200,
      body: DOCUMENT,
    });
    expect(rendered[0]).toMatchObject({ validatorUrl: null, persistAuthorization: false });
  });

  it('says why when the stage serves its reference to known callers only', async () => {
    const { box, rendered } = await startUp('https://api.example.com/docs', { status: 401 });
    expect(rendered).toEqual([]);
    expect(box.textContent).toBe(
      'The reference could not load: This stage serves its reference to known callers only: GET openapi.json needs a bearer token.',
    );
    expect(box.attributes.role).toBe('alert');
  });

  it('says what the document answered when it could not be had', async () => {
    const { box } = await startUp('https://api.example.com/docs', { status: 503 });
    expect(box.textContent).toBe('The reference could not load: GET openapi.json answered 503.');
  });
});
