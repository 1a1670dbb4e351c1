/** The execution and webhook routes' docs (lib/http/routes/docs/functions.ts). */
import { describe, expect, it } from 'vitest';
import { functionDocs } from '../../../../../../lib/http/routes/docs/functions.ts';
import { functionRoutes } from '../../../../../../lib/http/routes/functions.ts';

describe("the execution and webhook routes' docs", () => {
  it('give each route its line of the README, and the webhook what authenticates it', () => {
    expect(Object.keys(functionDocs).sort()).toEqual(Object.keys(functionRoutes).sort());
    for (const docs of Object.values(functionDocs)) expect(docs.upstream).toBeTruthy();
    expect(functionDocs.receiveWebhook.accessNote).toContain('signature');
  });
});
