import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string (its UTF-8) or bytes: how the server stores tokens and keys, and names cache inputs. */
export const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');
