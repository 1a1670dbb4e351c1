/**
 * JSON-like values as XML the way the platform's Java backends serialise them: object members
 * become elements, an array repeats its member's element once per item, null is an empty
 * element.
 */

import { escapeXml } from '../gateway/envelope.ts';

function element(name: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => element(name, item)).join('');
  if (value === null || value === undefined) return `<${name}/>`;
  if (typeof value === 'object') {
    const members = Object.entries(value).map(([key, member]) => element(key, member));
    return `<${name}>${members.join('')}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function toXmlDocument(rootName: string, value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${element(rootName, value)}`;
}
