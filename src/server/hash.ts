import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string: how the server stores tokens and keys, and names cache inputs. */
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
