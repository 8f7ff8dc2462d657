// Byte helpers that work without Node's Buffer (Workers, Deno, browsers) and use it when present,
// because Buffer's base64/hex codecs are native and several times faster than atob loops.

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
const encoder = new TextEncoder();

export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const HEX = /^[0-9a-fA-F]*$/;

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The raw body as bytes: strings are taken as their UTF-8 encoding. */
export function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? utf8(body) : body;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Strict base64 (standard alphabet, optional padding); undefined when the text is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text) || text.length % 4 === 1) return undefined;
  if (NodeBuffer) return NodeBuffer.from(text, 'base64');
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Hex of even length; undefined otherwise. */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0) return undefined;
  if (NodeBuffer) {
    // Buffer stops decoding at the first pair that is not hex, so a short result means invalid.
    const bytes = NodeBuffer.from(text, 'hex');
    return bytes.length * 2 === text.length ? bytes : undefined;
  }
  if (!HEX.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/**
 * Compares two byte strings in time that depends only on their length. Lengths are public (a
 * SHA-256 MAC is always 32 bytes), so an early return on a length mismatch leaks nothing.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
