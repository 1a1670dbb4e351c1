/**
 * What a deployed function demands of its settings (lib/core/deployed-settings.ts): a setting
 * only some functions need, there when they start; a part that must exist when deployed, left out
 * locally; and the URLs credentials may travel to.
 */
import { describe, expect, it } from 'vitest';
import {
  deployedSetting,
  isSecureUrl,
  requiredSetting,
} from '../../../../lib/core/deployed-settings.ts';
import { ConfigError } from '../../../../lib/core/errors.ts';

describe('a setting a function needs', () => {
  it('is handed back when set, and refused naming its variable when not', () => {
    expect(requiredSetting('https://platform.example', 'SCAN_BASE_URL')).toBe(
      'https://platform.example',
    );
    expect(() => requiredSetting(undefined, 'SCAN_BASE_URL')).toThrow(ConfigError);
    expect(() => requiredSetting(undefined, 'SCAN_BASE_URL')).toThrow(
      'Invalid configuration: SCAN_BASE_URL: required when deployed',
    );
  });

  it('is required when deployed, and may be left out locally', () => {
    expect(() => deployedSetting({ deployed: true }, undefined, 'USAGE_TABLE')).toThrow(
      /USAGE_TABLE: required when deployed/,
    );
    expect(deployedSetting({ deployed: true }, 'usage', 'USAGE_TABLE')).toBe('usage');
    expect(deployedSetting({ deployed: false }, undefined, 'USAGE_TABLE')).toBeUndefined();
  });
});

describe('where credentials may travel when deployed', () => {
  it('is https, or a loopback host over plain http', () => {
    expect(isSecureUrl('https://platform.example/api')).toBe(true);
    expect(isSecureUrl(new URL('http://127.0.0.1:4010'))).toBe(true);
    expect(isSecureUrl('http://localhost:4010')).toBe(true);
    expect(isSecureUrl('http://[::1]:4010')).toBe(true);
    expect(isSecureUrl('http://platform.example')).toBe(false);
  });
});
