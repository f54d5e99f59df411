/** Whether a path names a regular file or a folder (links followed); false when it names nothing or cannot be read. */
import * as fs from 'fs';

export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
