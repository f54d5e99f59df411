/**
 * Writes that cannot escape evidence/ or clobber a file.
 *
 * Containment (containment.ts) judges a path; between that judgement and the
 * write, a concurrent actor could swap a folder for a link. So the writer
 * pins the target folder: it walks down from <root>/evidence one component at
 * a time with O_NOFOLLOW|O_DIRECTORY, keeps the final folder open, and does
 * every later operation through that open descriptor (/proc/self/fd/N/...),
 * so a swapped path no longer changes where the bytes go. Bytes go to a
 * temporary file created exclusively (O_EXCL|O_NOFOLLOW) in that folder; the
 * folder's location is checked again; then the temporary file is linked into
 * place (link() refuses an existing name, so `overwrite: false` never
 * replaces a file that appeared meanwhile) or renamed over it (overwrite).
 * Nothing is left behind on failure.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as crypto from 'crypto';
import { CONTAINMENT_MESSAGES, type ResolvedArtifact } from './containment';
import { writeFailure } from '../common/failures';
import { EvidenceError } from '../common/errors';

export type WriteRefusalCode = 'exists' | 'symlink_escape' | 'not_a_file' | 'io';

export class WriteRefusal extends EvidenceError<WriteRefusalCode> {
  constructor(code: WriteRefusalCode, message: string) {
    super(code, message);
    this.name = 'WriteRefusal';
  }
}

export function existsMessage(absolutePath: string): string {
  return `artifact already exists: ${absolutePath} (pass overwrite=true to replace)`;
}

export function existingOtherMessage(absolutePath: string): string {
  return `artifact path names an existing folder or special file: ${absolutePath}`;
}

/** The containment wording of a link escape, with what the writer saw happen. */
function escapeRefusal(seen?: string): WriteRefusal {
  return new WriteRefusal('symlink_escape', seen ? `${CONTAINMENT_MESSAGES.symlink_escape} (${seen})` : CONTAINMENT_MESSAGES.symlink_escape);
}

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const PROC_FD = '/proc/self/fd';
const canPin = process.platform === 'linux' && fs.existsSync(PROC_FD);

/** fs.writeSync may write less than asked (a nearly full disk); loop until every byte is down. */
function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent + path.sep);
}

/**
 * The leaf's first code points, at most 200 UTF-8 bytes: a leaf near the
 * 255-byte name limit (multi-byte names reach it well before 180 characters)
 * must still leave room for the temporary name's suffix.
 */
function tempStem(leaf: string): string {
  let stem = '';
  for (const ch of leaf) {
    if (Buffer.byteLength(stem + ch) > 200) break;
    stem += ch;
  }
  return stem;
}

interface Staged {
  leaf: string;
  tempName: string;
  /** Open until its flush to disk finished (the flush's callback closes it). */
  fd: number;
  /** Settled once the bytes are on disk (or the flush failed: `error`). */
  flush: Promise<void>;
  done: boolean;
  error?: unknown;
}

/**
 * One artifact group (an artifact and, for screenshots, its sidecar) written
 * into one folder: stage each file, then commit all or discard all.
 */
export class ArtifactWriter {
  private dirFd: number | null = null;
  private dirPath: string;
  private readonly staged: Staged[] = [];
  private closed = false;

  private constructor(
    private readonly evidenceRoot: string,
    dirPath: string,
    private readonly artifactPath: string,
  ) {
    this.dirPath = dirPath;
  }

  /**
   * Opens (creating as needed) the artifact's folder under evidence/, refusing
   * any link on the way. `artifactPath` is how failures name the artifact: the
   * caller's own path, never the descriptor path the writer works through.
   */
  static open(target: ResolvedArtifact, artifactPath: string = target.path): ArtifactWriter {
    const folder = path.join(target.evidenceRoot, ...target.folderSegments);
    const writer = new ArtifactWriter(target.evidenceRoot, folder, artifactPath);
    writer.asWriteFailure(() => {
      if (canPin) writer.pinFolder(target.folderSegments);
      else writer.checkFolderByPath(target.folderSegments);
    });
    return writer;
  }

