/**
 * Decodes whatever error an upstream sends (gateway envelopes in JSON or in XML under any root,
 * numeric codes, API-specific shapes, empty or unreadable bodies) into one UpstreamError.
 */
import { STATUS_CODES } from 'node:http';
import { parse as parseXml, type TNode } from 'txml/txml';
import { UpstreamError } from '../core/errors.ts';
import { isJsonObject as isRecord } from '../core/json.ts';

/** Upstream text is bounded so that a hostile or broken upstream cannot flood a response. */
const MAX_TEXT = 1000;
/** An error envelope is a few hundred bytes: more than this is never parsed. */
export const MAX_DECODED_ERROR_BYTES = 64 * 1024;

interface UpstreamErrorSource {
  readonly status: number;
  readonly body: Uint8Array | string;
}

interface DecodedFields {
  code?: string | undefined;
  message?: string | undefined;
  details?: string | undefined;
}

/** Decodes an upstream error answer. `status` becomes the caller's status unchanged. */
export function decodeUpstreamError(source: UpstreamErrorSource): UpstreamError {
  const raw =
    typeof source.body === 'string'
      ? source.body.slice(0, MAX_DECODED_ERROR_BYTES)
      : Buffer.from(source.body.subarray(0, MAX_DECODED_ERROR_BYTES)).toString('utf8');
  const text = raw.trim();
  const fields = text.startsWith('<') ? fromXml(text) : text.startsWith('{') ? fromJson(text) : {};
  return new UpstreamError({
    status: source.status,
    code: fields.code ?? String(source.status),
    message: fields.message ?? STATUS_CODES[source.status] ?? 'Upstream Error',
    details: fields.details,
  });
}

function fromJson(text: string): DecodedFields {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  return isRecord(parsed) ? fieldsOf(parsed) : {};
}

/**
 * Finds the code in the shapes the platform uses: `{error:{errorCode,message,details}}`
 * (gateway, numeric in some services), `{errorCode, errorMessage}` (Papago, CAPTCHA),
 * `{status:{code,message}}` (reverse geocoding), `{status:"INVALID_REQUEST", errorMessage}`
 * (geocoding), `{code, message}` (directions) and `{error:"text"}` (function controller).
 */
export function fieldsOf(record: Record<string, unknown>): DecodedFields {
  const error = record.error;
  if (isRecord(error)) {
    return {
      code: codeText(error.errorCode) ?? codeText(error.code),
      message: text(error.message) ?? text(error.errorMessage),
      details: text(error.details),
    };
  }
  const status = record.status;
  return {
    code:
      codeText(record.errorCode) ??
      (isRecord(status) ? codeText(status.code) : codeText(status)) ??
      codeText(record.code),
    message:
      text(record.errorMessage) ??
      text(record.message) ??
      (isRecord(status) ? text(status.message) : undefined) ??
      text(error),
    details: text(record.details),
  };
}

function fromXml(text: string): DecodedFields {
  let nodes: (TNode | string)[];
  try {
    // Up to the last tag's end: a body cut short (at MAX_DECODED_ERROR_BYTES, or by the
    // upstream) keeps its complete elements and loses the text of the one it cut. The
    // predefined entities and character references are decoded; a document's own entity
    // declarations are never expanded (their references stay as written).
    const whole = text.slice(0, text.lastIndexOf('>') + 1);
    nodes = parseXml(whole, { noChildNodes: [], decodeEntities: true });
  } catch {
    return {};
  }
  // The root element's name varies (`result`, `Message`, ...): look at whatever it is. A
  // declaration (`<?xml ...?>`) or a doctype is a node of its own, never the root.
  const root = nodes.find(
    (node): node is TNode => typeof node !== 'string' && /^[A-Za-z_]/.test(node.tagName),
  );
  return root ? fieldsOf(recordOf(root)) : {};
}

/**
 * An element as a record: each child element by name, its text when it has no element of its
 * own, else its record (the first of a repeated name wins). Attributes are not read.
 */
function recordOf(element: TNode): Record<string, unknown> {
  // No prototype: an element named __proto__ or constructor is only a member.
  const record: Record<string, unknown> = Object.create(null);
  for (const child of element.children) {
    if (typeof child === 'string' || Object.hasOwn(record, child.tagName)) continue;
    const nested = child.children.some((node) => typeof node !== 'string');
    record[child.tagName] = nested ? recordOf(child) : child.children.join('');
  }
  return record;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, MAX_TEXT) : undefined;
}

function codeText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return text(value);
}
