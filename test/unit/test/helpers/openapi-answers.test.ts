import { describe, expect, it } from 'vitest';
import {
  checkAnswerAgainstDocument,
  type ReceivedAnswer,
} from '../../../helpers/openapi-answers.ts';

describe('the answer check of the test suites', () => {
  const answer = (changes: Partial<ReceivedAnswer>): ReceivedAnswer => ({
    method: 'GET',
    path: '/health',
    status: 200,
    contentType: 'application/json',
    body: '{"status":"ok"}',
    ...changes,
  });

  it('passes an answer the document describes', async () => {
    await expect(checkAnswerAgainstDocument(answer({}))).resolves.toBeUndefined();
    await expect(
      checkAnswerAgainstDocument(
        answer({
          path: '/nowhere',
          status: 404,
          body: '{"error":{"errorCode":"300","message":"x"}}',
        }),
      ),
    ).resolves.toBeUndefined();
  });

  it('refuses a body, a media type or a status the document does not describe', async () => {
    await expect(checkAnswerAgainstDocument(answer({ body: '{"status":"bad"}' }))).rejects.toThrow(
      /does not match/,
    );
    await expect(
      checkAnswerAgainstDocument(answer({ contentType: 'text/html', body: '<p>ok</p>' })),
    ).rejects.toThrow(/media type not documented/);
    await expect(
      checkAnswerAgainstDocument(
        answer({ path: '/jobs', status: 502, body: '{"error":{"errorCode":"520"},"stack":"x"}' }),
      ),
    ).rejects.toThrow(/does not match/);
  });
});
