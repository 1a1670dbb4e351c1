/** What the image and audio CAPTCHA routes accept and refuse before anything is sent. */
import { describe } from 'vitest';
import { captchaEntries } from '../../../../lib/catalogue/captcha.ts';
import { type Accepted, checkInputSchemas, type Refused } from './input-schemas.ts';

const accepted: Accepted[] = [
  ['GET /captcha/image/key', 'query', {}],
  ['GET /captcha/audio', 'query', { key: 't521bp3qM7Qyk2X2' }],
  ['POST /captcha/image/verify', 'body', { key: 't521bp3qM7Qyk2X2', value: 'ABC12' }],
];

const refused: Refused[] = [
  ['CAPTCHA key with a parameter', 'GET /captcha/image/key', 'query', { code: '1' }, ''],
  ['CAPTCHA image without key', 'GET /captcha/image', 'query', {}, 'key'],
  ['CAPTCHA image empty key', 'GET /captcha/audio', 'query', { key: '' }, 'key'],
  [
    'CAPTCHA verify empty value',
    'POST /captcha/image/verify',
    'body',
    { key: 'k', value: '' },
    'value',
  ],
  [
    'CAPTCHA verify empty key',
    'POST /captcha/audio/verify',
    'body',
    { key: '', value: 'v' },
    'key',
  ],
];

describe('captcha input schemas', () => {
  checkInputSchemas(captchaEntries, accepted, refused);
});