  /** Runs a file-system step; a system error becomes a WriteRefusal worded by the failure table. */
  private asWriteFailure<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      if (err instanceof WriteRefusal) throw err;
      throw new WriteRefusal('io', writeFailure(err, this.artifactPath));
    }
  }

  private pinFolder(segments: string[]): void {
    const openDir = (p: string, create: boolean): number => {
      try {
        return fs.openSync(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && create) {
          try {
            fs.mkdirSync(p);
          } catch (mkErr) {
            if ((mkErr as NodeJS.ErrnoException).code !== 'EEXIST') throw mkErr;
          }
          return openDir(p, false);
        }
        if (code === 'ELOOP' || code === 'ENOTDIR') {
          throw escapeRefusal('a folder on the way was replaced by a link or a file');
        }
        throw err;
      }
    };
    // Anchor at the run root (evidence/'s parent, a real path when containment judged it): if it or an
    // ancestor was swapped for a link since, refuse before creating evidence/ wherever the link leads.
    const runRoot = path.dirname(this.evidenceRoot);
    const rootFd = openDir(runRoot, false);
    let fd: number;
    try {
      if (fs.readlinkSync(`${PROC_FD}/${rootFd}`) !== runRoot) {
        throw escapeRefusal('the run root was replaced by a link');
      }
      fd = openDir(`${PROC_FD}/${rootFd}/${path.basename(this.evidenceRoot)}`, true);
    } finally {
      fs.closeSync(rootFd);
    }
    try {
      for (const segment of segments) {
        const child = openDir(`${PROC_FD}/${fd}/${segment}`, true);
        fs.closeSync(fd);
        fd = child;
      }
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    this.dirFd = fd;
    this.verifyFolder();
  }

  private checkFolderByPath(segments: string[]): void {
    let current = this.evidenceRoot;
    for (const segment of ['', ...segments]) {
      current = segment ? path.join(current, segment) : current;
      try {
        if (fs.lstatSync(current).isSymbolicLink()) throw escapeRefusal();
      } catch (err) {
        if (err instanceof WriteRefusal) throw err;
        fs.mkdirSync(current);
      }
    }
  }

  /** The pinned folder must still sit under evidence/ (it may have been moved since it was opened). */
  private verifyFolder(): void {
    if (this.dirFd === null) return;
    const where = fs.readlinkSync(`${PROC_FD}/${this.dirFd}`);
    if (!isInside(where, this.evidenceRoot)) {
      throw escapeRefusal('the target folder moved outside it');
    }
  }

  private entry(name: string): string {
    return this.dirFd === null ? path.join(this.dirPath, name) : `${PROC_FD}/${this.dirFd}/${name}`;
  }

  /**
   * Writes `bytes` to an exclusive temporary file beside `leaf` and starts
   * its flush to disk on the thread pool, so the event loop (the capture's
   * protocol traffic, the server's other calls) does not wait for the disk.
   */
  stage(leaf: string, bytes: Buffer | string): void {
    if (this.closed) throw new Error('ArtifactWriter already closed');
    const tempName = `.${tempStem(leaf)}.${crypto.randomBytes(6).toString('hex')}.partial`;
    this.asWriteFailure(() => {
      const fd = fs.openSync(this.entry(tempName), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
      const file = { leaf, tempName, fd, done: false } as Staged;
      this.staged.push(file);
      try {
        writeAll(fd, typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
      } catch (err) {
        fs.closeSync(fd);
        file.done = true;
        file.flush = Promise.resolve();
        throw err;
      }
      file.flush = new Promise<void>((resolve) =>
        fs.fsync(fd, (err) => {
          // The callback runs on the main thread, as commit does: until it has run, the descriptor is open.
          file.done = true;
          if (err) file.error = err;
          fs.close(fd, () => resolve());
        }),
      );
    });
  }

  /**
   * Resolves once every staged file is on disk. A failed flush discards the
   * group and rejects with the failure table's wording (a WriteRefusal).
   */
  async flushed(): Promise<void> {
    await Promise.all(this.staged.map((file) => file.flush));
    const failed = this.staged.find((file) => file.error);
    if (failed) {
      const error = failed.error;
      this.discard();
      throw new WriteRefusal('io', writeFailure(error, this.artifactPath));
    }
  }

  /** Flushes, on this thread, what is not on disk yet (a commit without `await flushed()` first). */
  private flushRest(): void {
    for (const file of this.staged) {
      if (file.error) throw file.error;
      if (!file.done) fs.fsyncSync(file.fd);
    }
  }

  /**
   * Moves every staged file into place. Without overwrite an existing name
   * (even one that appeared after the early check) refuses the whole group;
   * files this commit already placed are removed again.
   */
  commit(overwrite: boolean): string[] {
    const placed: string[] = [];
    try {
      this.flushRest();
      this.verifyFolder();
      for (const file of this.staged) {
        const finalEntry = this.entry(file.leaf);
        const absolute = path.join(this.dirPath, file.leaf);
        try {
          const st = fs.lstatSync(finalEntry);
          if (!overwrite) throw new WriteRefusal('exists', existsMessage(absolute));
          if (!st.isFile() && !st.isSymbolicLink()) {
            throw new WriteRefusal('not_a_file', existingOtherMessage(absolute));
          }
        } catch (err) {
          if (err instanceof WriteRefusal) throw err;
        }
        if (overwrite) {
          fs.renameSync(this.entry(file.tempName), finalEntry);
        } else {
          try {
            fs.linkSync(this.entry(file.tempName), finalEntry);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new WriteRefusal('exists', existsMessage(absolute));
            throw err;
          }
          fs.unlinkSync(this.entry(file.tempName));
        }
        placed.push(file.leaf);
      }
      return this.staged.map((f) => path.join(this.dirPath, f.leaf));
    } catch (err) {
      for (const leaf of placed) {
        try {
          fs.unlinkSync(this.entry(leaf));
        } catch {
          /* already gone */
        }
      }
      this.discard();
      throw err instanceof WriteRefusal ? err : new WriteRefusal('io', writeFailure(err, this.artifactPath));
    } finally {
      this.close();
    }
  }

  /** Removes every staged temporary file. */
  discard(): void {
    for (const file of this.staged) {
      try {
        fs.unlinkSync(this.entry(file.tempName));
      } catch {
        /* renamed or already gone */
      }
    }
    this.staged.length = 0;
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.dirFd !== null) {
      try {
        fs.closeSync(this.dirFd);
      } catch {
        /* ignore */
      }
      this.dirFd = null;
    }
  }
}
