import { createHash } from 'crypto';
import { RESOURCES_FOLDER } from './format';

/**
 * Content-addressed blobs for the archive: `resources/<sha1>.<ext>`, the way
 * Playwright names them, so identical bytes (the same image twice, an
 * unchanged screencast frame) are stored once.
 */
export class ResourceStore {
  private readonly blobs = new Map<string, Buffer>();

  put(bytes: Buffer, mimeTypeOrExt: string): string {
    const sha1 = createHash('sha1').update(bytes).digest('hex');
    const ext = extensionFor(mimeTypeOrExt);
    const path = `${RESOURCES_FOLDER}${sha1}${ext ? '.' + ext : ''}`;
    if (!this.blobs.has(path)) this.blobs.set(path, bytes);
    return path;
  }

  has(path: string): boolean {
    return this.blobs.has(path);
  }

  entries(): IterableIterator<[string, Buffer]> {
    return this.blobs.entries();
  }

  get size(): number {
    return this.blobs.size;
  }
}

const EXTENSIONS: Record<string, string> = {
  'text/html': 'html',
  'text/css': 'css',
  'text/javascript': 'js',
  'application/javascript': 'js',
  'application/json': 'json',
  'text/plain': 'txt',
  'image/svg+xml': 'svg',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/x-icon': 'ico',
  'font/woff2': 'woff2',
  'font/woff': 'woff',
  'font/ttf': 'ttf',
  'font/otf': 'otf',
};

function extensionFor(mimeTypeOrExt: string): string {
  const mime = mimeTypeOrExt.split(';')[0].trim().toLowerCase();
  if (!mime.includes('/')) return mime.replace(/[^a-z0-9]/g, '');
  return EXTENSIONS[mime] ?? 'dat';
}
