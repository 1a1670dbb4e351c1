/** A catalogue route's docs, from its entry (lib/http/routes/docs/catalogue.ts). */
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../../../../lib/catalogue/table.ts';
import { catalogueDocsOf } from '../../../../../../lib/http/routes/docs/catalogue.ts';

describe('catalogueDocsOf', () => {
  it('gives every entry of the catalogue its responses', () => {
    for (const entry of catalogue) {
      expect(catalogueDocsOf(entry).responses.length, entry.id).toBeGreaterThan(0);
    }
  });
});
