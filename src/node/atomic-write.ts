import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';

/**
 * Writes a file so that readers see either the old content or the whole new one:
 * the data goes to a temporary file beside the target, then is renamed over it.
 * The temporary file is created exclusively (`wx`), so a name that someone else has
 * taken (a file, or a link planted in a shared folder) fails the write instead of
 * being written through; its random part needs no cryptographic source for that.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  try {
    await writeFile(tmp, data, { flag: 'wx' });
  } catch (e) {
    // Not ours to remove when it was there before.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') await rm(tmp, { force: true });
    throw e;
  }
  try {
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
