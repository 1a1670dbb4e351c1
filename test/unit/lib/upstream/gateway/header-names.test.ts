import { describe, expect, it } from 'vitest';
import { gatewayHeaderNames } from '../../../../../lib/upstream/gateway/header-names.ts';

describe('gateway header names', () => {
  it('follow the vendor word, lower case', () => {
    expect(gatewayHeaderNames('NCP')).toEqual({
      timestamp: 'x-ncp-apigw-timestamp',
      accessKey: 'x-ncp-iam-access-key',
      signature: 'x-ncp-apigw-signature-v2',
      apiKey: 'x-ncp-apigw-api-key',
      clientId: 'x-ncp-apigw-api-key-id',
      responseOrigin: 'x-ncp-apigw-response-origin',
    });
  });
});
